"""Benchmark of BAM anchors (monolingual parallel text) against the length-only DP.

Documents are assembled at run time from real paraphrase pairs (Edinburgh++ and MSRP
positive pairs): two "translations" of one text, one side per paraphrase, with seeded
insertions (1-0, 0-1), splits (1-2) and merges (2-1). Parameters are chosen on dev documents
(Edinburgh++ train + MSRP train); the test documents (Edinburgh++ test + MSRP test) are only
scored. Run: ``.venv/bin/python -m benchmarks.sentence_align.bam_anchors`` from the repository root.
"""

from __future__ import annotations

import csv
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from benchmarks.common import KIT, RESULTS, publish
from services.sentence_align.aligners import anchors
from services.sentence_align.aligners.align import align_sentences
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import score_documents

RESULT = RESULTS / "bam_anchors.md"
SEED = int(os.environ.get("PARAMINE_SEED", "20240607"))
SIZES = (50, 100, 200, 400)  # paraphrase units per document (the paper: chapters < 500)
DOCUMENTS_PER_SIZE = 4
# Edit operations per unit, applied in this order of probability (the rest are plain 1-1).
P_SRC_ONLY, P_TGT_ONLY, P_SPLIT, P_MERGE = 0.06, 0.06, 0.04, 0.04

Pair = tuple[str, str]


@dataclass(frozen=True)
class Document:
    src: list[str]
    tgt: list[str]
    gold: list[Bead]


def edinburgh_pairs(split: str) -> list[Pair]:
    records = json.loads(
        (KIT / "edinburgh-plusplus-jacana" / f"gold.{split}.sure.json").read_text()
    )
    return [(r["source"], r["target"]) for r in records]


def msrp_pairs(split: str) -> list[Pair]:
    path = KIT / "msrp-msr-paraphrase" / f"msr_paraphrase_{split}.txt"
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        return [(row[3], row[4]) for row in rows if len(row) == 5 and row[0] == "1"]


def _split_sentence(sentence: str) -> tuple[str, str]:
    # Split at the word boundary nearest the middle, preferring one right after a comma.
    words = sentence.split()
    cuts = range(1, len(words))
    commas = [k for k in cuts if words[k - 1].endswith(",") or words[k - 1] == ","]
    cut = min(commas or cuts, key=lambda k: abs(k - len(words) / 2))
    return " ".join(words[:cut]), " ".join(words[cut:])


def build_document(pool: Sequence[Pair], units: int, rng: random.Random) -> Document:
    """Two versions of one text from ``units`` paraphrase pairs, with gold beads."""
    chosen = rng.sample(range(len(pool)), units + units // 4)
    pairs, fillers = [pool[k] for k in chosen[:units]], [pool[k] for k in chosen[units:]]
    src: list[str] = []
    tgt: list[str] = []
    gold: list[Bead] = []

    def emit(src_part: list[str], tgt_part: list[str]) -> None:
        gold.append(
            Bead(
                tuple(range(len(src), len(src) + len(src_part))),
                tuple(range(len(tgt), len(tgt) + len(tgt_part))),
            )
        )
        src.extend(src_part)
        tgt.extend(tgt_part)

    k = 0
    while k < len(pairs):
        a, b = pairs[k]
        roll = rng.random()
        if roll < P_SRC_ONLY and fillers:
            emit([fillers.pop()[0]], [])
            continue
        roll -= P_SRC_ONLY
        if roll < P_TGT_ONLY and fillers:
            emit([], [fillers.pop()[1]])
            continue
        roll -= P_TGT_ONLY
        if roll < P_SPLIT and len(b.split()) >= 6:
            emit([a], list(_split_sentence(b)))
        elif roll < P_SPLIT + P_MERGE and k + 1 < len(pairs):
            a2, b2 = pairs[k + 1]
            emit([a, a2], [f"{b} {b2}"])
            k += 1
        else:
            emit([a], [b])
        k += 1
    return Document(src, tgt, gold)


def build_documents(pool: Sequence[Pair], seed: int) -> list[Document]:
    rng = random.Random(seed)
    return [build_document(pool, size, rng) for size in SIZES for _ in range(DOCUMENTS_PER_SIZE)]


def paraphrase_documents() -> tuple[list[Pair], list[Pair], list[Document], list[Document]]:
    """(dev pool, test pool, dev documents, test documents): Edinburgh++ and MSRP train
    pairs for dev, their test pairs for test, documents seeded from SEED."""
    dev_pool = edinburgh_pairs("train") + msrp_pairs("train")
    test_pool = edinburgh_pairs("test") + msrp_pairs("test")
    return (
        dev_pool,
        test_pool,
        build_documents(dev_pool, SEED),
        build_documents(test_pool, SEED + 1),
    )


Aligner = Callable[[Document], list[Bead]]


@dataclass(frozen=True)
class Outcome:
    name: str
    f1_strict: float
    f1_lax: float
    precision_strict: float
    recall_strict: float
    seconds: float
    sentences: int


def run_aligner(name: str, aligner: Aligner, documents: Sequence[Document]) -> Outcome:
    start = time.perf_counter()
    outputs = [aligner(doc) for doc in documents]
    seconds = time.perf_counter() - start
    scores = score_documents([doc.gold for doc in documents], outputs)
    sentences = sum(len(doc.src) + len(doc.tgt) for doc in documents)
    return Outcome(
        name,
        scores.f1_strict,
        scores.f1_lax,
        scores.precision_strict,
        scores.recall_strict,
        seconds,
        sentences,
    )


@dataclass(frozen=True)
class AnchorStats:
    anchors: int
    correct: int
    gold_one_to_one: int

    @property
    def precision(self) -> float:
        return self.correct / self.anchors if self.anchors else 0.0

    @property
    def coverage(self) -> float:
        return self.correct / self.gold_one_to_one if self.gold_one_to_one else 0.0


@dataclass(frozen=True)
class BamConfig:
    threshold_d: float
    similarity: float
    lambda_scale: float
    options: anchors.AnchorOptions

    def label(self) -> str:
        o = self.options
        return (
            f"D={self.threshold_d}, sim={self.similarity}, lambda={self.lambda_scale}/max(m,n), "
            f"filter {o.similarity_filter}, char {o.char_ngram}-grams"
        )

    def _params(self, doc: Document) -> dict[str, Any]:
        return {
            "threshold_d": self.threshold_d,
            "similarity_threshold": self.similarity,
            "lam": self.lambda_scale / max(len(doc.src), len(doc.tgt), 1),
            "options": self.options,
        }

    def anchors(self, doc: Document) -> list[tuple[int, int]]:
        return anchors.select_anchors(doc.src, doc.tgt, **self._params(doc))

    def align(self, doc: Document) -> list[Bead]:
        return anchors.align_monolingual(doc.src, doc.tgt, **self._params(doc))


DEFAULT_CONFIG = BamConfig(
    anchors.DEFAULT_THRESHOLD_D,
    anchors.DEFAULT_SIMILARITY_THRESHOLD,
    anchors.LAMBDA_SCALE,
    anchors.DEFAULT_OPTIONS,
)


def anchor_stats(documents: Sequence[Document], config: BamConfig) -> AnchorStats:
    total = correct = gold_total = 0
    for doc in documents:
        gold = {(b.src[0], b.tgt[0]) for b in doc.gold if b.shape == (1, 1)}
        found = config.anchors(doc)
        total += len(found)
        correct += len(gold.intersection(found))
        gold_total += len(gold)
    return AnchorStats(total, correct, gold_total)


def length_only(doc: Document) -> list[Bead]:
    return align_sentences(doc.src, doc.tgt, method="length")


def hybrid(doc: Document) -> list[Bead]:
    return align_sentences(doc.src, doc.tgt, method="hybrid", src_lang="en", tgt_lang="en")


def grid() -> list[BamConfig]:
    configs = []
    for ngram, similarities in ((1, (0.75, 0.8, 0.85, 0.9)), (2, (0.4, 0.5, 0.6, 0.7))):
        for mode in ("after", "during"):
            options = anchors.AnchorOptions(similarity_filter=mode, char_ngram=ngram)
            for similarity in similarities:
                for threshold_d in (0.05, 0.2, 1.0):
                    for scale in (0.5, 2.0, 8.0, 32.0, 128.0):
                        configs.append(BamConfig(threshold_d, similarity, scale, options))
    return configs


def tune_on_dev(dev: Sequence[Document]) -> list[tuple[BamConfig, float]]:
    """Strict F1 of the full BAM alignment on dev for every grid configuration, best first."""
    golds = [doc.gold for doc in dev]
    rows = [
        (config, score_documents(golds, [config.align(doc) for doc in dev]).f1_strict)
        for config in grid()
    ]
    return sorted(rows, key=lambda row: -row[1])


def _outcome_rows(outcomes: Sequence[Outcome], baseline: Outcome) -> list[str]:
    lines = [
        "| aligner | strict P | strict R | strict F1 | lax F1 | F1 / length-only | sent/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        ratio = o.f1_strict / baseline.f1_strict if baseline.f1_strict else float("nan")
        lines.append(
            f"| {o.name} | {o.precision_strict:.3f} | {o.recall_strict:.3f} | "
            f"{o.f1_strict:.3f} | {o.f1_lax:.3f} | {ratio:.2f} | {o.sentences / o.seconds:,.0f} |"
        )
    return lines


def evaluate(
    documents: Sequence[Document], configs: dict[str, BamConfig]
) -> tuple[list[Outcome], dict[str, AnchorStats]]:
    outcomes = [
        run_aligner("length-only DP (Gale-Church)", length_only, documents),
        run_aligner("hybrid (align-sentences default)", hybrid, documents),
    ]
    stats = {}
    for name, config in configs.items():
        outcomes.append(run_aligner(name, config.align, documents))
        stats[name] = anchor_stats(documents, config)
    return outcomes, stats


def _reading(outcomes: Sequence[Outcome], stats: dict[str, AnchorStats]) -> list[str]:
    # Goals of the issue, judged on the test documents (the last evaluate() call).
    by_name = {outcome.name: outcome for outcome in outcomes}
    length = by_name["length-only DP (Gale-Church)"]
    default = by_name["BAM, module defaults"]
    hybrid = by_name["hybrid (align-sentences default)"]
    paper = stats["BAM as in the paper (chars, filter after), dev-best"]
    unfiltered = stats["BAM anchors without similarity filter"]
    verdict = "meets" if paper.precision >= 0.9813 else "misses"
    return [
        "## Reading (test documents)",
        "",
        f"- Anchor precision, paper setting: {paper.precision:.2%}, which {verdict} the paper's",
        f"  98.13%, but those anchors cover only {paper.coverage:.0%} of the gold 1-1 beads.",
        f"- Full alignment strict F1: BAM (module defaults) {default.f1_strict:.3f} vs",
        f"  length-only DP {length.f1_strict:.3f} ({default.f1_strict / length.f1_strict:.2f}x).",
        "  The paper's length-only figure is 35% precision; here its strict precision is",
        f"  {length.precision_strict:.1%} (lengths of unrelated paraphrase pairs in a row",
        "  are more distinctive than those of a novel's consecutive sentences).",
        f"- Without the similarity filter, anchors are {unfiltered.precision:.0%} precise:",
        "  position and length alone do not find 1-1 beads here; the filter does the work.",
        f"- The lexical hybrid aligner (`align-sentences` default) scores {hybrid.f1_strict:.3f}",
        f"  strict F1, {'ahead of' if hybrid.f1_strict > default.f1_strict else 'behind'} BAM;",
        "  BAM needs no lexicon and no word segmentation.",
    ]


def main() -> None:
    dev_pool, test_pool, dev, test = paraphrase_documents()
    ranked = tune_on_dev(dev)
    paper_like = next(
        config
        for config, _ in ranked
        if config.options.similarity_filter == "after" and config.options.char_ngram == 1
    )
    configs = {
        "BAM, module defaults": DEFAULT_CONFIG,
        "BAM, dev-best overall": ranked[0][0],
        "BAM as in the paper (chars, filter after), dev-best": paper_like,
        "BAM anchors without similarity filter": replace(DEFAULT_CONFIG, similarity=0.0),
    }
    lines = [
        "# BAM anchors vs length-only DP on monolingual parallel text",
        "",
        f"Run: `.venv/bin/python -m benchmarks.sentence_align.bam_anchors` (seed {SEED}).",
        "",
        "## Method and data",
        "",
        "Each document is two versions of one text built from real paraphrase pairs",
        "(Edinburgh++ sentence pairs and MSRP positive pairs): unit k contributes its two",
        "paraphrases, one per side, in order. Seeded edits per unit: a sentence only in the",
        f"first version (p={P_SRC_ONLY}), only in the second (p={P_TGT_ONLY}, taken from unused",
        f"pairs), a 1-2 split at a comma or mid-sentence (p={P_SPLIT}), a 2-1 merge",
        f"(p={P_MERGE}). Sizes {SIZES} units x {DOCUMENTS_PER_SIZE} documents each.",
        f"Dev: Edinburgh++ train + MSRP train ({len(dev_pool)} pairs, "
        f"{sum(len(d.src) for d in dev)} + {sum(len(d.tgt) for d in dev)} sentences).",
        f"Test: Edinburgh++ test + MSRP test ({len(test_pool)} pairs, "
        f"{sum(len(d.src) for d in test)} + {sum(len(d.tgt) for d in test)} sentences).",
        "Scores: strict/lax bead P/R/F1 (vecalign convention, "
        "`services.sentence_align.aligners.evaluate`);",
        "anchor precision = anchors that are gold 1-1 beads / anchors;",
        "anchor coverage = those correct anchors / gold 1-1 beads.",
        "",
        f"## Parameters chosen on dev ({len(ranked)} configurations; top 8 by strict F1)",
        "",
        "| configuration | dev strict F1 |",
        "|---|---|",
        *(f"| {config.label()} | {f1:.3f} |" for config, f1 in ranked[:8]),
        "",
        *(f"- {name}: {config.label()}" for name, config in configs.items()),
        "",
    ]
    for label, documents in (("Dev", dev), ("Test", test)):
        outcomes, stats = evaluate(documents, configs)
        lines += [f"## {label} documents", "", *_outcome_rows(outcomes, outcomes[0]), ""]
        lines += [
            "| anchors | count | precision (paper 98.13%) | coverage of gold 1-1 |",
            "|---|---|---|---|",
            *(
                f"| {name} | {s.anchors} | {s.precision:.2%} | {s.coverage:.2%} |"
                for name, s in stats.items()
            ),
            "",
        ]
    lines += [*_reading(outcomes, stats), ""]
    lines += ["Machine: 2 cores shared with other engineers; timings are noisy.", ""]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
