"""Aligned text-chunk pairs of two parsed pages: what the sentence aligner works inside.

The tree alignment (docs/methods.md §1) pairs ``#text`` leaves. Inline markup splits one
sentence over several leaves (``<p>Hello <b>world</b>.</p>``), and translations put inline
markup at different places, so a one-to-one leaf alignment would pair fragments with whole
paragraphs (on the generated page pairs of benchmarks/tree_align/pages.py the full trees
left nearly all article text unaligned; benchmarks/results/tuning_history.md). So by default
:func:`align_page_texts` folds the trees first (:func:`block_tree`, inline markup folded into
one leaf per block; the default model was trained on folded trees); the xpaths of its pairs
still locate the blocks in the original page. Leaves are then grouped into block-level
chunks (:func:`text_chunks`, one per leaf on a folded tree); chunks linked by aligned leaf
pairs form connected components (``components``), and each component with text on both
sides becomes one :class:`TextPair` whose texts are its chunks joined in document order.
Chunks with no aligned leaf (ads, sidebars, text on one side only) are deletions, never
pairs. The lexical second pass is ``two_pass``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from services.html.parse import TextChunk, block_tree, text_chunks
from services.html.tag_tree import TagTree
from services.lexical.dictionary import BilingualDictionary
from services.tree_align import fallback
from services.tree_align.adjacent import attach_adjacent
from services.tree_align.boilerplate import all_template, line_kinds
from services.tree_align.calibrate import calibrated
from services.tree_align.chunk_union import ChunkComponent
from services.tree_align.components import chunk_components
from services.tree_align.decoder import (
    DEFAULT_MAX_TABLE_BYTES,
    DEFAULT_MAX_WORK,
    TreeAlignment,
    align_trees,
)
from services.tree_align.lexical import LexicalTextModel, word_count
from services.tree_align.model import TreeModel, default_model, text_length
from services.tree_align.two_pass import align_two_pass

# The lexical second pass (``two_pass``) is on by default: it pairs translations rather than
# look-alike boxes (benchmarks/results/tree_align_pages.md).
DEFAULT_LEXICAL = True


@dataclass(frozen=True)
class TextPair:
    """One aligned pair of text chunks with the xpaths of their block elements."""

    src_text: str
    tgt_text: str
    src_xpath: str
    tgt_xpath: str
    cost: float  # summed -log Pr(Nf, Ne) of the aligned text leaves inside the pair
    boilerplate: bool = False  # every chunk of both sides template (content model)


def align_page_texts(
    src: TagTree,
    tgt: TagTree,
    *,
    model: TreeModel | None = None,
    lexical: bool = DEFAULT_LEXICAL,
    fold_inline: bool = True,
    max_work: float | None = DEFAULT_MAX_WORK,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
    dictionary: BilingualDictionary | None = None,
    content: tuple[Sequence[bool], Sequence[bool]] | None = None,
) -> list[TextPair]:
    """Aligned text chunk pairs in document order; ``model`` None = the shipped default model.

    ``content``: for each text chunk of ``src`` and ``tgt`` (``text_chunks`` order) whether
    the content model (``services.html.content``) calls it content. With content on both
    pages only the content blocks are aligned (the folded trees keep them and the elements
    above them: a menu, a footer or a banner is no node at all); when a page has no content
    block the pages are aligned whole, as without the model, and pairs of template on both
    pages are flagged ``boilerplate`` (:mod:`~services.tree_align.boilerplate`). Aligning
    the content trees scored above walling template off in the full trees, which scored as
    the full trees did (``benchmarks/results/tree_align_pages.md``, step 30).

    ``fold_inline`` (default): align the :func:`block_tree` of each page, the configuration
    benchmarked and the default model was trained on (the full trees scored lower on the
    benchmark's test pages: benchmarks/results/tuning_history.md); the pairs' xpaths locate
    the blocks in ``src`` and ``tgt``. ``lexical``: align twice, the second time with Model 1
    trained on the first pass's confident pairs (``two_pass.align_two_pass``). ``max_work``,
    ``max_table_bytes``: see :func:`~services.tree_align.decoder.align_trees` (wide pages get
    restricted spans; InputTooLarge when no restriction fits).
    """
    lines = None
    if fold_inline and content is not None and any(content[0]) and any(content[1]):
        # the content trees: template blocks, and elements holding only them, left out
        src = block_tree(src, [k for k, is_content in enumerate(content[0]) if is_content])
        tgt = block_tree(tgt, [k for k, is_content in enumerate(content[1]) if is_content])
    else:
        if content is not None:  # whole trees: pairs of template on both pages flagged
            texts = [[chunk.text for chunk in text_chunks(tree)] for tree in (src, tgt)]
            lines = (line_kinds(texts[0], content[0]), line_kinds(texts[1], content[1]))
        if fold_inline:
            src, tgt = block_tree(src), block_tree(tgt)
    model = calibrated(model or default_model(), src, tgt)
    components = None
    if lexical:
        alignment, model, components = align_two_pass(
            src, tgt, model, max_work=max_work, max_table_bytes=max_table_bytes,
            dictionary=dictionary,
        )  # fmt: skip
    else:
        alignment = align_trees(src, tgt, model, max_work=max_work, max_table_bytes=max_table_bytes)
    pairs = text_pairs(src, tgt, alignment, model, keep_content=True, components=components)
    if lines is None:
        return pairs
    return [
        dataclasses.replace(pair, boilerplate=True)
        if all_template(pair.src_text, lines[0]) and all_template(pair.tgt_text, lines[1])
        else pair
        for pair in pairs
    ]


def _keep_content(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    components: list[ChunkComponent],
    model: TreeModel,
) -> list[ChunkComponent]:
    """``components``, or the flat chunk alignment when :mod:`fallback` prefers it."""
    sizes = tuple(
        [
            text_length(chunk.text) if word_count(chunk.text) >= fallback.MIN_WORDS else 0
            for chunk in chunks[side]
        ]
        for side in (0, 1)
    )
    paired = (
        {x for component in components for x in component.src_chunks},
        {y for component in components for y in component.tgt_chunks},
    )
    if not fallback.needs_check((sizes[0], sizes[1]), paired):
        return components
    length = model.text_model
    if isinstance(length, LexicalTextModel):
        length = length.base
    long = [[k for k, size in enumerate(sizes[side]) if size] for side in (0, 1)]
    texts = [[chunks[side][k].text for k in long[side]] for side in (0, 1)]
    flat = fallback.flat_pairs(texts[0], texts[1], length)
    tree_pairs = fallback.measured_pairs(
        (sizes[0], sizes[1]),
        ([chunk.text for chunk in chunks[0]], [chunk.text for chunk in chunks[1]]),
        [(component.src_chunks, component.tgt_chunks) for component in components],
    )
    tree_costs = length.pair_costs([a for a, _ in tree_pairs], [b for _, b in tree_pairs])
    tree_evidence = fallback.evidence([float(c) for c in np.diag(tree_costs)])
    flat_evidence = fallback.evidence([cost for _, _, cost in flat])
    if not fallback.flat_is_better(tree_evidence, flat_evidence):
        return components
    return [
        ChunkComponent(tuple(long[0][x] for x in src_run), tuple(long[1][y] for y in tgt_run), cost)
        for src_run, tgt_run, cost in flat
    ]


def text_pairs(
    src: TagTree,
    tgt: TagTree,
    alignment: TreeAlignment,
    model: TreeModel,
    *,
    attach_wrapped: bool = True,
    keep_content: bool = False,
    components: list[ChunkComponent] | None = None,
) -> list[TextPair]:
    """One :class:`TextPair` per chunk component, in source document order.

    ``keep_content`` (``align_page_texts``' default): a page pair whose longer texts the
    tree result leaves largely unpaired on both sides gets the flat chunk alignment instead
    when that has clearly more Pr_text evidence (:mod:`services.tree_align.fallback`).
    ``components``: the alignment's :func:`chunk_components` when already computed."""
    src_chunks = text_chunks(src)
    tgt_chunks = text_chunks(tgt)
    result: list[TextPair] = []
    if components is None:
        components = chunk_components(
            src, tgt, alignment, model, attach_wrapped=attach_wrapped,
            chunks=(src_chunks, tgt_chunks),
        )  # fmt: skip
    if keep_content:
        grown = attach_adjacent(
            ([c.text for c in src_chunks], [c.text for c in tgt_chunks]),
            [(c.src_chunks, c.tgt_chunks) for c in components],
            model.text_model,
        )
        components = [
            ChunkComponent(src_run, tgt_run, component.cost)
            for (src_run, tgt_run), component in zip(grown, components, strict=True)
        ]
        components = _keep_content((src_chunks, tgt_chunks), components, model)
    for component in components:
        src_side = [src_chunks[k] for k in component.src_chunks]
        tgt_side = [tgt_chunks[j] for j in component.tgt_chunks]
        result.append(
            TextPair(
                src_text="\n".join(chunk.text for chunk in src_side),
                tgt_text="\n".join(chunk.text for chunk in tgt_side),
                src_xpath=src.xpath(src_side[0].block),
                tgt_xpath=tgt.xpath(tgt_side[0].block),
                cost=component.cost,
            )
        )
    return result
