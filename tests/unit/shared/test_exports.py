"""Exports: JSONL, TSV and Moses files carry the same pairs in the same order."""

from __future__ import annotations

import json
from pathlib import Path

from shared.exports import jsonl_lines, tsv_lines, write_moses

ROWS = [
    {
        "id": f"sp{i}",
        "pair_id": "pp",
        "src_url": "u1",
        "tgt_url": "u2",
        "src_lang": "en",
        "tgt_lang": "de",
        "score": 0.5 + i / 10,
        "bead": f"[{i}]:[{i}]",
        "src_text": f"line\t{i}\nwrapped",
        "tgt_text": f"Zeile {i}",
    }
    for i in range(3)
]


def test_jsonl_round_trips_text_exactly() -> None:
    records = [json.loads(line) for line in jsonl_lines(ROWS)]
    assert [(r["id"], r["src"], r["tgt"]) for r in records] == [
        (r["id"], r["src_text"], r["tgt_text"]) for r in ROWS
    ]


def test_tsv_and_moses_keep_one_pair_per_line(tmp_path: Path) -> None:
    lines = list(tsv_lines(ROWS))
    assert lines[0].startswith("src\ttgt\tscore") and len(lines) == 4
    assert all(line.count("\t") == 4 for line in lines)
    src, tgt, count = write_moses(ROWS, tmp_path / "corpus")
    assert (src.name, tgt.name, count) == ("corpus.en", "corpus.de", 3)
    assert src.read_text().splitlines() == ["line 0 wrapped", "line 1 wrapped", "line 2 wrapped"]
    assert tgt.read_text().splitlines() == ["Zeile 0", "Zeile 1", "Zeile 2"]
