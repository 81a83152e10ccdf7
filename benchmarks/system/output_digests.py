"""Digests of the product's outputs, to show that a change of structure left them unchanged.

Not a benchmark (nothing is scored or timed): each output is produced by the ``paramine``
command a user runs, in a subprocess, its volatile fields (timestamps, the code-version
digest, ids derived from the checkout's file paths) dropped or normalised, its rows sorted,
and hashed with SHA-256.

(a) The sample crawl run embedded: the shipped sample thesaurus imported, ``paramine process
    samples/crawl samples/pages.jsonl`` into a fresh SQLite store (PARAMINE_DATABASE_URL), the
    thesaurus built over a small Japanese corpus, then the exports: sentence pairs (jsonl),
    tree_align's chunk pairs (the store's ``node_pairs`` table: no export holds them), the
    phrase table (ppdb) and the similarity snapshot (thesaurus-csv).
(b) Benchmark inputs through the algorithm commands: page pairs of the tree_align suite
    (``benchmarks/tree_align/suite.py``, validation part) through ``paramine align-pages``;
    Text+Berg de-fr dev and test4 through ``paramine align-sentences`` (defaults, pre-split);
    Edinburgh++ test through ``paramine align-words``.

    python -m benchmarks.system.output_digests               # print the digests as JSON
    python -m benchmarks.system.output_digests --write FILE  # write them to FILE
    python -m benchmarks.system.output_digests --check FILE  # compare with FILE; exit 1 if
                                                             # not identical

Digests are kept in ``benchmarks/results/output_digests.json``; the commit that writes them
says which code they are of.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from benchmarks.common import KIT, PARAMINE, REPO

SAMPLES = REPO / "samples"
# Page pairs of the tree_align suite's validation part: one per language set.
SUITE_PAIRS = (0, 3, 14, 22, 34, 35)
TEXTBERG_DOCUMENTS = ("dev", "test4")
# The README's thesaurus example corpus: gives the sample thesaurus a similarity snapshot.
THESAURUS_CORPUS = (
    "医者が患者を診る。教師が学生を教える。先生が学生を教える。\n"
    "記者が社長を取材する。作家が本を書く。母が子供を育てる。父が子供を育てる。\n"
    "政府が会社を支援する。銀行が企業を支援する。県が市を支援する。\n"
    "子供が母を呼ぶ。子供が父を呼ぶ。学生が先生を呼ぶ。学生が教師を呼ぶ。\n"
)
# Fields of an exported sentence pair that depend on the run or the checkout, not on the
# aligners: the code-version digest (of every source file) and the ids (hashes of the URLs,
# which hold the checkout's path).
VOLATILE_PAIR_FIELDS = ("version", "id", "pair_id")


def paramine(*arguments: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> str:
    """Standard output of one ``paramine`` command (stderr passed through; fails loudly)."""
    result = subprocess.run(
        [str(PARAMINE), *arguments],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        check=True,
        text=True,
        encoding="utf-8",
    )
    return result.stdout


def digest(lines: Iterable[str]) -> str:
    """SHA-256 of the sorted lines (one newline after each)."""
    hasher = hashlib.sha256()
    for line in sorted(lines):
        hasher.update(line.encode("utf-8") + b"\n")
    return hasher.hexdigest()


def _normalised_url(url: str) -> str:
    return url.replace(SAMPLES.as_uri(), "samples:")


def sentence_pair_lines(jsonl: str) -> list[str]:
    """Exported sentence pairs without their volatile fields, URLs relative to samples/."""
    lines = []
    for line in jsonl.splitlines():
        row = json.loads(line)
        for name in VOLATILE_PAIR_FIELDS:
            row.pop(name, None)
        row["src_url"] = _normalised_url(row["src_url"])
        row["tgt_url"] = _normalised_url(row["tgt_url"])
        lines.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    return lines


def chunk_pair_lines(database: Path) -> list[str]:
    """The store's node pairs, each keyed by its page pair's URLs instead of its id."""
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT DISTINCT p.src_url, p.tgt_url, n.chunk, n.src_xpath, n.tgt_xpath,"
            " n.src_text, n.tgt_text, n.cost"
            " FROM node_pairs n JOIN job_pairs p ON p.pair_id = n.pair_id"
        ).fetchall()
        unmatched = connection.execute(
            "SELECT COUNT(*) FROM node_pairs WHERE pair_id NOT IN (SELECT pair_id FROM job_pairs)"
        ).fetchone()[0]
    if unmatched:
        raise SystemExit(f"{unmatched} node pairs have no page pair: cannot key them by URL")
    return [
        json.dumps([_normalised_url(src), _normalised_url(tgt), *rest], ensure_ascii=False)
        for src, tgt, *rest in rows
    ]


def sample_crawl() -> dict[str, dict[str, object]]:
    """(a): the sample crawl run embedded, then its exports."""
    with tempfile.TemporaryDirectory(prefix="paramine-digests-") as folder:
        work = Path(folder)
        database = work / "store.db"
        env = {**os.environ, "PARAMINE_DATABASE_URL": f"sqlite:///{database}"}
        env.pop("PARAMINE_REDIS_URL", None)
        thesaurus = REPO / "services" / "thesaurus" / "sample_thesaurus.csv"
        paramine("thesaurus", "import-wlsp", str(thesaurus), "--encoding", "utf-8", env=env)
        process = [
            "process",
            str(SAMPLES / "crawl"),
            str(SAMPLES / "pages.jsonl"),
            "--out",
            str(work / "out"),
            "-q",
        ]
        paramine(*process, env=env)
        corpus = work / "corpus.txt"
        corpus.write_text(THESAURUS_CORPUS, encoding="utf-8")
        build = ["thesaurus", "build", "--corpus", str(corpus), "--min-pair", "1"]
        paramine(*build, "--min-verb", "1", env=env)
        pairs = sentence_pair_lines(paramine("export", "--format", "jsonl", "--all", env=env))
        chunks = chunk_pair_lines(database)
        ppdb = paramine("export", "--format", "ppdb", env=env).splitlines()
        similarity = paramine("export", "--format", "thesaurus-csv", env=env).splitlines()
    return {
        "sample crawl: sentence pairs (export jsonl --all)": entry(pairs),
        "sample crawl: chunk pairs (node_pairs)": entry(chunks),
        "sample crawl: phrase table (export ppdb)": entry(ppdb),
        "sample crawl: thesaurus snapshot (export thesaurus-csv)": entry(similarity),
    }


def entry(lines: list[str]) -> dict[str, object]:
    return {"rows": len(lines), "sha256": digest(lines)}


def suite_pages() -> dict[str, dict[str, object]]:
    """(b): page pairs of the tree_align suite through ``paramine align-pages``."""
    from benchmarks.tree_align.suite import suite

    pairs = suite("validation")
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="paramine-digests-") as folder:
        for number in SUITE_PAIRS:
            pair = pairs[number]
            src, tgt = Path(folder) / f"{number}.src.html", Path(folder) / f"{number}.tgt.html"
            src.write_text(pair.pages[0].html, encoding="utf-8")
            tgt.write_text(pair.pages[1].html, encoding="utf-8")
            languages = ["--src-lang", pair.langs[0], "--tgt-lang", pair.langs[1]]
            output = paramine("align-pages", str(src), str(tgt), *languages)
            lines += [f"{number}\t{line}" for line in output.splitlines()]
    return {f"tree_align suite pairs {list(SUITE_PAIRS)}: align-pages": entry(lines)}


def textberg() -> dict[str, dict[str, object]]:
    """(b): Text+Berg de-fr documents through ``paramine align-sentences`` (defaults)."""
    folder = KIT / "textberg-bleualign-de-fr"
    texts = [str(folder / f"{doc}.{lang}") for doc in TEXTBERG_DOCUMENTS for lang in ("de", "fr")]
    options = ["--presplit", "--src-lang", "de", "--tgt-lang", "fr"]
    output = paramine("align-sentences", *texts, *options).splitlines()
    # the "# SRC TGT" headers name kit paths; beads keep their order inside a document
    lines = [f"{n:06d}\t{line.replace(str(folder), 'textberg')}" for n, line in enumerate(output)]
    return {f"Text+Berg {'+'.join(TEXTBERG_DOCUMENTS)}: align-sentences": entry(lines)}


def edinburgh() -> dict[str, dict[str, object]]:
    """(b): Edinburgh++ test through ``paramine align-words`` (default: the shipped model)."""
    from services.paraphrase.evaluate import read_jacana

    gold = read_jacana(KIT / "edinburgh-plusplus-jacana" / "gold.test.sure.json")
    with tempfile.TemporaryDirectory(prefix="paramine-digests-") as folder:
        pairs = Path(folder) / "pairs.tsv"
        pairs.write_text(
            "".join(f"{' '.join(g.source)}\t{' '.join(g.target)}\n" for g in gold),
            encoding="utf-8",
        )
        output = paramine("align-words", str(pairs), "-q").splitlines()
    lines = [f"{n:06d}\t{line}" for n, line in enumerate(output)]
    return {f"Edinburgh++ test ({len(gold)} pairs): align-words": entry(lines)}


def all_digests() -> dict[str, dict[str, object]]:
    if not KIT.is_dir():
        raise SystemExit(f"the kit's data is not at {KIT}")
    return {**sample_crawl(), **suite_pages(), **textberg(), **edinburgh()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", type=Path, help="write the digests to this JSON file")
    group.add_argument("--check", type=Path, help="compare the digests with this JSON file")
    arguments = parser.parse_args(argv)
    digests = all_digests()
    text = json.dumps(digests, ensure_ascii=False, indent=2) + "\n"
    if arguments.write:
        arguments.write.write_text(text, encoding="utf-8")
    if not arguments.check:
        print(text, end="")
        return 0
    expected = json.loads(arguments.check.read_text(encoding="utf-8"))
    differing = [
        name for name in sorted(expected.keys() | digests.keys())
        if expected.get(name) != digests.get(name)
    ]  # fmt: skip
    for name in differing:
        print(f"DIFFERS {name}: {expected.get(name)} -> {digests.get(name)}")
    if not differing:
        print(f"identical: all {len(digests)} digests match {arguments.check}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
