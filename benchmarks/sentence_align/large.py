"""Long document of sentence_align: a synthetic pair of real gold beads, timed in a child."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import child_json, peak_rss_mb
from benchmarks.sentence_align.textberg import TEST, load, paramine_aligner
from services.sentence_align.aligners import gold
from services.sentence_align.aligners.evaluate import score_documents
from services.sentence_align.aligners.gold import DocumentPair

SEED = int(os.environ.get("PARAMINE_SEED", "20240607"))
LARGE_SENTENCES = int(os.environ.get("PARAMINE_LARGE_SENTENCES", "100000"))


def synthetic_document(documents: Sequence[DocumentPair], n_src: int) -> DocumentPair:
    """Real gold beads sampled (seeded) and concatenated until the source has n_src lines."""
    return gold.synthetic_document(documents, n_src, SEED)


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
    result: dict[str, float] = child_json("benchmarks.sentence_align.aligners", "--large", method)
    return result


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


def previous_large(path: Path) -> tuple[list[str], str]:
    """The long-document table rows and goal line of the committed results file (for
    ``--keep-large``: a rerun that does not touch the long-document path)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(LARGE_HEADING)
    end = next(k for k in range(start + 1, len(lines)) if lines[k].startswith("## "))
    rows = [line for line in lines[start:end] if line.startswith("| ") and "---" not in line]
    goal = next(line for line in lines if line.startswith(LARGE_GOAL))
    return rows[1:], goal
