"""Aligned text-chunk pairs of two parsed pages: what the sentence aligner works inside."""

from __future__ import annotations

from dataclasses import dataclass

from services.tree_align.html_tree import TagTree, text_chunks
from services.tree_align.model import TreeModel


@dataclass(frozen=True)
class TextPair:
    """One aligned pair of text chunks with the xpaths of their block elements."""

    src_text: str
    tgt_text: str
    src_xpath: str
    tgt_xpath: str
    cost: float


def align_page_texts(
    src: TagTree, tgt: TagTree, *, model: TreeModel | None = None
) -> list[TextPair]:
    """Aligned text chunk pairs in document order; ``model`` None = the shipped default model.

    Provisional: pairs text chunks in document order (issue 2's spine).
    """
    del model
    src_chunks = text_chunks(src)
    tgt_chunks = text_chunks(tgt)
    return [
        TextPair(a.text, b.text, src.xpath(a.block), tgt.xpath(b.block), 0.0)
        for a, b in zip(src_chunks, tgt_chunks, strict=False)
    ]
