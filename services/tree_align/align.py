"""Aligned text-chunk pairs of two parsed pages: what the sentence aligner works inside.

The tree alignment (ALGORITHMS.md §1) pairs ``#text`` leaves. Inline markup splits one
sentence over several leaves (``<p>Hello <b>world</b>.</p>``), so leaves are first grouped
into block-level chunks (:func:`text_chunks`); chunks linked by at least one aligned leaf
pair form connected components, and each component with text on both sides becomes one
:class:`TextPair` whose texts are its chunks joined in document order. Chunks with no aligned
leaf (ads, sidebars, text on one side only) are deletions and never become pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from services.tree_align.decoder import TreeAlignment, align_trees
from services.tree_align.html_tree import TagTree, TextChunk, text_chunks
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


def leaf_pair_costs(src: TagTree, tgt: TagTree, pairs: np.ndarray, model: TreeModel) -> np.ndarray:
    """-log Pr(Nf, Ne) of each (text leaf, text leaf) pair (Pr_text * Pr_tag of §1)."""
    if len(pairs) == 0:
        return np.zeros(0)
    texts1 = [src.texts[int(x)] for x in pairs[:, 0]]
    texts2 = [tgt.texts[int(y)] for y in pairs[:, 1]]
    text = np.diagonal(model.text_model.pair_costs(texts1, texts2))
    labels1 = model.label_ids(src.label_names)[src.labels[pairs[:, 0]]]
    labels2 = model.label_ids(tgt.label_names)[tgt.labels[pairs[:, 1]]]
    costs: np.ndarray = model.pair_cost_matrix()[labels1, labels2] + text
    return costs


def text_pairs(
    src: TagTree, tgt: TagTree, alignment: TreeAlignment, model: TreeModel
) -> list[TextPair]:
    """Group aligned text leaves into chunk components and emit one pair per component."""
    src_chunks = text_chunks(src)
    tgt_chunks = text_chunks(tgt)
    chunk_of_src = {leaf: k for k, chunk in enumerate(src_chunks) for leaf in chunk.leaves}
    chunk_of_tgt = {leaf: k for k, chunk in enumerate(tgt_chunks) for leaf in chunk.leaves}
    leaf_pairs = np.array(
        [(x, y) for x, y in alignment.pairs if src.is_text(int(x)) and tgt.is_text(int(y))],
        dtype=np.int64,
    ).reshape(-1, 2)
    costs = leaf_pair_costs(src, tgt, leaf_pairs, model)
    # union-find over chunks: node k < n_src is source chunk k, n_src + j is target chunk j
    n_src = len(src_chunks)
    root = list(range(n_src + len(tgt_chunks)))

    def find(node: int) -> int:
        while root[node] != node:
            root[node] = root[root[node]]
            node = root[node]
        return node

    for x, y in leaf_pairs:
        a, b = find(chunk_of_src[int(x)]), find(n_src + chunk_of_tgt[int(y)])
        root[max(a, b)] = min(a, b)
    component_cost: dict[int, float] = {}
    for (x, _), cost in zip(leaf_pairs, costs, strict=True):
        key = find(chunk_of_src[int(x)])
        component_cost[key] = component_cost.get(key, 0.0) + float(cost)
    members: dict[int, tuple[list[TextChunk], list[TextChunk]]] = {}
    for k, chunk in enumerate(src_chunks):
        members.setdefault(find(k), ([], []))[0].append(chunk)
    for j, chunk in enumerate(tgt_chunks):
        members.setdefault(find(n_src + j), ([], []))[1].append(chunk)
    result: list[TextPair] = []
    for key in sorted(members):
        src_side, tgt_side = members[key]
        if not src_side or not tgt_side:
            continue  # text on one side only: a deletion, never a pair
        result.append(
            TextPair(
                src_text=" ".join(chunk.text for chunk in src_side),
                tgt_text=" ".join(chunk.text for chunk in tgt_side),
                src_xpath=src.xpath(src_side[0].block),
                tgt_xpath=tgt.xpath(tgt_side[0].block),
                cost=component_cost.get(key, 0.0),
            )
        )
    return result
