"""Tests of the tree model: text cost golden values, JSON round trip, initial model."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tree_align.model import (
    MODEL_FORMAT,
    LengthTextModel,
    TreeModel,
    default_model,
    initial_model,
)
from shared.errors import InvalidInput


def test_gale_church_tail_cost_golden_values() -> None:
    tail = LengthTextModel(background_mean=None)
    costs = tail.pair_costs(["x" * 10], ["y" * 10, "y" * 20])
    # delta = 0 -> -log(2 * (1 - Phi(0))) = 0; delta = 10 / sqrt(68) = 1.2127 -> 2(1-Phi) = 0.2254
    assert costs[0, 0] == pytest.approx(0.0, abs=1e-12)
    assert costs[0, 1] == pytest.approx(-math.log(0.22539), abs=1e-3)


def test_length_ratio_cost_golden_value() -> None:
    ratio = LengthTextModel(background_mean=60.0)
    cost = ratio.pair_costs(["a b c d e"], ["abcde"])[0, 0]  # 5 characters each, spaces ignored
    expected = 0.5 * math.log(2 * math.pi * 5 * 6.8) - (math.log(60.0) + 4 / 60)
    assert cost == pytest.approx(expected, abs=1e-12)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    model = initial_model(["div", "p"], same_tag_bonus=3.0, deletion=0.2)
    path = tmp_path / "model.json"
    model.save(path)
    loaded = TreeModel.load(path)
    assert loaded.labels == model.labels
    np.testing.assert_allclose(loaded.log_tag, model.log_tag, atol=1e-8)
    np.testing.assert_allclose(loaded.log_del_src, model.log_del_src, atol=1e-8)
    assert loaded.text_model == model.text_model


def test_load_rejects_other_files(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text('{"format": "something else"}')
    with pytest.raises(InvalidInput):
        TreeModel.load(path)


def test_initial_model_bonus_and_unknown_tags() -> None:
    model = initial_model(["div", "p"], same_tag_bonus=10.0)
    tag = np.exp(model.log_tag)
    np.testing.assert_allclose(tag.sum(axis=1), 1.0)
    index = model.label_index
    assert tag[index["p"], index["p"]] == pytest.approx(11 / (len(model.labels) + 10))
    assert model.label_ids(["blink"])[0] == index["<unk>"]


def test_shipped_default_model_loads() -> None:
    model = default_model()
    assert model.iterations >= 1
    assert "#text" in model.labels


def test_shared_anchor_tokens_lower_the_text_cost() -> None:
    from services.tree_align.model import shared_anchors

    counts = shared_anchors(["Piz Buin 1990 und SAC", "nichts"], ["Le Piz Buin en 1990", "SAC"])
    np.testing.assert_array_equal(counts, [[3, 1], [0, 0]])
    plain = LengthTextModel(anchor_weight=0.0).pair_costs(["Piz Buin 1990"], ["Piz Buin 1990"])
    anchored = LengthTextModel(anchor_weight=2.0).pair_costs(["Piz Buin 1990"], ["Piz Buin 1990"])
    assert anchored[0, 0] == pytest.approx(plain[0, 0] - 6.0)


def test_cognate_anchors_match_accent_folded_prefixes() -> None:
    from services.tree_align.model import anchor_tokens, shared_anchors

    assert anchor_tokens("Die Expedition 1956", cognates=True) == {"~expe", "1956", "Die"}
    counts = shared_anchors(
        ["Die Expedition erreichte 1956 den Gipfel"],
        ["L'expédition atteignit le sommet en 1956", "Rien"],
        cognates=True,
    )
    np.testing.assert_array_equal(counts, [[2, 0]])
    assert shared_anchors(["Die Expedition"], ["L'expédition"])[0, 0] == 0


def test_shared_anchors_count_the_intersections_of_the_token_sets() -> None:
    from services.tree_align.model import anchor_tokens, shared_anchors

    rng = np.random.default_rng(5)
    words = ["Bern", "1990", "Piz", "Gipfel", "expedition", "Expedition", "7b", "und", "SAC"]
    src = [" ".join(rng.choice(words, rng.integers(0, 6))) for _ in range(9)]
    tgt = [" ".join(rng.choice(words, rng.integers(0, 6))) for _ in range(7)]
    for cognates in (False, True):
        expected = [
            [len(anchor_tokens(s, cognates=cognates) & anchor_tokens(t, cognates=cognates))
             for t in tgt]
            for s in src
        ]  # fmt: skip
        np.testing.assert_array_equal(shared_anchors(src, tgt, cognates=cognates), expected)
        assert shared_anchors(src, [], cognates=cognates).shape == (9, 0)
        assert shared_anchors([], tgt, cognates=cognates).shape == (0, 7)


_WORDS = st.text(alphabet=st.sampled_from(list("aAbZzy19_")), min_size=1, max_size=6)
_SEPARATORS = st.sampled_from([" ", "-", ", ", "'", "\t", ""])


@settings(max_examples=500, derandomize=True, deadline=None)
@given(
    st.lists(st.tuples(_WORDS, _SEPARATORS), max_size=8).map(
        lambda parts: "".join(word + sep for word, sep in parts)
    )
    | st.text(st.characters(max_codepoint=127), max_size=40)
)
def test_ascii_cognate_anchors_match_the_general_scan(text: str) -> None:
    """The one-scan ASCII path gives the tokens of the accent-folding scans."""
    from services.tree_align.model import _anchor_tokens, _cognate_anchor_tokens

    _anchor_tokens.cache_clear()
    assert _anchor_tokens(text, True) == _cognate_anchor_tokens(text)


def test_small_probabilities_survive_a_save_and_load(tmp_path: Path) -> None:
    # rounded to 10 decimals, a trained Pr_del of 3e-11 was saved as 0.0 (a NaN decoder)
    model = initial_model(["div", "p"])
    log_del = model.log_del_src.copy()
    log_del[model.label_index["div"]] = math.log(3e-11)
    model = TreeModel(model.labels, model.log_tag, log_del, log_del.copy(), model.text_model)
    path = tmp_path / "model.json"
    model.save(path)
    loaded = TreeModel.load(path)
    assert np.exp(loaded.log_del_src[model.label_index["div"]]) == pytest.approx(3e-11, rel=1e-9)


def test_load_clamps_deletion_probabilities_of_zero_and_one(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    payload = {
        "format": MODEL_FORMAT, "labels": ["div", "<unk>"], "pr_tag": [[1.0, 0.0], [0.5, 0.5]],
        "pr_del_src": [0.0, 1.0], "pr_del_tgt": [0.3, 0.0],
    }  # fmt: skip
    path.write_text(json.dumps(payload))
    loaded = TreeModel.load(path)
    np.testing.assert_allclose(np.exp(loaded.log_del_src), [1e-12, 1 - 1e-12], rtol=1e-9)
    np.testing.assert_allclose(np.exp(loaded.log_del_tgt), [0.3, 1e-12], rtol=1e-9)
    assert np.isfinite(loaded.pair_cost_matrix()[1, 1])  # Pr_del 1 left "kept" possible


_GOOD = {
    "format": MODEL_FORMAT, "labels": ["<unk>"], "pr_tag": [[1.0]], "pr_del_src": [0.3],
    "pr_del_tgt": [0.3],
}  # fmt: skip
MALFORMED = {
    "missing pr_tag": {k: v for k, v in _GOOD.items() if k != "pr_tag"},
    "ragged pr_tag": {
        **_GOOD, "labels": ["a", "<unk>"], "pr_tag": [[1.0], [0.5, 0.5]],
        "pr_del_src": [0.3, 0.3], "pr_del_tgt": [0.3, 0.3],
    },
    "string probability": {**_GOOD, "pr_tag": [["x"]]},
    "text_model null": {**_GOOD, "text_model": None},
    "negative probability": {**_GOOD, "pr_del_src": [-0.3]},
    "probability above 1": {**_GOOD, "pr_del_tgt": [1.5]},
    "NaN probability": {**_GOOD, "pr_del_tgt": [float("nan")]},
    "row not summing to 1": {**_GOOD, "labels": ["a", "<unk>"], "pr_tag": [[0.5, 0.2], [0.5, 0.5]],
                             "pr_del_src": [0.3, 0.3], "pr_del_tgt": [0.3, 0.3]},
    "labels not a list": {**_GOOD, "labels": "<unk>"},
    "wrong shape": {**_GOOD, "pr_del_src": [0.3, 0.3]},
    "text_model field": {**_GOOD, "text_model": {"ratio": "fast"}},
    # accepted, then every alignment was "impossible" for a tag or deletion probability of 0
    "variance 0": {**_GOOD, "text_model": {"variance": 0}},
    "negative variance": {**_GOOD, "text_model": {"variance": -2.0}},
    "NaN ratio": {**_GOOD, "text_model": {"ratio": float("nan")}},
    "ratio 0": {**_GOOD, "text_model": {"ratio": 0}},
    "iterations true": {**_GOOD, "iterations": True},
    # a cost of -inf, then refused as "probability 0"
    "huge anchor weight": {**_GOOD, "text_model": {"anchor_weight": 1e308}},
    "tiny background mean": {**_GOOD, "text_model": {"background_mean": 1e-320}},
}  # fmt: skip


@pytest.mark.parametrize("case", MALFORMED)
def test_load_refuses_malformed_models_with_invalid_input(tmp_path: Path, case: str) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps(MALFORMED[case]))
    with pytest.raises(InvalidInput, match="model"):
        TreeModel.load(path)


def test_a_model_file_nested_too_deeply_is_invalid_input(tmp_path: Path) -> None:
    # RecursionError escaped the loader: a traceback instead of "cannot read tree model"
    path = tmp_path / "model.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidInput, match="nested too deeply"):
        TreeModel.load(path)


@pytest.mark.parametrize("weight", [-0.5, 1.5])
def test_a_smoothing_weight_outside_0_1_is_refused(weight: float) -> None:
    # the mix went negative: NaN in the written model, which could then not be loaded
    from services.tree_align.model import initial_model
    from services.tree_align.train import smooth

    prior = initial_model(["p", "<unk>"])
    with pytest.raises(InvalidInput, match=r"\[0, 1\]"):
        smooth(prior, prior, weight)
