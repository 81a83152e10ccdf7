"""Speed of the issue-38 restructuring: the code before it against the current tree, alternating.

Two measurements, both interleaved (before, after, before, after, ...) on this shared machine:

- the tree decoder: ``benchmarks.tree_align.speed --side-by-side REVISION`` (the ~300 and
  ~1,000-element generated pairs, full and folded trees; old and new decoder alternate in one
  process, medians of CPU seconds, the same cost, node pairs and pair costs checked), run
  ``DECODER_RUNS`` times;
- the tree_align stage on news-size pairs (the 40 pairs of ``benchmarks.tree_align.news``):
  parse, fold and ``align_page_texts`` of every pair, CPU seconds per pair of one process;
  a clean export of REVISION (``git archive``) and the current tree alternate as separate
  processes, ``NEWS_ROUNDS`` rounds after one discarded warm-up round each (numba's cache
  filled, compilation excluded), and the text pairs of the two trees are compared.

Run: ``.venv/bin/python -m benchmarks.system.structure_speed [REVISION]`` (default
``BASELINE``); the result goes to ``benchmarks/results/structure.md``.
"""

from __future__ import annotations

import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from benchmarks.common import publish

REPO = Path(__file__).resolve().parents[2]
RESULT = REPO / "benchmarks" / "results" / "structure.md"
BASELINE = "db9d876"  # main before issue 38's algorithm-module restructuring
DECODER_RUNS = 3
NEWS_ROUNDS = 7
NEWS_PAIRS = 40

# Run inside a tree (PYTHONPATH): CPU seconds per pair of the tree_align stage, and a digest
# of its text pairs. Only names both trees have.
NEWS_PROBE = f"""
import hashlib, json, random, time
from benchmarks.common import generate_pair
from services.tree_align.align import align_page_texts
from services.html.parse import parse_html
rng = random.Random(3)
pairs = [generate_pair(rng, serial) for serial in range({NEWS_PAIRS})]
warm = parse_html("<p>warm</p>")
align_page_texts(warm, warm)
digest = hashlib.sha256()
clock = time.process_time()
for pair in pairs:
    found = align_page_texts(parse_html(pair["src"]["html"]), parse_html(pair["tgt"]["html"]))
    digest.update(repr(found).encode())
seconds = (time.process_time() - clock) / {NEWS_PAIRS}
print(json.dumps([seconds, digest.hexdigest()]))
"""


def export(revision: str) -> Path:
    """A clean copy of ``revision``'s tree in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="structure_speed_"))
    archive = subprocess.run(
        ["git", "archive", revision], capture_output=True, check=True, cwd=REPO
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def news_run(tree: Path) -> tuple[float, str]:
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", NEWS_PROBE],
        capture_output=True, text=True, check=True, cwd=tree, env=environment,
    )  # fmt: skip
    seconds, digest = json.loads(done.stdout.strip().splitlines()[-1])
    return float(seconds), str(digest)


def decoder_rows(revision: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.tree_align.speed", "--side-by-side", revision],
        capture_output=True, text=True, check=True, cwd=REPO,
    )  # fmt: skip
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(rows, list)
    return [str(row) for row in rows]


def main(revision: str = BASELINE) -> None:
    started = time.strftime("%Y-%m-%d %H:%M")
    loads = [os.getloadavg()[0]]
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
    ).stdout.strip()
    decoder: list[str] = []
    for run in range(DECODER_RUNS):
        decoder += [f"| {run + 1} {row[1:]}" for row in decoder_rows(revision)]
        loads.append(os.getloadavg()[0])
    before_tree = export(revision)
    trees = {"before": before_tree, "after": REPO}
    for tree in trees.values():
        news_run(tree)  # warm-up: numba's cache of each tree filled, not timed
    seconds: dict[str, list[float]] = {"before": [], "after": []}
    digests: dict[str, set[str]] = {"before": set(), "after": set()}
    for _ in range(NEWS_ROUNDS):
        for label, tree in trees.items():
            value, digest = news_run(tree)
            seconds[label].append(value)
            digests[label].add(digest)
            loads.append(os.getloadavg()[0])
    before, after = statistics.median(seconds["before"]), statistics.median(seconds["after"])
    identical = digests["before"] == digests["after"] and len(digests["after"]) == 1
    lines = [
        "# Issue 38 restructuring: speed before and after",
        "",
        f"Run `{started}` on {platform.machine()}, Python {platform.python_version()}; 2 cores"
        f" shared with other engineers (load average, 1 min, {min(loads):.1f}-{max(loads):.1f}"
        f" during the run). Before: {revision}; after: the working tree at {head}. Method: see"
        " the docstring of `benchmarks/system/structure_speed.py`; numba compilation excluded.",
        "",
        "## Tree decoder (named tables instead of the positional tuple, kernels split)",
        "",
        f"`benchmarks.tree_align.speed --side-by-side {revision}`, {DECODER_RUNS} runs; each row"
        " the medians of 5 alternating CPU-second runs in one process.",
        "",
        "| run, pair | tree | before | after | speed-up | identical |",
        "|---|---|---|---|---|---|",
        *decoder,
        "",
        "## tree_align stage on the news-size pairs",
        "",
        f"Parse, fold and `align_page_texts` of {NEWS_PAIRS} pairs, CPU ms per pair, "
        f"{NEWS_ROUNDS} alternating rounds of separate processes.",
        "",
        "| | median | runs |",
        "|---|---|---|",
        *(
            f"| {label} | {1000 * statistics.median(values):.2f} ms | "
            + ", ".join(f"{1000 * v:.2f}" for v in values)
            + " |"
            for label, values in seconds.items()
        ),
        "",
        f"After / before: {after / before:.3f} (medians). Text pairs of the two trees "
        f"identical: {'yes' if identical else 'NO'}.",
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main(*sys.argv[1:2])
