"""The corpus a user gets from the README's example command on the real albatec crawl
(``../shared/data/bitextor-albatec-lett/v2.lett.gz``), with default settings: every stored
sentence pair (what ``paramine export`` gave before dedup and flags) against the default
export (each distinct pair once, untranslated and wrong-language pairs left out).

``.venv/bin/python -m benchmarks.system.clean_corpus`` runs ``paramine process`` as the README
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

from benchmarks.common import KIT, RESULTS, publish
from shared.corpus_clean import normalise, pair_flag

CRAWL = KIT / "bitextor-albatec-lett" / "v2.lett.gz"
RESULT = RESULTS / "clean_corpus.md"
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


def gold_flags() -> tuple[int, Counter[str], list[tuple[str, str, str]]]:
    """The flags on real translations: every 1-1 or larger bead of the Text+Berg de-fr test
    gold (``test0``-``test6``): how many beads, their flags, the flagged ones."""
    folder = KIT / "textberg-bleualign-de-fr"
    beads = 0
    flags: Counter[str] = Counter()
    flagged = []
    for number in range(7):
        de = (folder / f"test{number}.de").read_text(encoding="utf-8").splitlines()
        fr = (folder / f"test{number}.fr").read_text(encoding="utf-8").splitlines()
        for line in (folder / f"test{number}.defr").read_text(encoding="utf-8").splitlines():
            src_ids, tgt_ids = (json.loads(side) for side in line.split(":"))
            if not src_ids or not tgt_ids:
                continue
            src = " ".join(de[i] for i in src_ids)
            tgt = " ".join(fr[i] for i in tgt_ids)
            flag = pair_flag(src, tgt, "de", "fr")
            beads += 1
            flags[flag or "none"] += 1
            if flag:
                flagged.append((flag, src, tgt))
    return beads, flags, flagged


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
        "`.venv/bin/python -m benchmarks.system.clean_corpus`: `paramine process "
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
    beads, gold, flagged_gold = gold_flags()
    lines += [
        "",
        "## The flags on real translations",
        "",
        f"Every bead of the Text+Berg de-fr test gold (`test0`-`test6`, {beads} beads with "
        "both sides) flagged as `pair_flag` flags a stored pair: "
        + ", ".join(f"{flag} {count}" for flag, count in sorted(gold.items()))
        + f" ({sum(c for f, c in gold.items() if f != 'none') / beads:.2%} flagged).",
        f"Of the {len(flagged_gold)} flagged, "
        f"{sum(normalise(a) == normalise(b) for _, a, b in flagged_gold)} have the same text on "
        "both sides once normalised (names, places, interjections: pairs ParaCrawl-style "
        "cleaning drops too, as they only teach a model to copy); "
        f"{gold['wrong-language']} gold pairs are flagged wrong-language.",
        "",
        *(f"- {flag}: {src[:80]!r} ||| {tgt[:80]!r}" for flag, src, tgt in flagged_gold[:20]),
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
