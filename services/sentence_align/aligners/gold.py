"""Gold documents for measuring the aligner, and documents derived from them.

A ``DocumentPair`` is a document's two sides with its gold beads, read from a folder in
bleualign's layout (``<name>.de``, ``<name>.fr``, ``<name>.defr``: Text+Berg's) by
``read_documents``. Derived documents keep a gold that is right by construction: a block of
sentences cut from one side (``cut_block``: the other side's sentences of the cut beads
become deletions), and a long document of real gold beads sampled with a seed and
concatenated (``bead_pool``, ``concatenate_beads``, ``synthetic_document``). The scores
against the gold are ``services.sentence_align.aligners.evaluate``'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from services.sentence_align.aligners.beads import Bead, parse_beads


@dataclass(frozen=True)
class DocumentPair:
    name: str
    src: list[str]
    tgt: list[str]
    gold: list[Bead]


def read_documents(
    folder: Path, names: Sequence[str], langs: tuple[str, str] = ("de", "fr")
) -> list[DocumentPair]:
    """The documents ``names`` (e.g. "test0", "dev") of ``folder`` with their gold beads."""
    src_lang, tgt_lang = langs
    documents = []
    for name in names:
        src = (folder / f"{name}.{src_lang}").read_text(encoding="utf-8").splitlines()
        tgt = (folder / f"{name}.{tgt_lang}").read_text(encoding="utf-8").splitlines()
        beads = (folder / f"{name}.{src_lang}{tgt_lang}").read_text(encoding="utf-8")
        documents.append(DocumentPair(name, src, tgt, parse_beads(beads.splitlines())))
    return documents


def cut_block(document: DocumentPair, start: float, count: int, side: str) -> DocumentPair:
    """``document`` with the ``side`` ("src" or "tgt") sentences of the gold beads from
    ``start`` (share of the beads) on removed until at least ``count`` are gone; the other
    side's sentences of those beads become 1-0 (0-1) gold beads."""
    first = int(len(document.gold) * start)
    cut: set[int] = set()
    removed: set[int] = set()
    for k in range(first, len(document.gold)):
        if len(removed) >= count:
            break
        cut.add(k)
        removed.update(document.gold[k].tgt if side == "tgt" else document.gold[k].src)
    lines = document.tgt if side == "tgt" else document.src
    kept = [index for index in range(len(lines)) if index not in removed]
    renumber = {old: new for new, old in enumerate(kept)}
    gold: list[Bead] = []
    for k, bead in enumerate(document.gold):
        if side == "tgt":
            if k in cut:
                gold += [Bead((i,), ()) for i in bead.src]
            else:
                gold.append(Bead(bead.src, tuple(renumber[j] for j in bead.tgt)))
        elif k in cut:
            gold += [Bead((), (j,)) for j in bead.tgt]
        else:
            gold.append(Bead(tuple(renumber[i] for i in bead.src), bead.tgt))
    remaining = [lines[index] for index in kept]
    name = f"{len(document.src)} x {len(document.tgt)}, {len(removed)} {side} cut"
    if side == "tgt":
        return DocumentPair(name, document.src, remaining, gold)
    return DocumentPair(name, remaining, document.tgt, gold)


def bead_pool(documents: Sequence[DocumentPair]) -> list[tuple[list[str], list[str]]]:
    """The sentences of every gold bead of the documents, as (source, target) lists."""
    return [
        ([doc.src[i] for i in bead.src], [doc.tgt[j] for j in bead.tgt])
        for doc in documents
        for bead in doc.gold
    ]


def concatenate_beads(
    name: str, beads: Iterable[tuple[list[str], list[str]]], n_src: int
) -> DocumentPair:
    """A document of the beads in order, until the source has ``n_src`` lines (or they run
    out), with its gold beads."""
    src: list[str] = []
    tgt: list[str] = []
    gold: list[Bead] = []
    for src_part, tgt_part in beads:
        if len(src) >= n_src:
            break
        gold.append(
            Bead(
                tuple(range(len(src), len(src) + len(src_part))),
                tuple(range(len(tgt), len(tgt) + len(tgt_part))),
            )
        )
        src += src_part
        tgt += tgt_part
    return DocumentPair(name, src, tgt, gold)


def synthetic_document(documents: Sequence[DocumentPair], n_src: int, seed: int) -> DocumentPair:
    """Real gold beads sampled (``seed``) and concatenated until the source has n_src lines."""
    pool = bead_pool(documents)
    rng = np.random.default_rng(seed)
    sampled = (pool[int(rng.integers(len(pool)))] for _ in itertools.count())
    return concatenate_beads("synthetic", sampled, n_src)
