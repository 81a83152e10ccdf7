"""Tests of the supervised link classifier: its pieces against oracles, and a fit end to end."""

from __future__ import annotations

import numpy as np
import pytest

from services.paraphrase.link_classifier import LinkClassifier, decide_links
from services.paraphrase.link_features import (
    CONTEXT_FEATURES,
    STATIC_FEATURES,
    GoldLexicon,
    context_features,
    static_features,
)
from services.paraphrase.word_align import WordAligner
from services.paraphrase.wordnet import default_wordnet
from shared.errors import InvalidInput

# Gold: identical words, plus announced ~ revealed and "passed away" ~ "died" blocks.
EXAMPLES = [
    ("she announced the results", "she revealed the results", {(0, 0), (1, 1), (2, 2), (3, 3)}),
    ("he announced a plan", "he revealed a plan", {(0, 0), (1, 1), (2, 2), (3, 3)}),
    ("they announced the deal", "they revealed the deal", {(0, 0), (1, 1), (2, 2), (3, 3)}),
    ("the man passed away", "the man died", {(0, 0), (1, 1), (2, 2), (3, 2)}),
    ("his dog passed away", "his dog died", {(0, 0), (1, 1), (2, 2), (3, 2)}),
    (
        "the cat sat on the mat",
        "a cat was sitting on the mat",
        {(1, 1), (2, 3), (3, 4), (4, 5), (5, 6)},
    ),
    (
        "the dog sat on the rug",
        "a dog was sitting on the rug",
        {(1, 1), (2, 3), (3, 4), (4, 5), (5, 6)},
    ),
    ("we announced it", "we revealed it", {(0, 0), (1, 1), (2, 2)}),
]
PAIRS = [(s.split(), t.split(), links) for s, t, links in EXAMPLES]


@pytest.fixture(scope="module")
def aligner() -> WordAligner:
    return WordAligner().fit([(s, t) for s, t, _ in PAIRS])


def test_feature_shapes(aligner: WordAligner) -> None:
    source, target, _ = PAIRS[3]
    static = static_features(aligner, source, target, GoldLexicon(), None)
    assert static.shape == (len(source), len(target), len(STATIC_FEATURES))
    identical = static[:, :, STATIC_FEATURES.index("identical")]
    assert identical[0, 0] == 1.0 and identical[3, 2] == 0.0
    stage1 = np.full((len(source), len(target)), 0.5)
    assert context_features(stage1).shape == (len(source), len(target), len(CONTEXT_FEATURES))


def test_fit_reproduces_training_gold_and_round_trips(aligner: WordAligner) -> None:
    model = LinkClassifier.fit(aligner, PAIRS, use_wordnet=False)
    correct = sum(len(model.align(aligner, s, t) & links) for s, t, links in PAIRS)
    predicted = sum(len(model.align(aligner, s, t)) for s, t, _ in PAIRS)
    gold = sum(len(links) for _, _, links in PAIRS)
    assert correct / predicted > 0.9 and correct / gold > 0.9
    restored = LinkClassifier.from_json(model.to_json())
    for s, t, _ in PAIRS:
        assert np.allclose(
            restored.probabilities(aligner, s, t), model.probabilities(aligner, s, t)
        )
    assert model.with_threshold(1.1).align(aligner, *PAIRS[0][:2]) == set()
    split = model.with_threshold(1.1, identical_threshold=0.0)
    assert LinkClassifier.from_json(split.to_json()) == split
    source, target, _ = PAIRS[0]
    # only identical words are linked: every one of them, nothing else
    assert split.align(aligner, source, target) == {(0, 0), (2, 2), (3, 3)}


def test_probabilities_of_an_empty_side_are_an_empty_matrix(aligner: WordAligner) -> None:
    # it raised a bare ValueError (a max over a row of nothing); align() guarded, it did not
    model = LinkClassifier.fit(aligner, PAIRS, use_wordnet=False)
    source, target, _ = PAIRS[0]
    for empty_source, empty_target in ((source, []), ([], target), ([], [])):
        probabilities = model.probabilities(aligner, empty_source, empty_target)
        assert probabilities.shape == (len(empty_source), len(empty_target))
        assert model.align(aligner, empty_source, empty_target) == set()


def test_decide_links_uses_the_identical_threshold_on_identical_words_only() -> None:
    probabilities = np.array([[0.4, 0.6], [0.3, 0.35]])
    source, target = ["The", "cat"], ["the", "dog"]
    assert decide_links(probabilities, source, target, 0.5) == {(0, 1)}
    assert decide_links(probabilities, source, target, 0.5, 0.35) == {(0, 0), (0, 1)}
    assert decide_links(probabilities, source, target, 0.3, 0.45) == {(0, 1), (1, 0), (1, 1)}


def test_errors(aligner: WordAligner) -> None:
    with pytest.raises(InvalidInput):
        LinkClassifier.fit(aligner, [], use_wordnet=False)
    with pytest.raises(InvalidInput):
        LinkClassifier.from_json('{"static_features": []}')


def test_wordnet_features_mark_synonyms_and_two_word_lemmas(aligner: WordAligner) -> None:
    wordnet = default_wordnet()
    if wordnet is None:
        pytest.skip("WordNet 3.0 is absent: apt-get install wordnet-base (/usr/share/wordnet)")
    source = ["the", "man", "passed", "away", "after", "he", "bought", "it"]
    target = ["the", "man", "died", "purchased"]
    static = static_features(aligner, source, target, GoldLexicon(), wordnet)
    phrase = static[:, :, STATIC_FEATURES.index("wordnet_phrase")]
    synonym = static[:, :, STATIC_FEATURES.index("wordnet_synonym")]
    assert phrase[2, 2] == 1.0 and phrase[3, 2] == 1.0 and phrase[1, 2] == 0.0
    assert synonym[6, 3] == 1.0  # bought ~ purchased
    assert synonym[0, 0] == 0.0  # identical words are not counted again


def test_pairs_scored_together_get_what_each_gets_alone(aligner: WordAligner) -> None:
    model = LinkClassifier.fit(aligner, PAIRS, use_wordnet=False)
    pairs = [(s, t) for s, t, _ in PAIRS] + [(PAIRS[0][0], []), ([], [])]
    together = model.probabilities_of_pairs(aligner, pairs)
    alone = [model.probabilities(aligner, s, t) for s, t in pairs]
    assert [p.shape for p in together] == [(len(s), len(t)) for s, t in pairs]
    assert all(np.allclose(a, b) for a, b in zip(together, alone, strict=True))
    assert model.align_pairs(aligner, pairs) == [model.align(aligner, s, t) for s, t in pairs]
    assert model.probabilities_of_pairs(aligner, []) == []
