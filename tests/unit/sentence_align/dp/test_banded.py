"""Tests of the program with affine deletion runs (``dp.banded.banded_gap_dp``): brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.sentence_align.aligners.beads import check_coverage
from services.sentence_align.aligners.length import LengthModel, run_dp
from services.sentence_align.dp import banded as dp
from tests.unit.sentence_align.aligners.test_length import all_paths

lengths = st.lists(st.integers(1, 60), min_size=0, max_size=4)
models = st.builds(
    LengthModel, st.floats(0.6, 1.6), st.floats(1.0, 10.0), gap_extension=st.floats(0.0, 6.0)
)


def brute_force(
    src_len: list[int],
    tgt_len: list[int],
    model: LengthModel,
    band: tuple[np.ndarray, np.ndarray],
    extra: np.ndarray,
) -> float:
    """Cheapest segmentation of (n, m) inside the band, every path priced bead by bead:
    a 1-0 after a 1-0 (a 0-1 after a 0-1) costs min(its cost, extension + its extra)."""
    assert model.gap_extension is not None
    src_cum, tgt_cum = np.cumsum([0, *src_len]), np.cumsum([0, *tgt_len])
    n, m = len(src_len), len(tgt_len)
    low, _ = band
    row_first = np.concatenate([[0], np.cumsum(band[1] - band[0] + 1)])
    best = math.inf
    for path in all_paths(n, m, model.shapes):
        if any(not band[0][i] <= j <= band[1][i] for i, j, _ in path):
            continue
        total, previous = 0.0, None
        for i, j, shape in path:
            a, b = model.shapes[shape]
            own_extra = extra[row_first[i] + j - low[i], shape]
            cost = (
                model.shape_cost[shape]
                + dp.length_cost(
                    src_cum[i] - src_cum[i - a], tgt_cum[j] - tgt_cum[j - b],
                    model.ratio, model.variance,
                )
                + own_extra
            )  # fmt: skip
            if (a == 0 or b == 0) and previous == (a, b):
                cost = min(cost, model.gap_extension + own_extra)
            total += cost
            previous = (a, b)
        best = min(best, total)
    return best


def run(
    src_len: list[int],
    tgt_len: list[int],
    model: LengthModel,
    band: tuple[np.ndarray, np.ndarray],
    extra: np.ndarray,
) -> float:
    src_cum = np.cumsum([0, *src_len]).astype(np.int64)
    tgt_cum = np.cumsum([0, *tgt_len]).astype(np.int64)
    row_first = np.concatenate([[0], np.cumsum(band[1] - band[0] + 1)[:-1]]).astype(np.int64)
    beads = run_dp(src_cum, tgt_cum, model, band, extra=extra, extra_row=row_first)
    check_coverage(beads, len(src_len), len(tgt_len))
    return sum(bead.cost for bead in beads)


def random_extra(band: tuple[np.ndarray, np.ndarray], seed: int) -> np.ndarray:
    cells = int(np.sum(band[1] - band[0] + 1))
    return np.random.default_rng(seed).uniform(-2.0, 4.0, (cells, len(LengthModel().shapes)))


@given(lengths, lengths, models, st.integers(0, 3), st.integers(0, 2**16))
def test_gap_program_equals_exhaustive_search_inside_the_band(
    src: list[int], tgt: list[int], model: LengthModel, half_width: int, seed: int
) -> None:
    band = dp.diagonal_band(len(src), len(tgt), half_width)
    extra = random_extra(band, seed)
    expected = brute_force(src, tgt, model, band, extra)
    assert run(src, tgt, model, band, extra) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_a_missing_block_is_one_run_of_deletions() -> None:
    # Ten sentences, twelve missing on the target side, ten more (lengths all different).
    before = [31, 47, 25, 60, 38, 52, 29, 44, 36, 55]
    block = [41, 33, 58, 27, 49, 35, 62, 30, 45, 39, 53, 28]
    after = [34, 50, 26, 57, 42, 37, 61, 32, 48, 40]
    src_cum = np.cumsum([0, *before, *block, *after]).astype(np.int64)
    tgt_cum = np.cumsum([0, *before, *after]).astype(np.int64)
    band = dp.full_band(len(src_cum) - 1, len(tgt_cum) - 1)
    plain = run_dp(src_cum, tgt_cum, LengthModel(1.0, 6.8), band)
    gap = run_dp(src_cum, tgt_cum, LengthModel(1.0, 6.8, gap_extension=1.0), band)
    links = [(bead.src, bead.tgt) for bead in gap]
    # One run of twelve deletions. Its opening pays a length cost, so it may start one
    # sentence late, on a shorter one (33 characters instead of 41): the sentence before it
    # then pairs with the first one after the block, whose own deletion costs only 1.
    deleted = [bead.src[0] for bead in gap if not bead.tgt]
    assert len(deleted) == 12 and deleted == list(range(deleted[0], deleted[0] + 12))
    assert deleted[0] in (10, 11)
    assert links[:10] == [((k,), (k,)) for k in range(10)]
    assert links[-9:] == [((k + 12,), (k,)) for k in range(11, 20)]
    assert [bead.cost for bead in gap if not bead.tgt][1:] == [1.0] * 11
    # Without runs each left-out sentence pays Gale-Church's length cost: the block is
    # spread over 2-1 beads instead.
    assert sum(bead.shape == (2, 1) for bead in plain) >= 6


def test_confidences_need_the_plain_program() -> None:
    cum = np.array([0, 10], dtype=np.int64)
    with pytest.raises(ValueError, match="affine deletion runs"):
        run_dp(cum, cum, LengthModel(gap_extension=1.0), dp.full_band(1, 1), confidence=True)


def test_mirrored_model_keeps_the_gap_extension() -> None:
    assert LengthModel(1.2, 5.0, gap_extension=1.5).mirrored().gap_extension == 1.5
