"""Benchmark of the length, lexicon and hybrid sentence aligners against galechurch and NLTK.

Data: Text+Berg German-French (Bleualign's dev and test sets with vecalign's gold), read in
place from the data kit, pre-split. Every aligner runs in the same process on the same
input; strict/lax scores follow vecalign's convention; throughput counts source plus
target sentences per second (best of several runs, after a warm-up call for numba).
Parameters were chosen on dev only; test is only scored.

Long documents: a synthetic document pair of about 100,000 x 100,000 sentences is built at
run time from the real gold beads of dev and test (sampled with a fixed seed, so the
synthetic gold is known) and aligned in a child process, whose wall time and peak
resident memory are reported. Nothing derived from the data is written to disk.
Run: ``.venv/bin/python -m benchmarks.sentence_align`` from the repository root.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from benchmarks._report import peak_rss_mb, publish
from benchmarks.common import REPO, RESULTS
from benchmarks.sentence_align_length import (
    TEST,
    TEXTBERG,
    DocumentPair,
    Row,
    evaluate,
    evaluate_batch,
    galechurch_aligner,
    load,
    machine_note,
    nltk_aligner,
    paramine_aligner,
    table,
)
from benchmarks.sentence_align_pages import page_rows, page_table
from services.lexical.dictionary import BilingualDictionary, load_freedict
from services.sentence_align.beads import Bead
from services.sentence_align.evaluate import (
    Interval,
    bootstrap_difference,
    bootstrap_f1_strict,
    calibration,
    expected_calibration_error,
    kept_above,
    score_documents,
)
from services.sentence_align.handler import bead_score, cost_score

RESULT = RESULTS / "sentence_align.md"
SEED = int(os.environ.get("PARAMINE_SEED", "20240607"))
DEV_PARTS = 4  # pseudo-documents of the multi-document dev setting
LARGE_SENTENCES = int(os.environ.get("PARAMINE_LARGE_SENTENCES", "100000"))


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


def synthetic_document(documents: Sequence[DocumentPair], n_src: int) -> DocumentPair:
    """Real gold beads sampled (seeded) and concatenated until the source has n_src lines."""
    pool = bead_pool(documents)
    rng = np.random.default_rng(SEED)
    sampled = (pool[int(rng.integers(len(pool)))] for _ in itertools.count())
    return concatenate_beads("synthetic", sampled, n_src)


def run_large(method: str, n_src: int) -> dict[str, float]:
    """Align the synthetic document (in this process); time, memory and scores as a dict."""
    document = synthetic_document(load(["dev", *TEST]), n_src)
    aligner = paramine_aligner(method)
    aligner(document.src[:50], document.tgt[:50])  # warm-up (JIT, imports)
    baseline = peak_rss_mb()
    start, cpu_start = time.perf_counter(), time.process_time()
    beads = aligner(document.src, document.tgt)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    peak = peak_rss_mb()
    scores = score_documents([document.gold], [beads])
    return {
        "src": len(document.src),
        "tgt": len(document.tgt),
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "peak_mb": peak,
        "baseline_mb": baseline,
        "f1_strict": scores.f1_strict,
        "f1_lax": scores.f1_lax,
    }


def large_in_child(method: str) -> dict[str, float]:
    """``run_large`` in a fresh interpreter, so peak memory is this alignment's own."""
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.sentence_align", "--large", method],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def _error_kind(bead: Bead, gold_of: dict[tuple[int, int], Bead]) -> str:
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

    from services.sentence_align.beads import BEAD_SHAPES, bead_shapes
    from services.sentence_align.hybrid import HYBRID_SETTINGS

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
                kinds[_error_kind(bead, gold_of)] += 1
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


# FreeDict German-French (Debian's dict-freedict-deu-fra and -fra-deu, CC BY-SA 3.0): a
# bilingual dictionary from Wiktionary (WikDict), neither neural nor MT; rows marked
# "+ FreeDict" seed Model 1 with its pairs (services/lexical/dictionary.py).
FREEDICT = Path("/usr/share/dictd")
WITH_DICTIONARY = "+ FreeDict"


def freedict() -> BilingualDictionary | None:
    """The German-French FreeDict pairs, or None when the Debian packages are absent."""
    return load_freedict(FREEDICT, "de", "fr")


def corpus_row(
    method: str, documents: Sequence[DocumentPair], dictionary: BilingualDictionary | None = None
) -> Row:
    """``method`` in corpus mode: one align_corpus call for all documents (one length model
    and one Model 1 trained on the pooled confident beads; no gold used)."""
    from services.sentence_align.align import align_corpus

    def align_all(docs: Sequence[DocumentPair]) -> list[list[Bead]]:
        pairs = [(doc.src, doc.tgt) for doc in docs]
        return align_corpus(
            pairs, method=method, src_lang="de", tgt_lang="fr", dictionary=dictionary
        )

    mark = f" {WITH_DICTIONARY}" if dictionary is not None else ""
    return evaluate_batch(f"paramine {method}{mark} (corpus mode)", align_all, documents)


def dictionary_rows(documents: Sequence[DocumentPair]) -> list[Row]:
    """Hybrid with the FreeDict dictionary, per document and (several documents) in corpus
    mode; none when the dictionary is not installed."""
    dictionary = freedict()
    if dictionary is None:
        return []
    rows = [corpus_row("hybrid", documents, dictionary)] if len(documents) > 1 else []
    seeded = paramine_aligner("hybrid", dictionary)
    return [*rows, evaluate(f"paramine hybrid {WITH_DICTIONARY}", seeded, documents)]


def rows_for(documents: Sequence[DocumentPair]) -> list[Row]:
    """Per-document rows of every aligner; corpus-mode rows when there are several documents."""
    corpus = [corpus_row(method, documents) for method in ("hybrid", "lexicon")]
    return [
        *dictionary_rows(documents),
        *(corpus if len(documents) > 1 else []),
        evaluate("paramine hybrid", paramine_aligner("hybrid"), documents),
        evaluate("paramine lexicon", paramine_aligner("lexicon"), documents),
        evaluate("paramine length", paramine_aligner("length"), documents),
        evaluate("galechurch", galechurch_aligner, documents),
        evaluate("nltk gale_church", nltk_aligner, documents),
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
    from services.sentence_align.align import align_corpus

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


def row_intervals(documents: Sequence[DocumentPair], rows: Sequence[Row]) -> dict[str, Interval]:
    """Strict F1 and its 95% block-bootstrap interval of every hybrid row and galechurch."""
    golds = [doc.gold for doc in documents]
    return {
        row.name: bootstrap_f1_strict(golds, row.beads)
        for row in rows
        if row.name.startswith("paramine hybrid") or row.name == "galechurch"
    }


def f1_with_interval(interval: Interval) -> str:
    """A strict F1 and its 95% interval, for the goal lines."""
    return f"{interval.estimate:.3f} (95% interval {interval.low:.3f} - {interval.high:.3f})"


def dictionary_goal_lines(by_name: dict[str, Row], intervals: dict[str, Interval]) -> list[str]:
    """The F1 goal for hybrid with the FreeDict dictionary (when it is installed)."""
    alone = by_name.get(f"paramine hybrid {WITH_DICTIONARY}")
    together = by_name.get(f"paramine hybrid {WITH_DICTIONARY} (corpus mode)")
    if alone is None or together is None:
        return [
            "- with the FreeDict dictionary: not measured (Debian's dict-freedict-deu-fra "
            "and dict-freedict-fra-deu are not installed)."
        ]
    cells = [
        f"{name} {f1_with_interval(intervals[row.name])} — "
        f"**{'met' if row.scores.f1_strict >= 0.90 else 'NOT met'}**"
        for name, row in (("per-document mode", alone), ("corpus mode", together))
    ]
    return [
        "- hybrid strict F1 >= 0.90 on test with the FreeDict German-French dictionary "
        f"seeding Model 1 (a bilingual dictionary, neither neural nor MT): {cells[0]}; "
        f"{cells[1]}. Its two settings (cue strength 0.25, words of 4 letters or more) were "
        "chosen on the dev protocol only (see hybrid.py).",
        speed_goal_line(alone, f"per-document mode, {WITH_DICTIONARY}"),
    ]


def signed_span(interval: Interval) -> str:
    """A difference and its interval: "+0.012 [-0.003, +0.027]"."""
    return f"{interval.estimate:+.3f} [{interval.low:+.3f}, {interval.high:+.3f}]"


def certainty_section(
    test: Sequence[DocumentPair],
    test_rows: Sequence[Row],
    test_intervals: dict[str, Interval],
    dev: Sequence[DocumentPair],
    dev_rows: Sequence[Row],
) -> list[str]:
    """Strict F1 with 95% block-bootstrap intervals (``row_intervals``; the test ones are
    the goal lines' too), and paired intervals of differences."""
    lines = [
        "## How sure these numbers are (block bootstrap)",
        "",
        "95% percentile intervals of strict F1 by a block bootstrap "
        "(`services.sentence_align.evaluate.bootstrap_f1_strict`, 2,000 resamples): each "
        "document is cut wherever the gold path and the compared paths pass through the "
        "same sentence pair boundary, the blocks are resampled with replacement and F1 is "
        "recomputed; a difference is resampled on the blocks common to both alignments "
        "(paired, as Koehn 2004 does for MT metrics).",
        "",
        "| set | aligner | F1 strict | 95% interval |",
        "|---|---|---|---|",
    ]
    dev_intervals = row_intervals(dev, dev_rows)
    for name, intervals in (("test", test_intervals), ("dev", dev_intervals)):
        for row_name, interval in intervals.items():
            lines.append(
                f"| {name} | {row_name} | {interval.estimate:.3f} | "
                f"{interval.low:.3f} - {interval.high:.3f} |"
            )
    lines += ["", "| set | difference (paired) | strict F1 difference [95% interval] |",
              "|---|---|---|"]  # fmt: skip
    pairs = [
        (f"paramine hybrid {WITH_DICTIONARY}", "paramine hybrid"),
        ("paramine hybrid (corpus mode)", "paramine hybrid"),
    ]
    differences: dict[tuple[str, str], Interval] = {}  # (set, minuend) -> difference
    for name, docs, rows in (("test", test, test_rows), ("dev", dev, dev_rows)):
        by_name = {row.name: row for row in rows}
        golds = [doc.gold for doc in docs]
        for a, b in pairs:
            if a in by_name and b in by_name:
                difference = bootstrap_difference(golds, by_name[a].beads, by_name[b].beads)
                differences[(name, a)] = difference
                lines.append(f"| {name} | {a} minus {b} | {signed_span(difference)} |")
    reading = certainty_reading(
        dev_intervals.get("paramine hybrid"),
        sum(len(doc.gold) for doc in dev),
        test_intervals,
        differences.get(("test", pairs[0][0])),
        (sum(len(doc.gold) for doc in test), len(test)),
    )
    return [*lines, "", *reading]


def certainty_reading(
    dev_hybrid: Interval | None,
    dev_gold_beads: int,
    test_intervals: dict[str, Interval],
    dictionary_gain: Interval | None,
    test_size: tuple[int, int],
) -> list[str]:
    """What the intervals say about choosing on dev and about the 0.90 goal (``test_size``:
    gold beads and documents of the test set)."""
    if dev_hybrid is None or "paramine hybrid" not in test_intervals:
        return []
    half = (dev_hybrid.high - dev_hybrid.low) / 2
    inside = [
        name
        for name, interval in test_intervals.items()
        if name.startswith("paramine hybrid") and interval.low <= 0.90 <= interval.high
    ]
    text = (
        f"Reading: the dev document measures hybrid's strict F1 only to about +-{half:.3f} "
        f"(95%), about {half * dev_gold_beads:.0f} of its {dev_gold_beads} gold beads, while "
        "the dev-protocol rounds since the deletion prior were decided by differences of one "
        "to five beads (the three numbers of the protocol are cuts of the same document, not "
        "independent evidence). Such choices are within dev's sampling noise, which is "
        "consistent with none of them carrying over to test."
    )
    if dictionary_gain is not None:
        text += f" On test the FreeDict dictionary's gain ({signed_span(dictionary_gain)}) is " + (
            "above the noise (lexical knowledge, not a setting tuned on dev)."
            if dictionary_gain.low > 0
            else "within the noise."
        )
    if inside:
        text += (
            f" The goal 0.90 lies inside the test intervals of {', '.join(inside)}: the test "
            f"set ({test_size[0]} gold beads in {test_size[1]} documents) cannot tell those "
            "from 0.90 at 95%; the goal is still judged on the point estimate."
        )
    else:
        text += " The goal 0.90 lies above every hybrid row's test interval."
    return [text]


CONFIDENCE_THRESHOLDS = (0.5, 0.9, 0.99)


def confidence_section(
    test: Sequence[DocumentPair],
    test_rows: Sequence[Row],
    dev: Sequence[DocumentPair],
    dev_rows: Sequence[Row],
) -> list[str]:
    """How well bead confidences (posterior probabilities) match the share of correct pairs,
    and what keeping the pairs above a threshold gives, against the former score."""
    lines = [
        "## Bead confidence (the sentence-pair score)",
        "",
        "Each bead of `lexicon` and `hybrid` carries its posterior probability: the weight of "
        "the paths through the last pass's band that contain it, every path weighted by "
        "exp(-its cost), over the weight of all paths (forward-backward over the same "
        "program, `_banded_dp.path_posteriors`; temperature 1, the model's own costs, no "
        "parameter fitted). It is the score of the stored sentence pairs "
        "(`paramine export --min-score`, `min_score` of the API) and the third column of "
        "`paramine align-sentences`. The former score, exp(-cost) with the cost floored at "
        "0, is shown for comparison. Counted over the output beads with two non-empty "
        "sides (the sentence pairs); a pair is correct when the gold has exactly that bead "
        "(strict).",
        "",
        "| set | aligner | score | score group | pairs | mean score | share correct |",
        "|---|---|---|---|---|---|---|",
    ]
    shown = [
        ("test", test, test_rows, "paramine hybrid"),
        ("test", test, test_rows, f"paramine hybrid {WITH_DICTIONARY}"),
        ("dev", dev, dev_rows, "paramine hybrid"),
    ]
    errors = []
    for set_name, docs, rows, row_name in shown:
        by_name = {row.name: row for row in rows}
        if row_name not in by_name:
            continue
        golds, beads = [doc.gold for doc in docs], by_name[row_name].beads
        for score_name, score in (("confidence", bead_score), ("former", cost_score)):
            bins = calibration(golds, beads, score=score)
            errors.append((set_name, row_name, score_name, expected_calibration_error(bins)))
            if score_name == "former" and row_name != "paramine hybrid":
                continue
            lines += [
                f"| {set_name} | {row_name} | {score_name} | "
                f"{group.low:g}-{group.high:g} | {group.beads} | {group.mean_score:.3f} | "
                f"{group.correct:.3f} |"
                for group in bins
            ]
    lines += [
        "",
        "Expected calibration error (mean |score - share correct| over those groups, "
        "weighted by size; 0 is calibrated): "
        + "; ".join(f"{s} {r}, {n}: {e:.3f}" for s, r, n, e in errors)
        + ".",
        "",
        "| set | aligner | score | keep pairs with score >= | pairs kept | precision | recall |",
        "|---|---|---|---|---|---|---|",
    ]
    by_name = {row.name: row for row in test_rows}
    golds = [doc.gold for doc in test]
    hybrid = by_name["paramine hybrid"].beads
    kept_rows = {}
    for score_name, score in (("confidence", bead_score), ("former", cost_score)):
        kept_rows[score_name] = kept_above(golds, hybrid, (0.0, *CONFIDENCE_THRESHOLDS), score)
        lines += [
            f"| test | paramine hybrid | {score_name} | {kept.threshold:g} | "
            f"{kept.kept:.1%} | {kept.precision:.3f} | {kept.recall:.3f} |"
            for kept in kept_rows[score_name]
        ]
    every, *confident = kept_rows["confidence"]
    former = kept_rows["former"]
    former_bins = calibration(golds, hybrid, (0.0, 0.01, 0.99, 1.0), cost_score)
    extreme = sum(group.beads for group in former_bins if group.low != 0.01)
    lines += [
        "",
        f"Reading: on test, keeping the hybrid's pairs with confidence >= "
        f"{confident[1].threshold:g} keeps {confident[1].kept:.0%} of them (recall "
        f"{confident[1].recall:.3f}) at precision {confident[1].precision:.3f} (all pairs: "
        f"{every.precision:.3f}). With the former score, thresholds {former[1].threshold:g} "
        f"to {former[-1].threshold:g} all kept {former[-1].kept:.0%}-{former[1].kept:.0%} "
        f"(recall {former[-1].recall:.3f}-{former[1].recall:.3f}) at precision "
        f"{former[1].precision:.3f}: it is below 0.01 or above 0.99 for {extreme} of the "
        f"{sum(group.beads for group in former_bins)} pairs, 1 for a bead of negative cost "
        "(many matching words) and near 0 otherwise, so it sorted pairs into two heaps "
        "rather than by how sure the model is.",
    ]
    return lines


def machine_speed_line(hybrid: Row, galechurch: Row) -> str:
    """How fast this run's machine is against the reference run, by galechurch's rate."""
    factor = REFERENCE_GALECHURCH / galechurch.sentences_per_second  # > 1: this one is slower
    ratio = hybrid.sentences_per_second / galechurch.sentences_per_second
    pace = f"{factor:.1f}x slower" if factor >= 1 else f"{1 / factor:.2f}x as fast"
    return (
        f"  Machine: galechurch (Rust, same input, same run) ran at "
        f"{galechurch.sentences_per_second:,.0f} sentences/s here and at "
        f"{REFERENCE_GALECHURCH:,.0f} in the run of 2026-11-21 (an AMD EPYC), so this "
        f"machine is {pace}. Hybrid runs at {ratio:.3f}x galechurch's rate "
        f"here (0.043x then): scaled to that machine, about "
        f"{hybrid.sentences_per_second * factor:,.0f} sentences/s (an estimate, not a "
        "measurement)."
    )


def speed_goal_line(hybrid: Row, mode: str) -> str:
    """The throughput goal on wall time, with the CPU-time rate beside it."""
    wall, cpu = hybrid.sentences_per_second, hybrid.cpu_sentences_per_second
    head = f"- at >= 2,000 sentences/s (test, {mode}): {wall:,.0f} wall, {cpu:,.0f} on CPU time"
    if wall >= 2000:
        return head + " — **met**."
    if cpu >= 2000:
        return head + " — **not met on wall time** (machine loaded); met on CPU time."
    return head + " — **not met**."


def large_goal_line(result: dict[str, float]) -> str:
    """The 100k goal, judged on wall time, with CPU time beside it (the machine is shared)."""
    wall, cpu, peak = result["seconds"], result["cpu_seconds"], result["peak_mb"]
    head = (
        f"- 100k x 100k in < 60 s and < 1 GB (hybrid): {wall:.0f} s wall, {cpu:.0f} s CPU "
        f"({100 * cpu / wall:.0f}% of a core while the machine was shared), {peak:.0f} MB peak"
    )
    if wall < 60 and peak < 1024:
        return head + " — **met**."
    if cpu < 60 and peak < 1024:
        return head + " — **not met on wall time**; CPU time and memory are under the goal."
    return head + " — **not met**."


LARGE_HEADING = "## Long document (synthetic, built at run time from real dev+test beads)"
LARGE_GOAL = "- 100k x 100k"
CARRIED = " (carried over from the previous run: long-document path unchanged)"
# The run that last met the speed goals (2026-11-21, an AMD EPYC): galechurch's rate on the
# test documents there. Machines differ between runs by up to 3x; galechurch (Rust, the
# same input, in the same run) tells how fast this run's machine is.
REFERENCE_GALECHURCH = 72_839.0


def previous_large(path: Path) -> tuple[list[str], str]:
    """The long-document table rows and goal line of the committed results file (for
    ``--keep-large``: a rerun that does not touch the long-document path)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(LARGE_HEADING)
    end = next(k for k in range(start + 1, len(lines)) if lines[k].startswith("## "))
    rows = [line for line in lines[start:end] if line.startswith("| ") and "---" not in line]
    goal = next(line for line in lines if line.startswith(LARGE_GOAL))
    return rows[1:], goal


def large_section(keep: bool) -> tuple[list[str], str]:
    """Long-document table rows and goal line: measured now in child processes, or carried
    over from the committed results file when ``keep``."""
    if keep:
        rows, goal = previous_large(RESULT)
        return rows, goal.removesuffix(CARRIED) + CARRIED
    large = {method: large_in_child(method) for method in ("length", "hybrid")}
    rows = [
        f"| {method} | {r['src']:,.0f} x {r['tgt']:,.0f} | {r['seconds']:.1f} | "
        f"{r['cpu_seconds']:.1f} | "
        f"{(r['src'] + r['tgt']) / r['seconds']:,.0f} | {r['peak_mb']:.0f} "
        f"({r['baseline_mb']:.0f}) | {r['f1_strict']:.3f} | {r['f1_lax']:.3f} |"
        for method, r in large.items()
    ]
    return rows, large_goal_line(large["hybrid"])


def main(*, keep_large: bool = False) -> None:
    dev, test = load(["dev"]), load(TEST)
    dev_rows, test_rows = rows_for(dev), rows_for(test)
    chunks = dev_chunks(dev[0], DEV_PARTS)
    chunk_table = chunk_rows(chunks)
    protocol = dev_protocol(dev[0], unlabelled(TEST))
    large_rows, large_goal = large_section(keep_large)
    pages, pages_note = page_rows()
    by_name = {row.name: row for row in test_rows}
    hybrid, hybrid_corpus = by_name["paramine hybrid"], by_name["paramine hybrid (corpus mode)"]
    test_intervals = row_intervals(test, test_rows)
    report = [
        "# Sentence alignment: length, lexicon, hybrid vs galechurch and NLTK",
        "",
        "Rerun: `.venv/bin/python -m benchmarks.sentence_align`",
        "",
        "Data: Text+Berg de-fr (`../shared/data/textberg-bleualign-de-fr`), pre-split; "
        "dev = 1 document (468 de / 554 fr sentences, used for choosing parameters), "
        "test = test0..6 (991 de / 1011 fr, only scored). Vecalign strict/lax P/R/F1.",
        "",
        "Methods (docs/methods.md §2): `length` = banded Gale-Church with c, s2 refitted on the "
        "first pass; `lexicon` = Moore 2002 (length pass, IBM Model 1 t(e|f) by EM on the "
        "confident 1-1 beads with cognate/identity cues, realign with length + Model 1 "
        "relative to the unigram model; both directions averaged, so swapping the sides "
        "mirrors the beads); `hybrid` = length + Model 1 in both directions with "
        "a background share eps = 0.1 (Zhao & Vogel 2002 style), the default, over every "
        "x-y bead shape with x + y <= 6 (plus 1-0, 0-1 with Gale-Church's deletion prior and "
        "half their length cost; a new shape's prior is the 1-1 prior times exp(-2.8) per "
        "extra sentence; 2.3 before issue 34, see sentence_align_languages.md), then one "
        "refinement round (Model 1 retrained on the cheapest half "
        "of the lexical pass's 1-1 beads, realigned near its path). Since session 14 that is "
        "all: five components chosen on the dev document in earlier sessions (cheap deletions, "
        "a diagonal prior in the refinement, sentence-end and deletion models, anchor "
        "tokens; `sentence_align_presets.TEXTBERG_DEV_SETTINGS`) are off by default, since "
        "none was "
        "significant on dev and, scored on a second source, they hurt "
        "(benchmarks/results/sentence_align_ablation.md). The sections on the dev protocol "
        "below record how those components were chosen; 'committed settings' there means "
        "the settings of that time. In the "
        "lexical passes "
        "the band around the earlier path doubles while "
        "the path touches its edge; in `hybrid`, windows up to 100,000 cells (about 300 x "
        "300 sentences) also get a coarse exhaustive pass (shapes 1-1, 1-0, 0-1 over the "
        "whole table) and the band covers its path too (chosen on the search: on "
        "the test documents the band alone left the program's own cost above the exhaustive "
        "optimum in 2 of 14 windows, compared on model cost only, no gold; dev F1 was "
        "unchanged). Model 1 training (EM, pruning) is compiled (numba), with tables "
        "identical to the former numpy code. Documents over 4,000 sentences (both sides "
        "together) get their plain length pass by sliding windows (2,000 sentences of both "
        "sides, ending at the cheapest cell with i + j = 2,000, first half kept); `hybrid` "
        "takes its anchored length pass instead while that pass's band stays within "
        "1,000,000 cells (not so for the 100k document below).",
        "",
        "Default command: since issue 34 `paramine align-sentences --src-lang de "
        "--tgt-lang fr` seeds Model 1 with the installed dictionaries of the pair, so the "
        "rows 'paramine hybrid + FreeDict' are what the default command gives and 'paramine "
        "hybrid' is `--no-dictionary` (the library call `align_sentences` takes a "
        "dictionary only when given one). Other language pairs: "
        "benchmarks/results/sentence_align_languages.md.",
        "",
        "Modes: rows without a mark align each document on its own (per-document mode, "
        "as `align_sentences`). Rows marked *(corpus mode)* align all documents of the set "
        "in one `align_corpus` call (`paramine align-sentences` with several pairs): the "
        "length pass runs per document (for `hybrid` the anchored pass each document gets "
        "on its own, c and s2 refitted once on all documents' first runs), one length model "
        "and one Model 1 are trained on the "
        "confident 1-1 beads pooled over all documents (Moore 2002 trains on the whole "
        "corpus being aligned), then each document is realigned on its own. This is "
        "unsupervised: no gold alignment is used, only the test text itself, as in the "
        "per-document mode. Settings were chosen on dev only (see the dev-chunks section).",
        "",
        "## Test (test0..6)",
        "",
        *table(test_rows, "galechurch"),
        "",
        "## Dev",
        "",
        *table(dev_rows, "galechurch"),
        "",
        *dev_diagnosis(dev),
        "",
        "## Dev protocol (several cuts, per piece and corpus mode)",
        "",
        "Dev is one document, and two changes chosen on it (the deletion and diagonal "
        "priors; the sentence-end and deletion models) raised dev and lowered test. So "
        "candidates are now judged on the dev document cut at gold bead boundaries into "
        f"{', '.join(str(parts) for parts in DEV_CUTS)} pieces (no test labels): the "
        "whole document, the mean strict F1 over the cuts with each piece aligned on its "
        "own (documents of test-like size), and the mean in corpus mode (the pieces of "
        "a cut in one `align_corpus` run). A candidate must beat the committed settings "
        "on all three. The rows '+ extra text' put the raw text of the seven test "
        "documents (the .de/.fr sentence lists only, never their .defr gold; the same "
        "text as `bleualign-original-eval/eval1989.clean.*`) into the same corpus run as "
        "unlabelled text for Model 1, the length model and the sentence-end and "
        "deletion models; only the dev pieces are scored.",
        "",
        *protocol,
        "",
        "Latest round (settings in services/sentence_align/hybrid.py): the anchor-token "
        "model (sentences sharing a name or number written the same on both sides and "
        "found once on each side of the document are kept in one bead: a bead that takes "
        "one of them without the other pays 3 per such sentence) beat the former settings "
        "on the protocol: without a dictionary 0.914 / 0.903 / 0.906 -> 0.913 / 0.912 / "
        "0.916 (the whole document one bead lower, within noise; the two means up "
        "by 4 beads), with FreeDict 0.923 / 0.915 / 0.914 -> 0.930 / 0.927 / 0.927. Of "
        "the dev document's 258 anchor pairs, 251 lie in one gold bead. Weight 1 / 2 / 4 "
        "/ 6 / 10 (anchors then counted over the whole corpus run in corpus mode; per "
        "document, as committed, corpus mode gains 0.006 more): 0.909 / 0.901 / 0.908, "
        "0.913 / 0.908 / 0.912, 0.913 / 0.914 / 0.909, 0.913 / 0.914 / 0.908, 0.913 / "
        "0.914 / 0.908; with FreeDict 0.923 / 0.918 / 0.916, 0.926 / 0.925 / 0.920, "
        "0.922 / 0.928 / 0.919, 0.922 / 0.928 / 0.919, 0.922 / 0.929 / 0.919. Variants "
        "within noise of weight 3, not taken: one pair per sentence pair (0.913 / 0.915 / "
        "0.910), capitalised words of 3 or 5+ letters, lowercase words of 6 or 8+ letters "
        "as well, and tokens found the same number of times (up to 2, 3, 5) on both "
        "sides paired in order (2: 0.915 / 0.912 / 0.912, with FreeDict 0.932 / 0.930 / "
        "0.925; 88 more pairs on dev, 76 of them in one gold bead).",
        "",
        "An earlier round (dictionary rows above): "
        "the FreeDict German-French dictionary seeding Model 1 beat the committed settings "
        "on all three numbers (0.914 / 0.903 / 0.906 -> 0.923 / 0.915 / 0.914 with cue "
        "strength 0.25 and words of 4 letters or more; on cuts into 2, 3, 8, 10, 12 pieces "
        "0.886 -> 0.913 per piece, 0.907 -> 0.918 in corpus mode). It is an option (the "
        "`--dictionary` of `paramine align-sentences`), not the default, since it needs a "
        "dictionary for the language pair. Tried and not kept: posterior decoding (forward-"
        "backward over the refinement's band with paths weighted exp(-cost / T), then the "
        "path of the largest summed bead posterior minus 0.45, a maximum-expected-accuracy "
        "choice for F1 over beads): T = 0.5 / 1 / 2 / 3: 0.914 / 0.903 / 0.907, 0.909 / "
        "0.905 / 0.907, 0.909 / 0.894 / 0.904, 0.907 / 0.888 / 0.900; T = 1 with offset "
        "0.3 / 0.6: 0.909 / 0.904 / 0.913, 0.905 / 0.894 / 0.900; in both lexical passes: "
        "0.909 / 0.906 / 0.907 (all within noise of Viterbi).",
        "",
        "Tried on this protocol this round, none kept (whole document / mean per piece / "
        "mean corpus mode; committed settings 0.914 / 0.903 / 0.906): extra unlabelled "
        "text (above: 0.888 / 0.904 / 0.887; without the sentence-end and deletion models "
        "0.903 / 0.879 / 0.899 alone and 0.902 / 0.893 / 0.900 with the extra text, so "
        "those models' estimates depend on what text is pooled with the document); "
        "truncation stemming for Model 1 (words longer than k letters cut to their "
        "accent-folded first k, against sparse counts in short documents) k = 4 / 5 / 6 "
        "/ 7: 0.901 / 0.905 / 0.892, 0.906 / 0.901 / 0.898, 0.908 / 0.899 / 0.895, "
        "0.901 / 0.898 / 0.896; bead-shape priors estimated from the lexical pass's beads "
        "for the refinement round (Dirichlet, alpha pseudo-counts toward the committed "
        "priors), normalised, alpha = 30 / 100 / 300 / 1,000: 0.840 / 0.831 / 0.823, "
        "0.844 / 0.851 / 0.830, 0.848 / 0.866 / 0.842, 0.871 / 0.883 / 0.860, and with "
        "the 1-1 cost held (only the ratios to 1-1 estimated) alpha = 30 / 100 / 300: "
        "0.853 / 0.850 / 0.848, 0.853 / 0.866 / 0.848, 0.861 / 0.877 / 0.855 (the "
        "estimated ratios make several-sentence beads cheaper than the fixed 2.3 per "
        "sentence; the objective is not a normalised probability, the shape costs also "
        "balance the length and lexical terms); Model 1 also trained on the cheapest "
        "half of the 1-k beads (forward table) and k-1 beads (backward table), exact "
        "under Model 1 since its E-step normalises over the one source sentence, k <= 2 "
        "/ k <= 4 in the refinement: 0.905 / 0.876 / 0.898, 0.905 / 0.879 / 0.896, in "
        "both passes 0.886 / 0.859 / 0.875, 0.882 / 0.844 / 0.870; sentence-end and "
        "deletion odds per document in corpus mode, shrunk toward the pooled odds (10 / 30 "
        "pseudo-counts): corpus mode 0.891 / 0.899, with the extra text 0.890 / 0.893; in "
        "corpus mode c and s2 per document (c from its total lengths): corpus mode 0.897, "
        "with the extra text 0.892 / 0.897 / 0.888. "
        "Neighbours of the committed settings: refinement diagonal 0: 0.895 / 0.878 / "
        "0.894; shape cost 2.0 / 2.6: 0.899 / 0.884 / 0.894, 0.916 / 0.891 / 0.908; "
        "lexical weight 0.25 / 0.4: 0.914 / 0.882 / 0.903, 0.895 / 0.882 / 0.895; 10 EM "
        "iterations: 0.905 / 0.902 / 0.899; cue weight 10: 0.905 / 0.903 / 0.900; two "
        "refinements: 0.907 / 0.903 / 0.905; eps 0.05: 0.890 / 0.879 / 0.893; deletion "
        "model off: 0.903 / 0.899 / 0.901. One dev bead is 0.0024 F1; differences within "
        "about 0.01 are noise (an understatement: by the block bootstrap below, the dev "
        "document's 95% interval is several hundredths wide). The committed settings stay "
        "(test not rerun for a candidate).",
        "",
        "Significance of the dev-chosen components (a one-off check on the dev document, "
        "paired block bootstrap as in the section below; committed strict F1 0.913, then "
        "the F1 with one component off and the committed minus it, 95% interval): anchor "
        "tokens 0.914, -0.001 [-0.015, +0.011]; deletion model 0.907, +0.006 [-0.002, "
        "+0.017]; sentence-end model 0.907, +0.006 [-0.016, +0.029]; refinement diagonal "
        "0.898, +0.015 [-0.008, +0.038]; cheap deletions (Gale-Church's deletion prior "
        "instead) 0.894, +0.018 [-0.002, +0.050]; the four soft models (anchors, "
        "deletion, sentence-end, diagonal) all off 0.899, +0.014 [-0.015, +0.044]. None "
        "is significant on dev at 95%: each was kept by the rule 'beats the committed "
        "settings on the dev protocol', not by a test of significance. Session 14 scored "
        "them on a second source (benchmarks/results/sentence_align_ablation.md: paraphrase "
        "documents from Edinburgh++ and MSRP sentences), where cheap deletions, the "
        "diagonal and the deletion model hurt significantly (all five off: +0.06 strict "
        "F1 there), and switched all five off by default (rule: a component chosen on one "
        "document stays only if significant there and not significantly harmful on other "
        "gold). Not a blind choice: test results of an earlier, simpler objective were "
        "known; this rerun is the first test run of the new default.",
        "",
        "More lexical knowledge, one-off (session 12; not part of this rerun): a Model 1 "
        "lexicon learnt from 34,103 German-French paragraph pairs of software help (the "
        "LibreOffice and GIMP help of Debian's libreoffice-help-de/-fr and "
        "gimp-help-de/-fr, paragraphs paired by element id or position, 2-40 words, "
        "Snowball stems, 8 EM iterations each way; 2,669 stem pairs with t >= 0.2 both "
        "ways, each stem seen twice; thresholds fixed beforehand, not tuned). Dev "
        "protocol: alone 0.905 / 0.920 / 0.912, with FreeDict 0.926 / 0.927 / 0.928 (no "
        "dictionary 0.913 / 0.912 / 0.916, FreeDict 0.930 / 0.927 / 0.927). Its one test "
        "run, reported whatever it gave: alone 0.870 per document and 0.872 in corpus "
        "mode, with FreeDict 0.875 [0.839, 0.911] and 0.878 (FreeDict alone 0.879 / "
        "0.878; paired difference -0.004 [-0.010, +0.002]). An out-of-domain parallel "
        "lexicon alone gives most of FreeDict's gain on test, and the two together no "
        "more than FreeDict: the lexical side looks saturated near 0.88 on test, so the "
        "remaining gap to 0.90 is in the structure of the beads (on test the hybrid "
        "outputs fewer beads than the gold has, P > R), not in what Model 1 knows. Not "
        "kept as a benchmark row (it needs the help packages).",
        "",
        f"## Dev in {DEV_PARTS} pseudo-documents (multi-document dev setting)",
        "",
        f"The dev document cut at gold bead boundaries into {DEV_PARTS} documents of "
        f"{', '.join(str(len(doc.src)) for doc in chunks)} German sentences (test documents "
        "have 36-293), to compare per-document and corpus mode on dev. The hybrid settings "
        "were also checked here (1, 2, 3, 4 and 6 parts in corpus mode): the committed "
        "settings stayed best (EM 10/20 iterations, lexical weight 0.2/0.4, eps 0.05/0.2, "
        "cue weight 2/10, shape cost 1.5/3, two refinements: each equal or lower), and "
        "shape priors re-estimated from the lexical pass's beads (hard EM over shapes, "
        "10-1,000 pseudo-counts) lowered dev F1 by 2-4 points, so they were not kept "
        "(a one-off check, not part of this rerun). Deletions priced like an extra "
        "sentence (deletion length weight 0.8) raised strict F1 from 0.896 to 0.899 on "
        "the dev document, from 0.855 to 0.877 per document and from 0.889 to 0.891 in "
        "corpus mode here; with the diagonal prior in the refinement round as well, "
        "0.903, 0.888 and 0.894 (both chosen on these dev numbers; neighbouring settings "
        "in services/sentence_align/hybrid.py). The sentence-end and deletion models "
        "(weight 1, the estimated log-odds unscaled) then gave 0.903 -> 0.914 on the dev "
        "document, 0.888 -> 0.908 per document and 0.894 -> 0.910 in corpus mode here "
        "(0.913 -> 0.924 in 6 parts, corpus mode); weights 0.5-2, 3/30 pseudo-counts and "
        "the end model in the refinement only are in hybrid.py. Tried on these dev numbers "
        "and not kept: cue_similarity variants (punctuation cues at 0.2 or 0, cognate "
        "strength 0.25 or 1, 5-letter prefixes, cognates by longest common subsequence "
        "ratio >= 0.58 or 0.7 among words sharing 3 or 4 letters: each equal or lower), "
        "Model 1 trained on dev pooled with the test text (unlabelled, as corpus mode "
        "would; 0.903 -> 0.902 on the document, 0.894 unchanged in 4 parts), a second "
        "length cost on token counts (Gale-Church form, c and s2 from the previous pass; "
        "weights 0.25 / 0.5 / 1: 0.900 / 0.888 / 0.853), a 'full stop after a word of up "
        "to 3 letters' end class (abbreviations; mixed, within noise), and after the new "
        "models: 2 or 3 refinement rounds, shape cost 2.0/2.6/3.0, lexical weight "
        "0.25/0.35, eps 0.05/0.2, cue weight 3/8, training shares 0.6/0.9 and 0.4/0.6 "
        "(each lower or within noise).",
        "",
        *table(chunk_table, "galechurch"),
        "",
        *certainty_section(test, test_rows, test_intervals, dev, dev_rows),
        "",
        *confidence_section(test, test_rows, dev, dev_rows),
        "",
        LARGE_HEADING,
        "",
        "| method | sentences (src x tgt) | seconds (wall) | CPU seconds | sentences/s | "
        "peak RSS MB (process; baseline after loading) | F1 strict | F1 lax |",
        "|---|---|---|---|---|---|---|---|",
        *large_rows,
        "",
        "## Pipeline page pairs (sentence_align handler)",
        "",
        f"Input: {pages_note}. The handler splits each chunk into sentences and aligns all",
        "chunks of a page pair with one length model and one Model 1 (align_segments; hybrid",
        "without the refinement round, which doubled this cost: 38.5 ms in an earlier run); the",
        "second row is the former handler (one align_sentences call, so one Model 1, per",
        "chunk). Pipeline goal: about 20 page pairs/s per core, i.e. about 20 ms a pair.",
        "",
        *page_table(pages),
        "",
        "## Goals (issue 4)",
        "",
        f"- hybrid strict F1 >= 0.90 on test: per-document mode "
        f"{f1_with_interval(test_intervals[hybrid.name])} "
        f"— **{'met' if hybrid.scores.f1_strict >= 0.90 else 'NOT met'}**; corpus mode "
        f"{f1_with_interval(test_intervals[hybrid_corpus.name])} — "
        f"**{'met' if hybrid_corpus.scores.f1_strict >= 0.90 else 'NOT met'}**.",
        "  Before this round's two dev-chosen changes (deletion prior, diagonal prior) the "
        "committed run had 0.867 per document and 0.877 in corpus mode: their dev gains "
        "(0.896 -> 0.903 on the dev document, 0.855 -> 0.888 per document / 0.889 -> 0.894 "
        "in corpus mode in 4 pieces) did not carry over to test (the dev set is one "
        "document of 422 gold beads). This round's sentence-end and deletion models "
        "were chosen on dev only and the test rows above are their one run: they LOWERED "
        "test strict F1 (before them 0.865 per document, 0.870 in corpus mode), although "
        "on dev they raised it in every cut tried (per document in 2 / 4 / 6 / 8 / 12 "
        "parts: 0.891 / 0.888 / 0.871 / 0.857 / 0.846 before, 0.910 / 0.908 / 0.901 / "
        "0.888 / 0.876 with them). Kept as chosen on dev (not reverted on a test result); "
        "boundary_weight=0 and deletion_weight=0 in services/sentence_align/hybrid.py "
        "restore the former objective.",
        "  Since then (dev protocol above), one candidate beat the former settings on the "
        "dev protocol: the anchor-token model. The test rows above are its one run: "
        "strict F1 0.850 -> 0.849 per document, 0.867 -> 0.865 in corpus mode, with "
        "FreeDict 0.880 -> 0.879 and 0.880 -> 0.878 (a bead or two; no gain on test), "
        "at 6% less throughput (dev and test documents side by side, 3,306 -> 3,099 "
        "sentences/s of CPU). Kept as chosen on dev; anchor_weight=0 in "
        "services/sentence_align/hybrid.py restores the former objective.",
        "  Session 22 gave corpus mode the anchored length pass (robustness: a dev "
        "document with 150 sentences cut from one side fell to strict F1 0.28 / 0.31 in "
        "corpus mode, 0.92 / 0.91 on its own; benchmarks/results/"
        "sentence_align_missing_block.md), with c and s2 refitted on the first runs as per "
        "document. Dev protocol in corpus mode 0.896 / 0.897 -> 0.897 / 0.899 (whole "
        "document / mean over cuts), with FreeDict 0.905 / 0.906 -> 0.904 / 0.910. The test "
        "rows above are its one run: corpus mode 0.877 -> 0.872, with FreeDict 0.891 -> "
        "0.887 (about four beads each, within noise); per-document rows unchanged.",
        *dictionary_goal_lines(by_name, test_intervals),
        speed_goal_line(hybrid, "per-document mode"),
        machine_speed_line(hybrid, by_name["galechurch"]),
        speed_goal_line(hybrid_corpus, "corpus mode"),
        large_goal,
        f"- about 20 ms CPU per page pair in the handler: {pages[0].cpu_ms:.1f} ms — "
        f"**{'met' if pages[0].cpu_ms <= 20 else 'not met'}**.",
        "",
        machine_note(),
        "",
    ]
    publish(RESULT, report)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--large":
        print(json.dumps(run_large(sys.argv[2], LARGE_SENTENCES)))
    else:
        main(keep_large="--keep-large" in sys.argv[1:])
