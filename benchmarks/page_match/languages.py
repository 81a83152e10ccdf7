"""Benchmark: page_match on a site in three languages whose third language arrives later.

The kit's crawls hold two languages a site; a real site often has more, and its languages are
not crawled at once. Real parallel text in three languages and scripts the kit does not hold:
the Bible corpus of Christodoulopoulos and Steedman (2015; github.com/christos-c/bible-corpus,
CC0; bring it with the search tool's ``fetch`` and pass its git directory, ``--bible``), read
by ``benchmarks.sentence_align.scripts``. Gujarati, Ukrainian and Swahili New Testaments: one
page per chapter and language, its verses (those all three files hold) in paragraphs of
five, the chapter number as its heading, under opaque URLs (``/p/83412.html``: no URL rule
can pair them), 10% of each language's pages left out of the crawl, no language labels.
Gold: the pages of one chapter in two languages.

Three arrival orders, each through the page_match handler (the ``paramine process`` and
``POST /v1/pages`` path) into a fresh SQLite store, 25 pages a message, shuffled within
each phase: all three languages mixed; Gujarati and Ukrainian first, then Swahili; and, as
the reference, ``paramine match-pages``'s one-call matching of every page. Scores per
language pair: page-pair precision, recall and F1 (one-to-one, as WMT16).

Run: ``.venv/bin/python -m benchmarks.page_match.languages --bible
/work/.mirror/christos-c+bible-corpus/repo`` (writes
``benchmarks/results/page_match_languages.md``).
"""

from __future__ import annotations

import argparse
import html
import platform
import random
import time
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from benchmarks.common import RESULTS, notes, publish
from benchmarks.page_match.crawls import CrawledPage
from benchmarks.page_match.matching import score, streamed_pairs
from benchmarks.sentence_align.scripts import DEFAULT_BIBLE, FILES, Book, read_bible
from services.page_match.features import page_features
from services.page_match.matching import match_pages

RESULT = RESULTS / "page_match_languages.md"
LANGUAGES = ("gu", "uk", "sw")
SEED = 20261128
LEFT_OUT = 0.1
VERSES_PER_PARAGRAPH = 5
HOST = "bible.example"
# Written by hand from runs of this script on the code of each step (2026-11-28).
RECORD = [
    "## How the stage came to this (the same script on the code of each step)",
    "",
    notes("page-match-stage"),
    "",
    notes("without-a-dictionary"),
]


def chapter_pages(
    bibles: dict[str, dict[str, Book]], rng: random.Random
) -> tuple[dict[str, list[CrawledPage]], set[tuple[str, str]]]:
    """Each language's pages (one per chapter, some left out) and the gold page pairs."""
    books = sorted(set.intersection(*(set(bible) for bible in bibles.values())))
    urls: dict[tuple[str, int], dict[str, str]] = {}
    pages: dict[str, list[CrawledPage]] = {lang: [] for lang in bibles}
    for book in books:
        chapters = sorted({chapter for chapter, _ in bibles[LANGUAGES[0]][book]})
        for chapter in chapters:
            keys = sorted(
                key
                for key in bibles[LANGUAGES[0]][book]
                if key[0] == chapter and all(bibles[lang][book].get(key) for lang in bibles)
            )
            if not keys:
                continue
            for lang, bible in bibles.items():
                if rng.random() < LEFT_OUT:
                    continue
                verses = [bible[book][key] for key in keys]
                paragraphs = "".join(
                    "<p>" + html.escape(" ".join(verses[k : k + VERSES_PER_PARAGRAPH])) + "</p>"
                    for k in range(0, len(verses), VERSES_PER_PARAGRAPH)
                )
                url = f"https://{HOST}/p/{rng.randrange(10**8):08d}.html"
                page = f"<html><body><h1>{chapter}</h1>{paragraphs}</body></html>"
                pages[lang].append(CrawledPage(url, page))
                urls.setdefault((book, chapter), {})[lang] = url
    gold = {
        (found[a], found[b])
        for found in urls.values()
        for a, b in combinations(LANGUAGES, 2)
        if a in found and b in found
    }
    return pages, gold


def per_pair(
    found: set[tuple[str, str]], gold: set[tuple[str, str]], lang_of: dict[str, str]
) -> dict[str, tuple[float, float, float]]:
    """Precision, recall and F1 of each language pair (and all), by the gold pages' languages."""
    result = {"all": score(found, gold)}
    for a, b in combinations(LANGUAGES, 2):

        def within(pairs: set[tuple[str, str]], a: str = a, b: str = b) -> set[tuple[str, str]]:
            return {p for p in pairs if {lang_of.get(p[0]), lang_of.get(p[1])} == {a, b}}

        result[f"{a}-{b}"] = score(within(found, a, b), within(gold, a, b))
    return result


def orders(pages: dict[str, list[CrawledPage]], rng: random.Random) -> dict[str, list[CrawledPage]]:
    """The crawls to stream: all languages mixed, and the third language after the first two."""
    mixed = [page for lang in LANGUAGES for page in pages[lang]]
    rng.shuffle(mixed)
    first = [page for lang in LANGUAGES[:2] for page in pages[lang]]
    rng.shuffle(first)
    later = list(pages[LANGUAGES[2]])
    rng.shuffle(later)
    return {
        "streamed, three languages mixed": mixed,
        f"streamed, {LANGUAGES[0]} and {LANGUAGES[1]} first, then {LANGUAGES[2]}": first + later,
    }


def table(results: Sequence[tuple[str, dict[str, tuple[float, float, float]], float]]) -> list[str]:
    names = ["all", *(f"{a}-{b}" for a, b in combinations(LANGUAGES, 2))]
    lines = [
        "| arrival | " + " | ".join(f"{name} P / R / F1" for name in names) + " | seconds |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for name, scores, seconds in results:
        cells = " | ".join(
            f"{scores[n][0]:.3f} / {scores[n][1]:.3f} / **{scores[n][2]:.3f}**" for n in names
        )
        lines.append(f"| {name} | {cells} | {seconds:.0f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bible", type=Path, default=DEFAULT_BIBLE)
    args = parser.parse_args()
    bibles = {lang: read_bible(args.bible, FILES[lang]) for lang in LANGUAGES}
    rng = random.Random(SEED)
    pages, gold = chapter_pages(bibles, rng)
    lang_of = {page.url: lang for lang in LANGUAGES for page in pages[lang]}
    results = []
    for name, crawl in orders(pages, rng).items():
        started = time.perf_counter()
        found = streamed_pairs(crawl)
        results.append((name, per_pair(found, gold, lang_of), time.perf_counter() - started))
    started = time.perf_counter()
    features = [page_features(p.url, p.html) for lang in LANGUAGES for p in pages[lang]]
    found = {(m.src_url, m.tgt_url) for m in match_pages(features)}
    results.append(
        (
            "match-pages, every page at once",
            per_pair(found, gold, lang_of),
            time.perf_counter() - started,
        )
    )
    counts = ", ".join(f"{lang} {len(pages[lang])}" for lang in LANGUAGES)
    lines = [
        "# page_match on a site in three languages, the third arriving later",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` on {platform.machine()}, Python "
        f"{platform.python_version()}. Rerun: `.venv/bin/python -m benchmarks.page_match.languages "
        "--bible DIR` (DIR: the git directory `fetch` gives for christos-c/bible-corpus). "
        "Data and protocol: docstring of `benchmarks/page_match/languages.py`.",
        "",
        f"Pages: {counts} (one per chapter; 10% of each language left out); gold page pairs: "
        f"{len(gold)}. Default settings; no dictionary is installed for these languages.",
        "",
        *table(results),
        "",
        *RECORD,
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
