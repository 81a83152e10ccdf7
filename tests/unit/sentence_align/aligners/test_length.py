"""Tests of the banded Gale-Church program: brute-force oracles and golden values."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import erfc

from services.sentence_align.aligners import length as length_module
from services.sentence_align.aligners.beads import BEAD_SHAPES, Bead, bead_shapes, check_coverage
from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS
from services.sentence_align.aligners.length import (
    LengthModel,
    align_by_length,
    align_near_path,
    align_with_widening_band,
    beads_to_cells,
    cumulative_lengths,
    run_dp,
    sentence_length,
    shape_costs,
    widen_until_inside,
)
from services.sentence_align.dp import banded as dp


def reference_length_cost(len_src: float, len_tgt: float, ratio: float, variance: float) -> float:
    # Written independently from the compiled, tabulated version (scipy's erfc).
    if len_src == 0 and len_tgt == 0:
        return 0.0
    mean = (len_src + len_tgt / ratio) / 2
    delta = (len_tgt - len_src * ratio) / math.sqrt(variance * mean)
    return -math.log(erfc(abs(delta) / math.sqrt(2)))


def all_paths(
    n: int, m: int, shapes: tuple[tuple[int, int], ...] = BEAD_SHAPES
) -> Iterator[list[tuple[int, int, int]]]:
    """Every segmentation of (n, m) into beads, as (end i, end j, shape) lists."""
    if n == 0 and m == 0:
        yield []
        return
    for shape, (a, b) in enumerate(shapes):
        if a <= n and b <= m:
            for path in all_paths(n - a, m - b, shapes):
                yield [*path, (n, m, shape)]


def brute_force(
    src_len: list[int],
    tgt_len: list[int],
    model: LengthModel,
    band: tuple[np.ndarray, np.ndarray] | None,
) -> float:
    src_cum, tgt_cum = np.cumsum([0, *src_len]), np.cumsum([0, *tgt_len])
    best = math.inf
    for path in all_paths(len(src_len), len(tgt_len), model.shapes):
        if band is not None and any(not band[0][i] <= j <= band[1][i] for i, j, _ in path):
            continue
        total = 0.0
        for i, j, shape in path:
            a, b = model.shapes[shape]
            total += model.shape_cost[shape] + dp.length_cost(
                src_cum[i] - src_cum[i - a],
                tgt_cum[j] - tgt_cum[j - b],
                model.ratio,
                model.variance,
            )
        best = min(best, total)
    return best


def program_cost(
    src_len: list[int], tgt_len: list[int], model: LengthModel, band: tuple[np.ndarray, np.ndarray]
) -> float:
    src_cum = np.cumsum([0, *src_len]).astype(np.int64)
    tgt_cum = np.cumsum([0, *tgt_len]).astype(np.int64)
    beads = run_dp(src_cum, tgt_cum, model, band)
    check_coverage(beads, len(src_len), len(tgt_len))
    return sum(bead.cost for bead in beads)


lengths = st.lists(st.integers(1, 60), min_size=0, max_size=4)
gale_church_models = st.builds(LengthModel, st.floats(0.6, 1.6), st.floats(1.0, 10.0))
# Also every x-y shape up to x + y = 4..7 (beads.bead_shapes), as the hybrid pass uses.
models = gale_church_models | st.builds(
    LengthModel.with_shapes, gale_church_models, st.integers(4, 7), st.floats(0.5, 5.0)
)


@given(lengths, lengths, models)
def test_full_band_program_equals_exhaustive_search(
    src: list[int], tgt: list[int], model: LengthModel
) -> None:
    band = dp.diagonal_band(len(src), len(tgt), len(src) + len(tgt) + 1)
    assert program_cost(src, tgt, model, band) == pytest.approx(
        brute_force(src, tgt, model, None), rel=1e-9
    )


@given(lengths, lengths, models, st.integers(0, 2))
def test_narrow_band_program_equals_exhaustive_search_inside_the_band(
    src: list[int], tgt: list[int], model: LengthModel, half_width: int
) -> None:
    band = dp.diagonal_band(len(src), len(tgt), half_width)
    expected = brute_force(src, tgt, model, band)
    assert program_cost(src, tgt, model, band) == pytest.approx(expected, rel=1e-9)


def test_bead_shapes_extend_the_gale_church_shapes_symmetrically() -> None:
    shapes = bead_shapes(5)
    assert shapes[: len(BEAD_SHAPES)] == BEAD_SHAPES
    assert set(shapes) == set(BEAD_SHAPES) | {(1, 4), (4, 1), (2, 3), (3, 2)}
    assert {(b, a) for a, b in shapes} == set(shapes)
    model = LengthModel(1.2, 5.0).with_shapes(5, 2.0)
    one_to_one = model.shape_cost[0]
    assert model.shape_cost[model.shapes.index((2, 3))] == pytest.approx(one_to_one + 3 * 2.0)
    mirrored = LengthModel(1.2, 5.0, (*model.shape_cost[:-1], 9.0), model.shapes).mirrored()
    assert mirrored.shapes == model.shapes
    # The last shape's cost (9.0) moves to its mirror image.
    last = model.shapes[-1]
    assert mirrored.shape_cost[model.shapes.index((last[1], last[0]))] == 9.0


@pytest.mark.parametrize(
    ("len_src", "len_tgt", "expected"),
    [
        # delta = 0: Pr = 2 (1 - Phi(0)) = 1, cost 0.
        (10, 10, 0.0),
        # delta = (12 - 10) / sqrt(6.8 * 11) = 0.23125; 2 (1 - Phi(0.23125)) = 0.81712.
        (10, 12, -math.log(0.81712)),
        # deletion of 17 chars: delta = 17 / sqrt(6.8 * 8.5) = 2.2361; Pr = 0.025347.
        (17, 0, -math.log(0.025347)),
    ],
)
def test_length_cost_golden_values(len_src: int, len_tgt: int, expected: float) -> None:
    assert dp.length_cost(len_src, len_tgt, 1.0, 6.8) == pytest.approx(expected, abs=2e-4)


@given(st.integers(0, 400), st.integers(0, 400), st.floats(0.5, 2.0), st.floats(1.0, 10.0))
def test_tabulated_length_cost_matches_scipy(
    len_src: int, len_tgt: int, ratio: float, variance: float
) -> None:
    expected = reference_length_cost(len_src, len_tgt, ratio, variance)
    if math.isfinite(expected):
        assert dp.length_cost(len_src, len_tgt, ratio, variance) == pytest.approx(
            expected, rel=1e-4, abs=1e-5
        )


def test_length_cost_stays_finite_far_in_the_tail() -> None:
    assert math.isfinite(dp.length_cost(5000.0, 1.0, 1.0, 6.8))
    assert dp.length_cost(5000.0, 1.0, 1.0, 6.8) > dp.length_cost(500.0, 1.0, 1.0, 6.8)


def test_mirrored_model_gives_the_same_cost_for_swapped_lengths() -> None:
    model = LengthModel(ratio=1.3, variance=5.0)
    mirror = model.mirrored()
    for len_src, len_tgt in [(10, 14), (30, 12), (0, 9), (7, 0)]:
        assert dp.length_cost(len_tgt, len_src, mirror.ratio, mirror.variance) == pytest.approx(
            dp.length_cost(len_src, len_tgt, model.ratio, model.variance)
        )


def test_obvious_split_is_found() -> None:
    src = ["A" * 40, "B" * 20, "C" * 30]
    tgt = ["a" * 40, "b" * 9, "b" * 10, "c" * 30]
    beads = align_by_length(src, tgt)
    assert [(b.src, b.tgt) for b in beads] == [((0,), (0,)), ((1,), (1, 2)), ((2,), (3,))]


def test_two_pairs_missing_in_opposite_directions_stay_two_beads() -> None:
    # Two translations each about two standard deviations off in length, one longer and one
    # shorter, their sums equal: with the hybrid aligner's 2-2 prior two 1-1 beads (as the
    # gold of the Bible corpus and of most 2-2 beads the aligner made with Gale-Church's
    # prior of 0.011), not one 2-2 bead.
    context = ["x" * 100] * 5
    src = [*context, "A" * 100, "B" * 100, *context]
    tgt = [*context, "a" * 152, "b" * 48, *context]

    def pairs(model: LengthModel) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        cums = cumulative_lengths(src), cumulative_lengths(tgt)
        return [(b.src, b.tgt) for b in align_with_widening_band(*cums, model)]

    hybrid = LengthModel(shape_cost=shape_costs(HYBRID_SETTINGS.two_two_probability))
    assert ((5,), (5,)) in pairs(hybrid) and ((6,), (6,)) in pairs(hybrid)
    # Gale & Church's prior (the length method's) makes them one 2-2 bead
    assert ((5, 6), (5, 6)) in pairs(LengthModel())


def test_band_widening_never_does_worse_than_its_first_band() -> None:
    # The target lacks the first 8 source sentences and ends with 8 others: the best path
    # runs 8 sentences off the diagonal, so a band of 5 is too narrow at first.
    rng = np.random.default_rng(7)
    body = ["x" * int(n) for n in rng.integers(20, 80, size=150)]
    tgt = body[8:] + ["z" * int(n) for n in rng.integers(20, 80, size=8)]
    src_cum, tgt_cum = cumulative_lengths(body), cumulative_lengths(tgt)
    model = LengthModel()

    def total(beads: list[Bead]) -> float:
        return sum(bead.cost for bead in beads)

    band = dp.diagonal_band(150, 150, 5)
    narrow = run_dp(src_cum, tgt_cum, model, band)
    assert dp.path_touches_edge(beads_to_cells(narrow)[1:], *band, 150)
    widened = align_near_path(src_cum, tgt_cum, model, narrow, margin=5)
    assert total(widened) <= total(narrow) + 1e-9
    first = align_with_widening_band(src_cum, tgt_cum, model, half_width=5)
    low, high = dp.length_diagonal_band(src_cum, tgt_cum, 5)
    assert total(first) <= total(run_dp(src_cum, tgt_cum, model, (low, high))) + 1e-9


def test_band_widening_stops_before_the_band_exceeds_max_cells() -> None:
    # The document of the test above: a band of 2 touches its edge, so it widens (to 4, 8,
    # 16); with max_cells between the cells of the 4 and 8 bands, it stops at 4.
    rng = np.random.default_rng(7)
    body = ["x" * int(n) for n in rng.integers(20, 80, size=150)]
    tgt = body[8:] + ["z" * int(n) for n in rng.integers(20, 80, size=8)]
    src_cum, tgt_cum = cumulative_lengths(body), cumulative_lengths(tgt)
    searched: list[int] = []

    def band_at(width: int) -> tuple[np.ndarray, np.ndarray]:
        return dp.diagonal_band(150, 150, width)

    def align(band: tuple[np.ndarray, np.ndarray]) -> list[Bead]:
        searched.append(dp.band_cells(band))
        return run_dp(src_cum, tgt_cum, LengthModel(), band)

    widen_until_inside(band_at, align, 2, 150)
    assert len(searched) >= 3  # 2, 4, 8, ...: the uncapped search widens past 4
    four, eight = dp.band_cells(band_at(4)), dp.band_cells(band_at(8))
    searched.clear()
    capped = widen_until_inside(band_at, align, 2, 150, max_cells=(four + eight) // 2)
    assert searched == [dp.band_cells(band_at(2)), four]
    assert capped == run_dp(src_cum, tgt_cum, LengthModel(), band_at(4))


def test_path_touches_edge() -> None:
    low, high = np.array([0, 0, 1]), np.array([1, 2, 3])
    assert dp.path_touches_edge(np.array([[1, 2], [2, 3]]), low, high, 3)
    assert not dp.path_touches_edge(np.array([[1, 1], [2, 3]]), low, high, 3)


def test_sentence_length_ignores_whitespace() -> None:
    assert sentence_length(" a b\tc\n") == 3
    assert cumulative_lengths(["ab", "", "c d"]).tolist() == [0, 2, 2, 4]


@given(lengths, lengths, models, st.integers(0, 8), st.integers(0, 3))
def test_anti_diagonal_end_equals_best_prefix_pair_by_exhaustive_search(
    src: list[int], tgt: list[int], model: LengthModel, end_sum: int, half_width: int
) -> None:
    # The path ends at the cheapest cell (i, j) with i + j = end_sum: the best full path of
    # src[:i] and tgt[:j] over those cells, inside the band.
    end_sum = min(end_sum, len(src) + len(tgt))
    src_cum = np.cumsum([0, *src]).astype(np.int64)
    tgt_cum = np.cumsum([0, *tgt]).astype(np.int64)
    band = dp.diagonal_band(len(src), len(tgt), half_width)
    beads = run_dp(src_cum, tgt_cum, model, band, end_sum=end_sum)
    end_i, end_j = sum(len(b.src) for b in beads), sum(len(b.tgt) for b in beads)
    check_coverage(beads, end_i, end_j)
    assert end_i + end_j == end_sum
    expected = min(
        brute_force(src[:i], tgt[: end_sum - i], model, (band[0][: i + 1], band[1][: i + 1]))
        for i in range(max(0, end_sum - len(tgt)), min(end_sum, len(src)) + 1)
    )
    assert sum(bead.cost for bead in beads) == pytest.approx(expected, rel=1e-9)


def test_an_anti_diagonal_end_needs_the_plain_program() -> None:
    cum = np.array([0, 10, 20], dtype=np.int64)
    band = dp.full_band(2, 2)
    with pytest.raises(ValueError, match="anti-diagonal"):
        run_dp(cum, cum, LengthModel(gap_extension=1.0), band, end_sum=2)
    with pytest.raises(ValueError, match="anti-diagonal"):
        run_dp(cum, cum, LengthModel(), band, end_sum=2, confidence=True)


@settings(max_examples=40)
@given(
    st.lists(st.integers(1, 80), min_size=0, max_size=40),
    st.lists(st.integers(1, 80), min_size=1, max_size=40),
)
def test_chunked_pass_covers_every_sentence_once(src: list[int], tgt: list[int]) -> None:
    src_cum = np.cumsum([0, *src]).astype(np.int64)
    tgt_cum = np.cumsum([0, *tgt]).astype(np.int64)
    model = LengthModel(float(tgt_cum[-1]) / max(float(src_cum[-1]), 1.0), 6.8)
    original = length_module.CHUNK
    length_module.CHUNK = 3  # documents over 12 sentences (both sides) go chunk by chunk
    try:
        beads = align_with_widening_band(src_cum, tgt_cum, model, half_width=1)
    finally:
        length_module.CHUNK = original
    check_coverage(beads, len(src), len(tgt))


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.lists(st.integers(1, 300), min_size=1, max_size=60, unique=True),
    st.lists(st.integers(1, 300), min_size=1, max_size=60, unique=True),
)
def test_swapping_sides_mirrors_the_chunked_pass(src: list[int], tgt: list[int]) -> None:
    # Chunks counted on the source side (chunked above 2 * CHUNK source sentences, windows of
    # CHUNK source rows with a free last row) aligned 1 x 11 sentences whole and 11 x 1 in
    # chunks: different beads. Distinct lengths, as equal ones can tie (either path optimal).
    src_cum = np.cumsum([0, *src]).astype(np.int64)
    tgt_cum = np.cumsum([0, *tgt]).astype(np.int64)
    model = length_module.initial_model(src_cum, tgt_cum)
    original = length_module.CHUNK
    length_module.CHUNK = 5  # documents over 20 sentences (both sides) go chunk by chunk
    try:
        forward = align_with_widening_band(src_cum, tgt_cum, model)
        backward = align_with_widening_band(tgt_cum, src_cum, model.mirrored())
    finally:
        length_module.CHUNK = original
    assert {(b.tgt, b.src) for b in backward} == {(b.src, b.tgt) for b in forward}


def test_chunked_pass_scores_like_the_whole_document_on_dev(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from services.sentence_align.aligners.beads import parse_beads
    from services.sentence_align.aligners.evaluate import score_documents
    from tests.conftest import kit_path

    src = kit_path("textberg-bleualign-de-fr/dev.de").read_text(encoding="utf-8").splitlines()
    tgt = kit_path("textberg-bleualign-de-fr/dev.fr").read_text(encoding="utf-8").splitlines()
    gold = parse_beads(kit_path("textberg-bleualign-de-fr/dev.defr").read_text().splitlines())
    whole = score_documents([gold], [align_by_length(src, tgt)])
    monkeypatch.setattr(length_module, "CHUNK", 100)  # 468 sentences: several chunks
    chunked = score_documents([gold], [align_by_length(src, tgt)])
    assert chunked.f1_strict >= whole.f1_strict - 0.01


def test_cheap_deletions_price_a_left_out_sentence_like_an_extra_one() -> None:
    model = LengthModel(1.2, 5.0)
    plain = model.with_shapes(6, 2.3)
    cheap = model.with_shapes(6, 2.3, cheap_deletions=True)
    one_to_one = plain.shape_cost[plain.shapes.index((1, 1))]
    for shape in ((1, 0), (0, 1)):
        # Gale-Church's deletion prior (0.0099) unless asked otherwise.
        assert plain.shape_cost[plain.shapes.index(shape)] == pytest.approx(-math.log(0.0099))
        assert cheap.shape_cost[cheap.shapes.index(shape)] == pytest.approx(one_to_one + 2.3)
    # Adding a sentence to a 1-1 bead costs the same as leaving it out; other shapes keep
    # their costs, and the model stays symmetric.
    assert (
        cheap.shape_cost[cheap.shapes.index((1, 2))] == plain.shape_cost[plain.shapes.index((1, 2))]
    )
    assert cheap.shape_cost[cheap.shapes.index((2, 3))] == pytest.approx(one_to_one + 3 * 2.3)
    assert cheap.mirrored().shape_cost == cheap.shape_cost


def test_the_sliding_window_pass_finds_the_whole_documents_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Real text over 2 x CHUNK sentences: Text+Berg dev and test concatenated four times.
    # With a chunk band starting at 20 sentences, the chunked first pass cost 9,248.9 against
    # 9,135.6 for one pass over the whole table (strict F1 0.688 vs 0.715).
    from tests.conftest import kit_path

    folder = kit_path("textberg-bleualign-de-fr")
    names = ["dev", *(f"test{k}" for k in range(7))] * 4
    src = [s for name in names for s in (folder / f"{name}.de").read_text().splitlines()]
    tgt = [s for name in names for s in (folder / f"{name}.fr").read_text().splitlines()]
    src_cum, tgt_cum = length_module.cumulative_lengths(src), length_module.cumulative_lengths(tgt)
    model = length_module.initial_model(src_cum, tgt_cum)
    assert len(src) > 2 * length_module.CHUNK
    chunked = length_module.align_with_widening_band(src_cum, tgt_cum, model)
    monkeypatch.setattr(length_module, "CHUNK", 10**7)
    whole = length_module.align_with_widening_band(src_cum, tgt_cum, model)
    assert sum(b.cost for b in chunked) == pytest.approx(sum(b.cost for b in whole), abs=1e-6)
