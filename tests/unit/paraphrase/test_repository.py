"""Phrase table snapshots on a temp SQLite store: stored, read back, computed again when the
table's format changed (a snapshot without word alignments is not kept)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import sqlalchemy as sa

from services.paraphrase import repository
from services.paraphrase.phrases import PhraseTableEntry
from services.paraphrase.tables import Observation, default_word_model

OBSERVATIONS = [
    Observation("en", "pc-mobile", "the big dog", "the large dog"),
    Observation("en", "pc-mobile", "a big house", "a large house"),
]


@pytest.fixture
def engine(tmp_path: Path) -> sa.Engine:
    return sa.create_engine(f"sqlite:///{tmp_path / 'snapshots.db'}")


def test_a_saved_table_is_read_back_whole(engine: sa.Engine) -> None:
    entries = [
        PhraseTableEntry("big", "large", 2, 1.0, 1.0, lang="en", alignment="0-0"),
        PhraseTableEntry("Bank", "Ufer", 1, 0.5, 1.0, lang="de", alignment="0-0"),
    ]
    repository.save_phrase_table(engine, entries, observations=2, digest="d", model="m")
    assert repository.latest_phrase_table(engine) == entries
    assert repository.latest_phrase_table(engine, lang="de") == entries[1:]


def test_a_table_of_the_former_format_is_read_and_computed_again(engine: sa.Engine) -> None:
    # format 1: entries without their word alignment, the model digest of the model alone
    repository.ensure_schema(engine)
    old_model = hashlib.sha256(default_word_model().to_json().encode("utf-8")).hexdigest()
    old = repository.save_phrase_table(
        engine,
        [],
        observations=2,
        digest=repository.observations_digest(OBSERVATIONS),
        model=old_model,
    )
    with engine.begin() as conn:  # as format 1 wrote it: no "alignment" key at all
        conn.execute(
            sa.update(repository.phrase_table_snapshots).values(
                entries='[{"phrase": "big", "paraphrase": "large", "count": 2, '
                '"p_e_given_f": 1.0, "p_f_given_e": 1.0, "lang": "en"}]'
            )
        )
    (entry,) = repository.latest_phrase_table(engine)
    assert entry.alignment == ""
    new = repository.rebuild_phrase_table(engine, OBSERVATIONS, unless_unchanged=True)
    assert new != old
    entries = repository.latest_phrase_table(engine)
    assert entries and all(entry.alignment for entry in entries)
    assert repository.rebuild_phrase_table(engine, OBSERVATIONS, unless_unchanged=True) == new
