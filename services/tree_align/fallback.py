"""Never lose the content: a flat chunk alignment the tree result is checked against.

The tree alignment can go wrong as a whole on a page pair: a template the tag model never
saw, a content block deleted on one side, every paragraph paired with its neighbour's
translation. Then most of the pages' longer texts stay unpaired on both sides. For such a
page pair (:func:`needs_check`), the longer texts of the two pages are also aligned flat, in
document order, by :func:`flat_pairs` (the page's text without the tree, but chunk by chunk
and scored by Pr_text), and the result with the more Pr_text evidence is kept: both are
measured with the same length model over the same kind of texts (:func:`measured_pairs`),
the sum of their pairs' negative costs (a likelihood ratio against unrelated text, so a
pairing that explains more text scores lower). Decided from model scores, never from a
gold standard.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from numba import njit

from services.tree_align.model import FloatArray, TextModel

IntArray = npt.NDArray[np.int64]

# A page pair is checked when at least this share of its longer texts' characters is left
# unpaired on both sides (not tuned: "a substantial part"; well-aligned pages skip the check).
UNPAIRED_SHARE = 0.25
# Texts of at least this many words (ideographs and kana counted one each) take part:
# menu labels and button texts carry no length evidence worth aligning flat.
MIN_WORDS = 3
# The flat result replaces the tree's when its evidence is at least this many times the
# tree's (both negative; "clearly more", benchmarks/results/tree_align_pages.md).
SWITCH_FACTOR = 1.25

Span = tuple[int, ...]


def needs_check(
    sizes: tuple[Sequence[int], Sequence[int]], paired: tuple[set[int], set[int]]
) -> bool:
    """Whether both pages leave ``UNPAIRED_SHARE`` of their text's characters (``sizes``
    per chunk of ``MIN_WORDS`` words or more, 0 for the others) unpaired."""
    for side in (0, 1):
        total = sum(sizes[side])
        unpaired = sum(size for k, size in enumerate(sizes[side]) if k not in paired[side])
        if not total or unpaired < UNPAIRED_SHARE * total:
            return False
    return True


def flat_pairs(
    src_texts: Sequence[str], tgt_texts: Sequence[str], model: TextModel
) -> list[tuple[Span, Span, float]]:
    """The in-order pairs (1-1, 1-2 and 2-1 runs of the two text lists) of the lowest summed
    Pr_text cost, each pair below 0 (likelier a translation than unrelated text).

    best[i, j] = min(best[i-1, j], best[i, j-1], best[i-a, j-b] + cost(a, b))  over the runs
    (a, b) in {(1, 1), (1, 2), (2, 1)} ending at i, j, with cost < 0.
    """
    n, m = len(src_texts), len(tgt_texts)
    if not n or not m:
        return []
    src_runs = [*src_texts, *(f"{src_texts[i]} {src_texts[i + 1]}" for i in range(n - 1))]
    tgt_runs = [*tgt_texts, *(f"{tgt_texts[j]} {tgt_texts[j + 1]}" for j in range(m - 1))]
    costs = np.ascontiguousarray(model.pair_costs(src_runs, tgt_runs), dtype=np.float64)
    moves = _flat_moves(costs, n, m)
    result: list[tuple[Span, Span, float]] = []
    i, j = n, m
    while i > 0 or j > 0:
        a, b = int(moves[i, j, 0]), int(moves[i, j, 1])
        if a and b:
            x = i - 1 if a == 1 else n + i - 2
            y = j - 1 if b == 1 else m + j - 2
            result.append((tuple(range(i - a, i)), tuple(range(j - b, j)), float(costs[x, y])))
        i, j = i - a, j - b
    return result[::-1]


@njit(cache=True)
def _flat_moves(costs: FloatArray, n: int, m: int) -> IntArray:
    """Back-pointers (source step, target step) of the DP of :func:`flat_pairs`; ``costs``
    rows: source runs (n single texts, then n - 1 doubles), columns likewise."""
    best = np.zeros((n + 1, m + 1))
    moves = np.zeros((n + 1, m + 1, 2), dtype=np.int64)
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            value = np.inf
            step_a, step_b = 0, 0
            if i > 0:
                value, step_a, step_b = best[i - 1, j], 1, 0
            if j > 0 and best[i, j - 1] < value:
                value, step_a, step_b = best[i, j - 1], 0, 1
            for a, b in ((1, 1), (1, 2), (2, 1)):
                if i >= a and j >= b:
                    x = i - 1 if a == 1 else n + i - 2
                    y = j - 1 if b == 1 else m + j - 2
                    c = costs[x, y]
                    if c < 0.0 and best[i - a, j - b] + c < value:
                        value, step_a, step_b = best[i - a, j - b] + c, a, b
            best[i, j] = value
            moves[i, j, 0] = step_a
            moves[i, j, 1] = step_b
    return moves


def measured_pairs(
    sizes: tuple[Sequence[int], Sequence[int]],
    texts: tuple[Sequence[str], Sequence[str]],
    runs: Sequence[tuple[Sequence[int], Sequence[int]]],
) -> list[tuple[str, str]]:
    """The text pairs of chunk ``runs`` (chunk indices a side) as the flat pairs are
    measured: of each side only the chunks of ``MIN_WORDS`` words or more (``sizes`` above
    0), joined; runs without such a chunk on a side are left out. The length Pr_text gives
    a pair of one-word menu labels about the evidence of a pair of paragraphs, so a tree
    result of forty paired labels and no paired content outweighed the flat pairs of the
    content, which hold no labels."""
    measured = [
        (
            " ".join(texts[0][k] for k in src_run if sizes[0][k]),
            " ".join(texts[1][k] for k in tgt_run if sizes[1][k]),
        )
        for src_run, tgt_run in runs
    ]
    return [(a, b) for a, b in measured if a and b]


def evidence(costs: Sequence[float]) -> float:
    """Summed evidence of pairs: their negative costs (a positive cost counts 0)."""
    return float(sum(min(0.0, cost) for cost in costs))


def flat_is_better(tree_evidence: float, flat_evidence: float) -> bool:
    """Whether the flat pairs have clearly more evidence (``SWITCH_FACTOR``) than the tree's."""
    return flat_evidence < SWITCH_FACTOR * tree_evidence
