"""Migrating a store written by the release before dedup keys, flags and provenance
(tests/unit/shared/data/store-48506d2.db: `paramine process samples/crawl` at 48506d2)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from services.cli import app
from shared.config import get_settings
from shared.store import SentencePairQuery, Store, sentence_pairs

OLD_STORE = Path(__file__).parent / "data" / "store-48506d2.db"


@pytest.fixture
def old_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    path = tmp_path / "old.db"
    shutil.copyfile(OLD_STORE, path)
    url = f"sqlite:///{path}"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def test_an_old_store_is_refused_with_the_command_then_migrated(old_store: str) -> None:
    with sa.create_engine(old_store).connect() as conn:
        before = conn.execute(
            sa.text("SELECT id, src_text, tgt_text, score FROM sentence_pairs ORDER BY id")
        ).all()
    assert len(before) == 45
    refused = CliRunner().invoke(app, ["export", "--format", "tsv"])
    assert refused.exit_code == 2
    assert "run `paramine migrate-store`" in " ".join(refused.output.split())

    migrated = CliRunner().invoke(app, ["migrate-store"])
    assert migrated.exit_code == 0, migrated.output
    assert "45 sentence pairs keyed and flagged" in " ".join(migrated.output.split())
    store = Store(old_store)
    rows = store.list_sentence_pairs(SentencePairQuery(duplicates=True, flagged=True, limit=100))
    assert sorted((r.id, r.src_text, r.tgt_text, r.score) for r in rows) == [
        tuple(row) for row in before
    ]  # nothing lost or changed
    assert all(r.posterior == r.score for r in rows)  # the score was the DP's posterior
    assert all(r.dedup_key.startswith("dk") for r in rows)
    assert {r.method for r in rows} == {r.version for r in rows} == {"unrecorded"}
    assert {r.flag for r in rows} <= {"", "untranslated", "wrong-language"}
    assert any(index.name == "ix_sentence_pairs_dedup_key" for index in sentence_pairs.indexes)
    indexes = sa.inspect(store.engine).get_indexes("sentence_pairs")
    assert any(index["column_names"] == ["dedup_key"] for index in indexes)
    assert "added ix_sentence_pairs_site_created" in " ".join(migrated.output.split())
    assert any(index["column_names"] == ["site", "created_at"] for index in indexes)

    exported = CliRunner().invoke(app, ["export", "--format", "jsonl"])
    assert exported.exit_code == 0 and exported.stdout.count("\n") > 0
    again = CliRunner().invoke(app, ["migrate-store"])
    assert again.exit_code == 0 and "is up to date" in " ".join(again.output.split())


def test_a_replay_after_migration_supersedes_the_unrecorded_pairs(
    old_store: str, tmp_path: Path
) -> None:
    assert CliRunner().invoke(app, ["migrate-store"]).exit_code == 0
    # the same page pairs (their URLs as the old run read them, the same HTML) once more
    with sa.create_engine(old_store).connect() as conn:
        pages = conn.execute(sa.text("SELECT src_url, tgt_url FROM job_pairs")).all()
    samples = Path(__file__).resolve().parents[3] / "samples" / "crawl"
    manifest = tmp_path / "replay.jsonl"
    lines = []
    for src_url, tgt_url in pages:
        sides = {}
        for side, url in (("src", src_url), ("tgt", tgt_url)):
            name = url.rsplit("/", 1)[1]
            lang = name.split(".")[1].split("-")[0]
            html = (samples / name).read_text(encoding="utf-8")
            sides[side] = {"url": url, "lang": lang, "html": html}
        kind = "pc-mobile" if "-mobile" in tgt_url + src_url else "translation"
        lines.append(json.dumps({"id": src_url, **sides, "kind": kind}))
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["process", str(manifest), "-q", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = Store(old_store).list_sentence_pairs(
        SentencePairQuery(duplicates=True, flagged=True, limit=1_000)
    )
    # replaced, not added beside them: the same rows as the replay gives in an empty store
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PARAMINE_DATABASE_URL", fresh)
        get_settings.cache_clear()
        again = CliRunner().invoke(app, ["process", str(manifest), "-q", "--out", str(out)])
    get_settings.cache_clear()
    assert again.exit_code == 0, again.output
    expected = Store(fresh).list_sentence_pairs(
        SentencePairQuery(duplicates=True, flagged=True, limit=1_000)
    )
    assert sorted(r.id for r in rows) == sorted(r.id for r in expected)
    assert len(rows) > 25  # the sample crawl's content pairs (its menus are template)
    assert "unrecorded" not in {r.method for r in rows}
