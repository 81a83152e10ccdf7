"""Template and content kept apart in the tree alignment (docs/methods.md §1, content model).

The content model (``services.html.content``) calls each text block of a page content or
template (menus, footers, banners, related-article lists). Template blocks stay in the trees,
where a site's translated menus and footers still align with each other and anchor the
structure around the content, but a template block is never paired with a content block:
:class:`ContentWall` adds :data:`WALL_COST` to Pr_text's cost of every such leaf pair, more
than deleting both leaves costs, so the decoder deletes them instead. One-sided content blocks
are deletions as before. Texts the model does not know (joined runs of several blocks, texts
that are content in one place and template in another) pass unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from services.tree_align.model import FloatArray, TextModel

# -log Pr_text added to a content-template leaf pair: far above any deletion pair's cost.
WALL_COST = 1_000.0
CONTENT, TEMPLATE, UNKNOWN = 1, 0, -1


def text_key(text: str) -> str:
    """A leaf text as the decoder reads it (whitespace runs as one space)."""
    return " ".join(text.split())


def block_kinds(texts: Sequence[str], content: Sequence[bool]) -> dict[str, int]:
    """Each block text's kind, :data:`UNKNOWN` for a text that is both on one page."""
    kinds: dict[str, int] = {}
    for text, is_content in zip(texts, content, strict=True):
        key = text_key(text)
        kind = CONTENT if is_content else TEMPLATE
        kinds[key] = kind if kinds.get(key, kind) == kind else UNKNOWN
    return kinds


@dataclass(frozen=True)
class ContentWall:
    """``inner``'s Pr_text with content-template leaf pairs walled off."""

    inner: TextModel
    src_kinds: Mapping[str, int]
    tgt_kinds: Mapping[str, int]

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        """``inner``'s costs plus :data:`WALL_COST` where one side is content, the other
        template."""
        costs = np.array(self.inner.pair_costs(src_texts, tgt_texts), dtype=np.float64)
        if costs.size == 0:
            return costs
        src = np.array([self.src_kinds.get(text_key(t), UNKNOWN) for t in src_texts])
        tgt = np.array([self.tgt_kinds.get(text_key(t), UNKNOWN) for t in tgt_texts])
        known = (src[:, None] >= 0) & (tgt[None, :] >= 0)
        costs[known & (src[:, None] != tgt[None, :])] += WALL_COST
        return costs


def line_kinds(texts: Sequence[str], content: Sequence[bool]) -> dict[str, int]:
    """:func:`block_kinds` of every line of the blocks (an output text joins blocks' lines)."""
    lines: list[str] = []
    flags: list[bool] = []
    for text, is_content in zip(texts, content, strict=True):
        for line in text.split("\n"):
            if line.strip():
                lines.append(line)
                flags.append(is_content)
    return block_kinds(lines, flags)


def all_template(text: str, kinds: Mapping[str, int]) -> bool:
    """Whether every line of an output text is a template block's (``kinds``: the page's
    :func:`line_kinds`)."""
    lines = [text_key(line) for line in text.split("\n") if line.strip()]
    return bool(lines) and all(kinds.get(line) == TEMPLATE for line in lines)
