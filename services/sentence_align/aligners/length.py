"""Length-based sentence alignment (Gale & Church 1993) with parameters fitted to the text.

docs/methods.md §2 "Length-based model": cost(bead) = -log Pr(shape) - log Pr(delta | match),
lengths in characters, a banded dynamic program. The band starts narrow around the
diagonal and doubles while the best path runs along its edge. For a language pair whose
length ratio differs from 1, c and s2 are estimated from the data: c starts at the ratio of
total lengths, then c and s2 are re-estimated from the first pass's 1-1 beads and the
pass is repeated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from services.sentence_align.aligners.beads import BEAD_SHAPES, Bead, bead_shapes
from services.sentence_align.dp import banded as dp

# Gale & Church 1993, Table 5 (1-3/3-1 "small"): probability of each bead shape.
DEFAULT_SHAPE_PROBABILITY: dict[tuple[int, int], float] = {
    (1, 1): 0.89,
    (1, 0): 0.0099,
    (0, 1): 0.0099,
    (2, 1): 0.089,
    (1, 2): 0.089,
    (2, 2): 0.011,
    (3, 1): 0.002,
    (1, 3): 0.002,
}
DEFAULT_VARIANCE = 6.8
INITIAL_HALF_BAND = 20
REFIT_MARGIN = 8  # the refitted pass stays near the first path (widens if it must)
CHUNK = 1000  # half the sentences (both sides) of a window of the sliding pass
# A chunk's band starts at a half width of CHUNK / CHUNK_BAND_SHARE sentences (at least
# INITIAL_HALF_BAND): narrower bands missed the unchunked optimum on long documents, a band
# as wide as a short chunk lets its free end wander (benchmarks/results/tuning_history.md).
CHUNK_BAND_SHARE = 20


@dataclass(frozen=True)
class LengthModel:
    """Parameters of the length model: c, s2 and the cost -log Pr(shape) per bead shape
    (``shape_cost[k]`` belongs to ``shapes[k]``)."""

    ratio: float = 1.0
    variance: float = DEFAULT_VARIANCE
    shape_cost: tuple[float, ...] = tuple(
        -math.log(DEFAULT_SHAPE_PROBABILITY[shape]) for shape in BEAD_SHAPES
    )
    shapes: tuple[tuple[int, int], ...] = BEAD_SHAPES
    # With a value: deletion runs are affine (``dp.banded.banded_gap_dp``), each 1-0 (0-1)
    # bead after another costing at most this much.
    gap_extension: float | None = None

    def mirrored(self) -> LengthModel:
        """The model for the swapped language pair (c -> 1/c, s2 -> s2 / c^3, shapes swapped)."""
        index = {shape: k for k, shape in enumerate(self.shapes)}
        swapped = tuple(self.shape_cost[index[(b, a)]] for a, b in self.shapes)
        return LengthModel(
            1.0 / self.ratio, self.variance / self.ratio**3, swapped, self.shapes,
            self.gap_extension,
        )  # fmt: skip

    def with_shapes(
        self, max_size: int, sentence_cost: float, *, cheap_deletions: bool = False
    ) -> LengthModel:
        """The model over ``bead_shapes(max_size)``: the shapes it has keep their costs; a new
        x-y shape costs -log Pr(1-1) + (x + y - 2) * ``sentence_cost`` (each sentence
        beyond a 1-1 bead multiplies the prior by exp(-sentence_cost)). With
        ``cheap_deletions`` 1-0 and 0-1 cost -log Pr(1-1) + ``sentence_cost`` too: a sentence
        left out costs the same as one sentence added to a 1-1 bead, so neither choice is
        preferred before the length and lexical evidence."""
        shapes = bead_shapes(max_size)
        own = dict(zip(self.shapes, self.shape_cost, strict=True))
        one_to_one = own[(1, 1)]
        if cheap_deletions:
            own[(1, 0)] = own[(0, 1)] = one_to_one + sentence_cost
        costs = tuple(own.get((a, b), one_to_one + (a + b - 2) * sentence_cost) for a, b in shapes)
        return replace(self, shape_cost=costs, shapes=shapes)


def sentence_length(sentence: str) -> int:
    """Length in characters, whitespace excluded (so layout does not count)."""
    return len("".join(sentence.split()))


GALE_CHURCH_SHAPE_COST = LengthModel().shape_cost


def shape_costs(two_two: float | None = None) -> tuple[float, ...]:
    """-log Pr(shape) of ``BEAD_SHAPES``: Gale & Church's, with Pr(2-2) = ``two_two`` if
    given (the hybrid aligner's default prices it lower: ``LexicalSettings``)."""
    if two_two is None:
        return GALE_CHURCH_SHAPE_COST
    probability = {**DEFAULT_SHAPE_PROBABILITY, (2, 2): two_two}
    return tuple(-math.log(probability[shape]) for shape in BEAD_SHAPES)


def cumulative_lengths(sentences: Sequence[str]) -> dp.IntArray:
    """Cumulative character lengths with a leading 0 (bead length = difference)."""
    lengths = np.fromiter((sentence_length(s) for s in sentences), np.int64, len(sentences))
    return np.concatenate([np.zeros(1, np.int64), np.cumsum(lengths)])


def initial_model(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    shape_cost: tuple[float, ...] = GALE_CHURCH_SHAPE_COST,
) -> LengthModel:
    """c from the ratio of total lengths; s2 = 6.8 c^1.5 (§2); the shape priors
    ``shape_cost`` (``shape_costs``).

    The c^1.5 scaling keeps the model symmetric: swapping the sides turns c into 1/c and
    must turn s2 into s2 / c^3 (see ``length_cost``), which 6.8 c^1.5 does.
    """
    if src_cum[-1] == 0 or tgt_cum[-1] == 0:
        return LengthModel(shape_cost=shape_cost)
    return ratio_model(float(tgt_cum[-1]) / float(src_cum[-1]), shape_cost)


def ratio_model(
    ratio: float, shape_cost: tuple[float, ...] = GALE_CHURCH_SHAPE_COST
) -> LengthModel:
    """The model of c = ``ratio`` before any fit: s2 = 6.8 c^1.5 (``initial_model``)."""
    return LengthModel(ratio=ratio, variance=DEFAULT_VARIANCE * ratio**1.5, shape_cost=shape_cost)


def run_dp(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    model: LengthModel,
    band: tuple[dp.IntArray, dp.IntArray],
    *,
    extra: dp.FloatArray | None = None,
    extra_row: dp.IntArray | None = None,
    length_weight: dp.FloatArray | None = None,
    end_sum: int | None = None,
    confidence: bool = False,
) -> list[Bead]:
    """One pass of the banded program; beads with their own costs (with ``end_sum`` the
    path ends at the cheapest cell (i, j) with i + j = ``end_sum``, a prefix of both sides).
    With ``confidence`` each bead also gets its posterior probability over all paths of the
    band weighted exp(-cost) (``dp.banded.path_posteriors``, temperature 1: the model's
    own costs); it costs a forward and a backward sweep more."""
    if end_sum is not None and (confidence or model.gap_extension is not None):
        raise ValueError("an anti-diagonal end needs the plain program, without confidences")
    low, high = band
    shape_src, shape_tgt = dp.shape_arrays(model.shapes)
    lattice = (
        src_cum,
        tgt_cum,
        low,
        high,
        np.asarray(model.shape_cost, dtype=np.float64),
        model.ratio,
        model.variance,
        np.ones(len(model.shapes)) if length_weight is None else length_weight,
        np.zeros((0, len(model.shapes))) if extra is None else extra,
        np.zeros(1, np.int64) if extra_row is None else extra_row,
        shape_src,
        shape_tgt,
    )
    if model.gap_extension is None:
        cells, costs, _ = dp.banded_dp(*lattice, -1 if end_sum is None else end_sum)
    else:
        if confidence:
            raise ValueError("bead confidences need a model without affine deletion runs")
        cells, costs, _ = dp.banded_gap_dp(*lattice, model.gap_extension)
    posteriors = dp.path_posteriors(*lattice, cells, 1.0) if confidence else None
    return cells_to_beads(cells, costs, model.shapes, posteriors)


def cells_to_beads(
    cells: dp.IntArray,
    costs: dp.FloatArray,
    shapes: Sequence[tuple[int, int]] = BEAD_SHAPES,
    confidences: dp.FloatArray | None = None,
) -> list[Bead]:
    """Convert the program's bead end cells ([i, j, shape index]) to ``Bead`` objects (with
    their posterior probabilities when ``confidences`` is given)."""
    beads: list[Bead] = []
    for k, ((i, j, shape), cost) in enumerate(zip(cells.tolist(), costs.tolist(), strict=True)):
        a, b = shapes[shape]
        confidence = None if confidences is None else float(confidences[k])
        beads.append(Bead(tuple(range(i - a, i)), tuple(range(j - b, j)), float(cost), confidence))
    return beads


def beads_to_cells(beads: Sequence[Bead]) -> dp.IntArray:
    """Bead end cells (i, j) after each bead, starting from (0, 0)."""
    cells = np.zeros((len(beads) + 1, 2), dtype=np.int64)
    i = j = 0
    for k, bead in enumerate(beads, start=1):
        i += len(bead.src)
        j += len(bead.tgt)
        cells[k] = (i, j)
    return cells


def align_with_widening_band(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    model: LengthModel,
    half_width: int = INITIAL_HALF_BAND,
) -> list[Bead]:
    """Banded pass around the diagonal; the band doubles while the path touches its edge.

    Documents of more than ``4 * CHUNK`` sentences on both sides together are aligned
    chunk by chunk (``_align_in_chunks``): their paths drift far from any straight diagonal,
    and a band wide enough for the whole document costs more than the rest of the alignment.
    """
    n, m = len(src_cum) - 1, len(tgt_cum) - 1
    if chunked(n, m):
        return _align_in_chunks(src_cum, tgt_cum, model, half_width)
    # The band follows the slope m/n, so it need not cover the difference n - m itself.
    return widen_until_inside(
        lambda width: dp.length_diagonal_band(src_cum, tgt_cum, width),
        lambda band: run_dp(src_cum, tgt_cum, model, band),
        half_width,
        m,
    )


def widen_until_inside(
    band_at: Callable[[int], tuple[dp.IntArray, dp.IntArray]],
    align: Callable[[tuple[dp.IntArray, dp.IntArray]], list[Bead]],
    width: int,
    n_tgt: int,
    max_cells: int | None = None,
) -> list[Bead]:
    """``align`` over ``band_at(width)``, the width doubling while the path runs along the
    band's edge (the band may have cut the best path off) and the band is not yet full;
    with ``max_cells``, a wider band of more cells is not searched (the last path stays)."""
    beads: list[Bead] | None = None
    while True:
        band = band_at(width)
        low, high = band
        if beads is not None and max_cells is not None and dp.band_cells(band) > max_cells:
            return beads
        beads = align(band)
        full = bool(np.all(low == 0) and np.all(high == n_tgt))
        if full or not dp.path_touches_edge(beads_to_cells(beads)[1:], low, high, n_tgt):
            return beads
        width *= 2


def _chunk_band(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, ratio: float, half_width: int
) -> tuple[dp.IntArray, dp.IntArray]:
    """Band around the line of slope ``ratio`` (characters) from (0, 0): row i is centred on
    the target sentence at character offset ratio * src_cum[i]; any end column allowed."""
    n_tgt = len(tgt_cum) - 1
    centre = np.searchsorted(tgt_cum, src_cum.astype(np.float64) * ratio, side="left")
    low = np.clip(centre - half_width, 0, n_tgt)
    high = np.clip(centre + half_width, 0, n_tgt)
    return dp.connect_band(low, high, n_tgt)


def chunked(n_src: int, n_tgt: int) -> bool:
    """Whether a document is aligned chunk by chunk: over 4 * CHUNK sentences on both sides
    together (counted on both, so swapping the sides does not change the answer)."""
    return n_src + n_tgt > 4 * CHUNK


def _align_in_chunks(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, model: LengthModel, half_width: int
) -> list[Bead]:
    """Sliding-window Viterbi for long documents: from the current start, align the next
    2 * CHUNK sentences of both sides together (the path ends at the cheapest cell with
    i + j = 2 * CHUNK), keep the path up to i + j = CHUNK and restart from its end; the last
    stretch ends at (n, m). The free end lies on an anti-diagonal, not on a last source row,
    so both sides are treated alike and swapping them mirrors the beads. Each chunk's band
    follows the character ratio from its own start and doubles while the path touches its
    edge."""
    n, m = len(src_cum) - 1, len(tgt_cum) - 1
    reach = 2 * CHUNK
    beads: list[Bead] = []
    i0 = j0 = 0
    while chunked(n - i0, m - j0):
        local_src = src_cum[i0 : i0 + min(n - i0, reach) + 1] - src_cum[i0]
        local_tgt = tgt_cum[j0 : j0 + min(m - j0, reach) + 1] - tgt_cum[j0]
        n_tgt = len(local_tgt) - 1
        width = max(half_width, CHUNK // CHUNK_BAND_SHARE)
        while True:
            low, high = _chunk_band(local_src, local_tgt, model.ratio, width)
            # Rows past the anti-diagonal hold no cell the path can end in: left out. The
            # rows overlap (connect_band), so some cell of the kept rows lies on it.
            rows = int(np.searchsorted(low + np.arange(len(low)), reach, side="right"))
            low, high = low[:rows], high[:rows]
            chunk = run_dp(local_src[:rows], local_tgt, model, (low, high), end_sum=reach)
            cells = beads_to_cells(chunk)
            if not dp.path_touches_edge(cells[1:], low, high, n_tgt) or width >= CHUNK:
                break
            width *= 2
        # At least one bead, so that each round moves on.
        keep = max(1, int(np.searchsorted(cells[1:].sum(axis=1), CHUNK, side="right")))
        beads += shift_beads(chunk[:keep], i0, j0)
        i0, j0 = i0 + int(cells[keep, 0]), j0 + int(cells[keep, 1])
    rest_src = src_cum[i0:] - src_cum[i0]
    rest_tgt = tgt_cum[j0:] - tgt_cum[j0]
    if len(rest_src) == 1 or len(rest_tgt) == 1:  # one side used up: the rest is deletions
        return [*beads, *(Bead((i,), ()) for i in range(i0, n)),
                *(Bead((), (j,)) for j in range(j0, m))]  # fmt: skip
    return beads + shift_beads(
        align_with_widening_band(rest_src, rest_tgt, model, half_width), i0, j0
    )


def split_by_window(
    beads: list[Bead], windows: Sequence[tuple[int, int, int, int]]
) -> list[list[Bead]]:
    """The beads of each window (x0, x1, y0, y1), in order: beads come in document order and
    cover each window's sentences, so a window's beads are the next ones until both of its
    sides are used up."""
    result: list[list[Bead]] = []
    k = 0
    for x0, x1, y0, y1 in windows:
        first = k
        i, j = x0, y0
        while i < x1 or j < y1:
            i += len(beads[k].src)
            j += len(beads[k].tgt)
            k += 1
        result.append(beads[first:k])
    return result


def shift_beads(beads: Sequence[Bead], src_offset: int, tgt_offset: int) -> list[Bead]:
    """The beads with every source index moved by src_offset and target by tgt_offset."""
    return [
        Bead(
            tuple(k + src_offset for k in bead.src),
            tuple(k + tgt_offset for k in bead.tgt),
            bead.cost,
            bead.confidence,
        )
        for bead in beads
    ]


def align_near_path(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    model: LengthModel,
    path: Sequence[Bead],
    margin: int = REFIT_MARGIN,
) -> list[Bead]:
    """Banded pass around an earlier path; the margin doubles while the new path touches
    the band's edge."""
    n, m = len(src_cum) - 1, len(tgt_cum) - 1
    cells = beads_to_cells(path)
    return widen_until_inside(
        lambda width: dp.band_around_path(cells, n, m, width),
        lambda band: run_dp(src_cum, tgt_cum, model, band),
        margin,
        m,
    )


def fit_ratio_variance(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, beads: Sequence[Bead]
) -> tuple[float, float] | None:
    """c and s2 re-estimated from a first-pass alignment; None with fewer than 10 1-1 beads.

    c = sum l_t / sum l_s and s2 = mean((l_t - c l_s)^2 / mean) over the
    1-1 beads of the first pass.
    """
    pairs = [
        (bead.cost, src_cum[bead.src[0] + 1] - src_cum[bead.src[0]],
         tgt_cum[bead.tgt[0] + 1] - tgt_cum[bead.tgt[0]])
        for bead in beads
        if bead.shape == (1, 1)
    ]  # fmt: skip
    pairs = [pair for pair in pairs if pair[1] > 0 and pair[2] > 0]
    if len(pairs) < 10:
        return None
    # All 1-1 beads, not only the cheapest: the cheapest are biased toward small deviations
    # and shrink s2 (it cost dev F1: benchmarks/results/tuning_history.md).
    confident = np.array(pairs, dtype=float)
    len_src, len_tgt = confident[:, 1], confident[:, 2]
    ratio = float(len_tgt.sum() / len_src.sum())
    mean = 0.5 * (len_src + len_tgt / ratio)
    variance = float(np.mean((len_tgt - ratio * len_src) ** 2 / mean))
    return ratio, max(variance, 0.5)


def fit_model(
    src_cum: dp.IntArray, tgt_cum: dp.IntArray, beads: Sequence[Bead], prior: LengthModel
) -> LengthModel:
    """``prior`` with c and s2 re-estimated from a first-pass alignment
    (``fit_ratio_variance``); the shape costs are kept."""
    fitted = fit_ratio_variance(src_cum, tgt_cum, beads)
    if fitted is None:
        return prior
    return replace(prior, ratio=fitted[0], variance=fitted[1])


@dataclass(frozen=True)
class FirstRun:
    """The first path of a length pass, the model it was found with, and ``rerun``: the
    search near that path again with a refitted model (``finish``)."""

    beads: list[Bead]
    model: LengthModel
    rerun: Callable[[LengthModel], list[Bead]]


def first_run(
    src_cum: dp.IntArray,
    tgt_cum: dp.IntArray,
    shape_cost: tuple[float, ...] = GALE_CHURCH_SHAPE_COST,
) -> FirstRun:
    """First run of the Gale-Church pass: c from the total lengths (``initial_model``)."""
    model = initial_model(src_cum, tgt_cum, shape_cost)
    first = align_with_widening_band(src_cum, tgt_cum, model)
    # The refitted pass searches near the first path only (the band still widens if needed).
    return FirstRun(first, model, lambda fitted: align_near_path(src_cum, tgt_cum, fitted, first))


def finish(run: FirstRun, fitted: LengthModel) -> tuple[list[Bead], LengthModel]:
    """The beads and model of a length pass whose first run is ``run`` and whose model is
    refitted to ``fitted`` (no second search when the fit changed nothing)."""
    if fitted == run.model:
        return run.beads, run.model
    return run.rerun(fitted), fitted


def length_pass(src_cum: dp.IntArray, tgt_cum: dp.IntArray) -> tuple[list[Bead], LengthModel]:
    """Gale-Church alignment with c and s2 fitted to the text; the beads and the model."""
    run = first_run(src_cum, tgt_cum)
    return finish(run, fit_model(src_cum, tgt_cum, run.beads, run.model))


def align_by_length(
    src: Sequence[str], tgt: Sequence[str], *, model: LengthModel | None = None
) -> list[Bead]:
    """Gale-Church alignment of two sentence lists; c and s2 fitted unless ``model`` is given."""
    src_cum, tgt_cum = cumulative_lengths(src), cumulative_lengths(tgt)
    if model is not None:
        return align_with_widening_band(src_cum, tgt_cum, model)
    return length_pass(src_cum, tgt_cum)[0]
