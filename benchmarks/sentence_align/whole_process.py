"""Whole-process time of the default sentence aligner against galechurch on one long document.

Document: about 5,000 German sentences and their French translations, real Text+Berg gold
beads (dev and test) sampled with a seed and concatenated (``benchmarks.sentence_align.large``'s
synthetic document), one sentence a line. Each program runs as a whole process, start-up,
imports and model or dictionary loading included, on one core: ``paramine align-sentences
--presplit --src-lang de --tgt-lang fr`` (the default: hybrid, the installed FreeDict
dictionary) and the ``galechurch`` command of the PyPI package (Rust, ``--num-proc 1``), in
alternating rounds; wall and CPU (user + system of the child) per round, the median
reported. The scores of both on the same test documents are in sentence_align.md. Run from
the repository root: ``.venv/bin/python -m benchmarks.sentence_align.whole_process``.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import RESULTS, publish
from benchmarks.sentence_align.large import synthetic_document
from benchmarks.sentence_align.length import TEST, load

RESULT = RESULTS / "sentence_align_whole_process.md"
SOURCE_SENTENCES = 5_000
ROUNDS = 3
BIN = Path(sys.executable).parent


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run of ``command`` as a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    document = synthetic_document(load(["dev", *TEST]), SOURCE_SENTENCES)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for side, lines in (("src", document.src), ("tgt", document.tgt)):
            (root / side).mkdir()
            (root / side / "doc.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (root / "out").mkdir()
        commands = {
            "paramine align-sentences (default)": [
                str(BIN / "paramine"), "align-sentences", "--presplit", "--src-lang", "de",
                "--tgt-lang", "fr", str(root / "src" / "doc.txt"), str(root / "tgt" / "doc.txt"),
            ],
            "galechurch (Rust, --num-proc 1)": [
                str(BIN / "galechurch"), "-src", str(root / "src"), "-trg", str(root / "tgt"),
                "-out", str(root / "out"), "--num-proc", "1",
            ],
        }  # fmt: skip
        for command in commands.values():
            timed(command)  # warm-up: disk caches, the dictionary registry's cache
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(ROUNDS):
            for name, command in commands.items():
                runs[name].append(timed(command))
    rows = []
    for name, measured in runs.items():
        wall = statistics.median(w for w, _ in measured)
        cpu = statistics.median(c for _, c in measured)
        rows.append((name, wall, cpu))
    paramine_wall, galechurch_wall = rows[0][1], rows[1][1]
    verdict = "met" if paramine_wall <= galechurch_wall else "**not met**"
    load_average = " ".join(f"{x:.1f}" for x in os.getloadavg())
    publish(
        RESULT,
        [
            "# Whole-process time: paramine align-sentences vs galechurch, one long document",
            "",
            "Rerun: `.venv/bin/python -m benchmarks.sentence_align.whole_process`.",
            "",
            " ".join(__doc__.split("\n\n", 1)[1].split()),
            "",
            f"Document: {len(document.src):,} x {len(document.tgt):,} sentences (the issue's"
            " 5,000 x 6,301 names the source side's size; the target side here is what the"
            " sampled beads give).",
            "",
            "| program | wall (s, median) | CPU (s, median) | rounds (wall s) |",
            "|---|---|---|---|",
            *(
                f"| {name} | {wall:.2f} | {cpu:.2f} |"
                f" {' / '.join(f'{w:.2f}' for w, _ in runs[name])} |"
                for name, wall, cpu in rows
            ),
            "",
            f"- whole process no slower than galechurch (issue 34): {paramine_wall:.2f} s"
            f" against {galechurch_wall:.2f} s → {verdict}.",
            "",
            f"Machine: {os.cpu_count()} logical CPUs, load average {load_average} at the end.",
        ],
    )


if __name__ == "__main__":
    main()
