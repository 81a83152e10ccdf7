"""Speed benchmark: tree alignment decoder seconds and peak memory vs apted, same trees.

Page pairs: the real albatec.de en/de pairs (../shared/data/bitextor-albatec-lett, about 100
elements each) and generated pairs of about 300, 1,000 and 3,000 elements per page
(benchmarks.tree_align.pagegen with pseudo-word text, two different templates). For each pair:

- the exact Viterbi decoder on the full tag trees and on the folded trees (inline markup
  folded into text, what ``align_page_texts`` aligns), with the shipped default model;
- the same with the optional band pruning (0.3), cost gap against the exact optimum reported;
- apted (tree edit distance, unit costs) on the same full and folded trees, time-boxed.

Every measurement runs in a fresh subprocess (one core, numba cache warm) so peak RSS is the
run's own; decoder seconds exclude parsing and numba loading and are the median of three
alignments of the pair in that process (one run varied by up to 30% on the shared machine).
The load average (1 min) is read before every measurement and reported as its range.

Side by side: the decoder of ``BASELINE`` (its ``_dp.py`` and ``decoder.py`` read from git and
loaded as separate modules; ``--side-by-side REVISION``: another revision of that layout) and
the current one align the ~300 and ~1,000 pairs alternately in
one process (old, new, old, new, ...; medians of CPU seconds), and the run checks that both
give the same cost, the same node pairs and the same pair costs. Run:
``.venv/bin/python -m benchmarks.tree_align.speed``.
"""

from __future__ import annotations

import base64
import csv
import gzip
import importlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import KIT, REPO, RESULTS, child_json, notes, peak_rss_mb, publish
from benchmarks.tree_align.pagegen import (
    paragraphs_from_beads,
    source_page,
    synthetic_document,
    target_page,
)

ALBATEC = KIT / "bitextor-albatec-lett"
RESULT = RESULTS / "tree_align_speed.md"
GENERATED = {"~300": (110, 1), "~1,000": (260, 5), "~3,000": (800, 14)}  # beads, template scale
DECODER_TIMEOUT = 900.0
DECODER_RUNS = 3  # median of three alignments in the same process (the machine is shared)
APTED_TIMEOUT = 60.0
BASELINE = "d2b3d6c"  # the decoder before the flat, unsigned indexing of the scan cells
SIDE_BY_SIDE_ROUNDS = 5


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
    from services.html.parse import block_tree, parse_html
    from services.tree_align.decoder import align_trees
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
            alignment = align_trees(trees[0], trees[1], model, band=band, max_work=None)
            runs.append(time.process_time() - started)
        result["seconds"] = statistics.median(runs)
        result["cost"] = alignment.cost
    else:
        from apted import APTED
        from apted.helpers import Tree

        def bracket(tree: object, node: int) -> str:
            from services.html.tag_tree import TagTree

            assert isinstance(tree, TagTree)
            inner = "".join(bracket(tree, int(c)) for c in tree.children(node))
            return "{" + tree.label(node).replace("{", "(").replace("}", ")") + inner + "}"

        sys.setrecursionlimit(100_000)
        apted_trees = [Tree.from_text(bracket(t, 0)) for t in trees]
        started = time.process_time()
        result["cost"] = APTED(*apted_trees).compute_edit_distance()
        result["seconds"] = time.process_time() - started
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def baseline_decoder(revision: str = BASELINE) -> object:
    """The decoder of ``revision`` as a module of its own (its compiled kernels included); a
    revision from before the kernels became the package ``dp`` (one module ``_dp.py``)."""
    folder = Path(tempfile.mkdtemp(prefix="tree_align_baseline_"))
    for name in ("_dp", "decoder"):
        source = subprocess.run(
            ["git", "show", f"{revision}:services/tree_align/{name}.py"],
            capture_output=True, text=True, check=True, cwd=REPO,
        ).stdout  # fmt: skip
        source = source.replace("from services.tree_align import _dp", "import baseline_dp as _dp")
        # TagTree moved to tag_tree.py after these revisions (issue 38)
        source = source.replace(
            "from services.html.parse import TagTree",
            "from services.html.tag_tree import TagTree",
        )
        (folder / f"baseline{name}.py").write_text(source, encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module("baselinedecoder")


def side_by_side(revision: str = BASELINE) -> list[str]:
    """Run inside a subprocess: old and new decoder alternately on the same trees."""
    from services.html.parse import block_tree, parse_html
    from services.tree_align import decoder
    from services.tree_align.model import default_model

    old = baseline_decoder(revision)
    model = default_model()
    small = block_tree(parse_html("<p>warm</p>"))
    for module in (old, decoder):
        module.align_trees(small, small, model)  # type: ignore[attr-defined]
    rows = []
    for case in ("~300", "~1,000"):
        src_html, tgt_html = pair_html(case)
        full = parse_html(src_html), parse_html(tgt_html)
        for tree, (src, tgt) in (("full", full), ("folded", tuple(map(block_tree, full)))):
            seconds: dict[str, list[float]] = {"old": [], "new": []}
            results = {}
            for _ in range(SIDE_BY_SIDE_ROUNDS):
                for label, module in (("old", old), ("new", decoder)):
                    started = time.process_time()
                    results[label] = module.align_trees(src, tgt, model)  # type: ignore[attr-defined]
                    seconds[label].append(time.process_time() - started)
            a, b = results["old"], results["new"]
            same = (
                a.cost == b.cost
                and a.pairs.tolist() == b.pairs.tolist()
                and a.pair_costs.tolist() == b.pair_costs.tolist()
            )
            rows.append(
                f"| {case} | {tree} | {statistics.median(seconds['old']):.3f} s | "
                f"{statistics.median(seconds['new']):.3f} s | "
                f"{statistics.median(seconds['old']) / statistics.median(seconds['new']):.2f}x | "
                f"{'yes' if same else 'NO'} ({len(b.pairs)} pairs, cost {b.cost:.6f}) |"
            )
    return rows


def run(
    case: str, tool: str, folded: bool, band: float | None, timeout: float
) -> dict[str, object]:
    command = [sys.executable, "-m", "benchmarks.tree_align.speed", "--one", case, tool,
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
    started = time.strftime("%Y-%m-%d %H:%M")
    loads = [os.getloadavg()[0]]
    table: list[str] = []
    verdict: list[str] = []
    for case in cases:
        for folded in (False, True):
            exact = run(case, "decoder", folded, None, DECODER_TIMEOUT)
            loads.append(os.getloadavg()[0])
            banded = run(case, "decoder", folded, 0.3, DECODER_TIMEOUT)
            loads.append(os.getloadavg()[0])
            apted = run(case, "apted", folded, None, APTED_TIMEOUT)
            loads.append(os.getloadavg()[0])
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
            table.append(
                f"| {case} | {elements[0]} / {elements[1]} | {tree} | {nodes[0]} / {nodes[1]} | "
                f"{cell(exact)} | {cell(banded)}{gap} | {cell(apted)} | {ratio} |"
            )
            print(table[-1], flush=True)
            if case == "~1,000":
                seconds = f"{number(exact, 'seconds'):.2f} s" if "seconds" in exact else cell(exact)
                met = "seconds" in exact and number(exact, "seconds") <= 0.5
                verdict.append(
                    f"- ~1,000-element pair, {tree} trees: exact decoder {seconds} "
                    f"({'met' if met else 'NOT met'}); band 0.3: {cell(banded)}."
                )
    side_rows = child_json("benchmarks.tree_align.speed", "--side-by-side")
    loads.append(os.getloadavg()[0])
    lines = [
        "# tree_align: decoder speed and memory vs apted",
        "",
        f"Run `{started}` on {platform.machine()}, Python {platform.python_version()}; 2 cores"
        f" shared by ~5 engineers (load average, 1 min, {min(loads):.1f}-{max(loads):.1f}"
        " during the run), CPU seconds of one process (one core), peak RSS of the whole process"
        " (includes ~150 MB interpreter and libraries).",
        "Method: see the docstring of `benchmarks/tree_align/speed.py`.",
        "",
        "| pair | elements src / tgt | tree | nodes src / tgt | exact decoder | band 0.3 decoder"
        " (cost gap) | apted (edit distance) | apted / decoder |",
        "|---|---|---|---|---|---|---|---|",
        *table,
        "",
        *verdict,
        "",
        notes("goal-1-000"),
        "",
        f"Side by side in one process: the decoder of {BASELINE} (before this round) and the"
        f" current one, alternating, medians of {SIDE_BY_SIDE_ROUNDS} CPU-second runs each;"
        " 'identical': same cost, node pairs and pair costs.",
        "",
        "| pair | tree | old decoder | new decoder | speed-up | identical |",
        "|---|---|---|---|---|---|",
        *side_rows,
        "",
        notes("the-exact-decoder"),
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    if len(sys.argv) in (2, 3) and sys.argv[1] == "--side-by-side":  # [revision]
        print(json.dumps(side_by_side(*sys.argv[2:])))
    elif len(sys.argv) == 6 and sys.argv[1] == "--one":
        band_arg = None if sys.argv[5] == "None" else float(sys.argv[5])
        print(json.dumps(measure(sys.argv[2], sys.argv[3], sys.argv[4] == "1", band_arg)))
    else:
        main()
