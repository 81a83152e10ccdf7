"""The corpus a user gets from the README's example command on the real albatec crawl
(``../shared/data/bitextor-albatec-lett/v2.lett.gz``), with default settings: every stored
sentence pair (what ``paramine export`` gave before dedup and flags) against the default
export (each distinct pair once, untranslated and wrong-language pairs left out).

``.venv/bin/python -m benchmarks.clean_corpus`` runs ``paramine process`` as the README
says, in a temp folder with a fresh store, then ``paramine export`` with and without
``--all --duplicates``; results in ``benchmarks/results/clean_corpus.md``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks._report import publish
from shared.corpus_clean import normalise

REPO = Path(__file__).resolve().parents[1]
KIT = Path(os.environ.get("PARAMINE_KIT_DATA", REPO.parent / "shared" / "data"))
CRAWL = KIT / "bitextor-albatec-lett" / "v2.lett.gz"
RESULT = REPO / "benchmarks" / "results" / "clean_corpus.md"
PARAMINE = Path(sys.executable).parent / "paramine"
COMMAND = [str(CRAWL), "--src-lang", "en", "--tgt-lang", "de", "--url-key", r"/(\d+)-\d-"]


def _export(env: dict[str, str], *options: str) -> tuple[list[dict[str, Any]], str]:
    done = subprocess.run(
        [str(PARAMINE), "export", "--format", "jsonl", *options],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def describe(records: list[dict[str, Any]]) -> dict[str, int]:
    """Pairs, distinct by exact text, distinct by the normalised key, same text on both sides."""
    texts = [(r["src"], r["tgt"]) for r in records]
    keys = [(normalise(src), normalise(tgt)) for src, tgt in texts]
    return {
        "pairs": len(records),
        "distinct texts": len(set(texts)),
        "distinct keys": len(set(keys)),
        "identical sides": sum(src == tgt for src, tgt in texts),
        "identical once normalised": sum(a == b for a, b in keys),
    }


def main() -> None:
    if not CRAWL.exists():
        raise SystemExit(f"data kit file {CRAWL} is absent (set PARAMINE_KIT_DATA)")
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PARAMINE_DATABASE_URL": f"sqlite:///{folder}/store.db",
               "COLUMNS": "200"}  # fmt: skip
        started = time.perf_counter()
        subprocess.run([str(PARAMINE), "process", *COMMAND, "-q", "--out", f"{folder}/out"],
                       env=env, check=True, cwd=folder)  # fmt: skip
        seconds = time.perf_counter() - started
        stored, _ = _export(env, "--all", "--duplicates")
        default, messages = _export(env)
        out = (Path(folder) / "out" / "sentence_pairs.jsonl").read_text(encoding="utf-8")
    same_as_process = [json.loads(line)["id"] for line in out.splitlines()] == [
        r["id"] for r in default
    ]
    before, after = describe(stored), describe(default)
    flags = Counter(r.get("flag", "") or "none" for r in stored)
    flagged = Counter(r["flag"] for r in stored if r.get("flag"))
    lines = [
        "# Clean corpus out (albatec crawl, default settings)",
        "",
        "`.venv/bin/python -m benchmarks.clean_corpus`: `paramine process "
        + " ".join(COMMAND).replace(str(KIT), "../shared/data")
        + f"` ({seconds:.0f} s here), then `paramine export` (default) against "
        "`paramine export --all --duplicates` (every stored pair: what the export gave before "
        "deduplication and flags).",
        "",
        "| | every stored pair (before) | default export (after) |",
        "|---|---|---|",
        *(f"| {name} | {before[name]} | {after[name]} |" for name in before),
        "",
        "Flags of the stored pairs: "
        + ", ".join(f"{flag} {count}" for flag, count in sorted(flags.items()))
        + ".",
        f"Occurrences the default export's counts stand for: {sum(r['count'] for r in default)}"
        f" (the stored pairs less the flagged ones: {len(stored) - sum(flagged.values())}).",
        f"`process`'s own `out/sentence_pairs.jsonl` is the default export: {same_as_process}.",
        "",
        "What the export said on standard error:",
        "",
        *(f"    {line}" for line in messages.splitlines()),
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
