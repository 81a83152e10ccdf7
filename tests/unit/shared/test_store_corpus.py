"""The store's corpus rules: reading a store that does not exist is refused (nothing is
created), a store of an older schema names its migration, replaying a page pair with other
settings replaces its pairs, and the default store is one place for every command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shared.config import Settings, default_store_path
from shared.errors import ConfigurationError, InvalidInput
from shared.store import SentencePairQuery, Store


def _row(n: int, method: str, text: str = "Satz") -> dict[str, Any]:
    return {
        "id": f"sp-{method}-{n}",
        "pair_id": "pp1",
        "kind": "translation",
        "src_url": "https://e.org/en/1",
        "tgt_url": "https://e.org/de/1",
        "site": "e.org",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": f"Sentence {n}",
        "tgt_text": f"{text} {n}",
        "score": 0.5,
        "bead": f"[{n}]:[{n}]",
        "chunk": 0,
        "position": n,
        "method": method,
        "version": "v1",
        "model_version": "m1",
    }


def test_reading_a_missing_store_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "paramine.db"
    with pytest.raises(InvalidInput, match=f"no paramine store at {path}"):
        Store.existing(f"sqlite:///{path}")
    assert not path.exists() and not path.parent.exists()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(InvalidInput, match="holds no paramine tables"):
        Store.existing(f"sqlite:///{empty}")
    Store(f"sqlite:///{path}").ensure_schema()  # a writing command creates it, folder and all
    assert Store.existing(f"sqlite:///{path}").list_sentence_pairs(SentencePairQuery()) == []


def test_an_older_schema_names_the_migration(tmp_path: Path) -> None:
    import sqlalchemy as sa

    url = f"sqlite:///{tmp_path / 'old.db'}"
    with sa.create_engine(url).begin() as conn:
        conn.execute(sa.text("CREATE TABLE sentence_pairs (id VARCHAR(64) PRIMARY KEY)"))
    with pytest.raises(ConfigurationError, match="run `paramine migrate-store`"):
        Store(url).list_sentence_pairs(SentencePairQuery())


def test_replaying_with_other_settings_supersedes_and_the_same_settings_change_nothing() -> None:
    store = Store("sqlite://")

    def stored() -> list[tuple[str, str]]:
        rows = store.list_sentence_pairs(SentencePairQuery(duplicates=True, flagged=True))
        return [(r["id"], r["method"]) for r in rows]

    first = [_row(n, "tree+length") for n in range(3)]
    store.add_sentence_pairs(first, pair_id="pp1", stage="s", supersede="pp1")
    assert stored() == [(f"sp-tree+length-{n}", "tree+length") for n in range(3)]
    store.add_sentence_pairs(first, pair_id="pp1", stage="s", supersede="pp1")  # redelivery
    assert len(stored()) == 3
    second = [_row(n, "tree+hybrid") for n in range(2)]
    store.add_sentence_pairs(second, pair_id="pp1", stage="s", supersede="pp1")
    assert stored() == [(f"sp-tree+hybrid-{n}", "tree+hybrid") for n in range(2)]
    # same ids, another model version: the rows are replaced, not kept as they were
    third = [{**row, "model_version": "m2"} for row in second]
    store.add_sentence_pairs(third, pair_id="pp1", stage="s", supersede="pp1")
    rows = store.list_sentence_pairs(SentencePairQuery(duplicates=True))
    assert [r["model_version"] for r in rows] == ["m2", "m2"]
    store.add_sentence_pairs([], pair_id="pp1", stage="s", supersede="pp1")  # now no pairs
    assert stored() == []


def test_the_default_store_is_one_place_and_the_variable_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARAMINE_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    expected = tmp_path / "paramine" / "paramine.db"
    assert default_store_path() == expected
    assert Settings().database_url == f"sqlite:///{expected}"
    monkeypatch.chdir(tmp_path / "..")  # wherever a command runs
    assert Settings().database_url == f"sqlite:///{expected}"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # XDG: only absolute paths count
    assert default_store_path() == Path.home() / ".local/share/paramine/paramine.db"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", "sqlite:///elsewhere.db")
    assert Settings().database_url == "sqlite:///elsewhere.db"


def test_make_run_uses_the_default_store() -> None:
    # make run set its own var/paramine.db, which no bare command read
    makefile = (Path(__file__).resolve().parents[3] / "Makefile").read_text(encoding="utf-8")
    assert "PARAMINE_DATABASE_URL" not in makefile
