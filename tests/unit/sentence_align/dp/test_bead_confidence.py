"""Bead confidence: posterior probabilities by forward-backward, against exhaustive sums."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.sentence_align.aligners.align import align_segments, align_sentences
from services.sentence_align.aligners.beads import Bead, format_bead, parse_bead
from services.sentence_align.aligners.length import LengthModel, run_dp
from services.sentence_align.dp import banded as dp
from services.sentence_align.mining.records import bead_score
from shared.errors import InvalidInput
from tests.unit.sentence_align.aligners.test_length import all_paths

lengths = st.lists(st.integers(1, 60), min_size=0, max_size=4)
models = st.builds(
    LengthModel.with_shapes,
    st.builds(LengthModel, st.floats(0.6, 1.6), st.floats(1.0, 10.0)),
    st.integers(2, 5),
    st.floats(0.5, 5.0),
)


def extra_costs(
    band: tuple[np.ndarray, np.ndarray], n_shapes: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Random extra (lexical-like) costs per band cell and shape, some of them negative."""
    low, high = band
    row_first = np.concatenate([[0], np.cumsum(high - low + 1)[:-1]]).astype(np.int64)
    cells = int((high - low + 1).sum())
    return np.random.default_rng(seed).normal(0.0, 4.0, (cells, n_shapes)), row_first


def path_cost(
    path: list[tuple[int, int, int]],
    cums: tuple[np.ndarray, np.ndarray],
    model: LengthModel,
    extra: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> float:
    """Summed bead cost, written out from the definitions (shape prior, length, extra)."""
    src_cum, tgt_cum = cums
    table, row_first, low = extra
    total = 0.0
    for i, j, shape in path:
        a, b = model.shapes[shape]
        total += model.shape_cost[shape]
        total += dp.length_cost(
            src_cum[i] - src_cum[i - a], tgt_cum[j] - tgt_cum[j - b], model.ratio, model.variance
        )
        total += table[row_first[i] + j - low[i], shape]
    return total


def exhaustive_posteriors(
    src: list[int],
    tgt: list[int],
    model: LengthModel,
    band: tuple[np.ndarray, np.ndarray],
    extra: tuple[np.ndarray, np.ndarray],
    temperature: float,
) -> dict[tuple[int, int, int], float]:
    """Pr(bead) = sum of exp(-cost / T) over the band's paths containing it / over all paths."""
    cums = (np.cumsum([0, *src]), np.cumsum([0, *tgt]))
    low, high = band
    weights: list[tuple[list[tuple[int, int, int]], float]] = []
    for path in all_paths(len(src), len(tgt), model.shapes):
        if any(not low[i] <= j <= high[i] for i, j, _ in path):
            continue
        cost = path_cost(path, cums, model, (*extra, low))
        weights.append((path, -cost / temperature))
    log_z = max(weight for _, weight in weights)
    total = sum(math.exp(weight - log_z) for _, weight in weights)
    posterior: dict[tuple[int, int, int], float] = {}
    for path, weight in weights:
        for bead in path:
            posterior[bead] = posterior.get(bead, 0.0) + math.exp(weight - log_z) / total
    return posterior


@given(
    lengths,
    lengths,
    models,
    st.integers(0, 3),
    st.floats(0.3, 3.0),
    st.integers(0, 2**31),
)
def test_path_posteriors_equal_exhaustive_sums_over_paths(
    src: list[int],
    tgt: list[int],
    model: LengthModel,
    half_width: int,
    temperature: float,
    seed: int,
) -> None:
    band = dp.diagonal_band(len(src), len(tgt), half_width)
    table, row_first = extra_costs(band, len(model.shapes), seed)
    src_cum = np.cumsum([0, *src]).astype(np.int64)
    tgt_cum = np.cumsum([0, *tgt]).astype(np.int64)
    lattice = (
        src_cum, tgt_cum, *band, np.asarray(model.shape_cost), model.ratio, model.variance,
        np.ones(len(model.shapes)), table, row_first, *dp.shape_arrays(model.shapes),
    )  # fmt: skip
    cells, _, _ = dp.banded_dp(*lattice)
    posteriors = dp.path_posteriors(*lattice, cells, temperature)
    expected = exhaustive_posteriors(src, tgt, model, band, (table, row_first), temperature)
    for (i, j, shape), value in zip(cells.tolist(), posteriors.tolist(), strict=True):
        assert value == pytest.approx(expected[(i, j, shape)], rel=1e-7, abs=1e-12)


def test_the_only_path_is_certain() -> None:
    # One shape (1-1) and as many sentences on both sides: a single segmentation.
    model = LengthModel(1.0, 6.8, shapes=((1, 1),), shape_cost=(0.1,))
    cums = np.cumsum([0, 10, 40, 25]).astype(np.int64), np.cumsum([0, 12, 30, 31]).astype(np.int64)
    beads = run_dp(*cums, model, dp.full_band(3, 3), confidence=True)
    assert [bead.confidence for bead in beads] == pytest.approx([1.0, 1.0, 1.0])


def test_an_ambiguous_split_shares_the_probability() -> None:
    # Source 20 + 20 against target 40: one 2-1 bead, or 1-1 and 1-0 either way round.
    model = LengthModel(1.0, 6.8)
    cums = np.array([0, 20, 40], dtype=np.int64), np.array([0, 40], dtype=np.int64)
    beads = run_dp(*cums, model, dp.full_band(2, 1), confidence=True)
    assert [bead.shape for bead in beads] == [(2, 1)]
    assert beads[0].confidence is not None
    assert 0.5 < beads[0].confidence < 1.0  # 2-1 wins, but the other paths keep some weight


def test_run_dp_without_confidence_leaves_it_unset() -> None:
    model = LengthModel(1.0, 6.8)
    cums = np.array([0, 20], dtype=np.int64), np.array([0, 22], dtype=np.int64)
    assert run_dp(*cums, model, dp.full_band(1, 1))[0].confidence is None


def made_up_document() -> tuple[list[str], list[str]]:
    words = [f"wort{k}" for k in range(60)]
    src = [" ".join(words[k : k + 6]) + " ." for k in range(0, 54, 3)]
    tgt = [" ".join(f"{word}e" for word in sentence.split()[:-1]) + " ." for sentence in src]
    tgt.insert(4, "Seite 12")
    return src, tgt


@pytest.mark.parametrize("method", ["lexicon", "hybrid"])
def test_lexical_aligners_give_every_bead_a_confidence(method: str) -> None:
    src, tgt = made_up_document()
    beads = align_sentences(src, tgt, method=method)
    confidences = [bead.confidence for bead in beads]
    assert all(value is not None and 0.0 <= value <= 1.0 for value in confidences)
    # Where the inserted page line (target 4) could go, the beads are less certain than
    # anywhere else; clean translations far from it are near certain.
    near = [bead.confidence for bead in beads if set(bead.tgt) & {3, 4, 5}]
    far = [bead.confidence for bead in beads if bead.tgt and min(bead.tgt) >= 8]
    assert max(near) < min(far)  # type: ignore[type-var]
    assert min(far) > 0.95  # type: ignore[type-var]


def test_segments_with_one_empty_side_are_certain_deletions() -> None:
    src, tgt = made_up_document()
    aligned = align_segments([(src[:5], tgt[:6]), (src[5:8], []), (src[8:], tgt[6:])])
    assert [bead.confidence for bead in aligned[1]] == [1.0, 1.0, 1.0]
    assert all(bead.confidence is not None for beads in aligned for bead in beads)


def test_length_and_anchors_give_no_confidence() -> None:
    src, tgt = made_up_document()
    for method in ("length", "anchors"):
        assert all(bead.confidence is None for bead in align_sentences(src, tgt, method=method))
        # not even where one side is empty, so their text output keeps two columns
        one_sided = align_sentences(src[:3], [], method=method)
        assert [bead.src for bead in one_sided] == [(0,), (1,), (2,)]
        assert all(bead.confidence is None for bead in one_sided)


@pytest.mark.parametrize("method", ["lexicon", "hybrid"])
def test_one_sided_input_is_certain_for_the_lexical_aligners(method: str) -> None:
    beads = align_sentences([], ["Seite 12", "Bild 3"], method=method)
    assert [(bead.tgt, bead.confidence) for bead in beads] == [((0,), 1.0), ((1,), 1.0)]


def test_bead_text_carries_the_confidence() -> None:
    bead = Bead((0, 1), (2,), 3.5, 0.875)
    text = format_bead(bead)
    assert text == "[0, 1]:[2]\t3.500000\t0.8750"
    parsed = parse_bead(text)
    assert (parsed, parsed.confidence) == (bead, 0.875)
    assert parse_bead("[0]:[1]\t2.0").confidence is None
    assert format_bead(Bead((0,), (1,), 2.0)) == "[0]:[1]\t2.000000"


@pytest.mark.parametrize(
    "line", ["[0]:[1]\t1.0\t1.5", "[0]:[1]\t1.0\t0.5\t0.2", "[0]:[1]\t1.0\tsure"]
)
def test_bad_confidence_is_rejected(line: str) -> None:
    with pytest.raises(InvalidInput):
        parse_bead(line)


def test_pair_score_is_the_confidence_when_there_is_one() -> None:
    assert bead_score(Bead((0,), (0,), -40.0, 0.62)) == 0.62
    assert bead_score(Bead((0,), (0,), 2.0)) == pytest.approx(math.exp(-2.0))
    assert bead_score(Bead((0,), (0,), -3.0)) == 1.0
