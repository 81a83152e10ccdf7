"""Noise and trend of the Table-2 tendency on livedoor (a section of thesaurus_livedoor.md).

Used by ``benchmarks.thesaurus.livedoor``; not a benchmark of its own. For the reported model
it gives, per view of "level of the common ancestor" (see ``services/thesaurus/trend.py``):

* per-level mean SIM with a 95% percentile interval from a bootstrap over verbs (each
  replicate resamples the rows of f(v, C), recomputes MI and SIM, and for the final values
  also reruns the whole estimation), fixed seeds;
* for every step between neighbouring levels, the interval of the difference and the share
  of replicates in which it rises, so a falling step inside the noise is visible as such;
* Spearman's rho between the level of a pair and its SIM over all pairs, with its interval.

Views (fixed before the result was seen): ``depth`` = depth of the lowest common ancestor
(root 0); ``up`` = generations from the deeper leaf up to it (ordered close = 1); and
``relative`` = Wu-Palmer closeness 2·depth(lca) / (depth(a) + depth(b)) in five equal-width
bins, the WordNet analogue of the paper's five Bunrui-goi-hyou levels.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.stats import rankdata

from services.thesaurus.estimate import estimate_undefined
from services.thesaurus.similarity import ClassCounts, SimilarityModel
from services.thesaurus.thesauri import Thesaurus
from services.thesaurus.trend import (
    bootstrap_verbs,
    level_means,
    pair_spearman,
    percentile_interval,
    relative_levels,
    step_intervals,
)

SEED_CORPUS = 20261122
SEED_FINAL = 20261123
CORPUS_REPLICATES = 200
FINAL_REPLICATES = 20  # each reruns the whole estimation (~15-30 s on a shared machine)
RELATIVE_BINS = 5

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class View:
    """A level per leaf pair, 0 … levels−1 with larger = closer, and how to print each."""

    name: str
    level: npt.NDArray[np.int16]
    labels: tuple[str, ...]

    @property
    def levels(self) -> int:
        return len(self.labels)


def views(thesaurus: Thesaurus) -> list[View]:
    depth = thesaurus.common_ancestor_depth()
    leaf_depth = thesaurus.depth[thesaurus.leaves]
    deepest = int(leaf_depth.max())
    up = np.maximum(leaf_depth[:, None], leaf_depth[None, :]) - depth
    relative = relative_levels(depth, leaf_depth, RELATIVE_BINS) - 1
    step = 1 / RELATIVE_BINS
    return [
        View("depth", depth, tuple(str(d) for d in range(deepest + 1))),
        View(
            "up",
            (deepest - up).astype(np.int16),
            tuple(str(deepest - k) for k in range(deepest + 1)),
        ),
        View(
            "relative",
            relative.astype(np.int16),
            tuple(f"{k + 1}: [{k * step:.1f}, {(k + 1) * step:.1f})" for k in range(RELATIVE_BINS)),
        ),
    ]


def _compact(counts: ClassCounts) -> tuple[ClassCounts, npt.NDArray[np.int64]]:
    """f(v, C) over the seen classes only: same MI and SIM, a seen × seen matrix."""
    seen = np.flatnonzero(counts.class_frequency > 0)
    compact = ClassCounts(
        counts.verbs,
        tuple(counts.leaf_ids[i] for i in seen),
        counts.counts[:, seen],
        counts.mapped_tokens,
        counts.unmapped_tokens,
    )
    return compact, seen


def _corpus_statistic(
    level_views: list[tuple[View, npt.NDArray[np.int16]]],
) -> Callable[[SimilarityModel], FloatArray]:
    def statistic(model: SimilarityModel) -> FloatArray:
        parts: list[FloatArray] = []
        for view, level in level_views:
            parts.append(level_means(model.values, level, view.levels)[1])
            parts.append(np.array([pair_spearman(model.values, level)]))
        return np.concatenate(parts)

    return statistic


def _final_spearman(values: npt.NDArray[np.float32], all_views: list[View]) -> list[float]:
    """Spearman over all distinct pairs of the final matrix (value ranks computed once)."""
    upper = np.triu_indices(values.shape[0], k=1)
    chosen = values[upper]
    keep = np.isfinite(chosen)
    value_rank = rankdata(chosen[keep])
    value_rank -= value_rank.mean()
    value_norm = float((value_rank * value_rank).sum())
    out = []
    for view in all_views:
        level_rank = rankdata(view.level[upper][keep])
        level_rank -= level_rank.mean()
        scale = float(np.sqrt(value_norm * (level_rank * level_rank).sum()))
        out.append(float((value_rank * level_rank).sum() / scale) if scale else float("nan"))
    return out


@dataclass(frozen=True)
class ViewVerdict:
    """How one view's means move from far to close (steps over the corpus-defined levels)."""

    name: str
    corpus_steps: int
    corpus_rising: int
    corpus_falls_beyond: int  # falling steps whose 95% interval lies below 0
    final_steps: int
    final_rising: int
    final_falls_beyond: int
    rho: float
    rho_low: float
    rho_high: float
    final_rho: float

    @property
    def rises(self) -> bool:
        return self.corpus_rising == self.corpus_steps and self.final_rising == self.final_steps

    def describe(self) -> str:
        return (
            f"`{self.name}`: corpus means rise in {self.corpus_rising} of {self.corpus_steps} "
            f"steps ({self.corpus_falls_beyond} fall beyond its 95% interval), rho "
            f"{self.rho:.3f} {_interval(self.rho_low, self.rho_high)}; final means over the "
            f"same levels rise in {self.final_rising} of {self.final_steps} "
            f"({self.final_falls_beyond} fall beyond its interval), rho {self.final_rho:.3f}"
        )


def goal_line(verdicts: list[ViewVerdict]) -> str:
    """Met / partly met / NOT met, naming the views that rise at every step and those that don't."""
    rising = [v for v in verdicts if v.rises]
    other = [v for v in verdicts if not v.rises]
    status = "met" if not other else ("partly met" if rising else "NOT met")
    parts = [status]
    if rising:
        parts.append(
            "corpus and final means rise at every step in "
            + ", ".join(f"`{v.name}`" for v in rising)
        )
    for v in other:
        parts.append(
            f"not in `{v.name}` (corpus {v.corpus_rising} of {v.corpus_steps} steps rise, "
            f"{v.corpus_falls_beyond} fall beyond the noise; final {v.final_rising} of "
            f"{v.final_steps}, {v.final_falls_beyond} beyond the noise)"
        )
    positive = [v for v in verdicts if v.rho_low > 0 and v.final_rho > 0]
    parts.append(
        "the rank trend (Spearman rho > 0, corpus interval above 0) is positive in "
        + (", ".join(f"`{v.name}`" for v in positive) or "no view")
    )
    return parts[0] + ": " + "; ".join(parts[1:])


@dataclass
class TrendResult:
    lines: list[str]
    verdicts: list[ViewVerdict]
    seconds: float
    cpu_seconds: float

    @property
    def goal(self) -> str:
        return goal_line(self.verdicts)

    @property
    def detail(self) -> str:
        return "; ".join(v.describe() for v in self.verdicts)


def _fmt(value: float) -> str:
    return "nan" if not np.isfinite(value) else f"{value:.3f}"


def _interval(low: float, high: float) -> str:
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _steps_summary(means: FloatArray, low: FloatArray, high: FloatArray) -> tuple[int, int, int]:
    """Over the levels with a value: steps, rising steps, falls whose interval is below 0."""
    rising = falls = steps = 0
    present = [k for k in range(len(means)) if np.isfinite(means[k])]
    for a, b in itertools.pairwise(present):
        steps += 1
        rising += int(means[b] >= means[a])
        if b == a + 1 and np.isfinite(high[a]) and high[a] < 0:
            falls += 1
    return steps, rising, falls


def trend_section(
    counts: ClassCounts,
    corpus_model: SimilarityModel,
    final_values: npt.NDArray[np.float32],
    thesaurus: Thesaurus,
    *,
    final_replicates: int,
    diagonal: bool,
) -> TrendResult:
    wall, cpu = time.perf_counter(), time.process_time()
    all_views = views(thesaurus)
    compact, seen = _compact(counts)
    compact_views = [(view, view.level[np.ix_(seen, seen)]) for view in all_views]
    statistic = _corpus_statistic(compact_views)
    # The full model's seen × seen block is what the compact counts give (same MI margins).
    seen_values = corpus_model.values[np.ix_(seen, seen)]
    original = statistic(
        SimilarityModel(
            compact.leaf_ids,
            seen_values,
            corpus_model.rounds[np.ix_(seen, seen)],
            compact.class_frequency,
            compact.total,
        )
    )
    corpus_draws = bootstrap_verbs(
        compact, statistic, replicates=CORPUS_REPLICATES, seed=SEED_CORPUS
    )

    def final_statistic(model: SimilarityModel) -> FloatArray:
        values = estimate_undefined(model, thesaurus, diagonal=diagonal).values
        return np.concatenate([level_means(values, v.level, v.levels)[1] for v in all_views])

    final_original = np.concatenate(
        [level_means(final_values, v.level, v.levels)[1] for v in all_views]
    )
    final_draws = bootstrap_verbs(
        counts, final_statistic, replicates=final_replicates, seed=SEED_FINAL
    )
    final_rho = _final_spearman(final_values, all_views)

    lines: list[str] = []
    verdicts: list[ViewVerdict] = []
    offset = final_offset = 0
    for view_index, view in enumerate(all_views):
        size = view.levels
        means = original[offset : offset + size]
        rho = original[offset + size]
        draws = corpus_draws[:, offset : offset + size]
        rho_low, rho_high = percentile_interval(corpus_draws[:, offset + size : offset + size + 1])
        offset += size + 1
        low, high = percentile_interval(draws)
        step_low, step_high, rising = step_intervals(draws)
        final_means = final_original[final_offset : final_offset + size]
        final_part = final_draws[:, final_offset : final_offset + size]
        final_offset += size
        f_low, f_high = percentile_interval(final_part)
        fs_low, fs_high, f_rising = step_intervals(final_part)
        corpus_pairs = level_means(seen_values, compact_views[view_index][1], size)[0]
        lines += [
            f"### View `{view.name}` (rows from far to close)",
            "",
            "| level | corpus pairs | mean SIM, corpus [95% CI] | step to next: difference "
            "[95% CI], share of replicates rising | mean SIM, final [95% interval] "
            "| final step to next [95% interval], share rising |",
            "|---|---|---|---|---|---|",
        ]
        for k in range(size):
            if corpus_pairs[k] == 0 and not np.isfinite(final_means[k]):
                continue
            step = final_step = ""
            if k + 1 < size:
                if np.isfinite(means[k]) and np.isfinite(means[k + 1]):
                    step = (
                        f"{means[k + 1] - means[k]:+.3f} {_interval(step_low[k], step_high[k])}, "
                        f"{rising[k]:.0%}"
                    )
                if np.isfinite(final_means[k]) and np.isfinite(final_means[k + 1]):
                    final_step = (
                        f"{final_means[k + 1] - final_means[k]:+.3f} "
                        f"{_interval(fs_low[k], fs_high[k])}, {f_rising[k]:.0%}"
                    )
            lines.append(
                f"| {view.labels[k]} | {int(corpus_pairs[k]):,} | {_fmt(means[k])} "
                f"{_interval(low[k], high[k])} | {step} | {_fmt(final_means[k])} "
                f"{_interval(f_low[k], f_high[k])} | {final_step} |"
            )
        c_steps, c_rise, c_falls = _steps_summary(means, step_low, step_high)
        corpus_keys = np.isfinite(means)
        restricted = np.where(corpus_keys, final_means, np.nan)
        f_steps, f_rise, f_falls = _steps_summary(restricted, fs_low, fs_high)
        lines += [
            "",
            f"Spearman rho(level, SIM) over pairs: corpus {rho:.3f} "
            f"{_interval(float(rho_low[0]), float(rho_high[0]))}; final "
            f"{final_rho[view_index]:.3f} (all {int(np.isfinite(final_values).sum()) // 2:,} "
            "pairs, no interval: one estimation per replicate is already costly).",
            "",
        ]
        verdicts.append(
            ViewVerdict(
                view.name,
                c_steps,
                c_rise,
                c_falls,
                f_steps,
                f_rise,
                f_falls,
                float(rho),
                float(rho_low[0]),
                float(rho_high[0]),
                final_rho[view_index],
            )
        )
    return TrendResult(
        lines,
        verdicts,
        time.perf_counter() - wall,
        time.process_time() - cpu,
    )
