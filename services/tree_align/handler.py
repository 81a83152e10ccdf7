"""tree_align stage handler: a page pair in, aligned text-chunk pairs out to sentence_align."""

from __future__ import annotations

import logging

from shared.config import get_settings
from shared.pipeline import Outgoing
from shared.schemas import ChunkPairs, PagePair, PairContext, TextChunkPair
from shared.store import NodePairRow, Store

log = logging.getLogger(__name__)


def pair_context(message: PagePair) -> PairContext:
    """What downstream stages need to know about the page pair."""
    return PairContext(
        pair_id=message.pair_id,
        job_id=message.job_id,
        kind=message.kind,
        src_url=message.src.url,
        tgt_url=message.tgt.url,
        src_lang=message.src.lang,
        tgt_lang=message.tgt.lang,
    )


def chunk_pairs(message: PagePair, *, flat: bool = False) -> ChunkPairs:
    """Parse both pages and align their trees (or, ``flat``, take each page's whole text).

    Wide pages: when exact decoding would exceed ``max_alignment_work`` (a 2,000-item list
    took 225 s), deleted nodes' spans are restricted to the widest sibling count that fits
    (which also shrinks the sibling-range tables: an 800-row table needed 4.5 GB exact).
    The same holds for tables over ``max_alignment_bytes``. Pages too wide for either limit
    even with spans of one sibling are not lost: they fall back to the flat text alignment
    (Type I), logged, without xpaths."""
    from services.lexical.registry import dictionary_for
    from services.tree_align.align import align_page_texts
    from services.tree_align.html_tree import ParseLimits, page_text, parse_html
    from shared.errors import InputTooLarge

    limits = get_settings().html
    parse_limits = ParseLimits(
        max_bytes=limits.max_bytes, max_depth=limits.max_depth, max_elements=limits.max_elements
    )
    src_tree = parse_html(message.src.html, limits=parse_limits)
    tgt_tree = parse_html(message.tgt.html, limits=parse_limits)

    def flat_text() -> ChunkPairs:  # the parsed trees' whole texts, one chunk pair
        chunk = TextChunkPair(
            src_text="\n".join(page_text(src_tree)), tgt_text="\n".join(page_text(tgt_tree))
        )
        return ChunkPairs(context=pair_context(message), chunks=[chunk])

    if flat:
        return flat_text()
    try:
        aligned = align_page_texts(
            src_tree,
            tgt_tree,
            max_work=limits.max_alignment_work,
            max_table_bytes=limits.max_alignment_bytes,
            dictionary=dictionary_for(message.src.lang, message.tgt.lang),
        )
    except InputTooLarge as too_wide:
        log.warning(
            "%s: tree alignment refused (%s); aligning the flat text", message.pair_id, too_wide
        )
        return flat_text()
    chunks = [
        TextChunkPair(
            src_text=pair.src_text,
            tgt_text=pair.tgt_text,
            src_xpath=pair.src_xpath,
            tgt_xpath=pair.tgt_xpath,
            cost=pair.cost,
        )
        for pair in aligned
    ]
    return ChunkPairs(context=pair_context(message), chunks=chunks)


def handle(message: PagePair, store: Store) -> list[Outgoing]:
    """Align the pages' trees, note progress, and hand the chunk pairs to sentence_align."""
    result = chunk_pairs(message)
    store.add_node_pairs(
        message.pair_id,
        [
            NodePairRow(
                chunk=index,
                src_xpath=chunk.src_xpath,
                tgt_xpath=chunk.tgt_xpath,
                src_text=chunk.src_text,
                tgt_text=chunk.tgt_text,
                cost=chunk.cost,
            )
            for index, chunk in enumerate(result.chunks)
        ],
    )
    store.record_progress(message.pair_id, "tree_align", len(result.chunks))
    return [("sentence_align", result)]
