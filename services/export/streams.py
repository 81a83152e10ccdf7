"""Sentence pairs as a download streams them: UTF-8 byte chunks of a format, with its media
type and file name (the gateway's ``GET /v1/exports/sentence-pairs``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from services.export.formats import pair_lines
from services.export.tmx import tmx_chunks
from shared.sentence_pair import StoredSentencePair

SentenceFormat = Literal["jsonl", "tsv", "moses-src", "moses-tgt", "tmx"]
MOSES_SIDES = ("moses-src", "moses-tgt")  # one side of one language pair each
MEDIA_TYPES = {
    "jsonl": "application/x-ndjson; charset=utf-8",
    "tsv": "text/tab-separated-values; charset=utf-8",
    "moses-src": "text/plain; charset=utf-8",
    "moses-tgt": "text/plain; charset=utf-8",
    "tmx": "application/x-tmx+xml",
}
_SUFFIX = {
    "jsonl": "jsonl",
    "tsv": "tsv",
    "moses-src": "src.txt",
    "moses-tgt": "tgt.txt",
    "tmx": "tmx",
}


def encoded(lines: Iterable[str]) -> Iterator[bytes]:
    """Each line as UTF-8."""
    for line in lines:
        yield line.encode("utf-8")


def sentence_pair_chunks(
    rows: Iterable[StoredSentencePair], format: SentenceFormat, *, src_lang: str | None = None
) -> Iterator[bytes]:
    """The rows in ``format`` as byte chunks (TMX: ``src_lang`` names the header's source
    language, else ``*all*``)."""
    if format == "tmx":
        return tmx_chunks(rows, srclang=src_lang)
    return encoded(pair_lines(rows, format))


def download_name(format: SentenceFormat, src_lang: str | None, tgt_lang: str | None) -> str:
    """The file name of a download: ``sentence_pairs.<suffix>``, a Moses side's with its
    language pair (``sentence_pairs.en-de.src.txt``)."""
    if format in MOSES_SIDES:
        return f"sentence_pairs.{src_lang}-{tgt_lang}.{_SUFFIX[format]}"
    return f"sentence_pairs.{_SUFFIX[format]}"
