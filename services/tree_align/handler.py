"""tree_align stage handler: a page pair in, aligned text-chunk pairs out to sentence_align."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from services.tree_align import repository
from shared.config import get_settings
from shared.delivery.ordering import learning_position
from shared.delivery.pipeline import Outgoing
from shared.errors import InputTooLarge, InvalidInput
from shared.ids import site_of
from shared.schemas import ChunkPairs, Page, PagePair, PairContext, TextChunkPair
from shared.store import NodePairRow, Store

if TYPE_CHECKING:  # the parser and the content model load lxml and trafilatura: not at start-up
    from lxml.html import HtmlElement  # type: ignore[import-untyped]

    from services.html.content import BlockContent, SiteBlocks
    from services.html.tag_tree import TagTree

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


SiteLookup = Callable[[str, list[str]], "SiteBlocks"]


def chunk_pairs(
    message: PagePair, *, flat: bool = False, site_blocks: SiteLookup | None = None
) -> ChunkPairs:
    """Parse both pages, find their content (``services.html.content``) and align their
    trees (or, ``flat``, each page's content text as one chunk).

    ``site_blocks(url, keys)``: how many other pages of the page's site hold each of its
    blocks (``content.block_key``), for the content model's site repetition; None: none.

    Wide pages: when exact decoding would exceed ``max_alignment_work`` (a long list took
    minutes), deleted nodes' spans are restricted to the widest sibling count that fits (which
    also shrinks the sibling-range tables, gigabytes for a long table decoded exactly; figures:
    benchmarks/results/tuning_history.md, services/tree_align/handler.py).
    The same holds for tables over ``max_alignment_bytes``. Pages too wide for either limit
    even with spans of one sibling are not lost: they fall back to the flat text alignment
    (Type I), logged, without xpaths."""
    # lazy: lxml, numba and the dictionaries load with the first page pair, not at the
    # worker's start
    from services.html.parse import ParseLimits, parse_page
    from services.lexical.registry import dictionary_for
    from services.tree_align.align import align_page_texts

    limits = get_settings().html
    parse_limits = ParseLimits(
        max_bytes=limits.max_bytes, max_depth=limits.max_depth, max_elements=limits.max_elements
    )

    def parsed(page: Page) -> tuple[TagTree, HtmlElement]:
        try:
            return parse_page(page.html, limits=parse_limits)
        except InvalidInput as refused:  # which page it is: the reason alone did not say
            raise type(refused)(f"{page.url[:200]}: {refused}") from None

    (src_tree, src_document), (tgt_tree, tgt_document) = parsed(message.src), parsed(message.tgt)
    blocks = tuple(
        page_content(tree, document, page.url, site_blocks)
        for tree, document, page in (
            (src_tree, src_document, message.src), (tgt_tree, tgt_document, message.tgt)
        )
    )  # fmt: skip
    content = tuple([k for k, block in enumerate(side) if block.is_content] for side in blocks)
    # the flat text: each page's content blocks, or every block when a page has none
    whole = not content[0] or not content[1]

    def flat_text() -> ChunkPairs:  # the pages' content (else whole) texts, one chunk pair
        texts = [
            [block.chunk.text for block in side if block.chunk.text and (whole or block.is_content)]
            for side in blocks
        ]
        chunk = TextChunkPair(src_text="\n".join(texts[0]), tgt_text="\n".join(texts[1]))
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
            content=([b.is_content for b in blocks[0]], [b.is_content for b in blocks[1]]),
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
            boilerplate=pair.boilerplate,
        )
        for pair in aligned
    ]
    return ChunkPairs(context=pair_context(message), chunks=chunks)


def page_content(
    tree: TagTree, document: HtmlElement, url: str, site_blocks: SiteLookup | None
) -> list[BlockContent]:
    """The content model's blocks of one parsed page, with its site's repetition counts."""
    # lazy: lxml loads with the first page pair, not at the worker's start
    from services.html.content import NO_SITE, block_contents, block_key, extracted_text
    from services.html.parse import text_chunks

    chunks = text_chunks(tree)
    site = NO_SITE
    if site_blocks is not None:
        site = site_blocks(url, [block_key(chunk.text) for chunk in chunks if chunk.text])
    return block_contents(tree, extracted_text(document), site=site, chunks=chunks)


def handle(message: PagePair, store: Store) -> list[Outgoing]:
    """Align the pages' trees, note progress, and hand the chunk pairs to sentence_align.

    With ``site_blocks`` (the default), each page's blocks are counted against the blocks of
    its site's pages stored by the page pairs accepted before it (``shared.delivery.ordering``: the
    message waits while one of those is not aligned yet) and then stored for the pages
    after it."""
    seen: dict[str, tuple[str, list[str]]] = {}
    use_site = get_settings().site_blocks
    position = None
    if use_site:
        repository.ensure_schema(store.engine)
        position = learning_position(store, message.pair_id, "tree_align")
    before = position.seq if position is not None else None

    def lookup(url: str, keys: list[str]) -> SiteBlocks:
        from services.html.content import REPEATS_COUNTED, SiteBlocks  # lazy: as chunk_pairs

        site = site_of(url)
        seen[url] = (site, keys)
        own = (message.src.url, message.tgt.url)
        counts = repository.block_counts(
            store.engine, site, keys, own, before, at_most=REPEATS_COUNTED
        )
        return SiteBlocks(counts)

    result = chunk_pairs(message, site_blocks=lookup if use_site else None)
    for url, (site, keys) in seen.items():
        repository.record_blocks(store.engine, site, url, keys, before)
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
