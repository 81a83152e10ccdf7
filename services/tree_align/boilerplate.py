"""Which aligned text pairs are template on both pages (docs/methods.md §1, content model).

With content blocks on both pages, tree_align aligns only them (``align.align_page_texts``).
A page on which the content model finds no content block is aligned whole, as before the
model; a pair whose every line is a template block's on both pages (menus, footers aligned
with each other) is then flagged ``boilerplate``, and its sentence pairs are stored with that
flag and left out of exports by default. A line that is content in one place of a page and
template in another counts as neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

CONTENT, TEMPLATE, UNKNOWN = 1, 0, -1


def text_key(text: str) -> str:
    """A line as compared here (whitespace runs as one space)."""
    return " ".join(text.split())


def line_kinds(texts: Sequence[str], content: Sequence[bool]) -> dict[str, int]:
    """The kind of every line of a page's blocks (``texts``, ``content`` flags in
    ``text_chunks`` order): :data:`CONTENT`, :data:`TEMPLATE`, or :data:`UNKNOWN` for a line
    that is both on the page. An output text joins its blocks' lines."""
    kinds: dict[str, int] = {}
    for text, is_content in zip(texts, content, strict=True):
        kind = CONTENT if is_content else TEMPLATE
        for line in text.split("\n"):
            if line.strip():
                key = text_key(line)
                kinds[key] = kind if kinds.get(key, kind) == kind else UNKNOWN
    return kinds


def all_template(text: str, kinds: Mapping[str, int]) -> bool:
    """Whether every line of an output text is a template block's (``kinds``: the page's
    :func:`line_kinds`)."""
    lines = [text_key(line) for line in text.split("\n") if line.strip()]
    return bool(lines) and all(kinds.get(line) == TEMPLATE for line in lines)
