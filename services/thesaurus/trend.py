"""Statistics for the paper's Table-2 tendency: SIM by level of the common ancestor.

Shinnou (section 3, Table 2) averages the obtained similarities of the class pairs whose
common parent sits at each level of Bunrui-goi-hyou and reads off that the mean rises as
the classes get closer. A row of means alone cannot say whether a dip between two levels is
larger than the noise of a small corpus, so this module adds:

* ``level_means``: per level, the number of defined distinct pairs (upper triangle, NaN =
  undefined) and their mean SIM, scanned in row blocks so an L × L matrix is never copied.
* ``spearman``: Spearman's rank correlation (Pearson on average ranks, ties averaged) between
  the level of every pair and its SIM — one trend statistic over all pairs instead of a
  count of rising steps.
* ``bootstrap_verbs``: a nonparametric bootstrap over verbs. SIM(Ci, Cj) = Σ_v sim(v, Ci, Cj)
  is a sum of per-verb terms, so the verbs are the units that carry the corpus evidence:
  each replicate draws the verbs with replacement (fixed seed) and sums each verb's term as
  often as it was drawn (``similarity_matrix(..., verb_weights=draw counts)``, MI from the
  corpus), then applies a statistic to the model. A replicate's SIM has the corpus SIM as
  its expectation. Recomputing MI from the resampled rows instead was tried first and is not
  used: it is biased (presumably duplicated verbs concentrate f(C) on fewer verbs and inflate
  |MI|): on livedoor the 95% intervals of nearly every corpus-defined depth level lay
  entirely above the estimate (the counts: benchmarks/results/tuning_history.md,
  services/thesaurus/trend.py).
  ``percentile_interval`` turns the replicates into percentile intervals and
  ``step_intervals`` into intervals for the differences between neighbouring levels, so a
  falling step whose interval covers 0 is visibly inside the noise.
* ``relative_levels``: a WordNet analogue of the paper's five Bunrui-goi-hyou levels. WordNet
  leaves sit at different depths, so the absolute depth of the common ancestor mixes
  closeness with how deep a branch happens to be. The relative closeness of leaves a, b with
  lowest common ancestor c is Wu & Palmer's ``2·depth(c) / (depth(a) + depth(b))`` (root
  depth 0, so a pair meeting only at the root has 0 and a pair of distinct leaves stays
  below 1), binned into ``bins`` equal-width levels: level k (1 = far … bins = close) holds
  the pairs with ``(k−1)/bins ≤ closeness < k/bins``, computed in integers as
  ``bins·2·depth(c) // (depth(a) + depth(b)) + 1``. The binning was fixed before the result
  was looked at (five levels as in the paper's Table 2, equal widths, no tuning).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from scipy.stats import rankdata

from services.thesaurus.similarity import ClassCounts, SimilarityModel, similarity_matrix
from shared.errors import InvalidInput

FloatArray = npt.NDArray[np.float64]
LevelArray = npt.NDArray[np.int16]
_BLOCK = 512  # rows per block when scanning an L × L matrix


def level_means(
    values: npt.NDArray[np.floating], level: npt.NDArray[np.integer], levels: int
) -> tuple[FloatArray, FloatArray]:
    """Per level 0 … levels−1: defined distinct pairs and their mean value (NaN if none)."""
    if values.shape != level.shape or values.shape[0] != values.shape[1]:
        raise InvalidInput("values and level must be square arrays of one shape")
    sums = np.zeros(levels)
    counts = np.zeros(levels)
    columns = np.arange(values.shape[1])[None, :]
    for start in range(0, values.shape[0], _BLOCK):
        block = values[start : start + _BLOCK].astype(np.float64)
        rows = np.arange(start, start + block.shape[0])[:, None]
        keep = np.isfinite(block) & (columns > rows)
        chosen = level[start : start + _BLOCK][keep].astype(np.int64)
        sums += np.bincount(chosen, weights=block[keep], minlength=levels)[:levels]
        counts += np.bincount(chosen, minlength=levels)[:levels]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return counts, means


def spearman(first: npt.ArrayLike, second: npt.ArrayLike) -> float:
    """Spearman's rho: Pearson correlation of the average ranks (NaN if either is constant)."""
    x = rankdata(np.asarray(first, dtype=np.float64))
    y = rankdata(np.asarray(second, dtype=np.float64))
    if len(x) != len(y):
        raise InvalidInput("spearman needs two sequences of one length")
    x -= x.mean()
    y -= y.mean()
    scale = float(np.sqrt((x * x).sum() * (y * y).sum()))
    return float((x * y).sum() / scale) if scale > 0 else float("nan")


def pair_spearman(values: npt.NDArray[np.floating], level: npt.NDArray[np.integer]) -> float:
    """Spearman's rho between level and value over the defined distinct pairs."""
    upper = np.triu_indices(values.shape[0], k=1)
    chosen = values[upper].astype(np.float64)
    keep = np.isfinite(chosen)
    return spearman(level[upper][keep], chosen[keep])


def relative_levels(
    ancestor_depth: npt.NDArray[np.integer], leaf_depth: npt.NDArray[np.integer], bins: int = 5
) -> LevelArray:
    """Wu-Palmer closeness 2·depth(lca) / (depth(a) + depth(b)) binned into 1 … bins."""
    if bins < 1:
        raise InvalidInput("bins must be positive")
    depth = np.asarray(leaf_depth, dtype=np.int64)
    out = np.empty(ancestor_depth.shape, dtype=np.int16)
    for start in range(0, ancestor_depth.shape[0], _BLOCK):
        common = ancestor_depth[start : start + _BLOCK].astype(np.int64)
        total = np.maximum(depth[start : start + _BLOCK, None] + depth[None, :], 1)
        out[start : start + _BLOCK] = np.minimum(bins * 2 * common // total + 1, bins)
    return out


def bootstrap_verbs(
    counts: ClassCounts,
    statistic: Callable[[SimilarityModel], FloatArray],
    *,
    replicates: int,
    seed: int,
) -> FloatArray:
    """``statistic`` of the model of each verb resample (replicates × len(statistic))."""
    verbs = len(counts.verbs)
    if verbs == 0 or replicates < 1:
        raise InvalidInput("bootstrap_verbs needs verbs and at least one replicate")
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(replicates):
        weights = np.bincount(rng.integers(0, verbs, size=verbs), minlength=verbs)
        model = similarity_matrix(counts, verb_weights=weights.astype(np.float64))
        rows.append(np.asarray(statistic(model), dtype=np.float64))
    return np.vstack(rows)


def percentile_interval(samples: FloatArray, level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval per column (NaN-aware: columns a replicate left NaN)."""
    tail = (1.0 - level) / 2 * 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
        low = np.nanpercentile(samples, tail, axis=0)
        high = np.nanpercentile(samples, 100 - tail, axis=0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def step_intervals(
    samples: FloatArray, level: float = 0.95
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For neighbouring columns k, k+1: interval of the difference and share of rising draws."""
    steps = np.diff(samples, axis=1)
    low, high = percentile_interval(steps, level)
    finite = np.isfinite(steps)
    rising = (np.where(finite, steps, 0.0) > 0).sum(axis=0) / np.maximum(finite.sum(axis=0), 1)
    return low, high, rising.astype(np.float64)
