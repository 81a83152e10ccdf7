"""The content model: how likely each text block of a page is its main content, not template.

Crawled pages carry menus, footers, cookie and newsletter banners, related-article lists and
ads around the text that was translated; aligned as text they pair menus with sentences. Each
text chunk of the tag tree (``parse.text_chunks``: one block element's text) gets a
probability of being content from five kinds of evidence:

- **the extractor's verdict**: the share of the block's tokens inside the main text that a
  maintained boilerplate remover finds (trafilatura, chosen against resiliparse and jusText
  in ``benchmarks/results/content.md``; its recall setting for alignment, its precision
  setting for a reader's text: :func:`extracted_text`), read as runs of three
  tokens so that a menu word that also occurs in the article is no match (each run used up
  by one block, body before head, plain text before links: a headline repeated in a teaser
  is in the text once; a table cell counts inside a short line, or as a cell of a row of
  the extractor's table);
- **link density**: the share of the block's characters inside ``<a>`` (a menu or a list of
  related articles is nearly all links, a paragraph nearly none);
- **template markup**: the block sits inside ``nav``, ``footer``, ``aside``, ``form`` or a
  ``header`` outside ``article`` and ``main``;
- **site-level repetition**: the number of other pages of the same site holding the same
  normalised block (a block on many pages of a site is its template); the caller supplies
  the counts (:class:`SiteBlocks`), so the model improves as the crawl of a site grows;
- **boxes in the text**: a block the other evidence calls content that is wrapped alone in
  a ``div`` or ``section`` off the parent path holding most of the page's content (an ad, a
  teaser or a one-sided box of another document's prose between the paragraphs, which an
  extractor keeps with the article around it).

The evidence is combined as log-odds (:func:`content_probability`): the extractor's verdict
is the prior (+-3), link density (up to -4), template markup (-1), repetition (-3 per
doubling of the other pages holding the block, from the second on) and a box (-4) move it.
The weights were set by hand on the kit's article pages and the tree_align page suite's
development parts (``benchmarks/results/content.md``, ``tree_align_pages.md``), not fitted.

Tokens are runs of letters and digits, each ideograph, kana or hangul syllable one token, so
the model reads Chinese and Japanese as well as spaced scripts.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import lxml.html  # type: ignore[import-untyped]
import regex

from services.html.parse import TextChunk, text_chunks
from services.html.tag_tree import NODE_ELEMENT, TagTree

_IDEOGRAPHIC = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
_TOKEN = regex.compile(rf"[{_IDEOGRAPHIC}]|[[\p{{L}}\p{{N}}\p{{M}}]--[{_IDEOGRAPHIC}]]+", regex.V1)
# Elements whose text is template by the page's own markup.
TEMPLATE_TAGS = frozenset({"nav", "footer", "aside", "form", "menu"})
# Log-odds of the evidence (docs/methods.md §1, content model). A block wholly inside the
# extractor's text starts at +EXTRACTOR_WEIGHT, wholly outside at -EXTRACTOR_WEIGHT.
EXTRACTOR_WEIGHT = 3.0
LINK_WEIGHT = 4.0  # a block made only of link text, against one without links
TEMPLATE_WEIGHT = 1.0  # inside nav, footer, aside, form or a header outside the article
# Site repetition: per doubling of the other pages of the site holding the block, beyond the
# first (a page crawled at two URLs, a print version, stays content).
REPEAT_WEIGHT = 3.0
# Other pages of a site counted for a block at most (``SiteBlocks``): on this many, repetition
# alone outweighs every other evidence, so counting on changes no verdict (tested), and a
# site's menu line is no longer counted over every page the site has.
REPEATS_COUNTED = 16
# A box in the text: a block wrapped alone off the path that holds most of the page's text.
OFF_PATH_WEIGHT = 4.0
# Elements a box of the text is wrapped in.
BOX_WRAPPERS = frozenset({"div", "section"})
# trafilatura's settings (:func:`extracted_text`).
Favor = Literal["recall", "precision"]
# Probability at or above which a block counts as content.
CONTENT_THRESHOLD = 0.5
# Token runs the extractor's verdict is read in.
SHINGLE = 3
# A line of the main text of at most this many tokens is a table row or a list item: a short
# block (a cell) counts when its tokens run inside such a line, not only when it is one.
SHORT_LINE = 12


@functools.lru_cache(maxsize=65_536)  # a site's menus and footers come back with every page
def tokens(text: str) -> tuple[str, ...]:
    """The content model's tokens of ``text``: lower-cased words, single ideographs."""
    return tuple(token.lower() for token in _TOKEN.findall(text))


def block_key(text: str) -> str:
    """A short digest of a block's normalised text (its tokens), for site repetition."""
    digest = hashlib.blake2b(" ".join(tokens(text)).encode("utf-8"), digest_size=8)
    return digest.hexdigest()


@dataclass(frozen=True)
class SiteBlocks:
    """How many other pages of a site hold each block (by :func:`block_key`)."""

    pages: Mapping[str, int]
    site_pages: int = 0  # pages of the site the counts were read from

    def repeated(self, text: str) -> int:
        """Other pages of the site holding ``text`` as a block."""
        return int(self.pages.get(block_key(text), 0)) if self.pages else 0


NO_SITE = SiteBlocks({})


@dataclass(frozen=True)
class BlockContent:
    """One text chunk of a page with its content probability and the evidence behind it."""

    chunk: TextChunk
    probability: float
    extractor: float  # share of the block's tokens in the extractor's main text, -1 = unknown
    link_density: float
    template: bool  # inside nav, footer, aside, form, or a header outside the article
    repeated: int  # other pages of the site holding the block
    box: bool = False  # wrapped alone off the text's path (``_boxes``)

    @property
    def is_content(self) -> bool:
        """Whether the block counts as main content."""
        return self.probability >= CONTENT_THRESHOLD


def extracted_text(page: str | lxml.html.HtmlElement, *, favor: Favor = "recall") -> str:
    """The page's main text by the extractor (trafilatura), "" when it finds none.

    ``page`` is HTML text or the lxml document of ``parse.parse_document`` (not modified).
    ``favor``: trafilatura's setting. Alignment takes its recall setting: the others leave
    out lists inside the article (a real site's list of its services), which then are never
    aligned, while a block let through that has no counterpart costs the aligner only a
    deletion; the block evidence here takes out what the recall setting lets through. A
    reader of the text (``paramine extract-content``) takes its precision setting, whose
    extra text is what a reader counts as noise (benchmarks/results/content.md)."""
    import trafilatura  # lazy: it loads its own lexicons (slow), kept off start-up paths

    found = trafilatura.extract(
        page,
        favor_recall=favor == "recall",
        favor_precision=favor == "precision",
        include_comments=False,
        include_tables=True,
        include_images=False,
        include_formatting=False,
        deduplicate=False,
        with_metadata=False,
        output_format="txt",
    )
    return found or ""


def _shingles(words: Sequence[str]) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[k : k + SHINGLE]) for k in range(len(words) - SHINGLE + 1))


def coverage(
    block: Sequence[str],
    shingles: Counter[tuple[str, ...]],
    lines: Counter[str],
    *,
    consume: bool = True,
) -> float:
    """Share of ``block``'s tokens inside runs of :data:`SHINGLE` tokens of the main text;
    a block shorter than a run counts when it is a whole line of the main text.

    ``consume``: each run (and line) of the main text is used up by the block that holds it
    (a headline repeated in a breadcrumb, a teaser and the page title is in the text once)."""
    if not block:
        return 0.0
    if len(block) < SHINGLE:
        line = " ".join(block)
        if lines[line] > 0:
            lines[line] -= consume
            return 1.0
        return 0.0
    covered = [False] * len(block)
    for k in range(len(block) - SHINGLE + 1):
        run = tuple(block[k : k + SHINGLE])
        if shingles.get(run, 0) > 0:
            shingles[run] -= consume
            covered[k : k + SHINGLE] = [True] * SHINGLE
    return sum(covered) / len(block)


def _link_density(tree: TagTree, chunk: TextChunk) -> float:
    """Share of the chunk's characters in leaves under an ``<a>`` inside its block."""
    total = linked = 0
    for leaf in chunk.leaves:
        size = len(tree.texts[leaf].strip())
        total += size
        node = int(tree.parent[leaf])
        while node > 0 and node != chunk.block:  # inline ancestors only (block: the first other)
            if tree.label(node) == "a":
                linked += size
                break
            node = int(tree.parent[node])
    return linked / total if total else 0.0


def _in_template(tree: TagTree, block: int) -> bool:
    """Whether ``block`` sits in template markup: ``nav``, ``footer``, ``aside``, ``form``,
    ``menu``, or a ``header`` outside ``article`` and ``main`` (HTML's own sense: the header
    of an article holds its headline)."""
    node = block
    in_header = False
    while node >= 0:
        if tree.kinds[node] == NODE_ELEMENT:
            label = tree.label(node)
            if label in TEMPLATE_TAGS:
                return True
            if label == "header":
                in_header = True
            elif label in ("article", "main"):
                return False
        node = int(tree.parent[node])
    return in_header


def _in_head(tree: TagTree, block: int) -> bool:
    node = block
    while node >= 0:
        if tree.kinds[node] == NODE_ELEMENT and tree.label(node) == "head":
            return True
        node = int(tree.parent[node])
    return False


def content_probability(
    extractor: float, link_density: float, template: bool, repeated: int, box: bool = False
) -> float:
    """The block's content probability: the evidence's log-odds added (module docstring)."""
    logit = EXTRACTOR_WEIGHT * (2.0 * extractor - 1.0) if extractor >= 0 else 0.0
    logit -= LINK_WEIGHT * link_density
    logit -= TEMPLATE_WEIGHT * template
    logit -= REPEAT_WEIGHT * max(0.0, math.log2((1 + repeated) / 2))
    logit -= OFF_PATH_WEIGHT * box
    return 1.0 / (1.0 + math.exp(-logit))


def block_contents(
    tree: TagTree,
    main_text: str | None,
    *,
    site: SiteBlocks = NO_SITE,
    chunks: list[TextChunk] | None = None,
) -> list[BlockContent]:
    """The content probability of every text chunk of ``tree`` (``text_chunks`` order).

    ``main_text``: the extractor's text of the page (:func:`extracted_text`); None: no
    extractor verdict (the other evidence alone)."""
    chunks = text_chunks(tree) if chunks is None else chunks
    shingles: Counter[tuple[str, ...]] = Counter()
    lines: Counter[str] = Counter()
    cells: Counter[str] = Counter()
    if main_text is not None:
        text_tokens: list[str] = []
        for line in main_text.splitlines():
            line_tokens = tokens(line)
            text_tokens += line_tokens
            lines[" ".join(line_tokens)] += 1
            if line.lstrip().startswith("|"):  # a table row of the extractor: its cells
                lines.update(" ".join(cell) for cell in map(tokens, line.split("|")) if cell)
            if len(line_tokens) <= SHORT_LINE:  # a table row: its cells' runs of tokens
                for size in range(1, SHINGLE):
                    for k in range(len(line_tokens) - size + 1):
                        cells[" ".join(line_tokens[k : k + size])] += 1
        # runs across the main text's line breaks too: the extractor breaks lines where the
        # page's block does not
        shingles.update(_shingles(text_tokens))
    words = [tokens(chunk.text) for chunk in chunks]
    links = [_link_density(tree, chunk) for chunk in chunks]
    template = [_in_template(tree, chunk.block) for chunk in chunks]
    repeated = [site.repeated(chunk.text) if words[k] else 0 for k, chunk in enumerate(chunks)]
    extractor = [-1.0] * len(chunks)
    if main_text is not None:
        # the main text's runs go to the blocks that hold them best, body before head and
        # plain text before template or links: a headline repeated in the page title, a
        # teaser and the article is in the main text once
        first = [coverage(w, shingles, lines, consume=False) for w in words]
        first = [
            f or coverage(w, shingles, cells, consume=False)
            for f, w in zip(first, words, strict=True)
        ]
        head = [_in_head(tree, chunk.block) for chunk in chunks]
        order = sorted(
            range(len(chunks)),
            key=lambda k: (head[k], template[k] or links[k] > 0.5, -first[k], k),
        )
        for k in order:
            extractor[k] = coverage(words[k], shingles, lines) if first[k] > 0 else 0.0
            if extractor[k] == 0.0 and first[k] > 0 and len(words[k]) < SHINGLE:
                extractor[k] = coverage(words[k], shingles, cells)
    boxes = _boxes(tree, chunks, words, extractor, links, template, repeated)
    return [
        BlockContent(
            chunk,
            content_probability(extractor[k], links[k], template[k], repeated[k], boxes[k]),
            extractor[k],
            links[k],
            template[k],
            repeated[k],
            boxes[k],
        )
        for k, chunk in enumerate(chunks)
    ]


def _boxes(
    tree: TagTree,
    chunks: list[TextChunk],
    words: list[tuple[str, ...]],
    extractor: list[float],
    links: list[float],
    template: list[bool],
    repeated: list[int],
) -> list[bool]:
    """Which blocks are boxes in the text: content by the other evidence, wrapped alone
    (:func:`_lone_blocks`) and with a parent path (:func:`_parent_path`) other than the one
    holding at least half of the content's tokens. A one-sided box of another document's
    prose between the paragraphs, an ad or a teaser, is that; a heading, a list or a
    section of the article is not (its parent holds other blocks, or the path is the
    text's)."""
    content = [
        content_probability(extractor[k], links[k], template[k], repeated[k]) >= CONTENT_THRESHOLD
        for k in range(len(chunks))
    ]
    paths = [_parent_path(tree, chunk.block) for chunk in chunks]
    weight: Counter[tuple[int, ...]] = Counter()
    for k, path in enumerate(paths):
        if content[k]:
            weight[path] += len(words[k])
    if not weight:
        return [False] * len(chunks)
    main_path, main_weight = weight.most_common(1)[0]
    if main_weight < 0.5 * sum(weight.values()):
        return [False] * len(chunks)
    lone = _lone_blocks(tree, chunks)
    return [
        content[k] and lone[k] and paths[k] != main_path and _wrapper(tree, chunks[k].block)
        for k in range(len(chunks))
    ]


def _wrapper(tree: TagTree, block: int) -> bool:
    """Whether ``block``'s parent is a generic container (``div``, ``section``): a one-item
    list or a figure caption is the article's own."""
    parent = int(tree.parent[block])
    return parent >= 0 and tree.label(parent) in BOX_WRAPPERS


def _lone_blocks(tree: TagTree, chunks: list[TextChunk]) -> list[bool]:
    """Whether each chunk is the only text chunk below its block's parent (a wrapped box)."""
    starts = sorted(chunk.leaves[0] for chunk in chunks)
    result = []
    for chunk in chunks:
        parent = int(tree.parent[chunk.block]) if chunk.block > 0 else 0
        end = int(tree.subtree_end[parent])
        inside = bisect.bisect_left(starts, end) - bisect.bisect_left(starts, parent)
        result.append(inside == 1)
    return result


def _parent_path(tree: TagTree, block: int) -> tuple[int, ...]:
    """The label ids from the root down to ``block``'s parent element."""
    path: list[int] = []
    node = int(tree.parent[block]) if block >= 0 else -1
    while node >= 0:
        path.append(int(tree.labels[node]))
        node = int(tree.parent[node])
    return tuple(reversed(path))


def page_blocks(
    tree: TagTree,
    page: str | lxml.html.HtmlElement,
    *,
    site: SiteBlocks = NO_SITE,
    favor: Favor = "recall",
) -> list[BlockContent]:
    """:func:`block_contents` with the extractor run on ``page`` (the tree's HTML) with its
    ``favor`` setting (:func:`extracted_text`)."""
    return block_contents(tree, extracted_text(page, favor=favor), site=site)


def main_paragraphs(blocks: Iterable[BlockContent]) -> list[str]:
    """The text of the content blocks, in document order."""
    return [block.chunk.text for block in blocks if block.is_content and block.chunk.text]
