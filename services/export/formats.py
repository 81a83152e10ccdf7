"""Sentence pairs as text: JSONL records, TSV rows and Moses' line-parallel files (TMX is
:mod:`services.export.tmx`), the same bytes for ``paramine export``, ``paramine process``'s
output folder and the gateway's downloads."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from shared.errors import InvalidInput
from shared.sentence_pair import StoredSentencePair

# What ends a line for str.splitlines (and so for a reader of Moses or TSV files), and tab.
_LINE_OR_COLUMN_BREAK = re.compile("[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]")
# Line separators JSON leaves as they are: escaped, so a reader splitting lines keeps a record.
_JSON_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _clean(text: str) -> str:
    """One pair per line in Moses/TSV files: line breaks and tabs inside a sentence become
    spaces, nothing else (all whitespace was collapsed: an ideographic space or a no-break
    space became a plain one, and the export no longer matched the stored sentence)."""
    return _LINE_OR_COLUMN_BREAK.sub(" ", text)


def jsonl_lines(rows: Iterable[StoredSentencePair]) -> Iterator[str]:
    """One JSON object per sentence pair, with ids, urls, languages, score (the pair
    classifier's probability), the bead and its DP posterior, its occurrence count (a
    listing of every occurrence: 1), flag (when kept) and provenance (what produced it)."""
    for row in rows:
        record: dict[str, object] = {
            "id": row.id,
            "pair_id": row.pair_id,
            "src_url": row.src_url,
            "tgt_url": row.tgt_url,
            "src_lang": row.src_lang,
            "tgt_lang": row.tgt_lang,
            "score": row.score,
            "bead": row.bead,
            "posterior": row.posterior,  # the DP's; score: the pair classifier's
            "count": row.count,
        }
        if row.flag:
            record["flag"] = row.flag
        record |= {"method": row.method, "version": row.version, "model_version": row.model_version}
        record["src"] = row.src_text
        record["tgt"] = row.tgt_text
        yield json.dumps(record, ensure_ascii=False).translate(_JSON_LINE_BREAKS) + "\n"


def tsv_lines(rows: Iterable[StoredSentencePair]) -> Iterator[str]:
    """``src<TAB>tgt<TAB>score<TAB>src_url<TAB>tgt_url<TAB>count`` with a header line."""
    yield "src\ttgt\tscore\tsrc_url\ttgt_url\tcount\n"
    for row in rows:
        yield (
            f"{_clean(row.src_text)}\t{_clean(row.tgt_text)}\t{row.score:.6f}\t"
            f"{_clean(row.src_url)}\t{_clean(row.tgt_url)}\t"  # a tab in a URL split rows
            f"{row.count}\n"
        )


@dataclass(frozen=True)
class MosesCorpus:
    """The two files of one language pair's Moses corpus: line i of ``src`` ↔ line i of ``tgt``."""

    src_lang: str | None  # None: an empty corpus with no language given
    tgt_lang: str | None
    src: Path
    tgt: Path
    pairs: int


def _moses_suffixes(src_lang: str, tgt_lang: str) -> tuple[str, str]:
    """File suffixes of a pair's two sides: the languages, or ``<lang>.src``/``<lang>.tgt``
    when both sides share one (monolingual pairs would otherwise write to the same file)."""
    if src_lang == tgt_lang:
        return f"{src_lang}.src", f"{tgt_lang}.tgt"
    return src_lang, tgt_lang


def _moses_paths(stem: Path, src_lang: str, tgt_lang: str) -> tuple[Path, Path]:
    src_suffix, tgt_suffix = _moses_suffixes(src_lang, tgt_lang)
    return stem.with_name(f"{stem.name}.{src_suffix}"), stem.with_name(f"{stem.name}.{tgt_suffix}")


def _pair_stem(prefix: Path, src_lang: str, tgt_lang: str) -> Path:
    return prefix.with_name(f"{prefix.name}.{src_lang}-{tgt_lang}")


def write_moses(
    rows: Iterable[StoredSentencePair],
    prefix: Path,
    *,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
) -> list[MosesCorpus]:
    """Moses plain text, one corpus per (src_lang, tgt_lang) pair, in order of first appearance.

    Rows of one pair: ``PREFIX.<src>`` and ``PREFIX.<tgt>``. Rows of several pairs: each pair's
    corpus has the stem ``PREFIX.<src>-<tgt>`` (``PREFIX.en-de.en``, ``PREFIX.en-de.de``), as
    Moses' own multi-pair corpora are named. No rows: one empty corpus named after ``src_lang``
    and ``tgt_lang`` (the caller's filter), ``src``/``tgt`` for a language not given.
    """
    handles: dict[tuple[str, str], tuple[IO[str], IO[str]]] = {}
    counts: dict[tuple[str, str], int] = {}
    written_by: dict[Path, tuple[str, str]] = {}
    try:
        for row in rows:
            languages = (row.src_lang, row.tgt_lang)
            if languages not in handles:
                # Written under the pair's own stem until the end shows whether it is the only one.
                src_path, tgt_path = _moses_paths(_pair_stem(prefix, *languages), *languages)
                for path in (src_path, tgt_path):
                    # ("de", "ch-de") and ("de-ch", "de") would both write corpus.de-ch-de.de
                    if path in written_by:
                        raise InvalidInput(
                            f"language pairs {'-'.join(written_by[path])} and "
                            f"{'-'.join(languages)} would write the same file {path.name}: "
                            "export them one pair at a time (--src-lang, --tgt-lang)"
                        )
                    written_by[path] = languages
                handles[languages] = (
                    src_path.open("w", encoding="utf-8"),
                    tgt_path.open("w", encoding="utf-8"),
                )
                counts[languages] = 0
            src_handle, tgt_handle = handles[languages]
            src_handle.write(_clean(row.src_text) + "\n")
            tgt_handle.write(_clean(row.tgt_text) + "\n")
            counts[languages] += 1
    finally:
        for pair_handles in handles.values():
            for handle in pair_handles:
                handle.close()
    if not counts:
        src_path, tgt_path = _moses_paths(prefix, src_lang or "src", tgt_lang or "tgt")
        for path in (src_path, tgt_path):
            path.write_text("", encoding="utf-8")
        return [MosesCorpus(src_lang, tgt_lang, src_path, tgt_path, 0)]
    corpora = []
    for languages, count in counts.items():
        src_path, tgt_path = _moses_paths(_pair_stem(prefix, *languages), *languages)
        if len(counts) == 1:
            plain_src, plain_tgt = _moses_paths(prefix, *languages)
            src_path, tgt_path = src_path.replace(plain_src), tgt_path.replace(plain_tgt)
        corpora.append(MosesCorpus(*languages, src_path, tgt_path, count))
    return corpora


def write_lines(lines: Iterable[str], path: Path | IO[str]) -> int:
    """Write ``lines`` to a file (or a text stream); returns how many."""
    count = 0
    with (
        path.open("w", encoding="utf-8") if isinstance(path, Path) else nullcontext(path) as handle
    ):
        for line in lines:
            handle.write(line)
            count += 1
    return count


def moses_lines(rows: Iterable[StoredSentencePair], side: str) -> Iterator[str]:
    """One side (``src`` or ``tgt``) of a Moses pair of files, one sentence per line."""
    if side not in ("src", "tgt"):
        raise ValueError(f"side must be 'src' or 'tgt', not {side!r}")
    for row in rows:
        yield _clean(row.src_text if side == "src" else row.tgt_text) + "\n"


def moses_src_lines(rows: Iterable[StoredSentencePair]) -> Iterator[str]:
    """The source side of a Moses pair of files."""
    return moses_lines(rows, "src")


def moses_tgt_lines(rows: Iterable[StoredSentencePair]) -> Iterator[str]:
    """The target side of a Moses pair of files."""
    return moses_lines(rows, "tgt")


# The line formats of sentence pairs by name (as the gateway's ``format`` names them) and the
# lines of each that are no pair (the TSV's column line).
LINE_FORMATS: dict[str, Callable[[Iterable[StoredSentencePair]], Iterator[str]]] = {
    "jsonl": jsonl_lines,
    "tsv": tsv_lines,
    "moses-src": moses_src_lines,
    "moses-tgt": moses_tgt_lines,
}
HEADER_LINES = {"tsv": 1}


def pair_lines(rows: Iterable[StoredSentencePair], format: str) -> Iterator[str]:
    """The lines of ``rows`` in a line format (``jsonl``, ``tsv``, ``moses-src``,
    ``moses-tgt``)."""
    if format not in LINE_FORMATS:
        raise ValueError(f"no line format {format!r}; formats are {', '.join(LINE_FORMATS)}")
    return LINE_FORMATS[format](rows)


def write_pairs(rows: Iterable[StoredSentencePair], format: str, path: Path | IO[str]) -> int:
    """Write ``rows`` in a line format to a file (or a text stream); returns how many pairs
    (a header line is no pair)."""
    return write_lines(pair_lines(rows, format), path) - HEADER_LINES.get(format, 0)
