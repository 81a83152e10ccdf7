"""Dev side of sentence_align: the dev document cut in pieces, the dev protocol, its errors."""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.sentence_align.rows import WITH_DICTIONARY, corpus_row, freedict
from benchmarks.sentence_align.textberg import (
    TEXTBERG,
    Row,
    evaluate,
    galechurch_aligner,
    paramine_aligner,
)
from services.lexical.dictionary import BilingualDictionary
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import score_documents
from services.sentence_align.aligners.gold import DocumentPair


def error_kind(bead: Bead, gold_of: dict[tuple[int, int], Bead]) -> str:
    """How a wrong predicted bead relates to the gold: "split" (part of one gold bead),
    "merge" (whole gold beads joined), "deletion" (a wrong 1-0 or 0-1 bead) or "shift" (a
    boundary in the wrong place: parts of several gold beads). Sentences outside every
    gold bead are ignored."""
    if not bead.src or not bead.tgt:
        return "deletion"
    own = {(0, i) for i in bead.src} | {(1, j) for j in bead.tgt}
    golds = {gold_of[key] for key in own if key in gold_of}
    if len(golds) <= 1:
        return "split"
    covered = {(0, i) for g in golds for i in g.src} | {(1, j) for g in golds for j in g.tgt}
    return "merge" if covered == own & gold_of.keys() else "shift"


def dev_diagnosis(documents: Sequence[DocumentPair]) -> list[str]:
    """Gold beads the hybrid aligner misses on dev, by shape; its wrong beads by kind (split,
    merge, shift, deletion); and the gold beads no DP shape covers."""
    from collections import Counter

    from services.sentence_align.aligners.beads import BEAD_SHAPES, bead_shapes
    from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS

    program = (
        bead_shapes(HYBRID_SETTINGS.max_bead_size) if HYBRID_SETTINGS.max_bead_size else BEAD_SHAPES
    )
    aligner = paramine_aligner("hybrid")
    gold_shapes: Counter[tuple[int, int]] = Counter()
    missed: Counter[tuple[int, int]] = Counter()
    kinds: Counter[str] = Counter()
    for doc in documents:
        predicted = aligner(doc.src, doc.tgt)
        found = {(bead.src, bead.tgt) for bead in predicted}
        gold_of = {(0, i): bead for bead in doc.gold for i in bead.src} | {
            (1, j): bead for bead in doc.gold for j in bead.tgt
        }
        gold = {(bead.src, bead.tgt) for bead in doc.gold}
        for bead in predicted:
            if (bead.src, bead.tgt) not in gold:
                kinds[error_kind(bead, gold_of)] += 1
        for bead in doc.gold:
            gold_shapes[bead.shape] += 1
            missed[bead.shape] += (bead.src, bead.tgt) not in found
    outside = sum(count for shape, count in gold_shapes.items() if shape not in program)
    outside_names = ", ".join(f"{a}-{b}" for a, b in sorted(gold_shapes) if (a, b) not in program)
    shapes = sorted(gold_shapes, key=lambda shape: -missed[shape])
    cells = ", ".join(
        f"{a}-{b}: {missed[(a, b)]}/{gold_shapes[(a, b)]}" for a, b in shapes if missed[(a, b)]
    )
    kind_cells = ", ".join(
        f"{kinds[kind]} {kind}" for kind in ("split", "merge", "shift", "deletion")
    )
    return [
        f"Hybrid on dev, gold beads missed / gold beads by shape: {cells}.",
        f"Its {sum(kinds.values())} wrong beads by kind: {kind_cells} (split: part of one "
        "gold bead; merge: whole gold beads joined; shift: a bead boundary in the wrong "
        "place; deletion: a wrong 1-0 or 0-1 bead).",
        f"{outside} of {sum(gold_shapes.values())} dev gold beads have shapes outside the "
        f"hybrid program's (1-0, 0-1 and every x-y with x + y <= "
        f"{max(a + b for a, b in program)}): {outside_names or 'none'}; they cannot be found.",
    ]


def dev_chunks(document: DocumentPair, parts: int) -> list[DocumentPair]:
    """The dev document cut into ``parts`` pseudo-documents of about equal numbers of gold
    beads (cut at gold bead boundaries; sentences outside the gold stay where they are), a
    multi-document dev setting with documents about as short as the test documents."""
    size = -(-len(document.gold) // parts)
    groups = [document.gold[k : k + size] for k in range(0, len(document.gold), size)]
    cuts = [(0, 0)]
    for k in range(1, len(groups)):
        # A piece starts at its first sentence on each side; a side with no sentence in
        # this group starts where the next group's sentences on that side do.
        later = [bead for group in groups[k:] for bead in group]
        cuts.append(
            (
                next((b.src[0] for b in later if b.src), len(document.src)),
                next((b.tgt[0] for b in later if b.tgt), len(document.tgt)),
            )
        )
    cuts.append((len(document.src), len(document.tgt)))
    return [
        DocumentPair(
            f"{document.name}.{k}",
            document.src[x0:x1],
            document.tgt[y0:y1],
            [Bead(tuple(i - x0 for i in b.src), tuple(j - y0 for j in b.tgt)) for b in group],
        )
        for k, (group, (x0, y0), (x1, y1)) in enumerate(
            zip(groups, cuts[:-1], cuts[1:], strict=True)
        )
    ]


def chunk_rows(documents: Sequence[DocumentPair]) -> list[Row]:
    """Hybrid and lexicon on the dev chunks, per document and in corpus mode."""
    return [
        corpus_row("hybrid", documents),
        evaluate("paramine hybrid", paramine_aligner("hybrid"), documents),
        corpus_row("lexicon", documents),
        evaluate("paramine lexicon", paramine_aligner("lexicon"), documents),
        evaluate("galechurch", galechurch_aligner, documents),
    ]


# Dev protocol: the dev document cut at gold bead boundaries into each of these numbers of
# pieces (pieces of 30-135 German sentences; the test documents have 36-293).
DEV_CUTS = (4, 5, 6, 7)
Pair = tuple[Sequence[str], Sequence[str]]


def unlabelled(names: Sequence[str]) -> list[Pair]:
    """The sentence lists of documents ``names`` without their gold (unlabelled text)."""
    return [
        tuple(  # type: ignore[misc]
            (TEXTBERG / f"{name}.{lang}").read_text(encoding="utf-8").splitlines()
            for lang in ("de", "fr")
        )
        for name in names
    ]


def _hybrid_corpus(
    pairs: Sequence[Pair], scored: int, dictionary: BilingualDictionary | None = None
) -> list[list[Bead]]:
    """Hybrid in corpus mode over ``pairs``; the beads of the first ``scored`` documents."""
    from services.sentence_align.aligners.align import align_corpus

    return align_corpus(
        pairs, method="hybrid", src_lang="de", tgt_lang="fr", dictionary=dictionary
    )[:scored]


def dev_protocol(document: DocumentPair, extra: Sequence[Pair]) -> list[str]:
    """Hybrid strict F1 on the dev document cut into each of DEV_CUTS numbers of pieces:
    each piece on its own, the pieces of a cut in corpus mode, and both again with ``extra``
    unlabelled document pairs in the same corpus run (more text for Model 1 and the
    sentence-end and deletion models; only the dev pieces are scored)."""
    hybrid = paramine_aligner("hybrid")

    def alone(docs: Sequence[DocumentPair]) -> list[list[Bead]]:
        return [hybrid(doc.src, doc.tgt) for doc in docs]

    def together(docs: Sequence[DocumentPair]) -> list[list[Bead]]:
        return _hybrid_corpus([(doc.src, doc.tgt) for doc in docs], len(docs))

    def alone_extra(docs: Sequence[DocumentPair]) -> list[list[Bead]]:
        return [_hybrid_corpus([(doc.src, doc.tgt), *extra], 1)[0] for doc in docs]

    def together_extra(docs: Sequence[DocumentPair]) -> list[list[Bead]]:
        return _hybrid_corpus([*((doc.src, doc.tgt) for doc in docs), *extra], len(docs))

    modes = {
        "each piece on its own": alone,
        "corpus mode (the pieces of a cut in one run)": together,
        "each piece + extra text": alone_extra,
        "corpus mode + extra text": together_extra,
    }
    dictionary = freedict()
    if dictionary is not None:
        with_dictionary = paramine_aligner("hybrid", dictionary)
        modes[f"each piece {WITH_DICTIONARY}"] = lambda docs: [
            with_dictionary(doc.src, doc.tgt) for doc in docs
        ]
        modes[f"corpus mode {WITH_DICTIONARY}"] = lambda docs: _hybrid_corpus(
            [(doc.src, doc.tgt) for doc in docs], len(docs), dictionary
        )
    lines = [
        "| hybrid strict F1 | whole document | "
        + " | ".join(f"{parts} pieces" for parts in DEV_CUTS)
        + " | mean over cuts |",
        "|---" * (len(DEV_CUTS) + 3) + "|",
    ]
    cuts = [dev_chunks(document, parts) for parts in DEV_CUTS]
    for name, align_all in modes.items():
        whole = score_documents([document.gold], align_all([document])).f1_strict
        scores = [
            score_documents([doc.gold for doc in docs], align_all(docs)).f1_strict for docs in cuts
        ]
        cells = " | ".join(f"{score:.3f}" for score in scores)
        lines.append(f"| {name} | {whole:.3f} | {cells} | {sum(scores) / len(scores):.3f} |")
    return lines
