"""Typed rows (shared/store/rows.py, and the sentence-pair record of shared/sentence_pair.py):
a row written as its dataclass is stored exactly as the same values written as a mapping, the
form the store took before typed rows."""

from __future__ import annotations

import tempfile
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.store import (
    NodePairRow,
    ParaphraseObservationRow,
    SentencePairRecord,
    Store,
    node_pairs,
    paraphrase_observations,
    sentence_pairs,
)

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
score = st.floats(min_value=0.0, max_value=1.0)
sentence_rows = st.lists(
    st.builds(
        SentencePairRecord,
        id=st.uuids().map(str),
        pair_id=st.just("pp1"),
        kind=st.sampled_from(["translation", "pc-mobile"]),
        src_url=text,
        tgt_url=text,
        site=text,
        src_lang=st.sampled_from(["en", "de", "ja"]),
        tgt_lang=st.sampled_from(["en", "de", "ja"]),
        src_text=text,
        tgt_text=text,
        score=score,
        bead=text,
        chunk=st.integers(-1, 50),
        position=st.integers(0, 1_000),
        flag=st.sampled_from(["", "untranslated"]),
        method=text,
        version=text,
        model_version=text,
        dedup_key=st.sampled_from(["", "k1"]),
    ),
    max_size=6,
    unique_by=lambda row: row.id,
)


def _stored(store: Store, table: sa.Table) -> list[dict[str, Any]]:
    with store.engine.connect() as conn:
        rows = [dict(row._mapping) for row in conn.execute(sa.select(table))]
    return sorted(({k: v for k, v in r.items() if k != "created_at"} for r in rows), key=repr)


def _two_stores() -> tuple[Store, Store, tempfile.TemporaryDirectory[str]]:
    folder = tempfile.TemporaryDirectory()
    typed = Store(f"sqlite:///{Path(folder.name) / 'typed.db'}")
    mapped = Store(f"sqlite:///{Path(folder.name) / 'mapped.db'}")
    return typed, mapped, folder


@settings(max_examples=25)
@given(sentence_rows)
def test_sentence_pair_rows_are_stored_as_their_mappings(rows: list[SentencePairRecord]) -> None:
    typed, mapped, folder = _two_stores()
    with folder:
        inserted = typed.add_sentence_pairs(rows, pair_id="pp1", stage="s", supersede="pp1")
        as_dicts = [asdict(row) for row in rows]
        assert mapped.add_sentence_pairs(as_dicts, pair_id="pp1", stage="s", supersede="pp1") == (
            inserted
        )
        assert inserted == len(rows)
        assert _stored(typed, sentence_pairs) == _stored(mapped, sentence_pairs)
        # an empty dedup_key is derived from languages and texts, as for a mapping without one
        assert all(row["dedup_key"] for row in _stored(typed, sentence_pairs))


@settings(max_examples=25)
@given(
    st.lists(st.tuples(text, text, text, text, st.floats(0, 100)), max_size=5),
    st.lists(st.tuples(st.uuids().map(str), text, text), max_size=5, unique_by=lambda t: t[0]),
)
def test_node_pair_and_observation_rows_are_stored_as_their_mappings(
    chunks: list[tuple[str, str, str, str, float]], observed: list[tuple[str, str, str]]
) -> None:
    nodes = [NodePairRow(index, *chunk) for index, chunk in enumerate(chunks)]
    observations = [ParaphraseObservationRow(i, "pc-mobile", "ja", s, t) for i, s, t in observed]
    typed, mapped, folder = _two_stores()
    with folder:
        assert typed.add_node_pairs("pp1", nodes) == len(nodes)
        mapped.add_node_pairs("pp1", [asdict(node) for node in nodes])
        assert typed.add_paraphrase_observations(observations) == len(observations)
        mapped.add_paraphrase_observations([asdict(row) for row in observations])
        for table in (node_pairs, paraphrase_observations):
            assert _stored(typed, table) == _stored(mapped, table)


def test_every_typed_field_is_a_column_of_its_table() -> None:
    for row, table, added in (
        (SentencePairRecord, sentence_pairs, {"created_at"}),
        (NodePairRow, node_pairs, {"pair_id"}),
        (ParaphraseObservationRow, paraphrase_observations, {"created_at"}),
    ):
        assert {field.name for field in fields(row)} | added == set(table.c.keys())
