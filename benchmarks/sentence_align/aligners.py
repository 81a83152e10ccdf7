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

from benchmarks.common import RESULTS, publish
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
from benchmarks.sentence_align.length import TEST, load, machine_note, table
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
        "tokens; `services.sentence_align.presets.TEXTBERG_DEV_SETTINGS`) are off by default, "
        "since "
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
