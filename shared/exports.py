"""Sentence-pair exports: JSONL, Moses plain-text pair files and TSV with scores."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

EXPORT_FIELDS = ("id", "pair_id", "src_url", "tgt_url", "src_lang", "tgt_lang", "score", "bead")


def _clean(text: str) -> str:
    # One pair per line in Moses/TSV files: line breaks and tabs inside a sentence become spaces.
    return " ".join(text.split())


def jsonl_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """One JSON object per sentence pair, with ids, urls, languages, score and bead."""
    for row in rows:
        record = {key: row[key] for key in EXPORT_FIELDS}
        record["src"] = row["src_text"]
        record["tgt"] = row["tgt_text"]
        yield json.dumps(record, ensure_ascii=False) + "\n"


def tsv_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """``src<TAB>tgt<TAB>score<TAB>src_url<TAB>tgt_url`` with a header line."""
    yield "src\ttgt\tscore\tsrc_url\ttgt_url\n"
    for row in rows:
        yield (
            f"{_clean(row['src_text'])}\t{_clean(row['tgt_text'])}\t{row['score']:.6f}\t"
            f"{row['src_url']}\t{row['tgt_url']}\n"
        )


def write_moses(rows: Iterable[dict[str, Any]], prefix: Path) -> tuple[Path, Path, int]:
    """Moses plain text: ``PREFIX.<src_lang>`` and ``PREFIX.<tgt_lang>``, line i ↔ line i."""
    handles: dict[str, Any] = {}
    paths: list[Path] = []
    count = 0
    try:
        for row in rows:
            if not handles:
                src_lang, tgt_lang = row["src_lang"], row["tgt_lang"]
                if src_lang == tgt_lang:
                    src_lang, tgt_lang = f"{src_lang}.src", f"{tgt_lang}.tgt"
                for side, lang in (("src", src_lang), ("tgt", tgt_lang)):
                    path = prefix.with_name(f"{prefix.name}.{lang}")
                    paths.append(path)
                    handles[side] = path.open("w", encoding="utf-8")
            handles["src"].write(_clean(row["src_text"]) + "\n")
            handles["tgt"].write(_clean(row["tgt_text"]) + "\n")
            count += 1
    finally:
        for handle in handles.values():
            handle.close()
    if not paths:
        paths = [prefix.with_name(prefix.name + ".src"), prefix.with_name(prefix.name + ".tgt")]
        for path in paths:
            path.write_text("", encoding="utf-8")
    return paths[0], paths[1], count


def write_lines(lines: Iterable[str], path: Path) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line)
            count += 1
    return count
