"""Sentence alignment entry point: one call for every bead aligner (docs/methods.md §2)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from services.sentence_align.aligners.beads import Bead, unaligned_beads
from shared.errors import InvalidInput

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary
    from services.sentence_align.aligners.lexical_settings import LexicalSettings
    from services.sentence_align.dp.two_pass import KeptText


class Method(StrEnum):
    """The bead aligners of this stage (``--method`` of align-sentences and align-pages)."""

    length = "length"
    lexicon = "lexicon"
    hybrid = "hybrid"
    anchors = "anchors"


METHODS = tuple(Method)
# Methods whose beads carry a confidence (their posterior probability, ``Bead.confidence``).
CONFIDENT_METHODS = frozenset({"lexicon", "hybrid"})


def align_sentences(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    method: str = "hybrid",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
) -> list[Bead]:
    """Align two sentence lists into beads covering every sentence once, in order.

    ``method``: "length" (Gale-Church), "lexicon" (Moore 2002: length pass, IBM Model 1 on
    confident 1-1 beads, realign), "hybrid" (Zhao & Vogel 2002: length + lexical scores
    with a background model; the default), "anchors" (BAM for two versions of one text:
    greedy non-crossing anchors, then the length DP inside the fragments). Languages are
    optional hints (monolingual input seeds the lexicon with the identity). ``dictionary``
    (``dictionary.load_freedict``): bilingual word pairs that seed Model 1 ("lexicon" and
    "hybrid"; the others ignore it). Raises
    ``InvalidInput`` for an unknown method (``InputTooLarge`` when "anchors" gets texts
    beyond its dense score matrix).
    """
    if method not in METHODS:
        raise InvalidInput(f"unknown sentence alignment method {method!r}; use one of {METHODS}")
    if not src or not tgt:
        # The only segmentation: every bead is certain (a confidence only from the methods
        # that give one, as for any other input).
        certain = 1.0 if method in CONFIDENT_METHODS else None
        return unaligned_beads(range(len(src)), range(len(tgt)), certain)
    if method == "length":
        # lazy: paramine imports this module (Method) at start-up; the aligners load numba
        from services.sentence_align.aligners.length import align_by_length

        return align_by_length(src, tgt)
    if method == "lexicon":
        # lazy: paramine imports this module (Method) at start-up; the aligners load numba
        from services.sentence_align.aligners.lexicon import align_by_lexicon

        return align_by_lexicon(
            src, tgt, src_lang=src_lang, tgt_lang=tgt_lang, dictionary=dictionary
        )
    if method == "anchors":
        # lazy: paramine imports this module (Method) at start-up; the aligners load numba
        from services.sentence_align.aligners.anchors import align_monolingual

        return align_monolingual(src, tgt)
    # lazy: paramine imports this module (Method) at start-up; the aligners load numba
    from services.sentence_align.aligners.hybrid import align_hybrid

    return align_hybrid(src, tgt, src_lang=src_lang, tgt_lang=tgt_lang, dictionary=dictionary)


def align_each(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    method: str = "hybrid",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
) -> list[list[Bead]]:
    """Each pair aligned on its own (``align_sentences``), nothing shared between them."""
    return [
        align_sentences(
            src, tgt, method=method, src_lang=src_lang, tgt_lang=tgt_lang, dictionary=dictionary
        )
        for src, tgt in pairs
    ]


def align_segments(
    segments: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    method: str = "hybrid",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
    extra: Sequence[tuple[str, str]] = (),
    cut_long: bool = True,
    site: KeptText | None = None,
) -> list[list[Bead]]:
    """Align several already paired segments (e.g. the text chunks of one page pair).

    Beads never cross a segment; each segment's beads use its own 0-based indices. For
    "lexicon" and "hybrid" the length model and Model 1 are estimated once from all the
    segments together (more text than one chunk, and one model set-up instead of one per
    chunk; "hybrid" without its refinement round, ``hybrid.SEGMENT_SETTINGS``); "length" and
    "anchors" align each segment on its own. ``dictionary`` as in ``align_sentences``.

    ``extra``: sentence pairs aligned before (the same site's earlier page pairs, as the
    sentence_align stage passes them): each joins the estimation as one more segment of one
    sentence a side, so the length model and Model 1 learn from it, but nothing of it is
    output. Moore (2002) trains Model 1 on the whole corpus being aligned; one page pair is
    a small corpus and a site a larger one (benchmarks/results/page_match.md). Used by
    "lexicon" and "hybrid" only, and not when a segment has an empty side.

    ``site``: more of the same, trained on before (``mining.site_lexicon``): its pairs join
    the length pass and Model 1 adds their kept counts (``site_lexicon``), while ``extra``
    (the site's pairs since) is trained on with the segments. The stage's way.

    A segment of more than ``long_segments.LONG_SEGMENT`` sentences a side ("lexicon",
    "hybrid") is cut at confident anchor pairs before the passes (``long_segments``):
    one huge paragraph then stays aligned (benchmarks/results/sentence_align_long.md);
    ``cut_long=False`` aligns each segment whole (the path before the cuts, for comparison).
    """
    pooling = method in ("lexicon", "hybrid") and all(src and tgt for src, tgt in segments)
    if site is not None and site.texts and pooling:
        pooled = [*segments, *(([src], [tgt]) for src, tgt in (*extra, *site.texts))]
        return _align_pooled(
            pooled, method, src_lang, tgt_lang, refine=False, dictionary=dictionary,
            cut_long=cut_long, kept=site,
            realigned=(sum(len(src) for src, _ in segments), sum(len(tgt) for _, tgt in segments)),
        )  # fmt: skip
    if extra and pooling:
        pooled = [*segments, *(([src], [tgt]) for src, tgt in extra)]
        aligned = _align_pooled(
            pooled, method, src_lang, tgt_lang, refine=False, dictionary=dictionary,
            cut_long=cut_long,
        )  # fmt: skip
        return aligned[: len(segments)]
    return _align_pooled(
        segments, method, src_lang, tgt_lang, refine=False, dictionary=dictionary,
        cut_long=cut_long,
    )  # fmt: skip


def align_corpus(
    documents: Sequence[tuple[Sequence[str], Sequence[str]]],
    *,
    method: str = "hybrid",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
) -> list[list[Bead]]:
    """Corpus mode (Moore 2002 trains Model 1 on the whole corpus being aligned): several
    document pairs aligned in one run share one length model and one Model 1.

    The length pass runs per document; Model 1 is trained on the confident 1-1 beads pooled
    over all documents (unsupervised: no gold alignment is used), then every document is
    realigned on its own, with the full ``align_sentences`` settings (for "hybrid" its
    refinement round, again on the pooled beads). Each document's beads use its own 0-based
    indices. "length" and "anchors" align each document on its own. ``dictionary`` as in
    ``align_sentences``.
    """
    return _align_pooled(documents, method, src_lang, tgt_lang, refine=True, dictionary=dictionary)


def _align_pooled(
    segments: Sequence[tuple[Sequence[str], Sequence[str]]],
    method: str,
    src_lang: str | None,
    tgt_lang: str | None,
    *,
    refine: bool,
    dictionary: BilingualDictionary | None = None,
    cut_long: bool = False,
    kept: KeptText | None = None,
    realigned: tuple[int, int] | None = None,
) -> list[list[Bead]]:
    """The beads of each segment, the length model and Model 1 shared by all ("lexicon",
    "hybrid"). ``cut_long``: a segment of thousands of sentences is also cut at confident
    anchor pairs inside it (``long_segments.refine_cuts``), so that the passes align it
    piece by piece and a wrong length decision cannot drift over the whole segment.
    ``kept``: the last ``len(kept.texts)`` segments are its pairs (``align_two_pass``); the
    beads of the segments before them, or of those up to the cut point ``realigned``, are
    returned."""
    if method not in METHODS:
        raise InvalidInput(f"unknown sentence alignment method {method!r}; use one of {METHODS}")
    if method in ("length", "anchors") or not all(src and tgt for src, tgt in segments):
        # (A segment with an empty side is all deletions; such pages go one chunk at a time.)
        return align_each(
            segments, method=method, src_lang=src_lang, tgt_lang=tgt_lang, dictionary=dictionary
        )
    # lazy: paramine imports this module (Method) at start-up; the aligners load numba
    from services.sentence_align.aligners.length import shift_beads, split_by_window
    from services.sentence_align.aligners.long_segments import refine_cuts
    from services.sentence_align.dp.two_pass import align_two_pass

    settings = pooled_settings(method, refine)
    cuts = [(0, 0)]
    for src, tgt in segments:
        cuts.append((cuts[-1][0] + len(src), cuts[-1][1] + len(tgt)))
    # The pieces of a long segment are windows of their own; beads never cross a piece,
    # so they split by the segments' windows as before.
    beads = align_two_pass(
        [sentence for src, _ in segments for sentence in src],
        [sentence for _, tgt in segments for sentence in tgt],
        src_lang, tgt_lang, settings,
        segments=refine_cuts(segments) if cut_long else cuts, dictionary=dictionary, kept=kept,
        realigned=realigned,
    )  # fmt: skip
    if kept is not None:
        cuts = cuts[: len(cuts) - len(kept.texts)]
        if realigned is not None:
            cuts = [cut for cut in cuts if cut[0] <= realigned[0] and cut[1] <= realigned[1]]
    windows = [(x0, x1, y0, y1) for (x0, y0), (x1, y1) in itertools.pairwise(cuts)]
    return [
        shift_beads(window_beads, -x0, -y0)
        for (x0, _, y0, _), window_beads in zip(
            windows, split_by_window(beads, windows), strict=True
        )
    ]


def pooled_settings(method: str, refine: bool) -> LexicalSettings:
    """The two-pass settings of a pooled alignment: "lexicon"'s, or "hybrid"'s (with its
    refinement round for whole documents, without it for segments)."""
    # lazy: as _align_pooled's
    from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS, SEGMENT_SETTINGS
    from services.sentence_align.aligners.lexicon import lexicon_settings

    if method == "lexicon":
        return lexicon_settings()
    return HYBRID_SETTINGS if refine else SEGMENT_SETTINGS
