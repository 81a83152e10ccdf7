"""TMX 1.4b structure, round trips of every sentence-pair format, similarity CSV/NPZ."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from services.export.formats import jsonl_lines, moses_lines, tsv_lines, write_lines, write_moses
from services.export.similarity import (
    SIMILARITY_CSV_HEADER,
    similarity_csv_rows,
    similarity_npz_bytes,
)
from services.export.tmx import XML_LANG, read_tmx, tmx_chunks, write_tmx, xml_text
from shared.sentence_pair import StoredSentencePair
from tests.unit.export.records import stored_pair

HEADER_REQUIRED = (
    "creationtool",
    "creationtoolversion",
    "segtype",
    "o-tmf",
    "adminlang",
    "srclang",
    "datatype",
)

# Sentences as they can come out of the store: any XML-representable text with no line
# breaks or tabs (the Moses/TSV formats are one pair per line).
xml_chars = st.characters(
    blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff\u2028\u2029\x85"
)
sentence = (
    st.text(xml_chars, min_size=1, max_size=40).map(lambda t: " ".join(t.split())).filter(bool)
)


def make_row(number: int, src: str, tgt: str, **extra: Any) -> StoredSentencePair:
    return stored_pair(
        **{
            "id": f"sp{number:04d}",
            "pair_id": "pp1",
            "src_url": "https://example.org/en/a?x=1&y=<2>",
            "tgt_url": "https://example.org/de/a",
            "src_text": src,
            "tgt_text": tgt,
            "score": 0.5 + number / 1000,
            "bead": "[0]:[0, 1]",
            "position": number,
            "created_at": 1_767_225_600.0 + number,
            **extra,
        }
    )


HOSTILE = [
    make_row(0, "A <script>alert('x')</script> & \"quoted\"", "Ein <b>fett</b> & ]]> Ende"),
    make_row(1, "日本語の文。", "Ümlaut façade – naïve"),
    make_row(2, "Second sentence.", "Zweiter Satz."),
]


def assert_tmx_14b(document: bytes) -> etree._Element:
    """Structure of TMX 1.4b: tmx@version, header with required attributes, body/tu/tuv/seg."""
    root = etree.fromstring(document)
    assert root.tag == "tmx" and root.get("version") == "1.4"
    assert [child.tag for child in root] == ["header", "body"]
    header = root.find("header")
    missing = [name for name in HEADER_REQUIRED if not header.get(name)]
    assert missing == []
    assert header.get("segtype") in {"block", "paragraph", "sentence", "phrase"}
    for unit in root.find("body"):
        assert unit.tag == "tu"
        tags = [child.tag for child in unit]
        # DTD content model of <tu>: (note|prop)*, tuv+
        first_tuv = tags.index("tuv")
        assert set(tags[:first_tuv]) <= {"note", "prop"} and set(tags[first_tuv:]) == {"tuv"}
        for prop in unit.findall("prop"):
            assert prop.get("type")
        for variant in unit.findall("tuv"):
            assert variant.get(XML_LANG)
            assert [child.tag for child in variant] == ["seg"]
    return root


def test_tmx_has_the_14b_structure_and_escapes_hostile_text(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tmx"
    assert write_tmx(HOSTILE, path) == 3
    data = path.read_bytes()
    assert data.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    root = assert_tmx_14b(data)
    assert root.find("header").get("srclang") == "en"
    units = root.findall("body/tu")
    assert [unit.get("tuid") for unit in units] == ["sp0000", "sp0001", "sp0002"]
    assert units[0].get("creationdate") == "20260101T000000Z"
    props = {prop.get("type"): prop.text for prop in units[0].findall("prop")}
    assert props["x-score"] == "0.500000" and props["x-src-url"] == HOSTILE[0].src_url
    assert b"<script>" not in data and b"&lt;script&gt;" in data


def test_tmx_round_trip_of_hostile_rows(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tmx"
    write_tmx(HOSTILE, path)
    expected = [
        {"src_lang": "en", "tgt_lang": "de", "src": row.src_text, "tgt": row.tgt_text}
        for row in HOSTILE
    ]
    assert read_tmx(path) == expected


def test_tmx_drops_characters_xml_cannot_carry() -> None:
    row = make_row(0, "bell\x07 and\x00 nul", "vertical\x0btab\ufffe")
    units = read_tmx(io.BytesIO(b"".join(tmx_chunks([row]))))
    assert units[0]["src"] == "bell and nul" and units[0]["tgt"] == "verticaltab"
    assert xml_text("tab\tnew\nline") == "tab\tnew\nline"


def test_empty_tmx_is_valid_and_has_a_srclang() -> None:
    root = assert_tmx_14b(b"".join(tmx_chunks([])))
    assert root.find("header").get("srclang") == "*all*"
    assert root.findall("body/tu") == []


def test_tmx_srclang_is_all_when_source_languages_mix(tmp_path: Path) -> None:
    # The header took the first row's source language even when later rows had another.
    rows = [
        *HOSTILE,
        make_row(3, "Zweiter Satz.", "Second sentence.", src_lang="de", tgt_lang="en"),
    ]
    write_tmx(rows, tmp_path / "mixed.tmx")
    root = assert_tmx_14b((tmp_path / "mixed.tmx").read_bytes())
    assert root.find("header").get("srclang") == "*all*"
    assert [unit["src_lang"] for unit in read_tmx(tmp_path / "mixed.tmx")] == ["en"] * 3 + ["de"]
    # A stream writes its header before it has seen the rows: *all* unless told the language.
    streamed = b"".join(tmx_chunks(rows))
    assert etree.fromstring(streamed).find("header").get("srclang") == "*all*"
    assert streamed == (tmp_path / "mixed.tmx").read_bytes()
    told = etree.fromstring(b"".join(tmx_chunks(HOSTILE, srclang="en")))
    assert told.find("header").get("srclang") == "en"


def test_tmx_streams_one_chunk_per_unit() -> None:
    chunks = list(tmx_chunks(HOSTILE, srclang="en"))
    # The header travels with the first unit; every chunk carries exactly one unit.
    assert len(chunks) == len(HOSTILE)
    assert [chunk.count(b"<tu ") for chunk in chunks] == [1] * len(HOSTILE)
    assert b"<header " in chunks[0] and b"</tmx>" in chunks[-1]


def test_read_tmx_does_not_expand_external_entities(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    hostile = (
        f'<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY x SYSTEM "file://{secret}">]>'
        '<tmx version="1.4"><header/><body><tu><tuv xml:lang="en"><seg>&x;</seg></tuv>'
        '<tuv xml:lang="de"><seg>b</seg></tuv></tu></body></tmx>'
    )
    units = read_tmx(io.BytesIO(hostile.encode()))
    assert "TOP SECRET" not in units[0]["src"]


@given(st.lists(st.tuples(sentence, sentence), min_size=1, max_size=8))
def test_every_format_round_trips(pairs: list[tuple[str, str]]) -> None:
    rows = [make_row(n, src, tgt) for n, (src, tgt) in enumerate(pairs)]
    expected = [(row.src_text, row.tgt_text) for row in rows]

    tmx = read_tmx(io.BytesIO(b"".join(tmx_chunks(rows))))
    assert [(unit["src"], unit["tgt"]) for unit in tmx] == expected
    assert {(unit["src_lang"], unit["tgt_lang"]) for unit in tmx} == {("en", "de")}

    records = [json.loads(line) for line in jsonl_lines(rows)]
    assert [(r["src"], r["tgt"]) for r in records] == expected
    assert [r["score"] for r in records] == [row.score for row in rows]

    tsv = list(
        csv.reader(io.StringIO("".join(tsv_lines(rows))), delimiter="\t", quoting=csv.QUOTE_NONE)
    )
    assert tsv[0] == ["src", "tgt", "score", "src_url", "tgt_url", "count"]
    assert [(r[0], r[1]) for r in tsv[1:]] == expected
    assert [float(r[2]) for r in tsv[1:]] == pytest.approx([row.score for row in rows], abs=1e-6)

    src_lines = "".join(moses_lines(rows, "src")).split("\n")[:-1]
    tgt_lines = "".join(moses_lines(rows, "tgt")).split("\n")[:-1]
    assert list(zip(src_lines, tgt_lines, strict=True)) == expected


def test_moses_files_round_trip(tmp_path: Path) -> None:
    rows = [make_row(n, f"source {n}", f"Ziel {n}") for n in range(5)]
    (corpus,) = write_moses(rows, tmp_path / "corpus")
    src_path, tgt_path, count = corpus.src, corpus.tgt, corpus.pairs
    assert count == 5 and src_path.name == "corpus.en" and tgt_path.name == "corpus.de"
    pairs = list(
        zip(
            src_path.read_text("utf-8").splitlines(),
            tgt_path.read_text("utf-8").splitlines(),
            strict=True,
        )
    )
    assert pairs == [(row.src_text, row.tgt_text) for row in rows]
    assert write_lines(moses_lines(rows, "src"), tmp_path / "src.txt") == 5
    with pytest.raises(ValueError):
        list(moses_lines(rows, "both"))


def _matrix() -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    ids = ["1.10", "1.20", "1.30"]
    labels = ["人間", "家族", "仲間"]
    values = np.array([[1.0, 0.25, np.nan], [0.25, 1.0, 0.5], [np.nan, 0.5, 1.0]], dtype=np.float32)
    rounds = np.array([[0, 1, -1], [1, 0, 0], [-1, 0, 0]], dtype=np.int8)
    return ids, labels, values, rounds


def test_similarity_csv_lists_defined_upper_cells() -> None:
    ids, labels, values, rounds = _matrix()
    rows = list(similarity_csv_rows(ids, labels, values, rounds))
    # 3 × 3 upper triangle has 6 cells; (1.10, 1.30) is undefined.
    assert [(r[0], r[1], float(r[4]), int(r[5])) for r in rows] == [
        ("1.10", "1.10", 1.0, 0),
        ("1.10", "1.20", 0.25, 1),
        ("1.20", "1.20", 1.0, 0),
        ("1.20", "1.30", 0.5, 0),
        ("1.30", "1.30", 1.0, 0),
    ]
    assert rows[1][2:4] == ("人間", "家族")
    assert len(SIMILARITY_CSV_HEADER) == len(rows[0])


def test_similarity_npz_round_trips() -> None:
    ids, labels, values, rounds = _matrix()
    with np.load(io.BytesIO(similarity_npz_bytes(ids, labels, values, rounds))) as data:
        assert data["class_ids"].tolist() == ids and data["labels"].tolist() == labels
        np.testing.assert_array_equal(data["values"], values)
        np.testing.assert_array_equal(data["rounds"], rounds)
