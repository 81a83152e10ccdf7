"""Parse crawled HTML into the tag tree of docs/methods.md §1, stored as flat numpy arrays.

Every element is a node labelled by its lower-cased tag (attributes dropped); text in
``.text`` and ``.tail`` becomes ``#text`` leaves in document order; the ``alt`` text of
``img``/``area``/``input`` becomes a ``#text`` leaf child of that element. Comments,
processing instructions, ``script``, ``style`` and ``noscript`` are removed, whitespace-only
text is dropped. Nodes are numbered in pre-order (document order), so the subtree of node
``i`` is the index range ``[i, subtree_end[i])``; children are stored in CSR form.

Only lxml's HTML parser is used (never an XML parser on crawled input): no DTD loading, no
entity resolution beyond HTML's own character references, no network. The parser runs with
libxml2's ``huge_tree`` option: without it libxml2 stops reading at nesting depth 256 and
silently drops the rest of the page, so our own ``max_depth`` bound could never fire. Memory
stays bounded by ``max_bytes`` (checked before parsing; ``huge_tree`` lifts libxml2's depth
and single-text-node limits, not the input size) and libxml2's own hard depth cap of 2048,
which is reported as :class:`InputTooLarge` rather than accepted as a truncated page.

:meth:`TagTree.xpath` locates a node in the document :func:`parse_document` returns: lxml's
HTML parse of the page with comments and processing instructions dropped by the parser and
``script``/``style``/``noscript`` removed with their text merged (so every ``text()`` node
there is one ``.text`` or ``.tail`` of lxml). On the page parsed without those removals the
element steps still hold (removed nodes are never counted by a tag step); a ``text()[k]``
step may then be off where a comment or script split a text.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection
from dataclasses import dataclass

import lxml.etree as etree  # type: ignore[import-untyped]
import lxml.html  # type: ignore[import-untyped]

from services.html.tag_tree import (
    C0_CONTROL,
    NODE_ALT_TEXT,
    NODE_ELEMENT,
    NODE_TEXT,
    NOT_XML_CHAR,
    TEXT_LABEL,
    TagTree,
    assemble_tree,
    sibling_text_positions,
)
from shared.encoding import decode_page
from shared.errors import InputTooLarge, InvalidInput

# Elements whose content is no page text: scripts and styles, and the fallbacks a browser does
# not show (noframes, noembed: libxml2 keeps their markup as raw text, which leaked into the
# sentence pairs as "<body><p>...").
_REMOVED_TAGS = ("script", "style", "noscript", "noframes", "noembed", "template")
# Ruby annotations: the reading above a word (<ruby>漢字<rt>かんじ</rt></ruby> would be the
# sentence text "漢字かんじ") and its fallback parentheses. Their text is emptied in place
# (elements stay, so xpaths hold on the original page), except base text nested in them:
# libxml2 does not close an <rt> at the next <rb>/<rt> as HTML5 does, so "<rt>とう<rb>京"
# puts the next base inside the reading.
_RUBY_ANNOTATION_TAGS = ("rt", "rp", "rtc")
_ALT_TAGS = frozenset({"img", "area", "input"})
# Elements that do not start a new block of text: their text joins the surrounding chunk.
INLINE_TAGS = frozenset(
    {
        "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "data",
        "del", "dfn", "em", "font", "i", "img", "input", "ins", "kbd", "label", "mark",
        "nobr", "q", "rb", "rp", "rt", "rtc", "ruby", "s", "samp", "small", "span", "strike",
        "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
    }
)  # fmt: skip
# Inline elements that visually separate the text on either side (a space is inserted).
_SEPARATING_TAGS = frozenset({"img", "input", "wbr"})
# Elements that end a line: a line break is inserted, and the sentence splitter ends a
# sentence there (addresses, verse, lists written with <br> have no final punctuation), and
# the elements a browser lays out as blocks (an empty <p> between two texts of one chunk).
# Other elements outside INLINE_TAGS (svg, button, video, ...) sit inside a line: a space.
_LINE_BREAK_TAGS = frozenset(
    {
        "br", "hr", "address", "article", "aside", "blockquote", "body", "caption", "center",
        "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
        "html", "legend", "li", "listing", "main", "menu", "nav", "ol", "p", "plaintext",
        "pre", "search", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead",
        "tr", "ul", "xmp",
    }
)  # fmt: skip
# Elements whose text keeps its line breaks.
_PREFORMATTED_TAGS = frozenset({"pre", "listing", "plaintext", "textarea", "xmp"})
# C0 control characters other than tab, line feed, form feed and carriage return.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0e-\x1f]")

# libxml2's nesting cap with huge_tree (measured with libxml2 2.14: 2,048 levels)
_PARSER_MAX_DEPTH = 2_048


@dataclass(frozen=True)
class ParseLimits:
    """Bounds on one page; defaults mirror ``shared.config.HtmlLimits``."""

    max_bytes: int = 20_000_000
    max_depth: int = 1_000
    max_elements: int = 300_000


@dataclass(frozen=True)
class TextChunk:
    """A run of consecutive text leaves under one block-level element, merged into one text."""

    leaves: tuple[int, ...]
    block: int  # nearest ancestor that is not an inline element
    text: str  # the run's text: lines (see join_leaf_texts) with whitespace normalised


def parse_html(
    html: bytes | str, *, limits: ParseLimits = ParseLimits(), encoding: str | None = None
) -> TagTree:
    """Parse one crawled page into its tag tree; bad or oversized input raises a clear error."""
    return _build_tree(parse_document(html, limits=limits, encoding=encoding), limits)


def parse_page(
    html: bytes | str, *, limits: ParseLimits = ParseLimits(), encoding: str | None = None
) -> tuple[TagTree, lxml.html.HtmlElement]:
    """:func:`parse_html` and the document it read (:func:`parse_document`), parsed once."""
    document = parse_document(html, limits=limits, encoding=encoding)
    return _build_tree(document, limits), document


def parse_document(
    html: bytes | str, *, limits: ParseLimits = ParseLimits(), encoding: str | None = None
) -> lxml.html.HtmlElement:
    """The lxml document the tag tree is read from (and its xpaths are evaluated on).

    Comments, processing instructions, ``script``, ``style`` and ``noscript`` are removed;
    the text around a removed element is merged into one text node, as lxml's ``.text`` and
    ``.tail`` already read it.
    """
    text = _decode(html, limits=limits, encoding=encoding)
    if 2 * text.count("<") + 16 > limits.max_elements:  # else it cannot have that many nodes
        _refuse_too_many_elements(text, limits.max_elements)
    parser = lxml.html.HTMLParser(
        remove_comments=True, remove_pis=True, no_network=True, encoding="utf-8", huge_tree=True
    )
    try:
        root = lxml.html.document_fromstring(text.encode("utf-8", "surrogatepass"), parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise InvalidInput(f"HTML page cannot be parsed: {exc}") from None
    if any("Excessive depth" in error.message for error in parser.error_log):
        # libxml2 stops at its hard depth cap even with huge_tree and drops the rest
        depth = min(limits.max_depth, _PARSER_MAX_DEPTH)
        raise InputTooLarge(f"HTML page nests deeper than {depth:,} elements")
    _merge_trailing_roots(root)
    for element in list(root.iter(*_REMOVED_TAGS)):
        _drop_keeping_tail(element)
    for element in list(root.iter(*_RUBY_ANNOTATION_TAGS)):
        if any(ancestor.tag == "ruby" for ancestor in element.iterancestors()):
            _empty_annotation(element)
    return root


def _merge_trailing_roots(root: lxml.html.HtmlElement) -> None:
    """Move what follows a stray ``</html>`` into the page's ``body``, as browsers do.

    libxml2 puts it into a second ``html`` element beside the first (a page ending early, two
    pages concatenated), and the tree, read from the first, lost all of that text."""
    for extra in list(root.itersiblings()):
        if not isinstance(extra.tag, str):
            continue
        body = root.find("body")
        if body is None:
            body = etree.SubElement(root, "body")
        _append_text(body, extra.text)
        for child in list(extra):
            if child.tag == "head":
                head = root.find("head")
                if head is None:
                    head = etree.Element("head")
                    root.insert(0, head)
                head.extend(list(child))
            elif child.tag == "body":
                _append_text(body, child.text)
                body.extend(list(child))
                _append_text(body, child.tail)
            else:
                body.append(child)  # with its tail
        root.append(extra)  # out of the document's top level (lxml cannot remove it there)
        root.remove(extra)


def _append_text(parent: lxml.html.HtmlElement, text: str | None) -> None:
    """Add ``text`` at the end of ``parent``'s content."""
    if not text:
        return
    if len(parent):
        parent[-1].tail = _settable((parent[-1].tail or "") + text)
    else:
        parent.text = _settable((parent.text or "") + text)


def _empty_annotation(annotation: lxml.html.HtmlElement) -> None:
    """Drop the text of a ruby annotation, keeping its tail and any base text nested in it.

    ``rb`` children keep their content (nested annotations in them are emptied by the
    caller's loop); other children are removed, markup and ``alt`` text alike, unless an
    ``rb`` is nested in them, then emptied the same way. The annotation element itself stays
    with its tail: the xpaths outside it are those of the original page.
    """
    pending = [annotation]  # a stack, not recursion: the nesting may be 1,000 deep
    while pending:
        element = pending.pop()
        element.text = None
        for child in list(element):
            child.tail = None
            if not isinstance(child.tag, str) or child.tag == "rb":
                continue
            if next(child.iter("rb"), None) is None:
                element.remove(child)
            else:
                pending.append(child)


def _drop_keeping_tail(element: lxml.html.HtmlElement) -> None:
    # lxml's strip_elements(with_tail=False) leaves the text before and after the element as
    # two adjacent text nodes, which XPath's text() counts apart while .text/.tail join them
    parent = element.getparent()
    if parent is None:
        return
    if element.tail:
        previous = element.getprevious()
        if previous is None:
            parent.text = _settable((parent.text or "") + element.tail)
        else:
            previous.tail = _settable((previous.tail or "") + element.tail)
    parent.remove(element)


class _ElementCount:
    """lxml parser target that counts start tags (no tree is built) and stops past a limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def start(self, tag: str, attrib: object) -> None:
        if tag not in _REMOVED_TAGS:
            self.count += 1
            if self.count > self.limit:
                raise InputTooLarge(f"HTML page has more than {self.limit:,} nodes")

    def end(self, tag: str) -> None:
        pass

    def data(self, data: str) -> None:
        pass

    def close(self) -> int:
        return self.count


def _refuse_too_many_elements(text: str, limit: int) -> None:
    """InputTooLarge if the page has more than ``limit`` elements, counted without building
    the tree: the limit was checked on the built tree, after a large page of <p> had taken
    many times its size in memory (several such pages at once in a worker pool exhaust memory;
    the figures: benchmarks/results/tuning_history.md, services/html/parse.py)."""
    parser = etree.HTMLParser(
        target=_ElementCount(limit), remove_comments=True, no_network=True, huge_tree=True
    )
    # a page the parser refuses is left to the real parse to name; InputTooLarge goes through
    with contextlib.suppress(etree.ParserError, ValueError):
        etree.fromstring(text.encode("utf-8", "surrogatepass"), parser)


def _settable(text: str) -> str:
    """``text`` as lxml lets it be set: the parser keeps C0 controls (form feed, NUL from a
    broken page) that lxml's setters refuse; they become spaces, other non-characters U+FFFD."""
    text = C0_CONTROL.sub(" ", text)
    return NOT_XML_CHAR.sub("\ufffd", text)


def _decode(html: bytes | str, *, limits: ParseLimits, encoding: str | None) -> str:
    if isinstance(html, str):
        if len(html) > limits.max_bytes:
            raise InputTooLarge(
                f"HTML page has {len(html):,} characters (limit {limits.max_bytes:,})"
            )
        text = html
    else:
        if len(html) > limits.max_bytes:
            raise InputTooLarge(f"HTML page has {len(html):,} bytes (limit {limits.max_bytes:,})")
        text = _decode_bytes(html, encoding)
    if not text.strip():
        raise InvalidInput("HTML page is empty")
    controls = len(_CONTROLS.findall(text, 0, 100_000))
    if controls > 0.05 * min(len(text), 100_000):
        raise InvalidInput("HTML page looks like binary data (too many control characters)")
    return text


def _decode_bytes(data: bytes, encoding: str | None) -> str:
    # an explicit ``encoding`` is the declared one (shared.encoding: BOM, declared, meta, ...)
    text, codec = decode_page(data, encoding)
    if not codec:
        raise InvalidInput("HTML page is not text in any recognisable encoding")
    return text


def _build_tree(root: lxml.html.HtmlElement, limits: ParseLimits) -> TagTree:
    names: dict[str, int] = {}
    labels: list[int] = []
    parents: list[int] = []
    kinds: list[int] = []
    texts: list[str] = []
    positions: list[int] = []

    def add(label: str, parent: int, kind: int, text: str, position: int = 0) -> int:
        if len(labels) >= limits.max_elements:
            raise InputTooLarge(f"HTML page has more than {limits.max_elements:,} nodes")
        labels.append(names.setdefault(label, len(names)))
        parents.append(parent)
        kinds.append(kind)
        texts.append(text)
        positions.append(position)
        return len(labels) - 1

    open_nodes: list[int] = []
    # text nodes of each open element so far, whitespace-only ones included: the k of the
    # XPath step text()[k] (each .text and .tail is one text node of parse_document's tree)
    text_nodes: list[int] = []
    # A dropped whitespace-only text still separates words: "<a>Home</a> <a>News</a>" must
    # read "Home News", so the next text leaf starts with a space (a line break inside <pre>:
    # "<pre><b>a</b>\n<b>b</b></pre>" is two lines).
    pending = ""
    # Open <pre>-like elements: outside them the source's line breaks are spaces to a browser.
    preformatted = 0
    broken_at = 0  # the depth of <pre>-like elements at which a pending line break was seen

    def add_text(parent: int, text: str | None) -> None:
        nonlocal pending, broken_at
        if not text:
            return
        text_nodes[-1] += 1
        if not preformatted:
            text = text.replace("\n", " ")
        if not text.strip():
            if "\n" in text:
                pending, broken_at = "\n", preformatted
            else:
                pending = pending or " "
            return
        add(TEXT_LABEL, parent, NODE_TEXT, pending + text, text_nodes[-1])
        pending = ""

    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        if not isinstance(tag, str):  # entities or other non-element nodes
            continue
        if event == "start":
            if len(open_nodes) >= limits.max_depth:
                raise InputTooLarge(f"HTML page nests deeper than {limits.max_depth:,} elements")
            node = add(tag.lower(), open_nodes[-1] if open_nodes else -1, NODE_ELEMENT, "")
            open_nodes.append(node)
            preformatted += tag.lower() in _PREFORMATTED_TAGS
            text_nodes.append(0)
            alt = element.get("alt") if tag.lower() in _ALT_TAGS else None
            if alt and alt.strip():
                add(TEXT_LABEL, node, NODE_ALT_TEXT, alt)
            add_text(node, element.text)
        else:
            open_nodes.pop()
            text_nodes.pop()
            if tag.lower() in _PREFORMATTED_TAGS:
                preformatted -= 1
                if pending == "\n" and broken_at > preformatted:
                    pending = " "  # a line break ends with the element it was seen in
            if open_nodes:
                add_text(open_nodes[-1], element.tail)
    return assemble_tree(labels, names, parents, kinds, texts, positions)


def text_chunks(tree: TagTree) -> list[TextChunk]:
    """Runs of consecutive text leaves sharing their nearest block-level ancestor, in order.

    ``<p>Hello <b>world</b>.</p>`` has three ``#text`` leaves and gives one chunk
    ``"Hello world."``: the sentence aligner needs whole sentences, not inline fragments.
    """
    chunks: list[TextChunk] = []
    run: list[int] = []
    run_block = -1
    for leaf in tree.text_leaves():
        block = _block_ancestor(tree, leaf)
        if run and block != run_block:
            chunks.append(_make_chunk(tree, run, run_block))
            run = []
        run.append(leaf)
        run_block = block
    if run:
        chunks.append(_make_chunk(tree, run, run_block))
    return chunks


def _block_ancestor(tree: TagTree, leaf: int) -> int:
    node = int(tree.parent[leaf])
    while node > 0 and tree.label(node) in INLINE_TAGS:
        node = int(tree.parent[node])
    return node


def _make_chunk(tree: TagTree, leaves: list[int], block: int) -> TextChunk:
    lines = (" ".join(line.split()) for line in join_leaf_texts(tree, leaves).split("\n"))
    return TextChunk(tuple(leaves), block, "\n".join(line for line in lines if line))


def join_leaf_texts(tree: TagTree, leaves: list[int]) -> str:
    """Concatenate leaf texts: a line break where ``<br>``, ``<hr>`` or a nested block element
    separates two leaves, a space where other separating markup (``<img>``, ``<svg>``) does.

    The leaves hold no line breaks of the HTML source but those inside ``<pre>`` (the parser
    turns the others into spaces, as a browser does): the lines of the result are the lines
    a browser shows. A folded tree's leaves (:func:`block_tree`) keep their lines.
    """
    parts: list[str] = []
    previous = -1
    for leaf in leaves:
        if previous >= 0:
            between = [
                tree.label(node)
                for node in range(previous + 1, leaf)
                if tree.kinds[node] == NODE_ELEMENT
            ]
            if any(label in _LINE_BREAK_TAGS for label in between):
                parts.append("\n")
            elif (
                tree.kinds[leaf] == NODE_ALT_TEXT
                or tree.kinds[previous] == NODE_ALT_TEXT
                or any(label in _SEPARATING_TAGS or label not in INLINE_TAGS for label in between)
            ):
                parts.append(" ")
        parts.append(tree.texts[leaf])
        previous = leaf
    return "".join(parts)


def block_tree(tree: TagTree, keep: Collection[int] | None = None) -> TagTree:
    """The tree with inline markup folded into text: one ``#text`` leaf per text chunk.

    Inline elements (``b``, ``a``, ``span``, ``br`` ...) disappear and each run of text under
    one block element (:func:`text_chunks`) becomes a single ``#text`` leaf at the place of
    its first fragment. ``<p>Hello <b>world</b>.</p>`` becomes ``p`` with one leaf
    ``"Hello world."``. Translations rarely put inline markup at the same places, and the
    one-to-one leaf alignment cannot pair three fragments with one, so the tree alignment runs
    on this tree (measured in benchmarks/tree_align/pages.py).

    Folding moves blocks (``<a><div>..</div></a>`` puts the ``div`` under the link's parent),
    so the folded tree keeps the node each of its nodes stands for (``origin``: the element
    itself, or the first leaf of a folded text) and answers xpaths with the original's.

    ``keep``: the indices (in :func:`text_chunks` order) of the chunks to keep, say the
    content blocks of ``services.html.content``; the others are left out, and so is every
    element with no kept chunk below it (a menu of left-out links is no node at all).
    """
    chunks = text_chunks(tree)
    if keep is not None:
        kept = set(keep)
        chunks = [chunk for index, chunk in enumerate(chunks) if index in kept]
        needed = _ancestors_of(tree, [chunk.leaves[0] for chunk in chunks])
    first_leaf = {chunk.leaves[0]: chunk for chunk in chunks}
    labels: list[str] = []
    parents: list[int] = []
    texts: list[str] = []
    origin: list[int] = []
    new_id: dict[int, int] = {}
    for node in range(tree.size):
        if tree.kinds[node] == NODE_ELEMENT:
            if node > 0 and tree.label(node) in INLINE_TAGS:
                continue
            if keep is not None and node > 0 and node not in needed:
                continue
            up = int(tree.parent[node])
            while up > 0 and up not in new_id:
                up = int(tree.parent[up])
            new_id[node] = len(labels)
            labels.append(tree.label(node))
            parents.append(new_id[up] if node > 0 else -1)
            texts.append("")
            origin.append(node)
        elif node in first_leaf and first_leaf[node].text:
            chunk = first_leaf[node]
            labels.append(TEXT_LABEL)
            parents.append(new_id[chunk.block])
            texts.append(chunk.text)
            origin.append(node)
    names: dict[str, int] = {}
    ids = [names.setdefault(label, len(names)) for label in labels]
    kinds = [NODE_TEXT if label == TEXT_LABEL else NODE_ELEMENT for label in labels]
    positions = sibling_text_positions(parents, kinds)
    return assemble_tree(ids, names, parents, kinds, texts, positions, origin, tree)


def _ancestors_of(tree: TagTree, leaves: list[int]) -> set[int]:
    """Every ancestor of ``leaves`` (the root included)."""
    found: set[int] = set()
    for leaf in leaves:
        node = int(tree.parent[leaf])
        while node >= 0 and node not in found:
            found.add(node)
            node = int(tree.parent[node])
    return found


def page_text(tree: TagTree) -> list[str]:
    """The page's text chunks in document order (the flat, tree-less Type I input)."""
    return [chunk.text for chunk in text_chunks(tree) if chunk.text]
