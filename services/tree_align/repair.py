"""Chunk-pair repair: windows of consecutive chunk pairs re-paired on their summed Pr_text.

The tree decoder weighs tags and sibling order beside Pr_text, and the gap filling looks at
unpaired chunks only, so a paragraph can stay paired with its neighbour's translation while
its own lies unpaired next to it; :func:`repair_pairs` aligns such windows again.
"""

from __future__ import annotations

import numpy as np

from services.html.parse import TextChunk
from services.tree_align.chunk_union import ChunkComponent
from services.tree_align.gap_fill import (
    LEXICAL_GAP_MIN_WORDS,
    LEXICAL_MAX_GAP,
    MAX_GAP_SPAN,
    best_chain,
    chunk_spans,
)
from services.tree_align.model import TreeModel

# Windows of REPAIR_WINDOW consecutive chunk pairs (0: off) and up to REPAIR_REACH unpaired
# chunks beside them are re-paired on their summed Pr_text cost (:func:`repair_pairs`);
# chosen on dev seeds 7-26, checked on 27-46 (benchmarks/results/tuning_history.md).
REPAIR_WINDOW = 2
REPAIR_REACH = 2
REPAIR_MARGIN = 0.0  # not tuned: any lower summed cost
# Chunk sizes here are whitespace words, so Chinese and Japanese chunks (one "word" each) are
# never re-paired; counted as the lexical Pr_text's tokens (``lexical.word_count``) they
# were, for the worse (benchmarks/results/tree_align_pages.md, tuning history step 21).


def repair_pairs(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    pairs: list[ChunkComponent],
    model: TreeModel,
    window: int,
) -> list[ChunkComponent]:
    """Re-pair each run of ``window`` consecutive pairs when the lexical Pr_text says so.

    The tree decoder weighs tags and sibling order beside Pr_text, and the gap filling
    looks at unpaired chunks only, so a paragraph can stay paired with its neighbour's
    translation (a paragraph split in two on one side, the pairs shifted by one) while its
    own lies unpaired next to it. Here the chunks of ``window`` consecutive pairs, the
    unpaired chunks between them and up to ``REPAIR_REACH`` unpaired chunks before and after
    them are aligned again by :func:`best_chain`, on the sum of Pr_text costs: each side
    one contiguous run with no other pair inside; every pair a sub-run of at most
    ``MAX_GAP_SPAN`` chunks a side, not two on both, of ``LEXICAL_GAP_MIN_WORDS`` words or
    more a side; every chunk paired before stays paired; an unpaired chunk may pair only
    with chunks that were paired (a sub-run mixing paired and unpaired chunks, or one of
    unpaired chunks on both sides, is no candidate: a one-sided box or caption beside a
    long paragraph lowers its cost a little, and joined it; one-sided boxes paired each
    other). When the chosen pairs cost less than the current ones by more than
    ``REPAIR_MARGIN``, they replace them. Windows go left to right, each on the pairs the
    previous ones left.
    """
    pairs = sorted(pairs, key=lambda pair: pair.src_chunks[0])
    paired = (
        {x for pair in pairs for x in pair.src_chunks},
        {y for pair in pairs for y in pair.tgt_chunks},
    )
    k = 0
    while k + window <= len(pairs):
        if window == 2 and _plain_neighbours(chunks, pairs[k], pairs[k + 1], paired):
            k += 1
            continue
        replaced = _repair_window(chunks, pairs[k : k + window], paired, model)
        if replaced is not None:
            pairs[k : k + window] = replaced
            for pair in replaced:
                paired[0].update(pair.src_chunks)
                paired[1].update(pair.tgt_chunks)
        k += 1
    return pairs


def _plain_neighbours(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    first: ChunkComponent,
    second: ChunkComponent,
    paired: tuple[set[int], set[int]],
) -> bool:
    """Whether two one-to-one pairs are next to each other on both sides with no chunk
    :func:`_window_ranges` could reach beside them (nothing to re-pair: the common case,
    tested before the window is built)."""
    for side, (one, two) in enumerate(
        ((first.src_chunks, second.src_chunks), (first.tgt_chunks, second.tgt_chunks))
    ):
        if len(one) != 1 or len(two) != 1 or two[0] != one[0] + 1:
            return False
        for beside in (one[0] - 1, two[0] + 1):
            if (
                0 <= beside < len(chunks[side])
                and beside not in paired[side]
                and len(chunks[side][beside].text.split()) >= LEXICAL_GAP_MIN_WORDS
            ):
                return False
    return True


def _repair_window(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    group: list[ChunkComponent],
    paired: tuple[set[int], set[int]],
    model: TreeModel,
) -> list[ChunkComponent] | None:
    """The better pairs of the chunks of ``group`` (:func:`repair_pairs`), or None."""
    ranges = _window_ranges(chunks, group, paired)
    if ranges is None or (
        len(group) <= 2 and len(ranges[0]) == len(ranges[1]) == len(group)
    ):  # one or two one-to-one pairs and no other chunk: nothing else keeps them paired
        return None
    src_spans, tgt_spans = chunk_spans(len(ranges[0])), chunk_spans(len(ranges[1]))
    keep = ([x in paired[0] for x in ranges[0]], [y in paired[1] for y in ranges[1]])
    # per side: the spans that can be candidates (all of their chunks paired before or none,
    # not some; LEXICAL_GAP_MIN_WORDS words or more), and whether they were paired
    usable: list[list[int]] = []
    was_paired: list[list[bool]] = []
    for side, spans in ((0, src_spans), (1, tgt_spans)):
        size = [len(chunks[side][x].text.split()) for x in ranges[side]]
        usable.append(
            [
                k
                for k, (a, b) in enumerate(spans)
                if len(set(keep[side][a : b + 1])) == 1
                and sum(size[a : b + 1]) >= LEXICAL_GAP_MIN_WORDS
            ]
        )
        was_paired.append([keep[side][spans[k][0]] for k in usable[side]])
    span_index = [{span: x for x, span in enumerate(spans)} for spans in (src_spans, tgt_spans)]
    spots = [
        (
            span_index[0][(pair.src_chunks[0] - ranges[0][0], pair.src_chunks[-1] - ranges[0][0])],
            span_index[1][(pair.tgt_chunks[0] - ranges[1][0], pair.tgt_chunks[-1] - ranges[1][0])],
        )
        for pair in group
    ]
    if any(x not in usable[0] or y not in usable[1] for x, y in spots):
        return None  # a short pair (a title): not re-paired
    texts = [
        [" ".join(chunks[side][ranges[side][i]].text for i in range(spans[k][0], spans[k][1] + 1))
         for k in usable[side]]
        for side, spans in ((0, src_spans), (1, tgt_spans))
    ]  # fmt: skip
    cost = np.full((len(src_spans), len(tgt_spans)), np.inf)
    block = model.text_model.pair_costs(texts[0], texts[1])
    # pairs of chunks none of which were paired before: barred
    block[~np.array(was_paired[0])[:, None] & ~np.array(was_paired[1])[None, :]] = np.inf
    cost[np.ix_(usable[0], usable[1])] = block
    current = sum(float(cost[x, y]) for x, y in spots)
    chosen = best_chain(len(ranges[0]), len(ranges[1]), src_spans, tgt_spans, cost, keep)
    if not chosen or sum(float(cost[x, y]) for x, y in chosen) >= current - REPAIR_MARGIN:
        return None
    return [
        ChunkComponent(
            tuple(ranges[0][i] for i in range(src_spans[x][0], src_spans[x][1] + 1)),
            tuple(ranges[1][j] for j in range(tgt_spans[y][0], tgt_spans[y][1] + 1)),
            float(cost[x, y]),
        )
        for x, y in chosen
    ]


def _window_ranges(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    group: list[ChunkComponent],
    paired: tuple[set[int], set[int]],
) -> tuple[list[int], list[int]] | None:
    """The source and target chunks a window of pairs spans, or None when it cannot be
    re-paired: a pair not a contiguous sub-run of at most ``MAX_GAP_SPAN`` chunks a side or
    of two chunks on both, pairs out of order, another pair inside, too many chunks.
    Beside the pairs, up to ``REPAIR_REACH`` unpaired chunks of ``LEXICAL_GAP_MIN_WORDS``
    words or more a side (shorter ones are no candidates alone)."""

    def reachable(side: int, chunk: int) -> bool:
        return chunk not in paired[side] and (
            len(chunks[side][chunk].text.split()) >= LEXICAL_GAP_MIN_WORDS
        )

    if any(len(pair.src_chunks) > 1 and len(pair.tgt_chunks) > 1 for pair in group):
        return None
    ranges: list[list[int]] = []
    for side in (0, 1):
        members = [pair.src_chunks if side == 0 else pair.tgt_chunks for pair in group]
        for run in members:
            if len(run) > MAX_GAP_SPAN or run[-1] - run[0] + 1 != len(run):
                return None
        if any(members[m][-1] >= members[m + 1][0] for m in range(len(group) - 1)):
            return None
        taken = {x for run in members for x in run}
        lo, hi = members[0][0], members[-1][-1]
        if hi - lo + 1 > len(group) * MAX_GAP_SPAN + LEXICAL_MAX_GAP or any(
            x in paired[side] for x in range(lo, hi + 1) if x not in taken
        ):
            return None
        while lo - 1 >= 0 and lo - members[0][0] < REPAIR_REACH and reachable(side, lo - 1):
            lo -= 1
        while (
            hi + 1 < len(chunks[side])
            and hi - members[-1][-1] < REPAIR_REACH
            and reachable(side, hi + 1)
        ):
            hi += 1
        ranges.append(list(range(lo, hi + 1)))
    return ranges[0], ranges[1]
