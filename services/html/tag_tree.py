"""The tag tree of one page (docs/methods.md §1) as flat numpy arrays: node ids in pre-order
(document order), children in CSR form, ``#text`` leaves, and the XPath of every node in the
parsed page. ``services.html.parse`` builds it from HTML; :func:`tree_from_nodes` from node
lists."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from shared.errors import InvalidInput

TEXT_LABEL = "#text"
NODE_ELEMENT = 0
NODE_TEXT = 1
NODE_ALT_TEXT = 2

# A tag name an XPath name test can hold; others (``o:p``, ``fb:like``) need ``*[name()=..]``.
_PLAIN_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
IntArray = npt.NDArray[np.int32]
# Characters lxml refuses to set as text (XML 1.0's Char production excludes them).
C0_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
NOT_XML_CHAR = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, eq=False)
class TagTree:
    """The tag tree of one page as flat arrays; node ids are pre-order (document order)."""

    labels: IntArray  # label id of each node, an index into ``label_names``
    label_names: tuple[str, ...]
    parent: IntArray  # parent node id, -1 for the root
    child_ptr: IntArray  # CSR: children of i are child_idx[child_ptr[i]:child_ptr[i + 1]]
    child_idx: IntArray
    subtree_end: IntArray  # descendants of i are the ids i+1 .. subtree_end[i]-1
    postorder: IntArray  # node ids in post-order
    kinds: npt.NDArray[np.int8]  # NODE_ELEMENT, NODE_TEXT or NODE_ALT_TEXT
    texts: tuple[str, ...]  # text of #text leaves (whitespace kept), "" for elements
    # 1-based position of a NODE_TEXT leaf among its parent's text nodes in the parsed
    # document, whitespace-only ones included (they are dropped from the tree); 0 otherwise
    text_position: IntArray
    # A tree made from another (``block_tree``): the node of ``source`` each node stands for;
    # xpaths are those of ``source`` so they locate the original page's elements.
    origin: IntArray | None = None
    source: TagTree | None = None
    _xpath_cache: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        """Number of nodes (elements and text leaves)."""
        return int(self.labels.shape[0])

    def label(self, node: int) -> str:
        """The tag name of an element or ``#text``."""
        return self.label_names[int(self.labels[node])]

    def children(self, node: int) -> IntArray:
        """Child node ids of ``node`` in document order."""
        return self.child_idx[self.child_ptr[node] : self.child_ptr[node + 1]]

    def is_text(self, node: int) -> bool:
        """Whether ``node`` is a ``#text`` leaf."""
        return bool(self.kinds[node] != NODE_ELEMENT)

    def text_leaves(self) -> list[int]:
        """All ``#text`` leaves in document order."""
        return [int(i) for i in np.flatnonzero(self.kinds != NODE_ELEMENT)]

    def xpath(self, node: int) -> str:
        """An XPath locating ``node`` in the parsed page (``text()[k]`` / ``@alt`` for text).

        Evaluated with lxml on :func:`parse_document` of the same page, it selects the node's
        element, text node or ``alt`` attribute. A folded tree (:func:`block_tree`) answers
        with the xpath of the node it stands for in the original page; for a folded ``#text``
        leaf that is the text node its chunk starts with.
        """
        if self.source is not None and self.origin is not None:
            return self.source.xpath(int(self.origin[node]))
        cached = self._xpath_cache.get(node)
        if cached is not None:
            return cached
        # iterative, nearest cached ancestor first: a page may nest ``max_depth`` (1,000)
        # elements deep, beyond Python's recursion limit
        uncached: list[int] = []
        up = node
        while up >= 0 and up not in self._xpath_cache:
            uncached.append(up)
            up = int(self.parent[up])
        path = self._xpath_cache[up] if up >= 0 else ""
        for current in reversed(uncached):
            path = f"{path}/{self._xpath_step(current)}"
            self._xpath_cache[current] = path
        return path

    def _xpath_step(self, node: int) -> str:
        parent = int(self.parent[node])
        if self.kinds[node] == NODE_ALT_TEXT:
            return "@alt"
        if self.kinds[node] == NODE_TEXT:
            return f"text()[{int(self.text_position[node])}]"
        tag = self.label(node)
        if parent >= 0 and (C0_CONTROL.search(tag) or NOT_XML_CHAR.search(tag)):
            # lxml takes no such character in an xpath ("<b\x01>"): the element's rank
            siblings = self.children(parent)
            elements = siblings[self.kinds[siblings] == NODE_ELEMENT]
            return f"*[{_position(elements, node) + 1}]"
        test = tag if _PLAIN_TAG.fullmatch(tag) else f"*[name()={_xpath_literal(tag)}]"
        if parent < 0:
            return test
        siblings = self.children(parent)
        same = siblings[self.labels[siblings] == self.labels[node]]
        return test if len(same) == 1 else f"{test}[{_position(same, node) + 1}]"


def _xpath_literal(text: str) -> str:
    """``text`` as an XPath 1.0 string literal: quoted with ' or ", or built with concat()
    when it holds both (a tag name runs to whitespace, / or >: "<div'class='x'>")."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    pieces = ", ".join(f"'{piece}'" for piece in text.split("'"))
    return "concat(" + pieces.replace(", ", ', "\'", ') + ")"


def tree_from_nodes(labels: list[str], parents: list[int], texts: list[str]) -> TagTree:
    """A tag tree from pre-order node lists (for tests and generated pages).

    ``parents[0]`` is -1; each later node's parent must be on the path from the root to the
    previous node (that is what pre-order numbering means). ``#text`` nodes must be leaves.
    """
    if not labels or len(parents) != len(labels) or len(texts) != len(labels) or parents[0] != -1:
        raise InvalidInput("a tag tree needs a root and one parent and text per node")
    path: list[int] = [0]
    for node in range(1, len(labels)):
        while path and path[-1] != parents[node]:
            path.pop()
        if not path or labels[parents[node]] == TEXT_LABEL:
            raise InvalidInput(f"node {node}: parent {parents[node]} breaks pre-order or is text")
        path.append(node)
    names: dict[str, int] = {}
    ids = [names.setdefault(label, len(names)) for label in labels]
    kinds = [NODE_TEXT if label == TEXT_LABEL else NODE_ELEMENT for label in labels]
    return assemble_tree(ids, names, parents, kinds, texts, sibling_text_positions(parents, kinds))


def sibling_text_positions(parents: list[int], kinds: list[int]) -> list[int]:
    """Text positions of a tree with no parsed document: the rank among its text siblings."""
    seen: dict[int, int] = {}
    positions = []
    for parent, kind in zip(parents, kinds, strict=True):
        if kind == NODE_TEXT:
            seen[parent] = seen.get(parent, 0) + 1
        positions.append(seen[parent] if kind == NODE_TEXT else 0)
    return positions


def _position(siblings: IntArray, node: int) -> int:
    return int(np.searchsorted(siblings, node))


def assemble_tree(
    labels: list[int],
    names: dict[str, int],
    parents: list[int],
    kinds: list[int],
    texts: list[str],
    text_positions: list[int],
    origin: list[int] | None = None,
    source: TagTree | None = None,
) -> TagTree:
    size = len(labels)
    parent = np.asarray(parents, dtype=np.int32)
    counts = (
        np.bincount(parent[1:], minlength=size).astype(np.int32)
        if size > 1
        else np.zeros(size, np.int32)
    )
    child_ptr = np.zeros(size + 1, dtype=np.int32)
    np.cumsum(counts, out=child_ptr[1:])
    # Pre-order ids: sorting children by parent (stable) keeps them in document order.
    child_idx = (np.argsort(parent[1:], kind="stable") + 1).astype(np.int32)
    subtree_end = np.arange(1, size + 1, dtype=np.int32)
    for node in range(size - 1, 0, -1):  # children have larger ids than their parent
        up = parent[node]
        subtree_end[up] = max(subtree_end[up], subtree_end[node])
    postorder = _postorder(child_ptr, child_idx, size)
    return TagTree(
        labels=np.asarray(labels, dtype=np.int32),
        label_names=tuple(sorted(names, key=names.__getitem__)),
        parent=parent,
        child_ptr=child_ptr,
        child_idx=child_idx,
        subtree_end=subtree_end,
        postorder=postorder,
        kinds=np.asarray(kinds, dtype=np.int8),
        texts=tuple(texts),
        text_position=np.asarray(text_positions, dtype=np.int32),
        origin=None if origin is None else np.asarray(origin, dtype=np.int32),
        source=source,
    )


def _postorder(child_ptr: IntArray, child_idx: IntArray, size: int) -> IntArray:
    order = np.empty(size, dtype=np.int32)
    filled = 0
    stack: list[tuple[int, int]] = [(0, 0)] if size else []
    while stack:  # iterative: deep trees must not hit Python's recursion limit
        node, next_child = stack[-1]
        start, stop = int(child_ptr[node]), int(child_ptr[node + 1])
        if start + next_child < stop:
            stack[-1] = (node, next_child + 1)
            stack.append((int(child_idx[start + next_child]), 0))
        else:
            stack.pop()
            order[filled] = node
            filled += 1
    return order
