"""Tests of the shipped word model: the identity rule, training, the model file, the limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.paraphrase import word_model
from services.paraphrase.evaluate import GoldAlignment, read_jacana, word_scores
from services.paraphrase.word_model import (
    MAX_PAIR_TOKENS,
    VERSION,
    WordModel,
    identity_links,
    load_word_model,
    train_word_model,
    with_identity_rule,
)
from shared.errors import InvalidInput
from tests.conftest import kit_path
from tests.unit.paraphrase.test_link_classifier import EXAMPLES


def _gold(rows: list[tuple[str, str, set[tuple[int, int]]]]) -> list[GoldAlignment]:
    return [
        GoldAlignment(tuple(s.split()), tuple(t.split()), frozenset(x), frozenset(x))
        for s, t, x in rows
    ]


@pytest.fixture(scope="module")
def small_model() -> WordModel:
    return train_word_model(
        [("a", _gold(EXAMPLES[:4])), ("b", _gold(EXAMPLES[4:]))], use_wordnet=False
    )


words = st.lists(st.sampled_from(["a", "A", "b", "c", "the", "The", "."]), max_size=8)


@given(words, words)
def test_identity_links_are_one_to_one_identical_and_maximal(
    source: list[str], target: list[str]
) -> None:
    links = identity_links(source, target)
    assert all(source[i].lower() == target[j].lower() for i, j in links)
    assert len({i for i, _ in links}) == len({j for _, j in links}) == len(links)
    free_s = set(range(len(source))) - {i for i, _ in links}
    free_t = set(range(len(target))) - {j for _, j in links}
    # maximal: no identical pair with both words still free
    assert not any(source[i].lower() == target[j].lower() for i in free_s for j in free_t)


@given(words, words, st.sets(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=6))
def test_identity_rule_only_adds_identity_links_of_free_words(
    source: list[str], target: list[str], links: set[tuple[int, int]]
) -> None:
    links = {(i, j) for i, j in links if i < len(source) and j < len(target)}
    result = with_identity_rule(links, source, target)
    added = result - links
    assert links <= result
    assert added <= identity_links(source, target)
    assert not {i for i, _ in added} & {i for i, _ in links}
    assert not {j for _, j in added} & {j for _, j in links}


def test_trained_model_round_trips_and_aligns(small_model: WordModel) -> None:
    restored = WordModel.from_json(small_model.to_json())
    assert restored == small_model
    names = dict(small_model.cross_validation)
    assert {"threshold", "identical_threshold", "cv_f1 a", "cv_f1 b"} <= set(names)
    pairs = [(s.split(), t.split()) for s, t, _ in EXAMPLES]
    links = small_model.align_corpus(pairs)
    assert len(links) == len(pairs)
    # the identical words of "she announced the results" ~ "she revealed the results"
    assert {(0, 0), (2, 2), (3, 3)} <= links[0]


def test_empty_sides_and_overlong_pairs_are_bounded(small_model: WordModel) -> None:
    long = [f"w{k}" for k in range(10_000)]
    pairs = [([], ["a"]), (["a"], []), (long, long[::-1]), (["the", "cat"], ["the", "cat"])]
    links = small_model.align_corpus(pairs)
    assert links[0] == links[1] == set()
    assert links[2] == identity_links(long, long[::-1])
    assert len(links[2]) == 10_000
    assert {(0, 0), (1, 1)} <= links[3]
    # only overlong pairs: identity links, no HMM to train
    assert small_model.align_corpus([(long, long)]) == [identity_links(long, long)]
    assert MAX_PAIR_TOKENS < 10_000


def test_training_without_gold_is_refused() -> None:
    with pytest.raises(InvalidInput, match="no gold-aligned pair"):
        train_word_model([("empty", [])], use_wordnet=False)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a paramine word model"),
        ('{"format": "something-else", "version": 1}', "not a paramine word model"),
        ('{"format": "paramine-word-model", "version": 999}', "version 999 is not supported"),
        # a model of the logistic stages (before the boosted trees)
        ('{"format": "paramine-word-model", "version": 1}', "version 1 is not supported"),
        (f'{{"format": "paramine-word-model", "version": {VERSION}}}', "malformed word model"),
    ],
)
def test_malformed_model_files_are_refused(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        load_word_model(path)


def test_a_missing_or_cut_model_file_is_refused(small_model: WordModel, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cannot read word model"):
        load_word_model(tmp_path / "absent.json")
    cut = tmp_path / "cut.json"
    cut.write_text(small_model.to_json()[:200], encoding="utf-8")
    with pytest.raises(InvalidInput, match="malformed word model"):
        load_word_model(cut)
    state = json.loads(small_model.to_json())
    del state["classifier"]["stage2"]
    cut.write_text(json.dumps(state), encoding="utf-8")
    with pytest.raises(InvalidInput, match="malformed"):
        load_word_model(cut)


def test_without_wordnet_the_model_runs_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    model = load_word_model()
    assert model.classifier.uses_wordnet
    # the system package absent: default_wordnet() finds no /usr/share/wordnet
    monkeypatch.setattr(word_model, "default_wordnet", lambda: None)
    assert "WordNet is not installed" in (model.missing_features() or "")
    links = model.align_corpus([(["the", "man", "passed", "away"], ["the", "man", "died"])])
    assert {(0, 0), (1, 1)} <= links[0]


def test_the_shipped_model_is_current() -> None:
    model = load_word_model()
    assert json.loads(model.to_json())["version"] == VERSION
    assert any("edinburgh" in name or "gold.train" in name for name in model.trained_on)
    assert any("RTE2_dev" in name for name in model.trained_on)


def _identity_f1(gold: list[GoldAlignment]) -> float:
    return word_scores([identity_links(g.source, g.target) for g in gold], gold).f1


@pytest.mark.parametrize(
    ("sure", "possible"),
    [
        (
            "edinburgh-plusplus-jacana/gold.test.sure.json",
            "edinburgh-plusplus-jacana/gold.test.sure+poss.json",
        ),
        (
            "msr-rte2006-alignment-dev/RTE2_dev_M.align.json",
            "msr-rte2006-alignment-dev/RTE2_dev_M.align.sure+poss.json",
        ),
    ],
)
def test_the_shipped_model_is_above_the_identity_baseline(sure: str, possible: str) -> None:
    """On Edinburgh++ test (never trained on) and MSR RTE2 dev (trained on; its
    cross-validated figures are in benchmarks/results/word_align.md)."""
    gold = read_jacana(kit_path(sure), kit_path(possible))
    links = load_word_model().align_corpus([(g.source, g.target) for g in gold])
    assert word_scores(links, gold).f1 > _identity_f1(gold) + 0.03
