"""Sentence alignment entry point: one call for every bead aligner (ALGORITHMS.md §2)."""

from __future__ import annotations

from collections.abc import Sequence

from services.sentence_align.beads import Bead
from shared.errors import InvalidInput

METHODS = ("length", "lexicon", "hybrid", "anchors")


def align_sentences(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    method: str = "hybrid",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
) -> list[Bead]:
    """Align two sentence lists into beads covering every sentence once, in order.

    ``method``: "length" (Gale-Church), "lexicon" (Moore 2002: length pass, IBM Model 1 on
    confident 1-1 beads, realign), "hybrid" (Zhao & Vogel 2002: length + lexical scores
    with a background model; the default), "anchors" (BAM for two versions of one text:
    greedy non-crossing anchors, then the length DP inside the fragments). Languages are
    optional hints (monolingual input seeds the lexicon with the identity). Raises
    ``InvalidInput`` for an unknown method (``InputTooLarge`` when "anchors" gets texts
    beyond its dense score matrix).
    """
    if method not in METHODS:
        raise InvalidInput(f"unknown sentence alignment method {method!r}; use one of {METHODS}")
    if not src or not tgt:
        return [Bead((i,), ()) for i in range(len(src))] + [Bead((), (j,)) for j in range(len(tgt))]
    if method == "length":
        from services.sentence_align.length import align_by_length

        return align_by_length(src, tgt)
    if method == "lexicon":
        from services.sentence_align.lexicon import align_by_lexicon

        return align_by_lexicon(src, tgt, src_lang=src_lang, tgt_lang=tgt_lang)
    if method == "anchors":
        # Imported here: anchors itself calls align_sentences for its fragments.
        from services.sentence_align.anchors import align_monolingual

        return align_monolingual(src, tgt)
    from services.sentence_align.hybrid import align_hybrid

    return align_hybrid(src, tgt, src_lang=src_lang, tgt_lang=tgt_lang)
