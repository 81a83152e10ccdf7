"""The store's batch insert on PostgreSQL (one array parameter per column): counts, idempotence,
and the same rows as SQLite's per-row VALUES insert."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from shared.store import SentencePairQuery, Store, statistics
from shared.store.tables import sentence_pairs

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
        (r.id, r.src_text, r.tgt_text, float(r.score), r.bead, r.chunk)
        for r in rows
        if r.pair_id == pair_id
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


def test_nul_characters_are_stored_and_dead_lettered_not_lost(postgres_url: str) -> None:
    """PostgreSQL text cannot hold a NUL: a sentence holding one failed the message's whole
    insert, and then its dead letter (a NUL in the reason or job id) failed too, so the
    message was acked with no trace. Both insert paths (JSON rows, arrays) and dead letters."""
    store = Store(postgres_url)
    rows = sentence_rows("p-nul", 2) + sentence_rows("p-nul-nan", 2)
    rows[0]["src_text"] = "before\x00after"
    rows[2]["tgt_text"] = "\x00"
    rows[3]["score"] = float("nan")  # the array path
    assert store.add_sentence_pairs(rows[:2], pair_id="p-nul", stage="s") == 2
    assert store.add_sentence_pairs(rows[2:], pair_id="p-nul-nan", stage="s") == 2
    texts = {text for row in stored(store, "p-nul") + stored(store, "p-nul-nan") for text in row}
    assert "before\ufffdafter" in texts and "\ufffd" in texts

    store.record_dead_letter(
        stage="tree_align",
        payload={"job_id": "job\x00x", "src": "\x00"},
        error_type="InvalidInput",
        reason="bad \x00 message",
        attempts=1,
    )
    letters = store.list_dead_letters(stage="tree_align", limit=10_000)
    (letter,) = [row for row in letters if row["reason"].startswith("bad ")]
    assert letter["reason"] == "bad \ufffd message" and letter["job_id"] == "job\ufffdx"
    store.engine.dispose()


def test_a_long_job_source_is_cut_to_its_column(postgres_url: str) -> None:
    # `paramine process` with many inputs joined their paths into a 256-character column
    store = Store(postgres_url)
    store.record_job("job-long-source", [("pp-long", "https://e.org/a", "")], "x/" * 500)
    status = store.job_status("job-long-source")
    assert status is not None and status.pairs == 1
    store.engine.dispose()


SCHEMA_CHILD = """
import sys
from services.thesaurus import repository
from shared.store import Store

store = Store(sys.argv[1])
store.ensure_schema()
repository.ensure_schema(store.engine)
"""


def test_processes_creating_the_schema_at_once_all_succeed() -> None:
    """First requests of several gateway or worker processes on an empty database raced in
    CREATE TABLE (a UniqueViolation on pg_type, answered as a 500)."""
    import subprocess
    import sys

    from tests.integration.conftest import fresh_database
    from tests.integration.processes import REPO

    with fresh_database() as url:
        children = [
            subprocess.Popen(
                [sys.executable, "-c", SCHEMA_CHILD, url],
                cwd=REPO,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        failures = [child.communicate(timeout=120)[1] for child in children if child.wait() != 0]
        assert failures == []
        engine = Store(url).engine
        with engine.connect() as conn:
            names = set(sa.inspect(conn).get_table_names())
        engine.dispose()
    assert {"sentence_pairs", "dead_letters", "thesaurus_snapshots"} <= names


def test_a_statement_run_again_and_again_is_planned_each_time(postgres_url: str) -> None:
    """psycopg prepares a statement after its fifth run on a connection; PostgreSQL would then
    keep a generic plan made from the statistics of that moment (empty tables, early in a
    crawl) for the connection's life. The store's connections plan every execution with its
    parameters (``plan_cache_mode``), so a plan follows the tables as they grow."""
    store = Store(postgres_url)
    store.ensure_schema()
    statement = sa.text("SELECT count(*) FROM pair_order WHERE site = :site AND seq < :seq")
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SHOW plan_cache_mode")).scalar() == "force_custom_plan"
        for seq in range(12):
            conn.execute(statement, {"site": "example.org", "seq": seq})
        plans = conn.execute(
            sa.text(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                " WHERE statement LIKE 'SELECT count(*) FROM pair_order%'"
            )
        ).all()
    store.engine.dispose()
    assert plans, "psycopg prepared the statement (else this test checks nothing)"
    assert all(generic == 0 and custom > 0 for generic, custom in plans)


def analyses(store: Store, table: str) -> tuple[int, int]:
    """(times analyzed, rows changed since) of a table, once the server's statistics show
    the store's writes (a backend reports them within about a second of its commit)."""
    query = sa.text("SELECT analyze_count, n_mod_since_analyze FROM pg_stat_user_tables"
                    " WHERE relname = :table")  # fmt: skip
    for _ in range(100):
        with store.engine.connect() as conn:
            count, changed = conn.execute(query, {"table": table}).one()
        if changed or count:
            break
        time.sleep(0.2)
    return int(count), int(changed)


def test_tables_grown_past_their_statistics_are_analyzed_by_the_store() -> None:
    """On a server without autovacuum (as this project's CI runs), the store analyzes the
    tables that grew since their last analysis, every ``CHECK_EVERY`` transactions, so the
    planner no longer reads the rows of a few page pairs by scanning the whole table."""
    from tests.integration.conftest import fresh_database

    with fresh_database() as url:
        store = Store(url)
        store.ensure_schema()
        store.add_sentence_pairs(sentence_rows("p1", 400), pair_id="p1", stage="s")
        assert analyses(store, "sentence_pairs")[1] >= 400
        analyzed = statistics.analyze_grown(store.engine)
        assert "sentence_pairs" in analyzed
        assert "dead_letters" not in analyzed  # unchanged: nothing to do
        assert "sentence_pairs" not in statistics.analyze_grown(store.engine)  # done
        assert analyses(store, "sentence_pairs") == (1, 0)
        # the store's own transactions come to it: by the CHECK_EVERY-th, analyzed again
        store.add_sentence_pairs(sentence_rows("p2", 400, start=400), pair_id="p2", stage="s")
        while analyses(store, "sentence_pairs")[1] < 400:
            time.sleep(0.2)
        for _ in range(statistics.CHECK_EVERY):
            store.count(sentence_pairs)
        assert analyses(store, "sentence_pairs") == (2, 0)
        store.engine.dispose()
