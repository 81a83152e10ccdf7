"""Hybrid sentence alignment when a block of sentences is missing on one side.

Web page pairs and crawled documents often lack a whole section on one side (an
untranslated part, a dropped chapter). Documents built at run time from real Text+Berg gold
beads, each bead once, in a seeded order; then a contiguous block of beads loses its
sentences on one side (they become gold 1-0 or 0-1 beads). Scored: hybrid with the plain
length pass (the default of sessions 14-19) and with the anchored length pass
(``length_passes.anchored_first_run``, the default since session 20), strict F1 per document
and a paired block-bootstrap interval of the difference over all documents.

Dev beads are where the anchored pass's settings were chosen; test beads are held out
(only scored here). Nothing derived from the data is written to disk.
Run: ``.venv/bin/python -m benchmarks.sentence_align.missing_block`` from the repository root.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from benchmarks.common import RESULTS, notes, publish
from benchmarks.sentence_align.large import synthetic_document
from benchmarks.sentence_align.length import TEST, load
from benchmarks.sentence_align.report import signed_span
from services.sentence_align.aligners.align import align_corpus
from services.sentence_align.aligners.evaluate import bootstrap_difference, score_documents
from services.sentence_align.aligners.gold import (
    DocumentPair,
    bead_pool,
    concatenate_beads,
    cut_block,
)
from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS, align_hybrid
from services.sentence_align.aligners.presets import PLAIN_FIRST_PASS_SETTINGS

RESULT = RESULTS / "sentence_align_missing_block.md"
SEED = 20240607
# (source sentences, sentences cut, where the cut starts as a share of the beads)
DEV_CASES: tuple[tuple[int, int, float], ...] = (
    (300, 0, 0.4), (300, 30, 0.4), (300, 100, 0.4), (460, 50, 0.4), (460, 150, 0.4),
)  # fmt: skip
DEV_CASES += ((460, 250, 0.2),)
TEST_CASES = ((980, 0, 0.4), (980, 100, 0.4), (980, 300, 0.4), (980, 600, 0.2))
# Documents of over 4,000 sentences (both sides), whose plain length pass is chunked:
# dev and test beads drawn with repetition (``sentence_align.large.synthetic_document``).
LONG_CASES = ((2500, 0, 0.4), (2500, 300, 0.4), (2500, 1000, 0.3))


def shuffled_document(documents: Sequence[DocumentPair], n_src: int) -> DocumentPair:
    """The documents' gold beads, each at most once, in a seeded order, until ``n_src``
    source sentences (no sentence repeats, so names and numbers stay as rare as in text)."""
    pool = bead_pool(documents)
    order = np.random.default_rng(SEED).permutation(len(pool)).tolist()
    return concatenate_beads("shuffled", (pool[k] for k in order), n_src)


def documents_for(
    source: Sequence[DocumentPair],
    cases: Sequence[tuple[int, int, float]],
    build: Callable[[Sequence[DocumentPair], int], DocumentPair] = shuffled_document,
) -> list[DocumentPair]:
    result = []
    for n_src, count, start in cases:
        base = build(source, n_src)
        if count == 0:
            result.append(
                DocumentPair(
                    f"{len(base.src)} x {len(base.tgt)}, nothing cut", base.src, base.tgt, base.gold
                )
            )
        else:
            result += [cut_block(base, start, count, side) for side in ("tgt", "src")]
    return result


def rows_for(label: str, documents: Sequence[DocumentPair]) -> tuple[list[str], str]:
    """One table row per document and the paired difference over all of them."""
    outputs = {
        name: [
            align_hybrid(doc.src, doc.tgt, src_lang="de", tgt_lang="fr", settings=settings)
            for doc in documents
        ]
        for name, settings in (("plain", PLAIN_FIRST_PASS_SETTINGS), ("anchored", HYBRID_SETTINGS))
    }
    # Corpus mode: all documents of the group in one run (one length model, one Model 1).
    outputs["corpus"] = align_corpus(
        [(doc.src, doc.tgt) for doc in documents], src_lang="de", tgt_lang="fr"
    )
    rows = []
    for k, doc in enumerate(documents):
        plain, anchored, corpus = (
            score_documents([doc.gold], [outputs[name][k]]).f1_strict
            for name in ("plain", "anchored", "corpus")
        )
        rows.append(f"| {label} | {doc.name} | {plain:.3f} | {anchored:.3f} | {corpus:.3f} |")
    golds = [doc.gold for doc in documents]
    interval = bootstrap_difference(golds, outputs["anchored"], outputs["plain"])
    corpus_interval = bootstrap_difference(golds, outputs["corpus"], outputs["anchored"])
    summary = (
        f"- {label}: anchored minus plain strict F1 over all {len(documents)} documents "
        f"{signed_span(interval)}; corpus mode minus anchored (each document on its own) "
        f"{signed_span(corpus_interval)} (paired 95% block bootstrap)."
    )
    return rows, summary


def main() -> None:
    start = time.perf_counter()
    dev_rows, dev_summary = rows_for("dev beads", documents_for(load(["dev"]), DEV_CASES))
    test_rows, test_summary = rows_for(
        "test beads (held out)", documents_for(load(TEST), TEST_CASES)
    )
    long_rows, long_summary = rows_for(
        "dev+test beads, long",
        documents_for(load(["dev", *TEST]), LONG_CASES, synthetic_document),
    )
    seconds = time.perf_counter() - start
    publish(
        RESULT,
        [
            "# Hybrid sentence alignment with a block missing on one side",
            "",
            "Rerun: `.venv/bin/python -m benchmarks.sentence_align.missing_block`",
            "",
            notes("documents-built-from"),
            "",
            "| beads from | document | plain length pass | anchored length pass | "
            "anchored, corpus mode |",
            "|---|---|---|---|---|",
            *dev_rows,
            *test_rows,
            *long_rows,
            "",
            "## Reading",
            "",
            dev_summary,
            test_summary,
            long_summary,
            "",
            f"({seconds:.0f} s.)",
        ],
    )


if __name__ == "__main__":
    main()
