"""Sections of sentence_align's report: bootstrap intervals, bead confidence, goal lines."""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.common import notes
from benchmarks.sentence_align.rows import WITH_DICTIONARY
from benchmarks.sentence_align.textberg import Row
from services.sentence_align.aligners.evaluate import (
    Interval,
    bootstrap_difference,
    bootstrap_f1_strict,
    calibration,
    expected_calibration_error,
    kept_above,
)
from services.sentence_align.aligners.gold import DocumentPair
from services.sentence_align.mining.records import bead_score, cost_score

# The run that last met the speed goals (2026-11-21, an AMD EPYC): galechurch's rate on the
# test documents there. Machines differ between runs by up to 3x; galechurch (Rust, the
# same input, in the same run) tells how fast this run's machine is.
REFERENCE_GALECHURCH = 72_839.0


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
        notes("95-percentile-intervals"),
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
        notes("each-bead-of"),
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
