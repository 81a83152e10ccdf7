"""CPU of a whole single-page crawl through ``paramine process``, this code against a
baseline checkout, side by side in one run.

Two crawls of the page_match benchmark's training part (``benchmarks/page_match/crawls.py``:
Text+Berg de-fr and MAC-Dev en-zh sentences poured into one site template each, every page a
single crawled page, its twin somewhere in the same file) go through ``paramine process``
with default settings (page_match, tree_align, sentence_align, paraphrase, thesaurus; a fresh
SQLite store each run). Each command runs as its own process; its CPU is the kernel's account
of it (``os.wait4``: user + system seconds). The two versions alternate (A B A B ...) so that
a drift of the machine's speed falls on both; one untimed run of each first (numba's caches,
the merged-dictionary cache).

Start-up apart: the same command on a crawl of the site's first page pair only (imports,
models, dictionaries, the first kernel calls) is timed the same way; "beyond start-up" is a
crawl's CPU less that.

The baseline is another checkout of the repository (``git worktree add ../baseline <commit>``)
run by this virtualenv's Python with that checkout first on ``PYTHONPATH``. The outputs of
both are compared: the exported sentence pairs (TSV) must be byte-identical.

Where the time goes: each version's run of each crawl once more under pyinstrument (a
sampling profiler of Python frames that needs no ptrace rights, unlike py-spy in a
container), the wall seconds of a few named parts (each counted where it is first entered, not
again inside itself); samples are wall time, so they hold waiting too.

Run: ``.venv/bin/python -m benchmarks.system.process_cpu --baseline ../baseline`` (about 15 min).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import PARAMINE, REPO, RESULTS, notes, publish
from benchmarks.page_match.crawls import TEMPLATES, site_crawl

SEED = 11

# The parts of a run the profile section names: (label, function, file ending); the first
# match of a frame counts it, and a frame inside a counted one of the same label is not
# counted again.
PARTS = (
    ("page_match stage", "handle", "services/page_match/handler.py"),
    ("tree_align stage", "handle", "services/tree_align/handler.py"),
    ("sentence_align stage", "handle", "services/sentence_align/handler.py"),
    ("dictionaries: read, index, turn", "dictionary_for", "services/lexical/registry.py"),
    ("dictionaries: read, index, turn", "translations", "services/lexical/dictionary.py"),
    ("dictionaries: read, index, turn", "reversed", "services/lexical/dictionary.py"),
    # (the pair features' own index of the dictionary: in baselines before 4d9de12 only)
    ("dictionaries: read, index, turn", "_translations", "sentence_align/pair_features.py"),
    ("Model 1 training", "train_model1", "services/lexical/model1.py"),
    ("content extraction (trafilatura)", "extracted_text", "services/html/content.py"),
    ("language model load", "from_model_file", "py3langid/langid.py"),
    ("jieba's dictionary load", "initialize", "jieba/__init__.py"),
)


def crawls(folder: Path) -> dict[str, tuple[Path, Path, int]]:
    """name -> (the crawl's JSONL, its first page pair's JSONL, pages) in ``folder``."""
    from benchmarks.page_match.matching import suites

    rng = random.Random(SEED)
    written: dict[str, tuple[Path, Path, int]] = {}
    for number, (part, pair, documents) in enumerate(suites()):
        if part != "training":
            continue
        host = f"{pair}-dirs.example.org"
        template = TEMPLATES[number % len(TEMPLATES)]
        pages, gold = site_crawl(documents, "dirs", host, rng, [], template)
        by_url = {page.url: page for page in pages}
        first = sorted(gold)[0]
        whole, start = folder / f"{pair}.jsonl", folder / f"{pair}-first-pair.jsonl"
        whole.write_text("".join(_line(p.url, p.html) for p in pages), "utf-8")
        start.write_text("".join(_line(u, by_url[u].html) for u in first), "utf-8")
        written[pair] = (whole, start, len(pages))
    return written


def _line(url: str, html: str) -> str:
    return json.dumps({"url": url, "html": html}) + "\n"


def _environment(checkout: Path, folder: str) -> dict[str, str]:
    """This environment without PARAMINE_* settings, a fresh SQLite store in ``folder`` and
    ``checkout``'s code first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env["PARAMINE_DATABASE_URL"] = f"sqlite:///{folder}/store.db"
    env["PYTHONPATH"] = str(checkout)
    return env


def run(checkout: Path, crawl: Path) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, digest of the exported TSV) of one ``paramine process``."""
    with tempfile.TemporaryDirectory() as folder:
        env = _environment(checkout, folder)
        command = [str(PARAMINE), "process", str(crawl), "--out", f"{folder}/out", "-q"]
        wall = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=folder, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - wall
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise RuntimeError(f"{command} in {checkout} exited {status}")
        tsv = Path(folder, "out", "sentence_pairs.tsv").read_bytes()
    return usage.ru_utime + usage.ru_stime, wall, hashlib.sha256(tsv).hexdigest()[:16]


def measure(
    versions: Sequence[tuple[str, Path]], crawl: Path, repeats: int
) -> dict[str, tuple[list[float], list[float], set[str]]]:
    """Each version's CPU and wall seconds over ``repeats`` alternating runs, and the
    digests of what they exported."""
    for _, checkout in versions:
        run(checkout, crawl)  # untimed: caches
    figures: dict[str, tuple[list[float], list[float], set[str]]] = {
        name: ([], [], set()) for name, _ in versions
    }
    for _ in range(repeats):
        for name, checkout in versions:
            cpu, wall, digest = run(checkout, crawl)
            figures[name][0].append(cpu)
            figures[name][1].append(wall)
            figures[name][2].add(digest)
    return figures


def profile(checkout: Path, crawl: Path) -> dict[str, float]:
    """Wall seconds of each of the PARTS in one profiled run."""
    from pyinstrument.session import Session

    with tempfile.TemporaryDirectory() as folder:
        env = _environment(checkout, folder)
        session = Path(folder) / "run.pyisession"
        command = [
            str(PARAMINE.with_name("pyinstrument")), "-o", str(session), "-r", "session",
            str(PARAMINE), "process", str(crawl), "--out", f"{folder}/out", "-q",
        ]  # fmt: skip
        subprocess.run(command, env=env, cwd=folder, capture_output=True, check=False)
        root = Session.load(str(session)).root_frame()
    totals = {label: 0.0 for label, _, _ in PARTS}
    totals["whole run"] = root.time if root is not None else 0.0
    stack = [(root, frozenset[str]())] if root is not None else []
    while stack:
        frame, inside = stack.pop()
        path = (frame.file_path or "").replace("\\", "/")
        label = next(
            (name for name, function, ending in PARTS
             if frame.function.endswith(function) and path.endswith(ending)),
            None,
        )  # fmt: skip
        if label is not None and label not in inside:
            totals[label] += frame.time
            inside = inside | {label}
        stack += [(child, inside) for child in frame.children]
    return totals


def commit_of(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    dirty = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return done.stdout.strip() + (" + uncommitted changes" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout to compare")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true", help="leave out the profiles")
    args = parser.parse_args()
    baseline = args.baseline.resolve()
    versions = [("baseline", baseline), ("this code", REPO)]
    lines = [
        "# `paramine process` of a single-page crawl: CPU, this code against a baseline",
        "",
        f"Command: `.venv/bin/python -m benchmarks.system.process_cpu --baseline {args.baseline}`; "
        "protocol in the module docstring of `benchmarks/system/process_cpu.py`. Baseline "
        f"{commit_of(baseline)}, this code {commit_of(REPO)}; {os.cpu_count()} CPUs, "
        f"Python {sys.version.split()[0]}. Median of {args.repeats} alternating runs "
        "(CPU = user + system seconds of the process).",
        "",
        "| crawl | pages | version | whole CPU s | start-up CPU s | beyond start-up s "
        "| wall s | exported TSV |",
        "|---|---|---|---|---|---|---|---|",
    ]
    ratios: list[str] = []
    profiles: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for name, (whole, first, pages) in crawls(Path(folder)).items():
            crawl_figures = measure(versions, whole, args.repeats)
            start_figures = measure(versions, first, args.repeats)
            if not args.no_profile:  # after the measured runs: every cache warm
                parts = {version: profile(checkout, whole) for version, checkout in versions}
                profiles += [f"| {name} | {label} | " + " | ".join(
                    f"{parts[version][label]:.2f}" for version, _ in versions
                ) + " |" for label in parts["baseline"]]  # fmt: skip
            cpu: dict[str, tuple[float, float]] = {}
            digests = set()
            for version, _ in versions:
                whole_cpu = statistics.median(crawl_figures[version][0])
                start_cpu = statistics.median(start_figures[version][0])
                cpu[version] = (whole_cpu, whole_cpu - start_cpu)
                digests |= crawl_figures[version][2]
                lines.append(
                    f"| {name} | {pages} | {version} | {whole_cpu:.2f} | {start_cpu:.2f} "
                    f"| {whole_cpu - start_cpu:.2f} "
                    f"| {statistics.median(crawl_figures[version][1]):.2f} "
                    f"| {', '.join(sorted(crawl_figures[version][2]))} |"
                )
            (old_whole, old_beyond), (new_whole, new_beyond) = cpu["baseline"], cpu["this code"]
            ratios.append(
                f"- {name}: baseline / this code, whole {old_whole / new_whole:.2f}x, beyond "
                f"start-up {old_beyond / new_beyond:.2f}x; exported sentence pairs "
                f"{'byte-identical' if len(digests) == 1 else 'DIFFERENT'}"
            )
    lines += ["", "CPU ratios (more is faster):", "", *ratios]
    if profiles:
        lines += [
            "",
            "## Where the time goes (one profiled run each, wall seconds)",
            "",
            "| crawl | part | baseline | this code |",
            "|---|---|---|---|",
            *profiles,
        ]
    lines += ["", notes("earlier runs")]
    publish(RESULTS / "process_cpu.md", lines)


if __name__ == "__main__":
    main()
