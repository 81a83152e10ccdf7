"""Gap filling: unpaired chunks between two consecutive chunk pairs are paired on Pr_text.

The one-to-one leaf alignment leaves a paragraph split in two on one side unaligned when
neither half matches the whole in length, and the lexical pass leaves translated paragraphs
of rare words unpaired between two pairs; :func:`fill_gaps` pairs such chunks when their
Pr_text cost says they are likelier translations than unrelated texts.
"""

from __future__ import annotations

import numpy as np

from services.html.parse import TextChunk
from services.tree_align.chunk_union import ChunkUnion
from services.tree_align.lexical import LexicalTextModel, word_count
from services.tree_align.model import FloatArray, TreeModel

# Gap filling with the length Pr_text: chosen on the dev document of
# benchmarks/tree_align/pages.py (runs: benchmarks/results/tuning_history.md).
DEFAULT_MAX_GAP = 4
GAP_THRESHOLD = -8.0  # Pr_text cost (negative log likelihood ratio) a gap pair must beat
# With the lexical Pr_text of the second pass (dev pages, seeds 7-46; same file): a gap pair
# must beat LEXICAL_GAP_THRESHOLD, or LEXICAL_GAP_PER_WORD per word of its two texts when
# that is higher (most words of a long translated paragraph are unknown to the page-trained
# Model 1), with LEXICAL_GAP_MIN_WORDS words a side (on fewer Pr_text says little), in gaps
# of up to LEXICAL_MAX_GAP chunks a side, as sub-runs of up to MAX_GAP_SPAN chunks a side.
# Words as ``lexical.word_count`` counts them (every ideograph and kana one), as the
# lexical Pr_text's tokens: Chinese text has no spaces, and counted by spaces its paragraphs
# were one word, never a gap pair (benchmarks/results/tree_align_pages.md, step 16).
LEXICAL_GAP_THRESHOLD = 0.0
LEXICAL_MAX_GAP = 8
MAX_GAP_SPAN = 2
LEXICAL_GAP_PER_WORD = 0.7
LEXICAL_GAP_MIN_WORDS = 6
# With the lexical Pr_text, longer gaps and those at the page ends are filled next to their
# pairs (:func:`_gap_windows`); same file.
WIDE_GAPS = True


def fill_gaps(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    components: ChunkUnion,
    model: TreeModel,
    max_gap: int,
    threshold: float | None = None,
) -> list[tuple[int, float]]:
    """Pair unpaired chunks lying between the same two consecutive chunk pairs.

    Each run of unpaired source chunks and the unpaired target chunks between the same
    neighbouring pairs (in order on the target side) form a gap; :func:`_gap_windows` cuts
    it into windows of at most ``max_gap`` chunks a side, and :func:`_fill_gap` pairs
    chunks inside each window whose Pr_text cost is below ``threshold`` (None:
    ``GAP_THRESHOLD``, ``LEXICAL_GAP_THRESHOLD`` with the lexical Pr_text) (Pr_text is a
    likelihood ratio against unrelated texts; the margin keeps look-alike boxes apart) or,
    with the lexical Pr_text, below ``LEXICAL_GAP_PER_WORD`` times the words of the two texts.
    Returns (a source chunk node of each new pair, its cost).
    """
    lexical = isinstance(model.text_model, LexicalTextModel)
    if threshold is None:
        threshold = LEXICAL_GAP_THRESHOLD if lexical else GAP_THRESHOLD
    per_word = LEXICAL_GAP_PER_WORD if lexical else 0.0
    min_words = LEXICAL_GAP_MIN_WORDS if lexical else 0
    wide = lexical and WIDE_GAPS
    n_src, n_tgt = len(chunks[0]), len(chunks[1])
    roots = [components.find(node) for node in range(n_src + n_tgt)]
    sides: dict[int, list[list[int]]] = {}
    for node, root in enumerate(roots):
        side = 0 if node < n_src else 1
        sides.setdefault(root, [[], []])[side].append(node - side * n_src)
    paired = [len(sides[root][0]) > 0 and len(sides[root][1]) > 0 for root in roots]
    made: list[tuple[int, float]] = []
    k = 0
    while k < n_src:
        if paired[k]:
            k += 1
            continue
        run_end = k
        while run_end < n_src and not paired[run_end]:
            run_end += 1
        lo = max(sides[roots[k - 1]][1]) if k > 0 else -1
        hi = min(sides[roots[run_end]][1]) if run_end < n_src else n_tgt
        gap = [j for j in range(lo + 1, hi) if not paired[n_src + j]]
        run = list(range(k, run_end))
        k = run_end
        if lo >= hi:
            continue
        for sub_run, sub_gap in _gap_windows(run, gap, (lo >= 0, hi < n_tgt), max_gap, wide):
            if sub_gap != list(range(sub_gap[0], sub_gap[-1] + 1)):
                continue  # a paired chunk lies inside the target window: not one gap
            made.extend(
                _fill_gap(
                    chunks, components, model, sub_run, sub_gap, threshold, per_word, min_words
                )
            )
    return made


def _gap_windows(
    run: list[int], gap: list[int], closed: tuple[bool, bool], max_gap: int, wide: bool
) -> list[tuple[list[int], list[int]]]:
    """The parts of one gap to fill: (source chunks, target chunks), each non-empty.

    ``closed``: whether a pair lies before / after the gap. A gap of at most ``max_gap``
    chunks a side between two pairs is one window. ``wide`` (the lexical Pr_text) also
    fills longer gaps and the open ones at the ends of the pages, next to the pairs only:
    the last ``max_gap`` chunks a side before the next pair and the first ``max_gap`` after
    the previous one (article paragraphs sit next to each other; the one-sided boxes, menus
    and footers that make a gap long lie between, before or after them).
    """
    if not run or not gap or not (closed[0] or closed[1]):
        return []
    if len(run) <= max_gap and len(gap) <= max_gap and closed[0] and closed[1]:
        return [(run, gap)]
    if not wide:
        return []
    windows: list[tuple[list[int], list[int]]] = []
    if closed[1]:
        windows.append((run[-max_gap:], gap[-max_gap:]))
    if closed[0]:
        taken = windows[0] if windows else ([], [])
        head = (
            [x for x in run[:max_gap] if x not in taken[0]],
            [y for y in gap[:max_gap] if y not in taken[1]],
        )
        if head[0] and head[1]:
            windows.append(head)
    return windows


def _fill_gap(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    components: ChunkUnion,
    model: TreeModel,
    run: list[int],
    gap: list[int],
    threshold: float,
    per_word: float,
    min_words: int = 0,
) -> list[tuple[int, float]]:
    """Join source and target sub-runs of one gap in order, each pair below its limit.

    Candidate pairs are sub-runs of at most ``MAX_GAP_SPAN`` chunks and at least
    ``min_words`` words a side (not two chunks on both sides), accepted on their own when
    their Pr_text cost is below the limit ``threshold`` (or ``per_word`` times their
    words). Of the sets of such pairs in document order on both sides, the one of the
    lowest summed cost minus limit is joined (a monotone alignment of the gap, dynamic
    programming over its prefixes; one best pair only had left the other translated
    paragraphs of a gap unpaired). Returns (first source chunk, cost) of each new pair.
    """
    if not run or not gap:
        return []
    n_src = len(chunks[0])
    src_spans, tgt_spans = chunk_spans(len(run)), chunk_spans(len(gap))
    src_texts = [" ".join(chunks[0][run[i]].text for i in range(a, b + 1)) for a, b in src_spans]
    tgt_texts = [" ".join(chunks[1][gap[j]].text for j in range(c, d + 1)) for c, d in tgt_spans]
    cost = model.text_model.pair_costs(src_texts, tgt_texts)
    src_words = np.array([word_count(text) for text in src_texts])
    tgt_words = np.array([word_count(text) for text in tgt_texts])
    limit = np.full(cost.shape, threshold)
    if per_word > 0.0:
        limit = np.maximum(limit, per_word * (src_words[:, None] + tgt_words[None, :]))
    gain = cost - limit  # < 0: the pair is accepted on its own
    gain[src_words < min_words, :] = np.inf
    gain[:, tgt_words < min_words] = np.inf
    made: list[tuple[int, float]] = []
    for x, y in best_chain(len(run), len(gap), src_spans, tgt_spans, gain):
        (a, b), (c, d) = src_spans[x], tgt_spans[y]
        for u in range(a, b + 1):
            for v in range(c, d + 1):
                components.join(run[u], n_src + gap[v])
        made.append((run[a], float(cost[x, y])))
    return made


def best_chain(
    n_run: int,
    n_gap: int,
    src_spans: list[tuple[int, int]],
    tgt_spans: list[tuple[int, int]],
    gain: FloatArray,
    keep: tuple[list[bool], list[bool]] | None = None,
) -> list[tuple[int, int]]:
    """The in-order set of span pairs (x, y) of the lowest summed ``gain[x, y]`` < 0 each.

    Spans index ``n_run`` source and ``n_gap`` target chunks; pairs of two chunks on both
    sides are not candidates. best[i, j] = min(best[i-1, j], best[i, j-1],
    min over pairs (a..i-1, c..j-1) of best[a, c] + gain)   (G1). Returned in order.
    ``keep`` (source, target): chunks that must be paired (their skip moves of (G1) are
    barred) and every finite gain is a candidate; [] when no such set exists.
    """
    ending: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}
    candidates = gain < 0.0 if keep is None else np.isfinite(gain)
    for x, y in zip(*np.nonzero(candidates), strict=True):
        (a, b), (c, d) = src_spans[int(x)], tgt_spans[int(y)]
        if b == a or d == c:  # not two chunks on both sides
            ending.setdefault((b + 1, d + 1), []).append((a, c, int(x), int(y)))
    if not ending:
        return []
    # best[i, j]: lowest summed gain of the pairs within the first i and j chunks
    best = np.zeros((n_run + 1, n_gap + 1))
    step: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    for i in range(n_run + 1):
        for j in range(n_gap + 1):
            if i == 0 and j == 0:
                continue
            value, move = np.inf, (-1, -1, -1, -1)
            if i > 0 and (keep is None or not keep[0][i - 1]):
                value, move = best[i - 1, j], (i - 1, j, -1, -1)
            if j > 0 and (keep is None or not keep[1][j - 1]) and best[i, j - 1] < value:
                value, move = best[i, j - 1], (i, j - 1, -1, -1)
            for a, c, x, y in ending.get((i, j), ()):
                if best[a, c] + gain[x, y] < value:
                    value, move = best[a, c] + gain[x, y], (a, c, x, y)
            best[i, j] = value
            step[(i, j)] = move
    if not np.isfinite(best[n_run, n_gap]):
        return []
    chosen: list[tuple[int, int]] = []
    i, j = n_run, n_gap
    while i > 0 or j > 0:
        i, j, x, y = step[(i, j)]
        if x >= 0:
            chosen.append((x, y))
    return chosen[::-1]


def chunk_spans(size: int) -> list[tuple[int, int]]:
    """(first, last) of every sub-run of at most ``MAX_GAP_SPAN`` of ``size`` chunks."""
    return [(a, b) for a in range(size) for b in range(a, min(a + MAX_GAP_SPAN, size))]
