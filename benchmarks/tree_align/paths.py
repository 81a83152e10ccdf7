"""The paths the page suite compares beside the product's (``benchmarks.tree_align.pages``).

The product's two paths are the tree_align handler's ``chunk_pairs`` (default: the content
model, then the tree alignment of the content) and ``chunk_pairs(flat=True)`` (the content
text as one chunk). Beside them, as references: the whole page's text as one chunk (the flat
path before the content model) and the main text of a maintained extractor as one chunk
(trafilatura as the product calls it, resiliparse's ``main_content``), each then through
the same sentence path. :func:`extractor_chunks` also times the extractors, per page.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from services.html.content import extracted_text
from services.html.parse import page_text, parse_html
from services.tree_align.handler import pair_context
from shared.schemas import ChunkPairs, TextChunkPair
from shared.schemas import PagePair as PagePairMessage


def _resiliparse(html: str) -> str:
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    return str(extract_plain_text(HTMLTree.parse(html), main_content=True, links=False))


EXTRACTORS: dict[str, Callable[[str], str]] = {
    "trafilatura": extracted_text,
    "resiliparse": _resiliparse,
}


@dataclass
class Timings:
    """CPU seconds and pages per extractor."""

    seconds: dict[str, float] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.pages[name] = self.pages.get(name, 0) + 1

    def ms_per_page(self, name: str) -> float:
        return 1000 * self.seconds.get(name, 0.0) / max(1, self.pages.get(name, 0))


def whole_page_chunks(request: PagePairMessage) -> ChunkPairs:
    """Each page's whole text as one chunk (the flat path without a content model)."""
    texts = ["\n".join(page_text(parse_html(page.html))) for page in (request.src, request.tgt)]
    chunk = TextChunkPair(src_text=texts[0], tgt_text=texts[1])
    return ChunkPairs(context=pair_context(request), chunks=[chunk])


def extractor_chunks(request: PagePairMessage, name: str, timings: Timings) -> ChunkPairs:
    """Each page's main text by extractor ``name`` as one chunk, the extractor timed."""
    texts = []
    for page in (request.src, request.tgt):
        started = time.process_time()
        texts.append(EXTRACTORS[name](page.html))
        timings.add(name, time.process_time() - started)
    chunk = TextChunkPair(src_text=texts[0], tgt_text=texts[1])
    return ChunkPairs(context=pair_context(request), chunks=[chunk])
