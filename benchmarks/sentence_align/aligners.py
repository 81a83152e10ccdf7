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
Run: ``.venv/bin/python -m benchmarks.sentence_align.aligners`` from the repository root.
"""

from __future__ import annotations

import json
import sys

from benchmarks.common import RESULTS, notes, publish
from benchmarks.sentence_align.dev import (
    DEV_CUTS,
    chunk_rows,
    dev_chunks,
    dev_diagnosis,
    dev_protocol,
    unlabelled,
)
from benchmarks.sentence_align.large import (
    CARRIED,
    LARGE_HEADING,
    LARGE_SENTENCES,
    large_goal_line,
    large_in_child,
    previous_large,
    run_large,
)
from benchmarks.sentence_align.pages import page_rows, page_table
from benchmarks.sentence_align.report import (
    certainty_section,
    confidence_section,
    dictionary_goal_lines,
    f1_with_interval,
    machine_speed_line,
    row_intervals,
    speed_goal_line,
)
from benchmarks.sentence_align.rows import rows_for
from benchmarks.sentence_align.textberg import TEST, load, machine_note, table

RESULT = RESULTS / "sentence_align.md"
DEV_PARTS = 4  # pseudo-documents of the multi-document dev setting


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
        "Rerun: `.venv/bin/python -m benchmarks.sentence_align.aligners`",
        "",
        notes("data-text-berg"),
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
        notes("latest-round-settings"),
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
        "in services/sentence_align/aligners/hybrid.py). The sentence-end and deletion models "
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
        notes("before-this-round"),
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
