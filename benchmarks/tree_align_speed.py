"""Speed benchmark: tree alignment decoder seconds and peak memory vs apted, same trees.

Page pairs: the real albatec.de en/de pairs (../shared/data/bitextor-albatec-lett, about 100
elements each) and generated pairs of about 300, 1,000 and 3,000 elements per page
(benchmarks.tree_align_pagegen with pseudo-word text, two different templates). For each pair:

- the exact Viterbi decoder on the full tag trees and on the folded trees (inline markup
  folded into text, what ``align_page_texts`` aligns), with the shipped default model;
- the same with the optional band pruning (0.3), cost gap against the exact optimum reported;
- apted (tree edit distance, unit costs) on the same full and folded trees, time-boxed.

Every measurement runs in a fresh subprocess (one core, numba cache warm) so peak RSS is the
run's own; decoder seconds exclude parsing and numba loading and are the median of three
alignments of the pair in that process (one run varied by up to 30% on the shared machine). Run:
``.venv/bin/python -m benchmarks.tree_align_speed``.
"""

from __future__ import annotations

import base64
import csv
import gzip
import json
import platform
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._report import publish
from benchmarks.tree_align_pagegen import (
    paragraphs_from_beads,
    source_page,
    synthetic_document,
    target_page,
)

REPO = Path(__file__).resolve().parents[1]
ALBATEC = REPO.parent / "shared" / "data" / "bitextor-albatec-lett"
RESULT = REPO / "benchmarks" / "results" / "tree_align_speed.md"
GENERATED = {"~300": (110, 1), "~1,000": (260, 5), "~3,000": (800, 14)}  # beads, template scale
DECODER_TIMEOUT = 900.0
DECODER_RUNS = 3  # median of three alignments in the same process (the machine is shared)
APTED_TIMEOUT = 60.0


def generated_pair(name: str) -> tuple[str, str]:
    beads, scale = GENERATED[name]
    rng = random.Random(11)
    src, tgt, gold = synthetic_document(rng, beads)
    paragraphs = paragraphs_from_beads(gold, rng)
    return (
        source_page(src, paragraphs, rng, scale=scale).html,
        target_page(tgt, paragraphs, rng, scale=scale).html,
    )


def albatec_pair() -> tuple[str, str]:
    pages: dict[str, bytes] = {}
    with gzip.open(ALBATEC / "v2.lett.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            pages[fields[3]] = base64.b64decode(fields[4])
    with (ALBATEC / "url-pattern-pairs.tsv").open(encoding="utf-8") as rows:
        for row in csv.DictReader(rows, delimiter="\t"):
            if row["page_id"] == "9":
                return pages[row["en_url"]].decode("utf-8", "replace"), pages[row["de_url"]].decode(
                    "utf-8", "replace"
                )
    raise SystemExit("albatec pair 9 not found")


def pair_html(case: str) -> tuple[str, str]:
    return albatec_pair() if case == "albatec" else generated_pair(case)


def measure(case: str, tool: str, folded: bool, band: float | None) -> dict[str, object]:
    """Run inside the subprocess: one alignment, report seconds, nodes and peak RSS."""
    from services.tree_align.decoder import align_trees
    from services.tree_align.html_tree import block_tree, parse_html
    from services.tree_align.model import default_model

    src_html, tgt_html = pair_html(case)
    trees = parse_html(src_html), parse_html(tgt_html)
    if folded:
        trees = block_tree(trees[0]), block_tree(trees[1])
    elements = [int((t.kinds == 0).sum()) for t in (parse_html(src_html), parse_html(tgt_html))]
    result: dict[str, object] = {"nodes": [t.size for t in trees], "elements": elements}
    if tool == "decoder":
        model = default_model()
        small = block_tree(parse_html("<p>warm</p>"))
        align_trees(small, small, model)  # load the compiled code outside the timing
        runs = []
        for _ in range(DECODER_RUNS):
            started = time.process_time()
            alignment = align_trees(trees[0], trees[1], model, band=band)
            runs.append(time.process_time() - started)
        result["seconds"] = statistics.median(runs)
        result["cost"] = alignment.cost
    else:
        from apted import APTED
        from apted.helpers import Tree

        def bracket(tree: object, node: int) -> str:
            from services.tree_align.html_tree import TagTree

            assert isinstance(tree, TagTree)
            inner = "".join(bracket(tree, int(c)) for c in tree.children(node))
            return "{" + tree.label(node).replace("{", "(").replace("}", ")") + inner + "}"

        sys.setrecursionlimit(100_000)
        apted_trees = [Tree.from_text(bracket(t, 0)) for t in trees]
        started = time.process_time()
        result["cost"] = APTED(*apted_trees).compute_edit_distance()
        result["seconds"] = time.process_time() - started
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def run(
    case: str, tool: str, folded: bool, band: float | None, timeout: float
) -> dict[str, object]:
    command = [sys.executable, "-m", "benchmarks.tree_align_speed", "--one", case, tool,
               str(int(folded)), str(band)]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    parsed = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(parsed, dict)
    return parsed


def number(result: dict[str, object], key: str) -> float:
    value = result[key]
    assert isinstance(value, int | float)
    return float(value)


def cell(result: dict[str, object]) -> str:
    if "timeout" in result:
        return f"> {result['timeout']:.0f} s (stopped)"
    if "error" in result:
        return f"error: {result['error']}"
    return f"{result['seconds']:.2f} s, {result['peak_rss_mb']:.0f} MB"


def main() -> None:
    cases = ["albatec", *GENERATED]
    lines = [
        "# tree_align: decoder speed and memory vs apted",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` on {platform.machine()}, Python "
        f"{platform.python_version()}; 2 cores shared by ~6 engineers (load average 5-7 during"
        " the run), CPU seconds of one process "
        "(one core), peak RSS of the whole process (includes ~150 MB interpreter and libraries).",
        "Method: see the docstring of `benchmarks/tree_align_speed.py`.",
        "",
        "| pair | elements src / tgt | tree | nodes src / tgt | exact decoder | band 0.3 decoder"
        " (cost gap) | apted (edit distance) | apted / decoder |",
        "|---|---|---|---|---|---|---|---|",
    ]
    verdict: list[str] = []
    for case in cases:
        for folded in (False, True):
            exact = run(case, "decoder", folded, None, DECODER_TIMEOUT)
            banded = run(case, "decoder", folded, 0.3, DECODER_TIMEOUT)
            apted = run(case, "apted", folded, None, APTED_TIMEOUT)
            info = next((r for r in (exact, banded, apted) if "nodes" in r), {})
            nodes = info.get("nodes", ["?", "?"])
            elements = info.get("elements", ["?", "?"])
            assert isinstance(nodes, list) and isinstance(elements, list)
            gap = ""
            if "cost" in exact and "cost" in banded:
                gap = f" ({number(banded, 'cost') - number(exact, 'cost'):+.2f})"
            ratio = ""
            if "seconds" in exact and "seconds" in apted:
                ratio = f"{number(apted, 'seconds') / max(number(exact, 'seconds'), 1e-9):.1f}x"
            elif "timeout" in apted and "seconds" in exact:
                ratio = f"> {APTED_TIMEOUT / max(number(exact, 'seconds'), 1e-9):.0f}x"
            tree = "folded" if folded else "full"
            lines.append(
                f"| {case} | {elements[0]} / {elements[1]} | {tree} | {nodes[0]} / {nodes[1]} | "
                f"{cell(exact)} | {cell(banded)}{gap} | {cell(apted)} | {ratio} |"
            )
            print(lines[-1], flush=True)
            if case == "~1,000":
                seconds = f"{number(exact, 'seconds'):.2f} s" if "seconds" in exact else cell(exact)
                met = "seconds" in exact and number(exact, "seconds") <= 0.5
                verdict.append(
                    f"- ~1,000-element pair, {tree} trees: exact decoder {seconds} "
                    f"({'met' if met else 'NOT met'}); band 0.3: {cell(banded)}."
                )
    lines += [
        "",
        *verdict,
        "",
        "Goal: 1,000 x 1,000 elements <= 0.5 s on one core; no pair of <= 5,000 elements over"
        " 2 GB. Tables above 1.5 GB are refused with InputTooLarge before allocation.",
        "The exact decoder is O(|T1||T2|(deg T1 + deg T2)^2) (Jiang-Wang-Zhang): the generated",
        "templates' menus and footers grow with the page (high-degree lists): its worst case.",
        "CPU seconds on this shared machine vary by about +-10% between runs (cache contention).",
        "Since the previous run (0.93 s full, 0.35 s folded ~1,000): node pairs with one child",
        "each (81% of the internal node pairs of the full ~1,000 pair: chains such as",
        "li > a > span) are computed in closed form instead of four one-cell scans (same terms",
        "in the same order: identical costs and pairs; ~25% less CPU on that pair in a",
        "side-by-side run). What remains is the scans of multi-child pairs (paragraphs with",
        "inline markup against menus: ~21 M cells).",
        "Also since then: the FT scan of a single F-tree, which writes no span, is skipped.",
        "Side by side in one process (alternating old and new, 3 rounds, machine loaded,",
        "medians of CPU seconds), the decoder before both changes vs after, ~1,000 pair: full",
        "2.13 -> 1.54 s, folded 0.85 -> 0.66 s. The load varies between runs (apted on the same",
        "~300 full trees: 3.91 s in the run of 21:48, 6.91 s in a run at 23:40), so compare the",
        "decoder with apted within one run.",
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        band_arg = None if sys.argv[5] == "None" else float(sys.argv[5])
        print(json.dumps(measure(sys.argv[2], sys.argv[3], sys.argv[4] == "1", band_arg)))
    else:
        main()
