"""Benchmark: sentence alignment and splitting in scripts the development sets do not hold.

The kit's gold covers German, French, English, Chinese and Japanese. Hidden sets of other
languages measure the product too, so this run checks two things that only other scripts
exercise, on real parallel text with a gold of its own: the Bible corpus of Christodoulopoulos
and Steedman (2015; github.com/christos-c/bible-corpus, CC0), whose translations are aligned
by book, chapter and verse. Its files are not in the kit: bring the repository with the
search tool's ``fetch`` and pass its git directory (``--bible``); the large files of that
repository are Git LFS pointers there, so the languages are those whose files are present
(Gujarati, Armenian, Ukrainian, Swahili, Basque).

(a) Alignment, ``paramine align-sentences --presplit`` with default settings (one book a
    call, its verses as the units; a verse empty on either side is left out of both, so the
    gold is every verse 1-1), strict and lax F1 with the vecalign-style scorer of
    ``services.sentence_align.aligners.evaluate``. Gale-Church (the ``galechurch`` package) in
    the same run. The figures of the tokenizer the lexical model had before 2026-11-28 (Python's
    ``\\w``, which left out the vowel signs and viramas of Indic scripts) are recorded in
    ``benchmarks/results/tuning_history.md``; this run measures the product only.
(b) Splitting: each chapter's verses joined with spaces and split by ``split_sentences``
    with the language's code; recall of the verse ends that end with punctuation (a verse end
    the splitter cuts at), and sentences per verse (the recall before the language-specific
    look-alike terminators, Armenian ``:`` for ``։``: ``tuning_history.md``).

Run: ``.venv/bin/python -m benchmarks.sentence_align.scripts --bible
/work/.mirror/christos-c+bible-corpus/repo`` (writes
``benchmarks/results/sentence_align_scripts.md``).
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import time
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from pathlib import Path

from benchmarks.common import RESULTS, publish
from benchmarks.sentence_align.textberg import galechurch_aligner
from services.sentence_align.aligners import splitter
from services.sentence_align.aligners.align import align_sentences
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import BeadScores, score_documents

RESULT = RESULTS / "sentence_align_scripts.md"
DEFAULT_BIBLE = Path("/work/.mirror/christos-c+bible-corpus/repo")
# (file, language code) of the corpus files used; the pairs below
FILES = {
    "gu": "Gujarati-NT",
    "hy": "Armenian-PART",
    "uk": "Ukranian-NT",
    "sw": "Swahili-NT",
    "eu": "Basque-NT",
}
PAIRS = [("gu", "uk"), ("gu", "sw"), ("gu", "eu"), ("hy", "uk"), ("uk", "sw")]
Book = dict[tuple[int, int], str]  # (chapter, verse) -> text
Aligner = Callable[[Sequence[str], Sequence[str], str, str], list[Bead]]


def parse_bible(xml: str) -> dict[str, Book]:
    """Books of one corpus file: ``<seg id="b.MAT.1.1">`` verses, whitespace normalised."""
    books: dict[str, Book] = {}
    for seg in ET.fromstring(xml).iter("seg"):
        _, book, chapter, verse = (seg.get("id") or "").split(".")
        books.setdefault(book, {})[(int(chapter), int(verse))] = " ".join((seg.text or "").split())
    return books


def read_bible(repo: Path, name: str) -> dict[str, Book]:
    """One file of the fetched repository's git directory (no work tree there)."""
    xml = subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"HEAD:bibles/{name}.xml"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return parse_bible(xml)


def documents(
    src: dict[str, Book], tgt: dict[str, Book]
) -> list[tuple[list[str], list[str], list[Bead]]]:
    """One document a book both files hold: the verses with text on both sides, 1-1 gold."""
    result = []
    for book, verses in src.items():
        if book not in tgt:
            continue
        keys = [k for k in verses if verses[k] and tgt[book].get(k)]
        result.append(
            (
                [verses[k] for k in keys],
                [tgt[book][k] for k in keys],
                [Bead((i,), (i,)) for i in range(len(keys))],
            )
        )
    return result


def product(src: Sequence[str], tgt: Sequence[str], src_lang: str, tgt_lang: str) -> list[Bead]:
    """``paramine align-sentences --presplit`` with default settings."""
    return align_sentences(src, tgt, src_lang=src_lang, tgt_lang=tgt_lang)


def galechurch(src: Sequence[str], tgt: Sequence[str], src_lang: str, tgt_lang: str) -> list[Bead]:
    return galechurch_aligner(src, tgt)


def score(
    aligner: Aligner,
    docs: Sequence[tuple[list[str], list[str], list[Bead]]],
    langs: tuple[str, str],
) -> tuple[BeadScores, float]:
    started = time.perf_counter()
    tests = [aligner(s, t, langs[0], langs[1]) for s, t, _ in docs]
    return score_documents([g for _, _, g in docs], tests), time.perf_counter() - started


def verse_end_recall(books: dict[str, Book], lang: str) -> tuple[float, float, int]:
    """Recall of punctuated verse ends among the splitter's cuts, sentences per verse, and
    the number of punctuated verse ends (each chapter split as one text)."""
    found = expected = sentences = verses = 0
    for book in books.values():
        chapters: dict[int, list[str]] = {}
        for (chapter, _), text in sorted(book.items()):
            if text:
                chapters.setdefault(chapter, []).append(text)
        for texts in chapters.values():
            pieces = splitter.split_sentences(" ".join(texts), lang)
            sentences += len(pieces)
            verses += len(texts)
            cuts, position = set(), 0
            for piece in pieces:
                position += len("".join(piece.split()))
                cuts.add(position)
            position = 0
            for text in texts[:-1]:
                position += len("".join(text.split()))
                if unicodedata.category(text[-1]).startswith("P"):
                    expected += 1
                    found += position in cuts
    return (found / expected if expected else 0.0), sentences / max(verses, 1), expected


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bible", type=Path, default=DEFAULT_BIBLE)
    args = parser.parse_args()
    bibles = {lang: read_bible(args.bible, name) for lang, name in FILES.items()}
    lines = [
        "# Sentence alignment and splitting in other scripts: the Bible corpus",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` on {platform.machine()}, Python "
        f"{platform.python_version()}. Rerun: `.venv/bin/python -m "
        "benchmarks.sentence_align.scripts --bible DIR` (DIR: the git directory `fetch` "
        "gives for christos-c/bible-corpus). Data, "
        "protocol and scoring: docstring of `benchmarks/sentence_align/scripts.py`. Files: "
        + ", ".join(f"{name} ({lang})" for lang, name in FILES.items())
        + ". None of these languages has a dictionary installed: the default runs without one.",
        "",
        "## Alignment (verses as units, one book a call)",
        "",
        "| pair | books | verses | default F1 strict / lax "
        "| Gale-Church F1 strict / lax | default seconds |",
        "|---|---|---|---|---|---|",
    ]
    for src, tgt in PAIRS:
        docs = documents(bibles[src], bibles[tgt])
        langs = (src, tgt)
        default, seconds = score(product, docs, langs)
        gale, _ = score(galechurch, docs, langs)
        lines.append(
            f"| {src}-{tgt} | {len(docs)} | {sum(len(g) for _, _, g in docs)} | "
            f"**{default.f1_strict:.3f}** / {default.f1_lax:.3f} | "
            f"{gale.f1_strict:.3f} / {gale.f1_lax:.3f} | {seconds:.1f} |"
        )
    lines += [
        "",
        "## Splitting (each chapter one text)",
        "",
        "| language | punctuated verse ends | recall, default | sentences per verse, default |",
        "|---|---|---|---|",
    ]
    for lang in FILES:
        recall, per_verse, expected = verse_end_recall(bibles[lang], lang)
        lines.append(f"| {lang} | {expected} | **{recall:.3f}** | {per_verse:.2f} |")
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
