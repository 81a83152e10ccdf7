"""Chunk components of a tree alignment: chunks linked by aligned text leaves, with text on
both sides, grown by wrapped chunks, gap filling (``gap_fill``) and repair (``repair``)."""

from __future__ import annotations

import numpy as np

from services.html.parse import TextChunk, text_chunks
from services.html.tag_tree import NODE_ELEMENT, TagTree
from services.tree_align.chunk_union import ChunkComponent, ChunkUnion
from services.tree_align.decoder import TreeAlignment
from services.tree_align.gap_fill import DEFAULT_MAX_GAP, LEXICAL_MAX_GAP, fill_gaps
from services.tree_align.lexical import LexicalTextModel
from services.tree_align.model import TreeModel
from services.tree_align.repair import REPAIR_WINDOW, repair_pairs

# With the lexical Pr_text, a text-leaf pair costing LEXICAL_LINK_COST or more links no
# chunks (the tag model paired them, mostly menu and box texts in the same template slot);
# the middle of a plateau on the dev pages (benchmarks/results/tuning_history.md).
LEXICAL_LINK_COST = 1.5


def chunk_components(
    src: TagTree,
    tgt: TagTree,
    alignment: TreeAlignment,
    model: TreeModel,
    *,
    attach_wrapped: bool = True,
    max_gap: int | None = None,
    gap_threshold: float | None = None,
    link_cost: float | None = None,
    chunks: tuple[list[TextChunk], list[TextChunk]] | None = None,
) -> list[ChunkComponent]:
    """Components of chunks linked by aligned text leaves, with text on both sides.

    ``chunks``: the two trees' ``text_chunks`` when the caller has them already.

    ``link_cost``: leaf pairs whose Pr_text cost is not below it link nothing (None: no
    limit with the length Pr_text, ``LEXICAL_LINK_COST`` with the lexical one).

    ``max_gap`` > 0: unpaired chunks between two consecutive pairs are then paired by
    :func:`fill_gaps` (a paragraph split in two on one side, which the one-to-one leaf
    alignment leaves unaligned when neither half matches the whole in length). None:
    ``DEFAULT_MAX_GAP``, ``LEXICAL_MAX_GAP`` with the lexical Pr_text.

    ``attach_wrapped`` (default): an unaligned chunk joins a component when the nearest
    ancestor of its block holding any aligned text holds aligned text of that one component
    only (a paragraph split into two ``<p>`` in a wrapper on one side, one of them aligned).
    It raised strict F1 on the dev pages (benchmarks/results/tuning_history.md).
    """
    chunks = chunks or (text_chunks(src), text_chunks(tgt))
    n_src = len(chunks[0])
    offsets = (0, n_src)
    node_of = [
        {leaf: offsets[side] + k for k, chunk in enumerate(chunks[side]) for leaf in chunk.leaves}
        for side in (0, 1)
    ]
    is_leaf_pair = (src.kinds[alignment.pairs[:, 0]] != NODE_ELEMENT) & (
        tgt.kinds[alignment.pairs[:, 1]] != NODE_ELEMENT
    )
    lexical = isinstance(model.text_model, LexicalTextModel)
    if link_cost is None and lexical:
        link_cost = LEXICAL_LINK_COST
    if link_cost is not None:
        is_leaf_pair &= alignment.pair_costs < link_cost
    if max_gap is None:
        max_gap = LEXICAL_MAX_GAP if lexical else DEFAULT_MAX_GAP
    leaf_pairs = alignment.pairs[is_leaf_pair].reshape(-1, 2)
    costs = alignment.pair_costs[is_leaf_pair]
    components = ChunkUnion(n_src + len(chunks[1]))
    for x, y in leaf_pairs:
        components.join(node_of[0][int(x)], node_of[1][int(y)])
    aligned = [set(int(x) for x in leaf_pairs[:, 0]), set(int(y) for y in leaf_pairs[:, 1])]
    if attach_wrapped:
        texts: dict[int, tuple[list[str], list[str]]] = {}
        for node in range(n_src + len(chunks[1])):
            side = 0 if node < n_src else 1
            chunk = chunks[side][node - offsets[side]]
            if any(leaf in aligned[side] for leaf in chunk.leaves):
                texts.setdefault(components.find(node), ([], []))[side].append(chunk.text)
        for side, tree in enumerate((src, tgt)):
            _attach_wrapped(
                tree, side, chunks[side], offsets[side], aligned[side], node_of[side],
                components, texts, model,
            )  # fmt: skip
    gap_costs = (
        fill_gaps(chunks, components, model, max_gap, gap_threshold) if max_gap > 0 else []
    )  # fmt: skip
    cost: dict[int, float] = {}
    for (x, _), pair_cost in zip(leaf_pairs, costs, strict=True):
        key = components.find(node_of[0][int(x)])
        cost[key] = cost.get(key, 0.0) + float(pair_cost)
    for first, gap_cost in gap_costs:
        cost[components.find(first)] = gap_cost
    members: dict[int, tuple[list[int], list[int]]] = {}
    for node in range(n_src + len(chunks[1])):
        side = 0 if node < n_src else 1
        members.setdefault(components.find(node), ([], []))[side].append(node - offsets[side])
    result = [
        ChunkComponent(tuple(src_side), tuple(tgt_side), cost.get(key, 0.0))
        for key, (src_side, tgt_side) in sorted(members.items())
        if src_side and tgt_side  # text on one side only: a deletion, never a pair
    ]
    if lexical and REPAIR_WINDOW > 1 and max_gap > 0:
        result = repair_pairs(chunks, result, model, REPAIR_WINDOW)
    return result


def _attach_wrapped(
    tree: TagTree,
    side: int,
    chunks: list[TextChunk],
    offset: int,
    aligned: set[int],
    node_of: dict[int, int],
    components: ChunkUnion,
    texts: dict[int, tuple[list[str], list[str]]],
    model: TreeModel,
) -> None:
    aligned_leaves = np.array(sorted(aligned), dtype=np.int64)
    for k, chunk in enumerate(chunks):
        if any(leaf in aligned for leaf in chunk.leaves):
            continue
        node = chunk.block
        while node >= 0:
            lo = np.searchsorted(aligned_leaves, node)
            hi = np.searchsorted(aligned_leaves, int(tree.subtree_end[node]))
            if hi > lo:  # pre-order: the aligned leaves inside this subtree
                found = {components.find(node_of[int(leaf)]) for leaf in aligned_leaves[lo:hi]}
                if len(found) == 1:
                    root = found.pop()
                    if _improves(texts[root], side, chunk.text, model):
                        components.join(offset + k, root)
                        merged = texts.pop(root)
                        merged[side].append(chunk.text)
                        texts[components.find(root)] = merged
                break
            node = int(tree.parent[node])


def _improves(texts: tuple[list[str], list[str]], side: int, extra: str, model: TreeModel) -> bool:
    """Whether adding ``extra`` to one side makes the component's texts a likelier pair.

    A paragraph split into two ``<p>`` gains (the lengths match better with both halves); the
    body of a one-sided box whose short title happens to pair with another box's title loses.
    (Runs without and with this test: benchmarks/results/tuning_history.md and
    benchmarks/results/tree_align_pages.md.)
    """
    before = (" ".join(texts[0]), " ".join(texts[1]))
    after = list(before)
    after[side] = f"{before[side]} {extra}"
    costs = model.text_model.pair_costs([before[0], after[0]], [before[1], after[1]])
    return bool(costs[1, 1] < costs[0, 0])
