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
        return [(r.id, r.method) for r in rows]

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
    assert [r.model_version for r in rows] == ["m2", "m2"]
    store.add_sentence_pairs([], pair_id="pp1", stage="s", supersede="pp1")  # now no pairs
    assert stored() == []


# (pair_id, site, langs, texts, bead, score, flag), stored in this order
SITE_ROWS = [
    ("pp1", "e.org", ("en", "de"), ("E1", "D1"), "[0]:[0]", 0.95, ""),
    ("pp1", "e.org", ("en", "de"), ("E2 E3", "D2"), "[1, 2]:[1]", 0.99, ""),  # two sentences
    ("pp2", "e.org", ("de", "en"), ("D4", "E4"), "[0]:[0]", 0.92, ""),  # the other way round
    ("pp2", "e.org", ("en", "de"), ("E5", "D5"), "[1]:[1]", 0.5, ""),  # scored too low
    ("pp3", "e.org", ("en", "de"), ("E6", "E6"), "[0]:[0]", 0.99, "untranslated"),
    ("pp4", "other.org", ("en", "de"), ("E7", "D7"), "[0]:[0]", 0.99, ""),  # another site
    ("pp5", "e.org", ("en", "fr"), ("E8", "F8"), "[0]:[0]", 0.99, ""),  # other languages
    ("pp6", "e.org", ("en", "de"), ("E9", "D9"), "[0]:[0]", 0.99, ""),  # the asking pair's own
    ("pp7", "e.org", ("en", "de"), ("E10", "D10"), "article:0.5", 0.99, ""),  # not a bead
    ("pp8", "e.org", ("en", "de"), ("E1", "D1"), "[3]:[3]", 0.97, ""),  # pp1's pair again
]


def fill_site_rows(store: Store) -> None:
    for n, (pair_id, site, langs, texts, bead, score, flag) in enumerate(SITE_ROWS):
        row = {
            "id": f"sp-{n}", "pair_id": pair_id, "kind": "translation",
            "src_url": f"https://{site}/{langs[0]}/{n}", "tgt_url": f"https://{site}/{langs[1]}/{n}",
            "site": site, "src_lang": langs[0], "tgt_lang": langs[1], "src_text": texts[0],
            "tgt_text": texts[1], "score": score, "bead": bead, "chunk": 0, "position": 0,
            "flag": flag,
        }  # fmt: skip
        store.add_sentence_pairs([row], pair_id=pair_id, stage="s")


def test_site_pairs_are_the_sites_latest_confident_one_to_one_pairs() -> None:
    store = Store("sqlite://")
    fill_site_rows(store)
    ask = {"limit": 10, "min_score": 0.9, "exclude_pair_id": "pp6"}
    # newest first, each as the asking pair's languages order it, a pair stored again once
    assert store.site_pairs(["e.org"], ("en", "de"), **ask) == [("E1", "D1"), ("E4", "D4")]
    assert store.site_pairs(["e.org"], ("de", "en"), **ask) == [("D1", "E1"), ("D4", "E4")]
    assert store.site_pairs(["e.org"], ("en", "de"), **{**ask, "limit": 1}) == [("E1", "D1")]
    assert store.site_pairs(["e.org"], ("en", "de"), **{**ask, "exclude_pair_id": ""})[:2] == [
        ("E1", "D1"),
        ("E9", "D9"),
    ]
    assert store.site_pairs(["e.org"], ("en", "de"), **{**ask, "min_score": 0.0}) == [
        ("E1", "D1"),
        ("E5", "D5"),
        ("E4", "D4"),
    ]
    assert store.site_pairs(["nowhere.org"], ("en", "de"), **ask) == []
    # a site with a host per language: pairs filed under either host
    both = store.site_pairs(["other.org", "e.org"], ("en", "de"), **ask)
    assert both == [("E1", "D1"), ("E7", "D7"), ("E4", "D4")]


def test_site_pairs_can_leave_out_long_sentences() -> None:
    store = Store("sqlite://")
    fill_site_rows(store)
    ask = {"limit": 10, "min_score": 0.9, "exclude_pair_id": "pp6"}
    assert store.site_pairs(["e.org"], ("en", "de"), **ask, max_length=2) == [
        ("E1", "D1"),
        ("E4", "D4"),
    ]
    assert store.site_pairs(["e.org"], ("en", "de"), **ask, max_length=1) == []


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
