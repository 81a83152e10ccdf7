"""services.export.streams and the line formats by name: a download's chunks and file name."""

from __future__ import annotations

import io

import pytest

from services.export.formats import jsonl_lines, pair_lines, tsv_lines, write_pairs
from services.export.streams import download_name, sentence_pair_chunks
from services.export.tmx import read_tmx
from shared.sentence_pair import StoredSentencePair
from tests.unit.export.records import stored_pair

ROWS: list[StoredSentencePair] = [
    stored_pair(
        id=f"sp{i}",
        pair_id="pp",
        src_url="u1",
        tgt_url="u2",
        src_lang="en",
        tgt_lang="de",
        score=0.5,
        bead="[0]:[0]",
        src_text=f"Hello {i}\u2028there",
        tgt_text=f"Hallo {i}",
    )
    for i in range(3)
]


def test_each_line_format_is_the_same_text_as_its_writer() -> None:
    assert list(pair_lines(ROWS, "jsonl")) == list(jsonl_lines(ROWS))
    assert list(pair_lines(ROWS, "tsv")) == list(tsv_lines(ROWS))
    assert list(pair_lines(ROWS, "moses-tgt")) == ["Hallo 0\n", "Hallo 1\n", "Hallo 2\n"]
    with pytest.raises(ValueError, match="no line format"):
        pair_lines(ROWS, "moses")


def test_write_pairs_counts_pairs_not_header_lines() -> None:
    tsv, jsonl = io.StringIO(), io.StringIO()
    assert write_pairs(ROWS, "tsv", tsv) == 3
    assert tsv.getvalue().count("\n") == 4
    assert write_pairs(ROWS, "jsonl", jsonl) == 3
    assert write_pairs([], "tsv", io.StringIO()) == 0


def test_chunks_are_the_formats_bytes() -> None:
    text = b"".join(sentence_pair_chunks(ROWS, "moses-src")).decode("utf-8")
    assert text == "".join(pair_lines(ROWS, "moses-src"))
    units = read_tmx(io.BytesIO(b"".join(sentence_pair_chunks(ROWS, "tmx", src_lang="en"))))
    assert [unit["tgt"] for unit in units] == ["Hallo 0", "Hallo 1", "Hallo 2"]


def test_download_names_a_moses_side_by_its_language_pair() -> None:
    assert download_name("jsonl", None, None) == "sentence_pairs.jsonl"
    assert download_name("tmx", "en", "de") == "sentence_pairs.tmx"
    assert download_name("moses-src", "en", "de") == "sentence_pairs.en-de.src.txt"
    assert download_name("moses-tgt", "en", "de") == "sentence_pairs.en-de.tgt.txt"
