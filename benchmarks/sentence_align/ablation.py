"""Do the hybrid aligner's dev-chosen components hold outside the document they were chosen on?

Until session 14 the hybrid objective (services/sentence_align/aligners/hybrid.py) carried five
components chosen by their strict F1 on the one Text+Berg dev document: cheap deletions,
the refinement round's diagonal prior, the sentence-end model, the deletion model and the
anchor-token model. On
that document none is significant at 95% (benchmarks/results/sentence_align.md). This
benchmark starts from those settings
(``services.sentence_align.aligners.presets.TEXTBERG_DEV_SETTINGS``), switches each
component off in turn, the four soft models together and all five (``HYBRID_SETTINGS``, the
default since this benchmark), and scores the result on:

- the Text+Berg dev document (de-fr, where they were chosen), and
- the paraphrase documents of benchmarks/sentence_align/bam_anchors.py, dev and test side:
  two versions of one English text built from real Edinburgh++ and MSRP sentence pairs with seeded
  insertions, deletions, 1-2 splits and 2-1 merges. A different source, language and kind
  of noise: evidence that is neither the dev document nor the Text+Berg test set.

The Text+Berg test set is not run here: the components' fate is a decision to take without
it. Each difference is paired (same documents, same blocks) with a 95% block-bootstrap
interval (``evaluate.bootstrap_difference``).
Run: ``.venv/bin/python -m benchmarks.sentence_align.ablation`` from the repository root.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from benchmarks.common import RESULTS, notes, publish
from benchmarks.sentence_align import bam_anchors
from benchmarks.sentence_align.length import load
from benchmarks.sentence_align.report import signed_span
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import bootstrap_difference, score_documents
from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS, align_hybrid
from services.sentence_align.aligners.lexical_settings import LexicalSettings
from services.sentence_align.aligners.presets import (
    PLAIN_FIRST_PASS_SETTINGS,
    TEXTBERG_DEV_SETTINGS,
)

RESULT = RESULTS / "sentence_align_ablation.md"
# Each component off, as the settings it had before it was chosen (hybrid.py's notes).
# The deletion model reads the sentence-end model's classes, so switching the sentence-end
# model off switches both off.
DEV_CHOSEN = "Text+Berg dev-chosen settings (the default until session 14)"
ALL_OFF = "all five off (the default of sessions 14-19)"
ANCHORED = "all five off, anchored length pass (the default since session 20)"
VARIANTS: dict[str, LexicalSettings] = {
    DEV_CHOSEN: TEXTBERG_DEV_SETTINGS,
    "anchor tokens off": replace(TEXTBERG_DEV_SETTINGS, anchor_weight=0.0),
    "deletion model off": replace(TEXTBERG_DEV_SETTINGS, deletion_weight=0.0),
    "sentence-end and deletion models off": replace(TEXTBERG_DEV_SETTINGS, boundary_weight=0.0),
    "refinement diagonal off": replace(TEXTBERG_DEV_SETTINGS, refinement_diagonal=0.0),
    "cheap deletions off (Gale-Church's deletion prior, length weight 0.5)": replace(
        TEXTBERG_DEV_SETTINGS, cheap_deletions=False, deletion_length_weight=0.5
    ),
    "the four soft models off (anchors, deletion, sentence-end, diagonal)": replace(
        TEXTBERG_DEV_SETTINGS, anchor_weight=0.0, boundary_weight=0.0, refinement_diagonal=0.0
    ),
    ALL_OFF: PLAIN_FIRST_PASS_SETTINGS,
    ANCHORED: HYBRID_SETTINGS,
}


@dataclass(frozen=True)
class Corpus:
    """Documents with gold beads and the language hints the aligner gets."""

    name: str
    documents: Sequence[tuple[list[str], list[str], list[Bead]]]
    src_lang: str
    tgt_lang: str


def corpora() -> list[Corpus]:
    textberg = [(doc.src, doc.tgt, doc.gold) for doc in load(["dev"])]
    # The same documents as benchmarks/results/bam_anchors.md.
    _, _, paraphrase_dev, paraphrase_test = bam_anchors.paraphrase_documents()
    return [
        Corpus("Text+Berg dev (de-fr, 1 document)", textberg, "de", "fr"),
        Corpus(
            "paraphrase documents, dev side (en-en, 16 documents)",
            [(doc.src, doc.tgt, doc.gold) for doc in paraphrase_dev],
            "en",
            "en",
        ),
        Corpus(
            "paraphrase documents, test side (en-en, 16 documents)",
            [(doc.src, doc.tgt, doc.gold) for doc in paraphrase_test],
            "en",
            "en",
        ),
    ]


def align_all(corpus: Corpus, settings: LexicalSettings) -> list[list[Bead]]:
    return [
        align_hybrid(
            src, tgt, src_lang=corpus.src_lang, tgt_lang=corpus.tgt_lang, settings=settings
        )
        for src, tgt, _ in corpus.documents
    ]


def deletions_found(
    golds: Sequence[Sequence[Bead]], tests: Sequence[Sequence[Bead]]
) -> tuple[int, int]:
    """(gold 1-0 and 0-1 beads the output has too, gold 1-0 and 0-1 beads)."""
    found = total = 0
    for gold, test in zip(golds, tests, strict=True):
        output = {(bead.src, bead.tgt) for bead in test}
        left_out = [(bead.src, bead.tgt) for bead in gold if not bead.src or not bead.tgt]
        total += len(left_out)
        found += sum(bead in output for bead in left_out)
    return found, total


def corpus_rows(corpus: Corpus) -> tuple[list[str], dict[str, float], dict[str, int], str]:
    """Table rows of every variant on ``corpus``, each variant's difference estimate, how
    many gold 1-0 / 0-1 beads each finds (key "gold": how many there are), and a line on
    the anchored length pass against the plain one (both with the five components off)."""
    golds = [gold for _, _, gold in corpus.documents]
    outputs = {name: align_all(corpus, settings) for name, settings in VARIANTS.items()}
    dev_chosen = outputs[DEV_CHOSEN]
    rows, differences, found_deletions = [], {}, {}
    for name, tests in outputs.items():
        scores = score_documents(golds, tests)
        if tests is dev_chosen:
            change = "-"
        else:
            interval = bootstrap_difference(golds, dev_chosen, tests)
            differences[name] = interval.estimate
            significant = interval.low > 0 or interval.high < 0
            change = signed_span(interval) + (" *" if significant else "")
        found, deletions = deletions_found(golds, tests)
        found_deletions[name], found_deletions["gold"] = found, deletions
        rows.append(
            f"| {corpus.name} | {name} | {scores.precision_strict:.3f} | "
            f"{scores.recall_strict:.3f} | {scores.f1_strict:.3f} | {change} | "
            f"{found} / {deletions} |"
        )
    anchored = bootstrap_difference(golds, outputs[ANCHORED], outputs[ALL_OFF])
    line = (
        f"- Anchored length pass minus plain length pass, {corpus.name}: "
        + signed_span(anchored)
        + (" (significant)." if anchored.low > 0 or anchored.high < 0 else " (not significant).")
    )
    return rows, differences, found_deletions, line


def reading(
    differences: dict[str, dict[str, float]], deletions: dict[str, dict[str, int]]
) -> list[str]:
    """One line per component: its contribution on each corpus; then the left-out sentences
    found with the dev-chosen settings and with all five components off."""
    lines = []
    for name in VARIANTS:
        if name == DEV_CHOSEN:
            continue
        signs = ", ".join(
            f"{corpus.split(' (')[0]} {by_variant[name]:+.3f}"
            for corpus, by_variant in differences.items()
        )
        lines.append(f"- {name}: dev-chosen minus variant {signs}.")
    for corpus, found in deletions.items():
        lines.append(
            f"- Left-out sentences (gold 1-0 / 0-1) found, {corpus}: dev-chosen settings "
            f"{found[DEV_CHOSEN]} of {found['gold']}, all five off "
            f"{found[ALL_OFF]}."
        )
    return lines


def main() -> None:
    start = time.perf_counter()
    table: list[str] = []
    differences: dict[str, dict[str, float]] = {}
    deletions: dict[str, dict[str, int]] = {}
    anchored_lines: list[str] = []
    for corpus in corpora():
        rows, differences[corpus.name], deletions[corpus.name], line = corpus_rows(corpus)
        table.extend(rows)
        anchored_lines.append(line)
    seconds = time.perf_counter() - start
    publish(
        RESULT,
        [
            "# Hybrid sentence alignment: the dev-chosen components, each switched off",
            "",
            "Rerun: `.venv/bin/python -m benchmarks.sentence_align.ablation`",
            "",
            notes("dev-chosen-minus"),
            "",
            "| documents | hybrid settings | P strict | R strict | F1 strict | dev-chosen minus "
            "variant [95%] | gold 1-0/0-1 found |",
            "|---|---|---|---|---|---|---|",
            *table,
            "",
            "## Reading",
            "",
            *reading(differences, deletions),
            *anchored_lines,
            "",
            f"({seconds:.0f} s for {len(VARIANTS)} settings on {len(differences)} document sets.)",
        ],
    )


if __name__ == "__main__":
    main()
