"""Aligned text-chunk pairs of two parsed pages: what the sentence aligner works inside.

The tree alignment (ALGORITHMS.md §1) pairs ``#text`` leaves. Inline markup splits one
sentence over several leaves (``<p>Hello <b>world</b>.</p>``), and translations put inline
markup at different places, so a one-to-one leaf alignment would pair fragments with whole
paragraphs. Measured on generated page pairs (benchmarks/tree_align_pages.py, dev document):
aligning the full trees left nearly all article text unaligned (strict F1 under 0.1), while
aligning the :func:`block_tree` (inline markup folded into one leaf per block) gave 0.46-0.52
against 0.35 for flat text. So by default :func:`align_page_texts` folds the trees first (the
default model was trained on folded trees, and the benchmark's shipped row folds); the xpaths
of its pairs still locate the blocks in the original page. Leaves are then grouped
into block-level chunks (:func:`text_chunks`, one per leaf on a folded tree); chunks linked by
aligned leaf pairs form connected components, and each component with text on both sides
becomes one :class:`TextPair` whose texts are its chunks joined in document order. Chunks
with no aligned leaf (ads, sidebars, text on one side only) are deletions, never pairs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from services.tree_align import fallback
from services.tree_align.adjacent import attach_adjacent
from services.tree_align.calibrate import calibrated
from services.tree_align.decoder import (
    DEFAULT_MAX_TABLE_BYTES,
    DEFAULT_MAX_WORK,
    TreeAlignment,
    align_trees,
)
from services.tree_align.html_tree import (
    NODE_ELEMENT,
    TagTree,
    TextChunk,
    block_tree,
    text_chunks,
)
from services.tree_align.lexical import (
    DEFAULT_LEXICAL_WEIGHT,
    DEFAULT_WORD_OFFSET,
    LexicalTextModel,
    spaced,
    train_lexical_model,
    word_count,
)
from services.tree_align.model import (
    FloatArray,
    TextModel,
    TreeModel,
    default_model,
    text_length,
)

# Chosen on the dev document of benchmarks/tree_align_pages.py (seeds 7/8, strict F1 and
# text-node accuracy): no gap filling 0.656/0.673, 0.883/0.942; threshold 0 0.661/0.681,
# 0.891/0.927; -3 the same; -5, -8 and -12 0.656/0.682, 0.883/0.951.
DEFAULT_MAX_GAP = 4
GAP_THRESHOLD = -8.0  # Pr_text cost (negative log likelihood ratio) a gap pair must beat
# The same with the lexical Pr_text of the second pass: chosen on the dev document, seeds
# 7-14 (w 2, offset -1; mean strict F1, text-node accuracy): -8 and 0 0.792, 0.9904;
# 5 0.792, 0.9890; 10 0.792, 0.9905; 15 0.794, 0.9943; 20, 30 and 40 0.794, 0.9950.
# Translated paragraphs of rare words left unpaired between two pairs score 2-16 here.
# Rechecked with the per-word allowance and 3-word minimum below on dev --parts 8, seeds
# 7-14 (allowance 0.6): 20 0.788, 0.9913, 30 errors; 30 and 40 0.9898, 35; 15 0.9919, 28;
# 10 0.9924, 26; 5, 0 and -5 0.788, 0.9930, 24 (the margin of 20 had kept one-sided box
# titles apart, which the word minimum does now; long paragraphs pass by the allowance).
LEXICAL_GAP_THRESHOLD = 0.0
# With the lexical Pr_text: a text-leaf pair of the alignment whose cost is at or above
# LEXICAL_LINK_COST does not link its chunks (Pr_text says unrelated text is likelier; the
# tag model paired them, mostly menu and box texts in the same template slot),
# and gaps of up to LEXICAL_MAX_GAP unpaired chunks are filled (a paragraph next to a
# one-sided box of title and three lines makes a run of five). Dev document cut into 8 page
# pairs of ~53 beads (``--parts 8``, test-sized pages where Model 1 knows fewer words),
# seeds 7-10, 1,850 judged leaves (strict F1, text-node accuracy, errors): no limit, max gap
# 4 (the previous defaults) 0.744, 0.9795, 38; no limit, max gap 6 0.742, 0.9859, 26; 8 and
# 10 0.739/0.736, 0.9854, 27; link cost 0 with max gap 4 0.795, 0.9800, 37; 6 0.797, 0.9865,
# 25; 8 0.798, 0.9876, 23; max gap 8 with link cost -5 (gap 6) 0.795, 0.9843, 29; -2 0.797,
# 0.9876, 23; 2 0.799, 0.9897, 19; 5 and 10 (gap 6) as no limit; link cost 0, max gap 8 with
# gap threshold 10 0.792, 0.9703, 55; 15 0.795, 0.9832, 31; 30 0.798, 0.9886, 21.
# Dev --parts 8, seeds 7-14 (3,437 judged leaves): link cost 2, max gap 8 0.785, 0.9863, 47
# errors; max gap 12 0.786, 0.9852, 51; 16 0.785, 0.9840, 55 (more one-sided boxes join);
# filling the rest of a gap again after its best pair (recursively) 0.786, 0.9852, 51 (max
# gap 8; 65 with 12); filling the first or last 8 chunks of a longer gap 0.771, 0.9840, 55
# (with the per-word allowance below). Joined sub-runs of at most MAX_GAP_SPAN chunks a
# side (a paragraph split in two): the same 47 errors as any length, and 15 instead of 36
# texts a side to score in a gap of 8.
# Rechecked with all the gap settings below (dev --parts 8, seeds 7-14): link cost 0 0.787,
# 0.9907, 32 errors; 1, 1.5 and 2 0.788, 0.9930, 24; 3, 4 and no limit 0.739, 0.9924, 26
# (menu pairs of cost 2-3 link again and cost strict F1): 1.5, the middle of the plateau.
# Rechecked with the gap filling in order, its wide windows and the 6-word minimum (20 seeds
# 7-26, --parts 4 / 8 / 12, errors summed): 3 103 (strict F1 of --parts 12 0.732); 1.5 85;
# 0 87; -3 84; -4 84; -5 76; -6 80; -8 94; -10 104. -5 did not hold on 20 further dev seeds
# (27-46): 1.5 23 / 41 / 59 (123), -5 31 / 50 / 57 (138), so 1.5 stays. (That check was
# run after a test run of -5, 20 -> 27 test errors; the dev seeds alone decided.)
# The gap filling before this round on seeds 27-46: 25 / 79 / 184 (288) errors.
LEXICAL_LINK_COST = 1.5
LEXICAL_MAX_GAP = 8
MAX_GAP_SPAN = 2
# A gap pair of the lexical Pr_text may cost up to LEXICAL_GAP_PER_WORD per word of its two
# texts when that is above LEXICAL_GAP_THRESHOLD: most words of a long translated paragraph
# are unknown to the page-trained Model 1 and each costs ~log eps - offset = -1.3 of evidence
# (measured: 20-45 for paragraphs of 40-120 words), an unrelated text ~2.3 per word more.
# Dev --parts 8, seeds 7-14 (strict F1, text-node accuracy, errors of 3,437): 0 (absolute
# threshold only) 0.785, 0.9863, 47; 0.25 0.786, 0.9869, 45; 0.4, 0.6 and 0.8 0.787,
# 0.9881, 41; 1.0 and 1.5 0.787, 0.9878, 42. With the gap threshold 0: 0 0.779, 0.9715, 98;
# 0.3 0.9872, 44; 0.45 0.9913, 30; 0.6, 0.7 and 0.8 0.788, 0.9930, 24; 1.0 0.9921, 27.
LEXICAL_GAP_PER_WORD = 0.7
# Gap pairs of the lexical Pr_text need this many words on each side: on one or two words
# Pr_text says little, and the titles of two one-sided boxes in a gap were joined (and then
# took the gap's one pair from its paragraphs). Dev --parts 8, seeds 7-14: 0 0.787, 0.9881,
# 41 errors; 3 and 4 0.788, 0.9913, 30; 6 0.788, 0.9907, 32. With 3, LEXICAL_MAX_GAP
# rechecked: 10 0.788, 0.9913, 30; 12 0.9901, 34; 16 0.9889, 38 (8 kept).
# Rechecked with the gap DP and WIDE_GAPS below, which give the short one-sided texts by the
# article (pseudo-text boxes, captions, a translator's note; 4-8 words, costs 4-22, passed by
# the per-word allowance) more chances to pair: 20 seeds 7-26, --parts 4 / 8 / 12, errors
# (summed): 3 25/44/34 (103); 4 101; 5 21/38/32 (91); 6 21/34/30 (85; text-node accuracy
# 0.9972/0.9960/0.9968, strict F1 0.798/0.793/0.798); 7 27/38/29 (94); 8 27/38/29 (94);
# 10 35/52/29 (116). Old setting (--parts 8, seeds 7-14): 6 0.791, 0.9951, 17 errors.
LEXICAL_GAP_MIN_WORDS = 6
# With the lexical Pr_text, gaps longer than LEXICAL_MAX_GAP and those before the first or
# after the last pair are filled next to their pairs (:func:`_gap_windows`), and a gap takes
# all its pairs in order (:func:`_fill_gap`), not only its best one. Harder dev setting than
# before (20 seeds 7-26, dev cut into 4, 8 and 12 page pairs: 7,430 / 8,461 / 9,282 judged
# leaves; --parts 12 are pages of ~35 beads, like the smallest test page): errors before
# 34 / 58 / 165 (accuracy 0.9954 / 0.9931 / 0.9822, strict F1 0.797 / 0.792 / 0.787); all
# pairs of a gap 33 / 48 / 162 (2x2 spans joined two paragraphs a side) and without 2x2
# spans 21 / 48 / 130; with the page ends 23 / 46 / 66; with the long gaps too 25 / 44 / 34
# (0.9966 / 0.9948 / 0.9963, strict F1 0.797 / 0.793 / 0.798). Rechecked there with the
# 6-word minimum below (21 / 34 / 30 errors): LEXICAL_MAX_GAP 6 and 12 the same, 3 worse
# (old setting 17 -> 39 errors); LEXICAL_GAP_PER_WORD 0.5 37 / 38 / 51, 0.9 30 / 50 / 63.
WIDE_GAPS = True
# The lexical second pass (services/tree_align/lexical.py): on by default, trained on the
# first pass's chunk pairs whose Pr_text cost is below CONFIDENT_COST. Dev document of
# benchmarks/tree_align_pages.py (w 1, offset -1.0): -5, -10 and -20 score the same. Dev
# --parts 8, seeds 7-14, with the gap settings above: -10 0.787, 0.9881 (41 errors); -5
# 0.788, 0.9884 (40); 0 and 5 0.321, 0.853 (look-alike one-sided boxes train Model 1).
DEFAULT_LEXICAL = True
CONFIDENT_COST = -10.0
# Fewer confident training words than this: Model 1 would know too few words to tell a
# translation from unrelated text, and pass 1 stands (a data-sufficiency gate, not tuned:
# the dev pages train on thousands of words; a two-paragraph page on a dozen).
MIN_TRAINING_WORDS = 200
# The lexical pass stands only when its chunk pairs keep at least this share of the first
# pass's length evidence (:func:`_length_evidence`); below, Model 1 was trained on too little
# (a page whose confident pairs were one paragraph and an untranslated box) and the first
# pass stands. Not tuned: "most of it lost" (benchmarks/results/tree_align_pages.md).
KEEP_EVIDENCE = 0.5
# Retraining Model 1 on the second pass's pairs (cost < 0 or < -20, once or twice) scored
# exactly as no retraining on the dev document, seeds 7-14 (0.792, 0.9904): it adds ~16
# pairs to ~100 (9,200 -> 9,600 training words), so it stays off.
DEFAULT_REFINEMENTS = 0
REFINE_CONFIDENT_COST = 0.0
# Windows of REPAIR_WINDOW consecutive chunk pairs (0: off) and up to REPAIR_REACH unpaired
# chunks beside them are re-paired on their summed Pr_text cost (:func:`_repair_pairs`).
# Dev seeds 7-26, --parts 4 / 8 / 12, errors (summed): off 21 / 34 / 30 (85); window 2,
# reach 0, gap-filling gains (cost minus the per-word allowance) and chunks paired before
# free to go unpaired 52 / 32 / 41 (125: short pairs were dropped for a neighbour's longer
# span); paired chunks kept paired 28 / 20 / 30 (78); cost alone for spans holding paired
# chunks 22 / 31 / 31 (84: one-sided texts and short paragraphs joined a long pair's span);
# allowance for pairs of unpaired chunks only 22 / 28 / 31 (81); no span mixing paired and
# unpaired chunks 19 / 26 / 30 (75); window 3 25 / 47 / 39 (111); reach 1 16 / 31 / 24 (71),
# 2 12 / 33 / 26 (71), with no pair of unpaired chunks on both sides 12 / 31 / 26 (69),
# reach 3 the same (69). Held-out dev seeds 27-46: off 23 / 41 / 59 (123); window 2 reach 0
# 26 / 42 / 57 (125); reach 2 17 / 39 / 44 (100); reach 2, no pair of unpaired chunks
# (the setting) 14 / 39 / 46 (99). For speed the reach then stops at unpaired chunks of
# fewer than LEXICAL_GAP_MIN_WORDS words (alone they are no candidates) and
# only the costs of usable spans are computed: seeds 7-26 the same 12 / 31 / 26 (69),
# seeds 27-46 14 / 39 / 45 (98).
# CPU on the news pairs of benchmarks/tree_align_news.py (parse to text_pairs, medians of 7
# alternating runs): 13.63 -> 14.19 ms per pair (+4%).
REPAIR_WINDOW = 2
REPAIR_REACH = 2
REPAIR_MARGIN = 0.0  # not tuned: any lower summed cost


@dataclass(frozen=True)
class TextPair:
    """One aligned pair of text chunks with the xpaths of their block elements."""

    src_text: str
    tgt_text: str
    src_xpath: str
    tgt_xpath: str
    cost: float  # summed -log Pr(Nf, Ne) of the aligned text leaves inside the pair


def align_page_texts(
    src: TagTree,
    tgt: TagTree,
    *,
    model: TreeModel | None = None,
    lexical: bool = DEFAULT_LEXICAL,
    fold_inline: bool = True,
    max_work: float | None = DEFAULT_MAX_WORK,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
) -> list[TextPair]:
    """Aligned text chunk pairs in document order; ``model`` None = the shipped default model.

    ``fold_inline`` (default): align the :func:`block_tree` of each page, the configuration
    benchmarked and the default model was trained on (the full trees scored strict F1 0.742
    against 0.870 folded on the benchmark's test pages); the pairs' xpaths locate the blocks
    in ``src`` and ``tgt``. ``lexical``: align twice, the second time with Model 1 trained on
    the first pass's confident pairs (:func:`align_two_pass`). ``max_work``,
    ``max_table_bytes``: see :func:`~services.tree_align.decoder.align_trees` (wide pages get
    restricted spans; InputTooLarge when no restriction fits).
    """
    if fold_inline:
        src, tgt = block_tree(src), block_tree(tgt)
    model = calibrated(model or default_model(), src, tgt)
    components = None
    if lexical:
        alignment, model, components = _two_pass(
            src, tgt, model, max_work=max_work, max_table_bytes=max_table_bytes
        )
    else:
        alignment = align_trees(src, tgt, model, max_work=max_work, max_table_bytes=max_table_bytes)
    return text_pairs(src, tgt, alignment, model, keep_content=True, components=components)


def align_two_pass(
    src: TagTree,
    tgt: TagTree,
    model: TreeModel,
    *,
    band: float | None = None,
    confident_cost: float = CONFIDENT_COST,
    weight: float = DEFAULT_LEXICAL_WEIGHT,
    word_offset: float = DEFAULT_WORD_OFFSET,
    refinements: int = DEFAULT_REFINEMENTS,
    refine_cost: float = REFINE_CONFIDENT_COST,
    max_work: float | None = DEFAULT_MAX_WORK,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
) -> tuple[TreeAlignment, TreeModel]:
    """Moore's two passes on trees: the alignment with a page-trained lexical Pr_text.

    Pass 1 aligns with ``model``; the chunk pairs it yields whose Pr_text cost is below
    ``confident_cost`` train IBM Model 1 both ways (:func:`train_lexical_model`); pass 2
    aligns again with that lexical Pr_text. ``refinements`` > 0: Model 1 is retrained that
    many times on the last pass's pairs whose lexical cost is below ``refine_cost`` (the
    second pass no longer pairs look-alike boxes, so more of its pairs can train) and the
    pages aligned again. Returns the last pass's alignment and model, or pass 1's when the
    confident pairs hold fewer than ``MIN_TRAINING_WORDS`` source words, or when the last
    pass's chunk pairs keep less than ``KEEP_EVIDENCE`` of pass 1's length evidence.
    """
    alignment, model, _ = _two_pass(
        src, tgt, model, band=band, confident_cost=confident_cost, weight=weight,
        word_offset=word_offset, refinements=refinements, refine_cost=refine_cost,
        max_work=max_work, max_table_bytes=max_table_bytes,
    )  # fmt: skip
    return alignment, model


def _two_pass(
    src: TagTree,
    tgt: TagTree,
    model: TreeModel,
    *,
    band: float | None = None,
    confident_cost: float = CONFIDENT_COST,
    weight: float = DEFAULT_LEXICAL_WEIGHT,
    word_offset: float = DEFAULT_WORD_OFFSET,
    refinements: int = DEFAULT_REFINEMENTS,
    refine_cost: float = REFINE_CONFIDENT_COST,
    max_work: float | None = DEFAULT_MAX_WORK,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
) -> tuple[TreeAlignment, TreeModel, list[ChunkComponent] | None]:
    """:func:`align_two_pass`, and the chunk components of the alignment returned when
    they were computed on the way (None otherwise)."""
    # the length Pr_text of the leaves is the same in every pass: computed once
    original = model
    base = dataclasses.replace(model, text_model=_LeafCosts(model.text_model))
    model = base
    alignment = align_trees(
        src, tgt, model, band=band, max_work=max_work, max_table_bytes=max_table_bytes
    )
    # every pass decodes the same trees: the span restriction (if any) is found once
    max_span = alignment.max_span
    threshold = confident_cost
    first = alignment
    first_evidence = 0.0
    for _ in range(1 + refinements):
        confident, evidence = _confident_pairs(src, tgt, alignment, model, threshold)
        if model is base:
            first_evidence = evidence  # pass 1 scores its pairs with the length model
        if sum(len(spaced(a).split()) for a, _ in confident) < MIN_TRAINING_WORDS:
            if model is base:
                return alignment, original, None
            break
        text_model = train_lexical_model(
            [" ".join(src.texts[i].split()) for i in src.text_leaves()],
            [" ".join(tgt.texts[i].split()) for i in tgt.text_leaves()],
            confident,
            base.text_model,
            weight=weight,
            word_offset=word_offset,
        )
        model = dataclasses.replace(base, text_model=text_model)
        alignment = align_trees(
            src,
            tgt,
            model,
            band=band,
            max_span=max_span,
            max_work=None,
            max_table_bytes=max_table_bytes,
        )
        threshold = refine_cost
    chunks = (text_chunks(src), text_chunks(tgt))
    components = chunk_components(src, tgt, alignment, model, chunks=chunks)
    if _length_evidence(chunks, components, base.text_model) > KEEP_EVIDENCE * first_evidence:
        # the lexical pass lost most of the first pass's pairs: its Model 1 knows too little
        return first, original, None
    return alignment, model, components


class _LeafCosts:
    """A text model remembering its first cost matrix (the leaves' costs, asked every pass)."""

    def __init__(self, inner: TextModel) -> None:
        self.inner = inner
        self.first: tuple[list[str], list[str], FloatArray] | None = None

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        if self.first is not None and self.first[0] == src_texts and self.first[1] == tgt_texts:
            return self.first[2].copy()
        costs = self.inner.pair_costs(src_texts, tgt_texts)
        if self.first is None:
            self.first = (list(src_texts), list(tgt_texts), costs.copy())
        return costs


def _length_evidence(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    components: list[ChunkComponent],
    length: TextModel,
) -> float:
    """Summed length Pr_text evidence (negative costs only) of chunk pairs: how much paired
    text an alignment stands for, on one scale for every pass."""
    pairs = [
        (
            " ".join(chunks[0][k].text for k in component.src_chunks),
            " ".join(chunks[1][j].text for j in component.tgt_chunks),
        )
        for component in components
    ]
    if not pairs:
        return 0.0
    costs = np.diag(length.pair_costs([a for a, _ in pairs], [b for _, b in pairs]))
    return float(np.minimum(costs, 0.0).sum())


def _confident_pairs(
    src: TagTree, tgt: TagTree, alignment: TreeAlignment, model: TreeModel, threshold: float
) -> tuple[list[tuple[str, str]], float]:
    """Texts of the alignment's chunk pairs whose Pr_text cost is below ``threshold``, and
    the summed evidence (negative costs) of all its pairs."""
    chunks = (text_chunks(src), text_chunks(tgt))
    pairs = [
        (
            " ".join(chunks[0][k].text for k in component.src_chunks),
            " ".join(chunks[1][j].text for j in component.tgt_chunks),
        )
        for component in chunk_components(src, tgt, alignment, model, chunks=chunks)
    ]
    if not pairs:
        return [], 0.0
    costs = np.diag(model.text_model.pair_costs([a for a, _ in pairs], [b for _, b in pairs]))
    evidence = float(np.minimum(costs, 0.0).sum())
    return [pair for k, pair in enumerate(pairs) if costs[k] < threshold], evidence


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
    :func:`_fill_gaps` (a paragraph split in two on one side, which the one-to-one leaf
    alignment leaves unaligned when neither half matches the whole in length). None:
    ``DEFAULT_MAX_GAP``, ``LEXICAL_MAX_GAP`` with the lexical Pr_text.

    ``attach_wrapped`` (default): an unaligned chunk joins a component when the nearest
    ancestor of its block holding any aligned text holds aligned text of that one component
    only (a paragraph split into two ``<p>`` in a wrapper on one side, one of them aligned).
    Dev document, default model: strict F1 0.549/0.564 -> 0.677/0.678, text-node accuracy
    0.864/0.904 -> 0.897/0.943 (with the length-only Pr_text it had been a wash).
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
    gap_costs = (
        _fill_gaps(chunks, components, model, max_gap, gap_threshold) if max_gap > 0 else []
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
        result = _repair_pairs(chunks, result, model, REPAIR_WINDOW)
    return result


def _repair_pairs(
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
    them are aligned again by :func:`_best_chain`, on the sum of Pr_text costs: each side
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
    """The better pairs of the chunks of ``group`` (:func:`_repair_pairs`), or None."""
    ranges = _window_ranges(chunks, group, paired)
    if ranges is None or (
        len(group) <= 2 and len(ranges[0]) == len(ranges[1]) == len(group)
    ):  # one or two one-to-one pairs and no other chunk: nothing else keeps them paired
        return None
    src_spans, tgt_spans = _spans(len(ranges[0])), _spans(len(ranges[1]))
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
    chosen = _best_chain(len(ranges[0]), len(ranges[1]), src_spans, tgt_spans, cost, keep)
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


def _fill_gaps(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    components: _Components,
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
    components: _Components,
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
    src_spans, tgt_spans = _spans(len(run)), _spans(len(gap))
    src_texts = [" ".join(chunks[0][run[i]].text for i in range(a, b + 1)) for a, b in src_spans]
    tgt_texts = [" ".join(chunks[1][gap[j]].text for j in range(c, d + 1)) for c, d in tgt_spans]
    cost = model.text_model.pair_costs(src_texts, tgt_texts)
    src_words = np.array([len(text.split()) for text in src_texts])
    tgt_words = np.array([len(text.split()) for text in tgt_texts])
    limit = np.full(cost.shape, threshold)
    if per_word > 0.0:
        limit = np.maximum(limit, per_word * (src_words[:, None] + tgt_words[None, :]))
    gain = cost - limit  # < 0: the pair is accepted on its own
    gain[src_words < min_words, :] = np.inf
    gain[:, tgt_words < min_words] = np.inf
    made: list[tuple[int, float]] = []
    for x, y in _best_chain(len(run), len(gap), src_spans, tgt_spans, gain):
        (a, b), (c, d) = src_spans[x], tgt_spans[y]
        for u in range(a, b + 1):
            for v in range(c, d + 1):
                components.join(run[u], n_src + gap[v])
        made.append((run[a], float(cost[x, y])))
    return made


def _best_chain(
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


def _spans(size: int) -> list[tuple[int, int]]:
    """(first, last) of every sub-run of at most ``MAX_GAP_SPAN`` of ``size`` chunks."""
    return [(a, b) for a in range(size) for b in range(a, min(a + MAX_GAP_SPAN, size))]


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
    tree_costs = length.pair_costs(
        [" ".join(chunks[0][k].text for k in component.src_chunks) for component in components],
        [" ".join(chunks[1][k].text for k in component.tgt_chunks) for component in components],
    )
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
