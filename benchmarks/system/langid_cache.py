"""The wrong-language check's verdict cache on a real site crawl: how much of a site's text
repeats from page to page, and what the cache saves.

Text: the pages of the albatec-al.de crawl (``../shared/data/bitextor-albatec-lett/v2.lett.gz``,
97 pages, English and German, each with its language and extracted text), one line per text
block, in crawl order, lines of 10 letters or more (shorter ones are never checked). Each line
is checked against its page's language with :func:`shared.langid.wrong_language`, once with
the cache of :func:`shared.langid.declared_probability` and once with it bypassed (the same
verdicts are asserted). CPU time, best of 3 rounds, the cache cleared before each. Run from the
repository root: ``.venv/bin/python -m benchmarks.system.langid_cache``.
"""

from __future__ import annotations

import base64
import functools
import gzip
import time
from collections import Counter
from collections.abc import Callable

from benchmarks.common import KIT, RESULTS, publish
from shared import langid

RESULT = RESULTS / "langid_cache.md"
CRAWL = KIT / "bitextor-albatec-lett" / "v2.lett.gz"
ROUNDS = 3


def crawl_lines() -> list[tuple[str, str]]:
    """(line, page language) of every checked text line, page by page in crawl order."""
    lines: list[tuple[str, str]] = []
    with gzip.open(CRAWL, "rt", encoding="utf-8") as handle:
        for row in handle:
            fields = row.rstrip("\n").split("\t")
            if len(fields) < 6:
                continue
            lang, text = fields[0], base64.b64decode(fields[5]).decode("utf-8", "replace")
            for line in text.split("\n"):
                line = line.strip()
                if langid.has_letters(line, langid.MIN_LETTERS):
                    lines.append((line, lang))
    return lines


def best_seconds(check: Callable[[str, str], bool], lines: list[tuple[str, str]]) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        langid.clear_cache()
        started = time.process_time()
        for text, lang in lines:
            check(text, lang)
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    lines = crawl_lines()
    langid.wrong_language("warm up the model once", "en")
    cached = [langid.wrong_language(text, lang) for text, lang in lines]
    plain = [langid.wrong_language(text, lang, cache=False) for text, lang in lines]
    assert cached == plain, "the cache changed a verdict"
    counts = Counter(lines)
    repeated = sum(count for count in counts.values() if count > 1)
    cacheable = sum(1 for text, _ in lines if len(text) <= langid.CACHED_CHARS)
    with_cache = best_seconds(langid.wrong_language, lines)
    without = best_seconds(functools.partial(langid.wrong_language, cache=False), lines)
    publish(
        RESULT,
        [
            "# The wrong-language check's verdict cache on a real crawl",
            "",
            "Rerun: `.venv/bin/python -m benchmarks.system.langid_cache`.",
            "",
            " ".join(__doc__.split("\n\n", 1)[1].split()),
            "",
            "| lines checked | distinct | lines that stand on another page too | lines short"
            " enough to cache | flagged | CPU without cache | with cache | ratio |",
            "|---|---|---|---|---|---|---|---|",
            f"| {len(lines)} | {len(counts)} | {repeated} ({repeated / len(lines):.0%}) |"
            f" {cacheable} (≤ {langid.CACHED_CHARS} characters) | {sum(cached)} |"
            f" {1000 * without:.1f} ms | {1000 * with_cache:.1f} ms |"
            f" {with_cache / without:.2f} |",
            "",
            "The cache holds up to"
            f" {langid.CACHE_SIZE} texts of at most {langid.CACHED_CHARS} characters each"
            " (a few MB); verdicts are the same with and without it (asserted). The load"
            " benchmark's generated pages repeat no sentence, so it gains nothing there.",
        ],
    )


if __name__ == "__main__":
    main()
