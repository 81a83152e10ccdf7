"""Thesauri as trees of classes with words at the leaves: WLSP and WordNet loaders, JSON form.

docs/methods.md §4: a thesaurus is a tree whose leaves are the *primitive classes* that words
belong to (a word may be in several leaves: polysemy). Similarities are defined between
leaves; the estimation of §4 step 4 walks up the tree through parents and grandparents.

Two sources share this one interface:

* **WLSP / Bunrui-goi-hyou** word database (``bunruidb.txt``, Shift-JIS CSV, 15 columns as
  documented in the database's ``kaisetsu.txt``). The class number ``R.DDSS`` gives the tree
  類 ``R`` → 部門 ``R.D`` → 中項目 ``R.DD`` → 分類項目 ``R.DDSS`` and, with
  ``leaf_level="paragraph"``, → 段落 ``R.DDSS-PP`` below it. Names and the full list of classes
  (so classes without any word are still leaves) come from ``koumoku1.txt`` and
  ``koumoku2.txt`` when given.
* **WordNet**: Princeton WordNet 3.0 noun synsets (``data.noun`` of Debian's ``wordnet-base``)
  with their first hypernym as parent (``@``, else the instance hypernym ``@i``), and Japanese
  lemmas from an Open Multilingual Wordnet tab file keyed on the same synset offsets. The
  tree keeps the synsets that have Japanese lemmas and their ancestors. A synset that has
  both lemmas and kept descendants gets an extra leaf ``<offset>-n#self`` holding its own
  words, so words sit only on leaves; internal nodes with a single child are then spliced out
  so that "siblings" in the estimation are real alternatives.
"""

from __future__ import annotations

import codecs
import csv
import functools
import hashlib
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.errors import InvalidInput
from shared.text import normalise_japanese

IntArray = npt.NDArray[np.int64]

WLSP_COLUMNS = 15
_WLSP_CLASS_NUMBER = 7  # 分類番号, e.g. 1.3101
_WLSP_PARAGRAPH = 8  # 段落番号
_WLSP_RECORD_KIND = 2  # A, B, or the number of a record split off a B record
_WLSP_WORD = 12  # 見出し本体
_WLSP_NAMES = (3, 4, 5, 6)  # 類, 部門, 中項目, 分類項目 names
_WLSP_ROOT = "WLSP"
_WORDNET_ROOT = "00001740-n"  # entity.n.01
_AFFIX_MARKS = ("−", "－", "-", "…")  # cp932 decodes the table's − as －


# Levels of a class hierarchy at the most: estimation rounds are tagged 2 * height in int8
# (a leaf 64 levels deep overflowed it: an error, or a defined similarity stored as
# "undefined"). WLSP has 5 levels, WordNet's noun hierarchy about 20.
MAX_DEPTH = 63


@dataclass(frozen=True, eq=False)
class Thesaurus:
    """A tree of classes (node 0 is the root) and the leaf classes of every word."""

    name: str
    class_ids: tuple[str, ...]
    labels: tuple[str, ...]
    parent: IntArray  # parent[node]; -1 for the root
    words: Mapping[str, tuple[int, ...]]  # word -> node indices of its leaf classes
    _index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {cid: i for i, cid in enumerate(self.class_ids)})

    @classmethod
    def build(
        cls,
        name: str,
        classes: Sequence[tuple[str, str | None, str]],
        memberships: Iterable[tuple[str, str]],
    ) -> Thesaurus:
        """A thesaurus from (class id, parent id or None for the root, label) and (word, class id).

        Classes may come in any order; there must be exactly one root, and words may only
        belong to leaves.
        """
        roots = [cid for cid, parent, _ in classes if parent is None]
        if len(roots) != 1:
            raise InvalidInput(f"a thesaurus needs exactly one root class, got {len(roots)}")
        ids = [cid for cid, _, _ in classes]
        if len(set(ids)) != len(ids):
            raise InvalidInput("class ids must be unique")
        parent_of = {cid: parent for cid, parent, _ in classes}
        label_of = {cid: label for cid, _, label in classes}
        # Breadth-first order from the root: parents before children, and cycles are caught.
        children: dict[str, list[str]] = {}
        for cid, parent, _ in classes:
            if parent is not None:
                if parent not in parent_of:
                    raise InvalidInput(f"class {cid!r} has an unknown parent {parent!r}")
                children.setdefault(parent, []).append(cid)
        order = [roots[0]]
        for cid in order:
            order.extend(children.get(cid, []))
        if len(order) != len(ids):
            raise InvalidInput(
                "the class hierarchy has a cycle or classes unreachable from the root"
            )
        index = {cid: i for i, cid in enumerate(order)}
        parent_index = np.array(
            [-1 if parent_of[cid] is None else index[parent_of[cid] or ""] for cid in order],
            dtype=np.int64,
        )
        words: dict[str, set[int]] = {}
        for word, cid in memberships:
            if cid not in index:
                raise InvalidInput(f"word {word!r} belongs to an unknown class {cid!r}")
            if cid in children:
                raise InvalidInput(f"word {word!r} belongs to {cid!r}, which is not a leaf")
            words.setdefault(normalise_japanese(word), set()).add(index[cid])
        thesaurus = cls(
            name=name,
            class_ids=tuple(order),
            labels=tuple(label_of[cid] for cid in order),
            parent=parent_index,
            words={word: tuple(sorted(nodes)) for word, nodes in words.items()},
        )
        if thesaurus.max_leaf_depth > MAX_DEPTH:  # the deepest class is a leaf
            raise InvalidInput(
                f"the class hierarchy is {thesaurus.max_leaf_depth} levels deep; at most "
                f"{MAX_DEPTH} are read"
            )
        return thesaurus

    # -- tree structure ---------------------------------------------------------------------

    @functools.cached_property
    def depth(self) -> IntArray:
        """Depth of every node (root = 0); parents precede children in node order."""
        depth = np.zeros(len(self.class_ids), dtype=np.int64)
        for node in range(1, len(self.class_ids)):
            depth[node] = depth[self.parent[node]] + 1
        return depth

    @functools.cached_property
    def children(self) -> tuple[tuple[int, ...], ...]:
        kids: list[list[int]] = [[] for _ in self.class_ids]
        for node in range(1, len(self.class_ids)):
            kids[int(self.parent[node])].append(node)
        return tuple(tuple(k) for k in kids)

    @functools.cached_property
    def leaves(self) -> IntArray:
        """Node indices of the primitive classes, in node order; leaf position = index here."""
        return np.array([n for n, kids in enumerate(self.children) if not kids], dtype=np.int64)

    @functools.cached_property
    def leaf_position(self) -> IntArray:
        """Leaf position of every node, -1 for internal nodes."""
        position = np.full(len(self.class_ids), -1, dtype=np.int64)
        position[self.leaves] = np.arange(len(self.leaves))
        return position

    @property
    def leaf_ids(self) -> tuple[str, ...]:
        return tuple(self.class_ids[n] for n in self.leaves)

    def node(self, class_id: str) -> int:
        if class_id not in self._index:
            raise InvalidInput(f"unknown class {class_id!r} in thesaurus {self.name!r}")
        return self._index[class_id]

    def word_leaves(self, word: str) -> tuple[int, ...]:
        """Leaf positions of a word's classes (empty when the word is not in the thesaurus);
        words are matched in ``normalise_japanese`` form, as they are stored."""
        found = self.words.get(word) or self.words.get(normalise_japanese(word), ())
        return tuple(int(self.leaf_position[n]) for n in found)

    def leaf_ancestors(self, height: int) -> IntArray:
        """For every leaf, its ancestor ``height`` steps up (clamped at the root)."""
        nodes = self.leaves.copy()
        for _ in range(height):
            nodes = np.where(nodes == 0, 0, self.parent[nodes])
        return nodes

    @property
    def max_leaf_depth(self) -> int:
        return int(self.depth[self.leaves].max()) if len(self.leaves) else 0

    def common_ancestor_depth(self) -> npt.NDArray[np.int16]:
        """Depth of the lowest common ancestor of every pair of leaves (L × L)."""
        height = self.max_leaf_depth
        # path[d] = ancestor of each leaf at depth d (or -1-leaf index when the leaf is shallower,
        # so that shallower leaves never match anything below their own depth).
        count = len(self.leaves)
        path = np.empty((height + 1, count), dtype=np.int64)
        nodes = self.leaves.copy()
        leaf_depth = self.depth[self.leaves]
        for level in range(height, -1, -1):
            path[level] = np.where(leaf_depth >= level, nodes, -1 - np.arange(count))
            nodes = np.where(leaf_depth >= level, np.maximum(self.parent[nodes], 0), nodes)
        result = np.zeros((count, count), dtype=np.int16)
        for level in range(1, height + 1):
            same = path[level][:, None] == path[level][None, :]
            result[same] = level
        return result

    # -- serialisation ----------------------------------------------------------------------

    @functools.cached_property
    def digest(self) -> str:
        """SHA-256 of the content (name, classes with parents and labels, words with their
        classes) in a canonical order: a re-import that files one word elsewhere changes it,
        listing the same classes or words in another order does not."""
        content = {
            "name": self.name,
            "classes": sorted(zip(self.class_ids, self._parent_ids, self.labels, strict=True)),
            "words": {
                w: sorted(self.class_ids[n] for n in nodes) for w, nodes in self.words.items()
            },
        }
        text = json.dumps(content, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def _parent_ids(self) -> list[str | None]:
        """The parent's class id of each class (None for a root)."""
        return [None if p < 0 else self.class_ids[p] for p in self.parent]

    def to_json(self) -> str:
        parent_ids = self._parent_ids
        return json.dumps(
            {
                "name": self.name,
                "classes": [
                    [cid, pid, label]
                    for cid, pid, label in zip(self.class_ids, parent_ids, self.labels, strict=True)
                ],
                "words": {w: [self.class_ids[n] for n in nodes] for w, nodes in self.words.items()},
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> Thesaurus:
        try:
            data: dict[str, Any] = json.loads(text)
            classes = [
                (str(c), None if p is None else str(p), str(lab)) for c, p, lab in data["classes"]
            ]
            members = [(str(w), str(c)) for w, cids in data["words"].items() for c in cids]
            name = str(data["name"])
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
            raise InvalidInput(f"not a thesaurus JSON document: {error!r}") from None
        return cls.build(name, classes, members)


# -- WLSP / Bunrui-goi-hyou ---------------------------------------------------------------------


def _wlsp_chain(class_number: str) -> list[str]:
    # 1.3101 -> 1, 1.3, 1.31, 1.3101 (類, 部門, 中項目, 分類項目).
    head, _, digits = class_number.partition(".")
    if not head.isdigit() or len(digits) != 4 or not digits.isdigit():
        raise InvalidInput(f"not a WLSP class number: {class_number!r}")
    return [head, f"{head}.{digits[0]}", f"{head}.{digits[:2]}", class_number]


def _read_koumoku(path: Path) -> dict[str, str]:
    """Class number -> name from a koumoku table: NINJAL ships them in Shift_JIS (cp932), a
    converted copy is UTF-8; the bytes say which (strict UTF-8 decoding fails on cp932 kana)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read WLSP class table {path}: {exc}") from None
    for encoding in ("utf-8-sig", "cp932"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise InvalidInput(f"{path}: a WLSP class table is neither UTF-8 nor Shift_JIS (cp932)")
    names: dict[str, str] = {}
    for row in csv.reader(io.StringIO(text, newline="")):
        if len(row) >= 2 and row[0].strip():
            names[row[0].strip()] = row[1].strip()
    return names


def _wlsp_word(row: list[str]) -> str | None:
    word = row[_WLSP_WORD].strip()
    if not word or word == "＊":
        return None  # a record marking a semantic break inside a class
    if row[_WLSP_RECORD_KIND] == "B" and ("・" in word or "／" in word):
        return None  # a combined heading; its split-off records follow with single words
    if word.startswith(_AFFIX_MARKS) or word.endswith(_AFFIX_MARKS):
        return None  # affixes and phrase fragments never match a free-standing noun
    return word


def load_wlsp(
    path: Path,
    *,
    koumoku1: Path | None = None,
    koumoku2: Path | None = None,
    encoding: str = "cp932",
    leaf_level: str = "item",
    nominal_only: bool = True,
    name: str = "wlsp",
) -> Thesaurus:
    """Load the WLSP word database (bunruidb.txt layout); classes of 体の類 only by default.

    ``leaf_level`` is ``"item"`` (分類項目, 895 classes in the full table, 1.xxxx for nouns) or
    ``"paragraph"`` (段落 inside each 分類項目, closer to the paper's 3,582 primitive classes).
    """
    if leaf_level not in {"item", "paragraph"}:
        raise InvalidInput(f"leaf_level must be 'item' or 'paragraph', not {leaf_level!r}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InvalidInput(f"unknown encoding {encoding!r}") from None
    labels: dict[str, str] = {_WLSP_ROOT: "分類語彙表"}
    parent_of: dict[str, str | None] = {_WLSP_ROOT: None}

    def add_chain(chain: list[str], names: Sequence[str]) -> None:
        previous = _WLSP_ROOT
        for cid, label in zip(chain, names, strict=True):
            parent_of.setdefault(cid, previous)
            if label and not labels.get(cid):
                labels[cid] = label
            previous = cid

    wanted = ("1.",) if nominal_only else ("",)
    for table in (koumoku2, koumoku1):
        if table is None:
            continue
        for number, label in _read_koumoku(table).items():
            if not number.startswith(wanted):
                continue
            full = number.ljust(6, "0") if len(number) == 4 else number
            chain = _wlsp_chain(full)[: 3 if len(number) == 4 else 4]
            add_chain(chain, [""] * (len(chain) - 1) + [label])
    members: list[tuple[str, str]] = []
    with path.open(encoding=encoding, newline="") as handle:
        for line_number, row in enumerate(csv.reader(handle), start=1):
            if not row:
                continue
            if len(row) != WLSP_COLUMNS:
                raise InvalidInput(
                    f"{path}:{line_number}: expected {WLSP_COLUMNS} columns, got {len(row)}"
                )
            number = row[_WLSP_CLASS_NUMBER].strip()
            if not number.startswith(wanted):
                continue
            chain = _wlsp_chain(number)
            names = [row[i].strip() for i in _WLSP_NAMES]
            if leaf_level == "paragraph":
                chain.append(f"{number}-{row[_WLSP_PARAGRAPH].strip()}")
                names.append("")
            add_chain(chain, names)
            word = _wlsp_word(row)
            if word is not None:
                members.append((word, chain[-1]))
    if not members:
        # stored, an empty thesaurus answered nothing and made `build` ask which to use
        kind = "体の類 (1.xxxx) " if nominal_only else ""
        raise InvalidInput(f"{path}: no {kind}words in this WLSP file")
    classes = [(cid, parent, labels.get(cid, "") or cid) for cid, parent in parent_of.items()]
    return Thesaurus.build(name, classes, members)


# -- WordNet + OMW Japanese lemmas --------------------------------------------------------------


def _read_wordnet_nouns(data_noun: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Synset id -> chosen hypernym id, and synset id -> first English lemma (as label)."""
    hypernym: dict[str, str] = {}
    label: dict[str, str] = {}
    with data_noun.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("  "):
                continue  # the licence header
            fields = line.split(" | ", 1)[0].split()
            try:
                synset = f"{fields[0]}-n"
                word_count = int(fields[3], 16)
                label[synset] = fields[4]
                pointer_at = 4 + 2 * word_count
                pointer_count = int(fields[pointer_at])
                if len(fields) < pointer_at + 1 + 4 * pointer_count:
                    raise IndexError("fewer pointer fields than counted")
            except (IndexError, ValueError) as error:
                raise InvalidInput(
                    f"{data_noun}: not a WordNet data line ({error}): {line[:80]!r}"
                ) from None
            plain: str | None = None
            instance: str | None = None
            for k in range(pointer_count):
                symbol, offset, pos = fields[pointer_at + 1 + 4 * k : pointer_at + 4 + 4 * k]
                if pos != "n":
                    continue
                if symbol == "@" and plain is None:
                    plain = f"{offset}-n"
                elif symbol == "@i" and instance is None:
                    instance = f"{offset}-n"
            chosen = plain or instance
            if chosen is not None:
                hypernym[synset] = chosen
    return hypernym, label


def _read_omw_nouns(omw_tab: Path) -> dict[str, set[str]]:
    lemmas: dict[str, set[str]] = {}
    with omw_tab.open(encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 3 and fields[0].endswith("-n") and fields[1].endswith("lemma"):
                lemmas.setdefault(fields[0], set()).add(fields[2].strip())
    return lemmas


def _splice_unary(parent_of: dict[str, str | None], protected: set[str]) -> dict[str, str | None]:
    # Internal nodes with exactly one child (never the root or a word-bearing leaf) go; splicing
    # one out replaces its child by a grandchild, so which nodes are unary never changes.
    child_count: dict[str, int] = {}
    for parent in parent_of.values():
        if parent is not None:
            child_count[parent] = child_count.get(parent, 0) + 1
    unary = {
        node
        for node, parent in parent_of.items()
        if parent is not None and node not in protected and child_count.get(node, 0) == 1
    }
    spliced: dict[str, str | None] = {}
    for node, parent in parent_of.items():
        if node in unary:
            continue
        while parent is not None and parent in unary:
            parent = parent_of[parent]
        spliced[node] = parent
    return spliced


def load_wordnet(wordnet_dir: Path, omw_tab: Path, *, name: str = "wordnet-jpn") -> Thesaurus:
    """Japanese WordNet-style thesaurus: PWN 3.0 noun hypernym tree + OMW Japanese lemmas."""
    data_noun = wordnet_dir / "data.noun"
    if not data_noun.exists():
        raise InvalidInput(
            f"{data_noun} not found: install Debian's wordnet-base (/usr/share/wordnet)"
        )
    hypernym, english = _read_wordnet_nouns(data_noun)
    lemmas = {s: w for s, w in _read_omw_nouns(omw_tab).items() if s in english}
    parent_of: dict[str, str | None] = {_WORDNET_ROOT: None}
    for synset in lemmas:
        node = synset
        while node != _WORDNET_ROOT and node not in parent_of:
            up = hypernym.get(node, _WORDNET_ROOT)
            parent_of[node] = up
            node = up
    has_children = {p for p in parent_of.values() if p is not None}
    members: list[tuple[str, str]] = []
    protected: set[str] = set()
    for synset, words in lemmas.items():
        leaf = synset
        if synset in has_children:
            leaf = f"{synset}#self"
            parent_of[leaf] = synset
        protected.add(leaf)
        members.extend((word, leaf) for word in words)
    if not members:  # stored, an empty thesaurus answered nothing (as load_wlsp says)
        raise InvalidInput(f"{omw_tab}: no Japanese noun lemmas of WordNet synsets")
    parent_of = _splice_unary(parent_of, protected)
    classes = [
        (cid, parent, english.get(cid.split("#")[0], cid)) for cid, parent in parent_of.items()
    ]
    return Thesaurus.build(name, classes, members)
