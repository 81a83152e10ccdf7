"""services.export.formats: JSONL, TSV and Moses files carry the same pairs in the same order."""

from __future__ import annotations

import dataclasses
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from services.export.formats import jsonl_lines, tsv_lines, write_moses
from services.export.similarity import similarity_csv_rows
from shared.errors import InvalidInput
from shared.sentence_pair import StoredSentencePair
from tests.unit.export.records import stored_pair

ROWS = [
    stored_pair(
        id=f"sp{i}",
        pair_id="pp",
        src_url="http://example.org/en/a\tb\nc",  # a tab in a URL split its row
        tgt_url="u2",
        src_lang="en",
        tgt_lang="de",
        score=0.5 + i / 10,
        bead=f"[{i}]:[{i}]",
        src_text=f"line\t{i}\nwrapped",
        tgt_text=f"Zeile {i}",
    )
    for i in range(3)
]


def test_jsonl_round_trips_text_exactly() -> None:
    records = [json.loads(line) for line in jsonl_lines(ROWS)]
    assert [(r["id"], r["src"], r["tgt"]) for r in records] == [
        (r.id, r.src_text, r.tgt_text) for r in ROWS
    ]


def test_tsv_and_moses_keep_one_pair_per_line(tmp_path: Path) -> None:
    lines = list(tsv_lines(ROWS))
    assert lines[0].startswith("src\ttgt\tscore") and len(lines) == 4
    assert all(line.count("\t") == 5 for line in lines)  # six columns, count last
    (corpus,) = write_moses(ROWS, tmp_path / "corpus")
    src, tgt, count = corpus.src, corpus.tgt, corpus.pairs
    assert (src.name, tgt.name, count) == ("corpus.en", "corpus.de", 3)
    assert src.read_text().splitlines() == ["line 0 wrapped", "line 1 wrapped", "line 2 wrapped"]
    assert tgt.read_text().splitlines() == ["Zeile 0", "Zeile 1", "Zeile 2"]


def pair_row(number: int, src_lang: str, tgt_lang: str) -> StoredSentencePair:
    return stored_pair(
        src_lang=src_lang,
        tgt_lang=tgt_lang,
        src_text=f"{src_lang} {number}",
        tgt_text=f"{tgt_lang} {number}",
    )


def test_moses_writes_one_corpus_per_language_pair(tmp_path: Path) -> None:
    # The first row's languages named both files and every other pair was written into them.
    mixed = [("en", "fr"), ("en", "de"), ("ja", "ja"), ("en", "de"), ("en", "fr")]
    rows = [pair_row(n, src, tgt) for n, (src, tgt) in enumerate(mixed)]
    corpora = write_moses(rows, tmp_path / "corpus")
    assert [(c.src_lang, c.tgt_lang, c.src.name, c.tgt.name, c.pairs) for c in corpora] == [
        ("en", "fr", "corpus.en-fr.en", "corpus.en-fr.fr", 2),
        ("en", "de", "corpus.en-de.en", "corpus.en-de.de", 2),
        ("ja", "ja", "corpus.ja-ja.ja.src", "corpus.ja-ja.ja.tgt", 1),
    ]
    for corpus in corpora:
        languages = (corpus.src_lang, corpus.tgt_lang)
        expected = [
            (row.src_text, row.tgt_text)
            for row in rows
            if (row.src_lang, row.tgt_lang) == languages
        ]
        written = zip(
            corpus.src.read_text("utf-8").splitlines(),
            corpus.tgt.read_text("utf-8").splitlines(),
            strict=True,
        )
        assert list(written) == expected
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        name for c in corpora for name in (c.src.name, c.tgt.name)
    )


def test_moses_of_one_monolingual_pair_keeps_the_plain_stem(tmp_path: Path) -> None:
    corpora = write_moses([pair_row(0, "ja", "ja")], tmp_path / "corpus")
    assert [(c.src.name, c.tgt.name) for c in corpora] == [("corpus.ja.src", "corpus.ja.tgt")]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus.ja.src", "corpus.ja.tgt"]


def test_empty_moses_export_is_named_after_the_filter(tmp_path: Path) -> None:
    # Without rows the files were always PREFIX.src/PREFIX.tgt, whatever languages were asked.
    (corpus,) = write_moses([], tmp_path / "empty", src_lang="en", tgt_lang="nl")
    assert (corpus.src.name, corpus.tgt.name, corpus.pairs) == ("empty.en", "empty.nl", 0)
    assert corpus.src.read_text() == corpus.tgt.read_text() == ""
    (unnamed,) = write_moses([], tmp_path / "none")
    assert (unnamed.src.name, unnamed.tgt.name) == ("none.src", "none.tgt")


def test_similarity_csv_rows_are_the_defined_upper_triangle_without_listing_it() -> None:
    rng = np.random.default_rng(3)
    values = rng.random((40, 40))
    values = (values + values.T) / 2
    values[rng.random((40, 40)) < 0.5] = np.nan
    values = np.fmin(values, values.T)  # NaN on either side: undefined on both
    rounds = rng.integers(0, 4, (40, 40))
    ids = [f"c{k}" for k in range(40)]
    rows = list(similarity_csv_rows(ids, ids, values, rounds))
    expected = [
        (ids[i], ids[j], ids[i], ids[j], repr(float(values[i, j])), str(int(rounds[i, j])))
        for i in range(40)
        for j in range(i, 40)
        if not np.isnan(values[i, j])
    ]
    assert rows == expected
    # The first row comes without the L(L+1)/2 index lists (WordNet: 17.5 GB before it).
    size = 3_000
    big = np.full((size, size), np.nan, dtype=np.float32)
    big[0, 5] = big[5, 0] = 1.0
    tracemalloc.start()
    first = next(similarity_csv_rows([str(k) for k in range(size)], [""] * size, big, big))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert first[:2] == ("0", "5") and peak < 20_000_000


def test_moses_and_tsv_replace_only_line_and_column_breaks(tmp_path: Path) -> None:
    # all whitespace was collapsed: an ideographic or no-break space came back as a plain
    # space, so an exported sentence no longer matched the stored one
    breaks = "\t\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029"
    text = "JR東日本は\u3000新幹線\u00a0の  運転" + "".join(f"{c}x" for c in breaks)
    row = dataclasses.replace(ROWS[0], src_text=text, tgt_text="Satz")
    (corpus,) = write_moses([row], tmp_path / "corpus")
    expected = "JR東日本は\u3000新幹線\u00a0の  運転" + " x" * len(breaks)
    assert corpus.src.read_text(encoding="utf-8").splitlines() == [expected]
    (_, line) = list(tsv_lines([row]))
    assert line.split("\t")[0] == expected


def test_jsonl_escapes_what_a_line_reader_would_split_on() -> None:
    row = dataclasses.replace(ROWS[0], src_text="a\u2028b\x85c\u2029d")
    (line,) = list(jsonl_lines([row]))
    assert len(line.splitlines()) == 1 and json.loads(line)["src"] == row.src_text


def test_two_language_pairs_that_would_share_a_moses_file_are_refused(tmp_path: Path) -> None:
    # ("de", "ch-de") and ("de-ch", "de") both named corpus.de-ch-de.de: one side was lost
    rows = [pair_row(0, "de", "ch-de"), pair_row(1, "de-ch", "de")]
    with pytest.raises(InvalidInput, match=r"would write the same file corpus\.de-ch-de\.de"):
        write_moses(rows, tmp_path / "corpus")
