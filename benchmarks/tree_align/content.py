"""Benchmark: `paramine extract-content` against maintained extractors on real article pages.

Data: the kit's ``zyte-article-extraction-dev`` (121 crawled article pages of many sites and
languages with hand-checked article bodies; the other 60 of the benchmark are kept out of
the kit and measure the product). Metric: the benchmark's own (its SOURCE.md): tokens are
``\\w+`` matches, shingles runs of 4 tokens counted with multiplicity; per page TP, FP, FN
normalised by their sum, precision / recall / F1 from their means over pages; accuracy is the
share of pages whose token lists equal the gold's.

Side by side in one run: the product (``paramine extract-content --jsonl``, one process over
every page, its CPU time with start-up), and in this process trafilatura (its defaults,
``favor_precision`` as ``extract-content`` calls it, and ``favor_recall`` as the alignment
path calls it), resiliparse
(``extract_plain_text`` with ``main_content``), jusText (its English stop list: it needs
one per language) and every text of the page (resiliparse without ``main_content``: the
floor). Pages are decoded as the pipeline decodes (``shared.encoding``).

Run: ``.venv/bin/python -m benchmarks.tree_align.content``.
"""

from __future__ import annotations

import gzip
import json
import os
import platform
import re
import resource
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from benchmarks.common import KIT, PARAMINE, RESULTS, notes, publish
from shared.encoding import decode_page

RESULT = RESULTS / "content.md"
DATA = KIT / "zyte-article-extraction-dev"
TOKEN = re.compile(r"\w+")


def shingles(text: str) -> Counter[tuple[str, ...]]:
    tokens = TOKEN.findall(text)
    return Counter(tuple(tokens[k : k + 4]) for k in range(max(0, len(tokens) - 3)))


def score(gold: Mapping[str, str], predicted: Mapping[str, str]) -> tuple[float, ...]:
    """Precision, recall, F1 and accuracy by the benchmark's metric (module docstring)."""
    tp = fp = fn = 0.0
    exact = 0
    for key, truth in gold.items():
        true, pred = shingles(truth), shingles(predicted.get(key, ""))
        hits = sum((true & pred).values())
        false_pos = sum((pred - true).values())
        false_neg = sum((true - pred).values())
        total = hits + false_pos + false_neg
        if total:
            tp, fp, fn = tp + hits / total, fp + false_pos / total, fn + false_neg / total
        else:
            tp += 1
        exact += TOKEN.findall(truth) == TOKEN.findall(predicted.get(key, ""))
    n = len(gold)
    tp, fp, fn = tp / n, fp / n, fn / n
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0), exact / n


def peers() -> dict[str, Callable[[str, str], str]]:
    import justext  # type: ignore[import-untyped]
    import trafilatura
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    def traf(html: str, url: str) -> str:
        return trafilatura.extract(html, url=url, include_comments=False) or ""

    def traf_precision(html: str, url: str) -> str:
        found = trafilatura.extract(html, url=url, include_comments=False, favor_precision=True)
        return found or ""

    def traf_recall(html: str, url: str) -> str:
        found = trafilatura.extract(html, url=url, include_comments=False, favor_recall=True)
        return found or ""

    def resiliparse(html: str, url: str) -> str:
        tree = HTMLTree.parse(html)
        return str(extract_plain_text(tree, main_content=True, alt_texts=False, links=False))

    def just(html: str, url: str) -> str:
        paragraphs = justext.justext(html.encode("utf-8"), justext.get_stoplist("English"))
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    def everything(html: str, url: str) -> str:
        return str(extract_plain_text(HTMLTree.parse(html), main_content=False))

    return {
        "trafilatura (defaults)": traf,
        "trafilatura (favor_precision)": traf_precision,
        "trafilatura (favor_recall, as the alignment path's content model calls it)": traf_recall,
        "resiliparse (main_content)": resiliparse,
        "jusText (English stop list)": just,
        "all text (resiliparse, no extraction)": everything,
    }


def product(paths: list[Path]) -> tuple[dict[str, str], float]:
    """``paramine extract-content --jsonl`` over every page: texts by key, CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        [str(PARAMINE), "extract-content", "--jsonl", *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    texts = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        texts[Path(record["path"]).name.removesuffix(".html.gz")] = record["text"]
    return texts, cpu


def main() -> None:
    truth = json.loads((DATA / "ground-truth.json").read_text(encoding="utf-8"))
    gold = {key: value["articleBody"] for key, value in truth.items()}
    paths = [DATA / "html" / f"{key}.html.gz" for key in gold]
    pages = {
        key: decode_page(gzip.decompress(path.read_bytes()))[0]
        for key, path in zip(gold, paths, strict=True)
    }
    rows: list[tuple[str, tuple[float, ...], float]] = []
    texts, cpu = product(paths)
    rows.append(
        (
            "**paramine extract-content** (content model, trafilatura's favor_precision inside)",
            score(gold, texts),
            cpu,
        )
    )
    for name, extract in peers().items():
        started = time.process_time()
        found = {key: extract(pages[key], truth[key]["url"]) for key in gold}
        rows.append((name, score(gold, found), time.process_time() - started))
    lines = [
        "# Content extraction: `paramine extract-content` vs maintained extractors",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` on {platform.machine()}, "
        f"Python {platform.python_version()}; 2 cores shared, timings noisy.",
        "Rerun: `.venv/bin/python -m benchmarks.tree_align.content`. Data and metric: the "
        "docstring of",
        "`benchmarks/tree_align/content.py` (the kit's 121 Zyte article-extraction development "
        "pages, the",
        "benchmark's 4-token shingle metric).",
        "",
        "| extractor | precision | recall | F1 | accuracy | CPU ms / page |",
        "|---|---|---|---|---|---|",
    ]
    for name, (p, r, f, accuracy), seconds in rows:
        lines.append(
            f"| {name} | {p:.3f} | {r:.3f} | {f:.3f} | {accuracy:.3f} | "
            f"{1000 * seconds / len(gold):.1f} |"
        )
    product_f1 = rows[0][1][2]
    best_traf = max(rows[1][1][2], rows[2][1][2], rows[3][1][2])
    lines += [
        "",
        notes("the-product-s"),
        "",
        f"Acceptance: F1 >= 0.95 {'met' if product_f1 >= 0.95 else 'NOT met'} ({product_f1:.3f});"
        f" at least trafilatura's ({best_traf:.3f}, the best of its three settings) "
        f"{'met' if product_f1 >= best_traf else 'NOT met'}.",
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
