"""The store's batch insert on PostgreSQL (one array parameter per column): counts, idempotence,
and the same rows as SQLite's per-row VALUES insert."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shared.store import SentencePairQuery, Store

pytestmark = pytest.mark.integration


def sentence_rows(pair_id: str, count: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "id": f"sp-{pair_id}-{n}",
            "pair_id": pair_id,
            "kind": "translation",
            "src_url": "https://example.org/en/1",
            "tgt_url": "https://example.org/de/1",
            "site": "example.org",
            "src_lang": "en",
            "tgt_lang": "de",
            "src_text": f"Sentence {n} with 'quotes', a comma, {{braces}} and \"double\" ones.",
            "tgt_text": f"Satz {n} – ünïcödé, NULL, \\backslash\\",
            "score": n if n % 3 == 0 else n / 7,  # ints among floats
            "bead": f"[{n}]:[{n}]",
            "chunk": n // 4,
            "position": n,
        }
        for n in range(start, start + count)
    ]


def stored(store: Store, pair_id: str) -> list[tuple[Any, ...]]:
    rows = store.list_sentence_pairs(SentencePairQuery(limit=10_000))
    return sorted(
        (r["id"], r["src_text"], r["tgt_text"], float(r["score"]), r["bead"], r["chunk"])
        for r in rows
        if r["pair_id"] == pair_id
    )


def test_batch_inserts_count_ignore_repeats_and_match_sqlite(
    postgres_url: str, tmp_path: Path
) -> None:
    postgres = Store(postgres_url)
    sqlite = Store(f"sqlite:///{tmp_path / 'store.db'}")
    for store in (postgres, sqlite):
        assert store.add_sentence_pairs(sentence_rows("p1", 150), pair_id="p1", stage="s") == 150
        assert store.add_sentence_pairs(sentence_rows("p1", 150), pair_id="p1", stage="s") == 0
        # 5 already stored, 10 new, in one batch; then inside one transaction
        with store.one_transaction():
            inserted = store.add_sentence_pairs(
                sentence_rows("p1", 15, start=145), pair_id="p1", stage="s"
            )
        assert inserted == 10
    assert len(stored(postgres, "p1")) == 160
    assert stored(postgres, "p1") == stored(sqlite, "p1")
    postgres.engine.dispose()


def test_rows_json_cannot_carry_are_stored_all_the_same(postgres_url: str) -> None:
    """A NaN score (not JSON) takes the array path; the rows read back alike."""
    import math

    store = Store(postgres_url)
    rows = sentence_rows("p-nan", 3)
    rows[1]["score"] = float("nan")
    assert store.add_sentence_pairs(rows, pair_id="p-nan", stage="s") == 3
    scores = [score for *_, score, _bead, _chunk in stored(store, "p-nan")]
    assert sum(math.isnan(score) for score in scores) == 1
    store.engine.dispose()
