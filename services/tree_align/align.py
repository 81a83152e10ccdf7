"""Aligned text-chunk pairs of two parsed pages: what the sentence aligner works inside.

The tree alignment (ALGORITHMS.md §1) pairs ``#text`` leaves. Inline markup splits one
sentence over several leaves (``<p>Hello <b>world</b>.</p>``), and translations put inline
markup at different places, so a one-to-one leaf alignment would pair fragments with whole
paragraphs. Measured on generated page pairs (benchmarks/tree_align_pages.py, dev document):
aligning the full trees left nearly all article text unaligned (strict F1 under 0.1), while
aligning the :func:`block_tree` (inline markup folded into one leaf per block) gave 0.46-0.52
against 0.35 for flat text. So by default the trees are folded first. Leaves are then grouped
into block-level chunks (:func:`text_chunks`, one per leaf on a folded tree); chunks linked by
aligned leaf pairs form connected components, and each component with text on both sides
becomes one :class:`TextPair` whose texts are its chunks joined in document order. Chunks
with no aligned leaf (ads, sidebars, text on one side only) are deletions, never pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from services.tree_align.decoder import TreeAlignment, align_trees
from services.tree_align.html_tree import NODE_ELEMENT, TagTree, TextChunk, text_chunks
from services.tree_align.model import TreeModel, default_model


@dataclass(frozen=True)
class TextPair:
    """One aligned pair of text chunks with the xpaths of their block elements."""

    src_text: str
    tgt_text: str
    src_xpath: str
    tgt_xpath: str
    cost: float  # summed -log Pr(Nf, Ne) of the aligned text leaves inside the pair


def align_page_texts(
    src: TagTree, tgt: TagTree, *, model: TreeModel | None = None
) -> list[TextPair]:
    """Aligned text chunk pairs in document order; ``model`` None = the shipped default model."""
    model = model or default_model()
    alignment = align_trees(src, tgt, model)
    return text_pairs(src, tgt, alignment, model)


@dataclass(frozen=True)
class ChunkComponent:
    """Text chunks of both pages linked by aligned leaves (indices into ``text_chunks``)."""

    src_chunks: tuple[int, ...]
    tgt_chunks: tuple[int, ...]
    cost: float


class _Components:
    """Union-find over the chunks of both pages (target chunk j is node n_src + j)."""

    def __init__(self, size: int) -> None:
        self.root = list(range(size))

    def find(self, node: int) -> int:
        while self.root[node] != node:
            self.root[node] = self.root[self.root[node]]
            node = self.root[node]
        return node

    def join(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        self.root[max(a, b)] = min(a, b)


def chunk_components(
    src: TagTree,
    tgt: TagTree,
    alignment: TreeAlignment,
    model: TreeModel,
    *,
    attach_wrapped: bool = True,
) -> list[ChunkComponent]:
    """Components of chunks linked by aligned text leaves, with text on both sides.

    ``attach_wrapped`` (default): an unaligned chunk joins a component when the nearest
    ancestor of its block holding any aligned text holds aligned text of that one component
    only (a paragraph split into two ``<p>`` in a wrapper on one side, one of them aligned).
    Dev document, default model: strict F1 0.549/0.564 -> 0.677/0.678, text-node accuracy
    0.864/0.904 -> 0.897/0.943 (with the length-only Pr_text it had been a wash).
    """
    chunks = (text_chunks(src), text_chunks(tgt))
    n_src = len(chunks[0])
    offsets = (0, n_src)
    node_of = [
        {leaf: offsets[side] + k for k, chunk in enumerate(chunks[side]) for leaf in chunk.leaves}
        for side in (0, 1)
    ]
    is_leaf_pair = (src.kinds[alignment.pairs[:, 0]] != NODE_ELEMENT) & (
        tgt.kinds[alignment.pairs[:, 1]] != NODE_ELEMENT
    )
    leaf_pairs = alignment.pairs[is_leaf_pair].reshape(-1, 2)
    costs = alignment.pair_costs[is_leaf_pair]
    components = _Components(n_src + len(chunks[1]))
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
    cost: dict[int, float] = {}
    for (x, _), pair_cost in zip(leaf_pairs, costs, strict=True):
        key = components.find(node_of[0][int(x)])
        cost[key] = cost.get(key, 0.0) + float(pair_cost)
    members: dict[int, tuple[list[int], list[int]]] = {}
    for node in range(n_src + len(chunks[1])):
        side = 0 if node < n_src else 1
        members.setdefault(components.find(node), ([], []))[side].append(node - offsets[side])
    return [
        ChunkComponent(tuple(src_side), tuple(tgt_side), cost.get(key, 0.0))
        for key, (src_side, tgt_side) in sorted(members.items())
        if src_side and tgt_side  # text on one side only: a deletion, never a pair
    ]


def _attach_wrapped(
    tree: TagTree,
    side: int,
    chunks: list[TextChunk],
    offset: int,
    aligned: set[int],
    node_of: dict[int, int],
    components: _Components,
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
    Dev document, default model, seeds 7/8: text-node accuracy (chunk) 0.843/0.936 without
    this test, see benchmarks/results/tree_align_pages.md for the run with it.
    """
    before = (" ".join(texts[0]), " ".join(texts[1]))
    after = list(before)
    after[side] = f"{before[side]} {extra}"
    costs = model.text_model.pair_costs([before[0], after[0]], [before[1], after[1]])
    return bool(costs[1, 1] < costs[0, 0])


def text_pairs(
    src: TagTree,
    tgt: TagTree,
    alignment: TreeAlignment,
    model: TreeModel,
    *,
    attach_wrapped: bool = True,
) -> list[TextPair]:
    """One :class:`TextPair` per chunk component, in source document order."""
    src_chunks = text_chunks(src)
    tgt_chunks = text_chunks(tgt)
    result: list[TextPair] = []
    for component in chunk_components(src, tgt, alignment, model, attach_wrapped=attach_wrapped):
        src_side = [src_chunks[k] for k in component.src_chunks]
        tgt_side = [tgt_chunks[j] for j in component.tgt_chunks]
        result.append(
            TextPair(
                src_text=" ".join(chunk.text for chunk in src_side),
                tgt_text=" ".join(chunk.text for chunk in tgt_side),
                src_xpath=src.xpath(src_side[0].block),
                tgt_xpath=tgt.xpath(tgt_side[0].block),
                cost=component.cost,
            )
        )
    return result
