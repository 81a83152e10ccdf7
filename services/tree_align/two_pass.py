"""Moore's two passes on trees: a first alignment with the length Pr_text, then Model 1
trained on its confident chunk pairs, and the alignment again with that lexical Pr_text."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from services.html.parse import TextChunk, text_chunks
from services.html.tag_tree import TagTree
from services.lexical.dictionary import BilingualDictionary
from services.tree_align.adjacent import attach_adjacent
from services.tree_align.chunk_union import ChunkComponent
from services.tree_align.components import chunk_components
from services.tree_align.decoder import (
    DEFAULT_MAX_TABLE_BYTES,
    DEFAULT_MAX_WORK,
    TreeAlignment,
    align_trees,
)
from services.tree_align.lexical import (
    DEFAULT_LEXICAL_WEIGHT,
    DEFAULT_WORD_OFFSET,
    spaced,
    train_lexical_model,
)
from services.tree_align.model import FloatArray, TextModel, TreeModel

# Pass 2's Model 1 trains on pass 1's chunk pairs whose Pr_text cost is below
# CONFIDENT_COST (chosen on the dev pages: benchmarks/results/tuning_history.md).
CONFIDENT_COST = -10.0
# Fewer confident training words than this and no bilingual dictionary: Model 1 would know
# too few words to tell a translation from unrelated text, and pass 1 stands (a
# data-sufficiency gate, not tuned: the dev pages train on thousands of words; a
# two-paragraph page on a dozen). With a dictionary Model 1 knows its words: the lexical
# pass runs even when no pair of pass 1 is confident (Chinese pages' length evidence rarely
# is).
MIN_TRAINING_WORDS = 200
# The lexical pass stands only when its chunk pairs keep at least this share of the first
# pass's length evidence (:func:`_output_evidence`); below, Model 1 was trained on too little
# (a page whose confident pairs were one paragraph and an untranslated box) and the first
# pass stands. Chosen on the training part of the page suite
# (benchmarks/results/tree_align_pages.md, tuning history). Both passes are measured as they
# would be output: with their split paragraphs' other halves joined (``adjacent``).
KEEP_EVIDENCE = 0.8
# Retraining Model 1 on the second pass's pairs stays off (measured on the dev pages:
# benchmarks/results/tuning_history.md).
DEFAULT_REFINEMENTS = 0
REFINE_CONFIDENT_COST = 0.0


class TwoPass(NamedTuple):
    """The last pass's alignment and model, and its chunk components if computed."""

    alignment: TreeAlignment
    model: TreeModel
    components: list[ChunkComponent] | None


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
    dictionary: BilingualDictionary | None = None,
) -> TwoPass:
    """Moore's two passes on trees: the alignment with a page-trained lexical Pr_text.

    Pass 1 aligns with ``model``; the chunk pairs it yields whose Pr_text cost is below
    ``confident_cost`` train IBM Model 1 both ways (:func:`train_lexical_model`); pass 2
    aligns again with that lexical Pr_text; ``dictionary`` (source to target language)
    seeds Model 1 with its word pairs. ``refinements`` > 0: Model 1 is retrained that
    many times on the last pass's pairs whose lexical cost is below ``refine_cost`` (the
    second pass no longer pairs look-alike boxes, so more of its pairs can train) and the
    pages aligned again. Returns the last pass's alignment and model, or pass 1's when no
    dictionary is given and the confident pairs hold fewer than ``MIN_TRAINING_WORDS``
    source words, or when the last pass's chunk pairs keep less than ``KEEP_EVIDENCE`` of
    pass 1's length evidence (each pass's pairs with the unpaired halves of split paragraphs
    next to them joined, as the output will have them: a Chinese paragraph whose English
    translation is two blocks shows little length evidence paired with one of them); with
    the alignment's chunk components when they were computed on the way (None otherwise).
    """
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
    chunks = (text_chunks(src), text_chunks(tgt))
    first_evidence = 0.0
    for _ in range(1 + refinements):
        confident, components = _confident_pairs(src, tgt, alignment, model, threshold, chunks)
        if model is base:
            first_evidence = _output_evidence(chunks, components, base.text_model, base.text_model)
        if (
            dictionary is None  # with one, Model 1 knows the dictionary's words
            and sum(len(spaced(a).split()) for a, _ in confident) < MIN_TRAINING_WORDS
        ):
            if model is base:
                return TwoPass(alignment, original, None)
            break
        text_model = train_lexical_model(
            [" ".join(src.texts[i].split()) for i in src.text_leaves()],
            [" ".join(tgt.texts[i].split()) for i in tgt.text_leaves()],
            confident,
            base.text_model,
            weight=weight,
            word_offset=word_offset,
            dictionary=dictionary,
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
    components = chunk_components(src, tgt, alignment, model, chunks=chunks)
    last_evidence = _output_evidence(chunks, components, model.text_model, base.text_model)
    if last_evidence > KEEP_EVIDENCE * first_evidence:
        # the lexical pass lost most of the first pass's pairs: its Model 1 knows too little
        return TwoPass(first, original, None)
    return TwoPass(alignment, model, components)


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


def _output_evidence(
    chunks: tuple[list[TextChunk], list[TextChunk]],
    components: list[ChunkComponent],
    text_model: TextModel,
    length: TextModel,
) -> float:
    """Summed length Pr_text evidence (negative costs only) of chunk pairs as they will be
    output, each grown by its unpaired neighbours that ``text_model`` joins to it
    (``adjacent.attach_adjacent``): how much paired text an alignment stands for, on one
    scale for every pass."""
    texts = ([chunk.text for chunk in chunks[0]], [chunk.text for chunk in chunks[1]])
    runs = [(component.src_chunks, component.tgt_chunks) for component in components]
    pairs = [
        (" ".join(texts[0][k] for k in src_run), " ".join(texts[1][j] for j in tgt_run))
        for src_run, tgt_run in attach_adjacent(texts, runs, text_model)
    ]
    if not pairs:
        return 0.0
    costs = np.diag(length.pair_costs([a for a, _ in pairs], [b for _, b in pairs]))
    return float(np.minimum(costs, 0.0).sum())


def _confident_pairs(
    src: TagTree,
    tgt: TagTree,
    alignment: TreeAlignment,
    model: TreeModel,
    threshold: float,
    chunks: tuple[list[TextChunk], list[TextChunk]],
) -> tuple[list[tuple[str, str]], list[ChunkComponent]]:
    """Texts of the alignment's chunk pairs whose Pr_text cost is below ``threshold``, and
    the alignment's chunk components."""
    components = chunk_components(src, tgt, alignment, model, chunks=chunks)
    pairs = [
        (
            " ".join(chunks[0][k].text for k in component.src_chunks),
            " ".join(chunks[1][j].text for j in component.tgt_chunks),
        )
        for component in components
    ]
    if not pairs:
        return [], components
    costs = np.diag(model.text_model.pair_costs([a for a, _ in pairs], [b for _, b in pairs]))
    return [pair for k, pair in enumerate(pairs) if costs[k] < threshold], components
