"""What every benchmark shares, in one module.

Paths: the repository, the data kit read in place (``KIT``: ``../shared/data`` beside the
repository, or the folder ``PARAMINE_KIT_DATA`` names, as for the tests; nothing is copied
from it into the repository), the results folder and the installed ``paramine`` command.

Timing: ``best_of`` times a call several times (the best wall and CPU seconds);
``child_json`` runs a benchmark module's child mode in a fresh interpreter and reads its JSON.

Reports: ``publish`` writes a results file (every benchmark ends the same way) and keeps its
hand-written notes (``notes``: tuning records and explanations live in the results file, not
in the script); ``peak_rss_mb`` measures a process's peak memory the same way everywhere.

Generated inputs: ``generate_pair``, a news-size page pair (an English article of 5-20 KB of
HTML with site furniture, and its pseudo-translation, a paragraph sometimes left out),
deterministic for a seeded ``random.Random``; the load test (``system.pipeline_load``),
and ``sentence_align.pages`` read it. The tree_align suite's page families
stay in ``tree_align.suite`` and ``tree_align.pagegen``.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parents[1]
KIT = Path(os.environ.get("PARAMINE_KIT_DATA", REPO.parent / "shared" / "data"))
RESULTS = REPO / "benchmarks" / "results"
PARAMINE = Path(sys.executable).with_name("paramine")


def best_of(repeats: int, call: Callable[[], T]) -> tuple[T, float, float]:
    """``call``'s last result and its best wall and best CPU seconds over ``repeats`` runs."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return result, best_wall, best_cpu


def child_json(module: str, *args: str) -> Any:
    """``python -m module args`` in a fresh interpreter (so its memory and start are its own),
    from the repository; the JSON of its last line of output."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args], cwd=REPO, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


NOTES_END = "<!-- /notes -->"
_NOTES_START = re.compile(r"<!-- notes: ([\w-]+) -->")


def notes(name: str) -> str:
    """A report line standing for the hand-written block ``name`` of the results file:
    ``publish`` puts there the file's block as it stands, from this line to ``NOTES_END``."""
    return f"<!-- notes: {name} -->"


def _notes_blocks(previous: str) -> dict[str, str]:
    """The notes blocks of a results file by name, each from its start line to its end line
    (markers indented like a list item's text, so that a block inside a list stays in it)."""
    blocks: dict[str, str] = {}
    name, block = "", []
    for line in previous.split("\n"):
        start = _NOTES_START.fullmatch(line.strip())
        if not name and start:
            name, block = start[1], [line]
        elif name:
            block.append(line)
            if line.strip() == NOTES_END:
                blocks.setdefault(name, "\n".join(block))
                name = ""
    return blocks


def keep_notes(text: str, previous: str) -> str:
    """``text`` with each ``notes`` line replaced by that block of ``previous`` (the results
    file as it stands), markers included; a block ``previous`` lacks is left empty, said on
    stderr. Text without ``notes`` lines comes back unchanged."""
    blocks = _notes_blocks(previous)
    lines = []
    for line in text.split("\n"):
        start = _NOTES_START.fullmatch(line)
        if start and start[1] not in blocks:
            print(f"no notes {start[1]!r} in the results file: left empty", file=sys.stderr)
        lines.append(blocks.get(start[1], f"{line}\n{NOTES_END}") if start else line)
    return "\n".join(lines)


def publish(path: Path, lines: Sequence[str]) -> None:
    """Write the report's lines to ``path`` (one trailing newline), keeping the hand-written
    blocks its ``notes`` lines name from the file as it stands, and print the text."""
    text = "\n".join(lines).rstrip("\n") + "\n"
    if any(_NOTES_START.fullmatch(line) for line in lines):
        previous = path.read_text(encoding="utf-8") if path.exists() else ""
        text = keep_notes(text, previous)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(text, end="")


def peak_rss_mb(status: Path = Path("/proc/self/status")) -> float:
    """This process's peak resident memory in MB: ``VmHWM``, the high-water mark of the
    program it now runs.

    Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux carries the high-water mark of the
    process image an ``exec`` replaced into it, so a subprocess started from a large parent
    (pytest, a benchmark that already holds its data) reports at least the parent's size at
    the fork. A hostile-input test run under the full test suite read pytest's 516 MB that
    way for a parse that peaks at 39 MB."""
    for line in status.read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB
    raise RuntimeError(f"no VmHWM line in {status}")


SUBJECTS = (
    "The city council", "A regional rail operator", "The museum", "Local farmers",
    "The weather service",
    "A team of researchers", "The university hospital", "Harbour authorities", "The football club",
    "A small software company", "Residents of the old town", "The national library", "Firefighters",
    "The energy supplier", "Two schools in the district", "The tourist office",
)  # fmt: skip
VERBS = (
    "announced", "postponed", "approved", "criticised", "presented", "reported", "expanded",
    "opened", "reviewed", "delayed", "celebrated", "investigated", "welcomed", "rejected",
)  # fmt: skip
OBJECTS = (
    "a new timetable for the summer season", "plans to renovate the central station",
    "an exhibition of early photographs", "the budget for the coming year",
    "a study on air quality near the motorway", "the results of the spring harvest",
    "a programme to train young engineers", "changes to the parking rules downtown",
    "a partnership with a hospital abroad", "the reopening of the swimming pool",
    "a warning about heavy rain and strong winds", "the construction of a cycle bridge",
    "record visitor numbers over the holidays", "a dispute over water prices",
)  # fmt: skip
CLAUSES = (
    "after months of debate", "despite protests from neighbours", "according to a spokesperson",
    "on Tuesday morning", "for the first time in a decade", "with support from the region",
    "as costs continued to rise", "following a public consultation", "earlier than expected",
    "in a statement published online", "while the investigation continues", "at a press conference",
)  # fmt: skip
NAV = ("Home", "News", "Politics", "Business", "Culture", "Sport", "Weather", "Contact")


def _sentence(rng: random.Random) -> str:
    parts = [rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)]
    if rng.random() < 0.7:
        parts.append(rng.choice(CLAUSES))
    if rng.random() < 0.3:
        parts.append(f"and {rng.randint(2, 950)} people took part")
    return " ".join(parts) + "."


def _pseudo_translate(text: str) -> str:
    """A stand-in target language: every word changed deterministically, lengths correlated."""
    words = []
    for word in text.split(" "):
        core = word.rstrip(".,")
        tail = word[len(core) :]
        changed = core[::-1].lower() + ("en" if len(core) > 4 else "") if core.isalpha() else core
        words.append(changed.capitalize() + tail if core[:1].isupper() else changed + tail)
    return " ".join(words)


def _page(lang: str, title: str, paragraphs: list[list[str]], related: list[str], url: str) -> str:
    body = "\n".join(
        (f"<h2>{para[0]}</h2>\n" if index % 4 == 3 else "") + f"<p>{' '.join(para)}</p>"
        for index, para in enumerate(paragraphs)
    )
    nav = "".join(f'<li><a href="/{lang}/{item.lower()}">{item}</a></li>' for item in NAV)
    aside = "".join(
        f'<li><a href="/{lang}/story/{i}">{text}</a></li>' for i, text in enumerate(related)
    )
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
        f'<link rel="canonical" href="{url}"></head>\n<body><header>'
        '<div class="logo">Daily Courier</div>'
        f"<nav><ul>{nav}</ul></nav></header>\n<main><article><h1>{title}</h1>"
        f'<p class="byline">Staff reporter</p>\n{body}\n</article>'
        f"<aside><h3>Related</h3><ul>{aside}</ul></aside></main>\n<footer><p>© Daily Courier. "
        f'All rights reserved.</p><a href="/{lang}/imprint">Imprint</a></footer></body></html>\n'
    )


def generate_pair(rng: random.Random, serial: int) -> dict[str, Any]:
    """One news article and its pseudo-translation, each about 5-20 KB of HTML."""
    target_bytes = rng.randint(5_000, 20_000)
    paragraphs: list[list[str]] = []
    size = 1_800  # page furniture
    while size < target_bytes:
        paragraph = [_sentence(rng) for _ in range(rng.randint(2, 6))]
        paragraphs.append(paragraph)
        size += sum(len(s) + 1 for s in paragraph) + 8
    title = f"{_sentence(rng)[:-1]} ({serial})"
    related = [_sentence(rng)[:-1] for _ in range(4)]
    translated = [[_pseudo_translate(s) for s in paragraph] for paragraph in paragraphs]
    if len(translated) > 3 and rng.random() < 0.3:
        del translated[rng.randrange(len(translated))]  # translations are not always complete
    src_url = f"https://courier.example.org/en/story/{serial}"
    tgt_url = f"https://courier.example.org/de/story/{serial}"
    return {
        "kind": "translation",
        "src": {
            "url": src_url,
            "lang": "en",
            "html": _page("en", title, paragraphs, related, src_url),
        },
        "tgt": {
            "url": tgt_url,
            "lang": "de",
            "html": _page(
                "de",
                _pseudo_translate(title),
                translated,
                [_pseudo_translate(r) for r in related],
                tgt_url,
            ),
        },
    }
