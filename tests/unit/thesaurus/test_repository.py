"""Tests of the thesaurus store: idempotent observations, thesauri, versioned snapshots (SQLite)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from services.thesaurus import repository
from services.thesaurus.cooccur import Cooccurrence, extract_cooccurrences
from services.thesaurus.handler import recompute_snapshots
from services.thesaurus.thesauri import Thesaurus
from shared.errors import InvalidInput
from shared.store import Store, make_engine

SENTENCES = ["犬を飼う。", "猫を飼う。", "車を運転する。", "犬を散歩させる。", "船を運転する。"]


@pytest.fixture
def engine(tmp_path: Path) -> sa.Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    repository.ensure_schema(engine)
    return engine


def _feed(engine: sa.Engine) -> int:
    return sum(
        repository.record_cooccurrences(engine, f"s{k}", extract_cooccurrences(text))
        for k, text in enumerate(SENTENCES)
    )


def test_feeding_the_same_sentences_twice_changes_nothing(engine: sa.Engine) -> None:
    assert _feed(engine) == 5
    first = repository.cooccurrence_counts(engine)
    assert _feed(engine) == 0
    assert repository.record_many(engine, [("s0", [Cooccurrence("犬", "飼う")])]) == 0
    assert repository.cooccurrence_counts(engine) == first
    assert first[Cooccurrence("犬", "飼う")] == 1


def test_thesaurus_round_trip_and_replacement(engine: sa.Engine, tree: Thesaurus) -> None:
    repository.save_thesaurus(engine, tree)
    repository.save_thesaurus(engine, tree)  # replaces, no duplicate rows
    loaded = repository.load_thesaurus(engine, "fixture")
    assert loaded.class_ids == tree.class_ids and loaded.words == tree.words
    assert repository.thesaurus_names(engine) == ["fixture"]
    with pytest.raises(InvalidInput, match="no thesaurus"):
        repository.load_thesaurus(engine, "missing")


def test_snapshots_are_versioned_and_serve_similarities(engine: sa.Engine, tree: Thesaurus) -> None:
    assert repository.similarity(engine, "犬", "猫") is None  # nothing built yet
    repository.save_thesaurus(engine, tree)
    _feed(engine)
    first = repository.rebuild_snapshot(engine, "fixture", min_pair=1, min_verb=1)
    second = repository.rebuild_snapshot(engine, "fixture", min_pair=1, min_verb=1)
    assert second != first
    old, new = repository.load_snapshot(engine, first), repository.load_snapshot(engine, second)
    assert (old.summary["version"], new.summary["version"]) == (1, 2)
    np.testing.assert_array_equal(old.model.values, new.model.values)
    np.testing.assert_array_equal(new.model.values, new.model.values.T)
    answer = repository.similarity(engine, "犬", "猫")
    assert answer is not None and answer.snapshot_id == second and answer.match is not None
    # 犬 and 猫 share the verb 飼う with positive MI: a corpus value.
    assert answer.match.round == 0 and answer.match.value > 0
    unknown = repository.similarity(engine, "犬", "未知語")
    assert unknown is not None and unknown.match is None


def test_a_snapshot_of_an_empty_store_stores_valid_json(engine: sa.Engine, tree: Thesaurus) -> None:
    # the CVs of nothing are NaN, and json.dumps wrote the bare token NaN (no JSON)
    repository.save_thesaurus(engine, tree)
    snapshot_id = repository.rebuild_snapshot(engine, tree.name)
    with engine.connect() as connection:
        stored = connection.execute(
            sa.text("SELECT summary FROM thesaurus_snapshots WHERE id = :id"), {"id": snapshot_id}
        ).scalar_one()
    summary = json.loads(stored, parse_constant=lambda token: pytest.fail(f"{token} in JSON"))
    assert summary["first_round_cv"] is None and summary["corpus_cv"] is None


def _versions(engine: sa.Engine) -> list[int]:
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT version FROM thesaurus_snapshots")).all()
    return sorted(row.version for row in rows)


def test_concurrent_rebuilds_all_land_and_old_snapshots_go(
    engine: sa.Engine, tree: Thesaurus
) -> None:
    # both read max(version) and one failed on the unique version, losing its recompute
    repository.save_thesaurus(engine, tree)
    _feed(engine)
    with ThreadPoolExecutor(max_workers=6) as pool:
        ids = list(pool.map(lambda _: repository.rebuild_snapshot(engine, tree.name), range(6)))
    assert len(set(ids)) == 6
    # the newest KEEP_SNAPSHOTS stay (each WordNet snapshot is about 270 MB)
    assert _versions(engine) == [4, 5, 6] and repository.KEEP_SNAPSHOTS == 3


def test_the_periodic_recompute_keeps_the_build_parameters_and_skips_no_change(
    engine: sa.Engine, tree: Thesaurus
) -> None:
    # it rebuilt with the defaults (min_verb 21), replacing the user's answer, and stored
    # an identical snapshot every hour
    repository.save_thesaurus(engine, tree)
    _feed(engine)
    built = repository.rebuild_snapshot(engine, tree.name, min_pair=1, min_verb=1)
    store = Store(str(engine.url))
    assert recompute_snapshots(store) == {tree.name: built}  # nothing new: no new snapshot
    repository.record_many(engine, [("s-new", extract_cooccurrences("犬を洗う。"))])
    (again,) = recompute_snapshots(store).values()
    snapshot = repository.load_snapshot(engine, again)
    assert again != built and snapshot.summary["parameters"]["min_verb"] == 1
    answer = repository.similarity(engine, "犬", "猫")
    assert answer is not None and answer.match is not None and answer.match.round == 0


def _animals_and_food(*order: str) -> Thesaurus:
    """Classes ``order`` under one root; 犬 and 猫 in animal, 林檎 and 蜜柑 in food."""
    return Thesaurus.build(
        "t",
        [("root", None, "root"), *((cid, "root", cid) for cid in order)],
        [("犬", "animal"), ("猫", "animal"), ("林檎", "food"), ("蜜柑", "food")],
    )


def _memberships(thesaurus: Thesaurus) -> dict[str, list[str]]:
    return {w: [thesaurus.class_ids[n] for n in nodes] for w, nodes in thesaurus.words.items()}


@pytest.mark.parametrize(
    "reimported",
    [("food", "animal"), ("animal", "plant", "food")],
    ids=["classes-reordered", "class-added"],
)
def test_a_reimport_between_the_reads_of_a_load_mixes_no_classes(
    tmp_path: Path, reimported: tuple[str, ...]
) -> None:
    # classes and words were two SELECTs joined by list position: a re-import committed
    # between them filed 犬 under food, or raised IndexError when a class was added
    url = f"sqlite:///{tmp_path / 'store.db'}"
    reader, writer = make_engine(url), make_engine(url)  # the writer: another process
    repository.ensure_schema(reader)
    repository.save_thesaurus(reader, _animals_and_food("animal", "food"))
    statements: list[str] = []

    def import_after_the_first_read(*args: object) -> None:
        statements.append(str(args[2]))
        if len(statements) == 2:  # the load has read once already
            repository.save_thesaurus(writer, _animals_and_food(*reimported))

    sa.event.listen(reader, "before_cursor_execute", import_after_the_first_read)
    try:
        loaded = repository.load_thesaurus(reader, "t")
    finally:
        sa.event.remove(reader, "before_cursor_execute", import_after_the_first_read)
    expected = {"犬": ["animal"], "猫": ["animal"], "林檎": ["food"], "蜜柑": ["food"]}
    assert _memberships(loaded) == expected  # the same in both versions
    assert set(loaded.class_ids) in ({"root", "animal", "food"}, {"root", *reimported})


def test_the_periodic_recompute_rebuilds_after_a_reimport_with_as_many_leaves(
    engine: sa.Engine,
) -> None:
    # it compared only parameters, observation counts and the number of leaves, so a
    # corrected thesaurus (林檎 moved from tool to food) kept serving the old snapshot
    classes = [("root", None, "root"), ("food", "root", "food"), ("tool", "root", "tool")]
    wrong = Thesaurus.build("t", classes, [("林檎", "tool"), ("蜜柑", "food"), ("鋏", "tool")])
    fixed = Thesaurus.build("t", classes, [("林檎", "food"), ("蜜柑", "food"), ("鋏", "tool")])
    repository.save_thesaurus(engine, wrong)
    sentences = ["林檎を食べる。", "蜜柑を食べる。", "鋏を使う。"]
    repository.record_many(
        engine, [(f"s{k}", extract_cooccurrences(text)) for k, text in enumerate(sentences)]
    )
    built = repository.rebuild_snapshot(engine, "t", min_pair=1, min_verb=1)
    store = Store(str(engine.url))
    assert recompute_snapshots(store) == {"t": built}  # nothing changed: kept
    repository.save_thesaurus(engine, fixed)
    assert len(fixed.leaves) == len(wrong.leaves)
    rebuilt = recompute_snapshots(store)["t"]
    assert rebuilt != built
    assert _memberships(repository.load_snapshot(engine, rebuilt).thesaurus)["林檎"] == ["food"]
    answer = repository.similarity(engine, "林檎", "蜜柑")
    assert answer is not None and answer.match is not None
    assert answer.match.first_class == answer.match.second_class == "food"
    assert recompute_snapshots(store) == {"t": rebuilt}  # and kept again after that


def _corrupt_payloads(good: bytes) -> dict[str, bytes]:
    import io as _io

    with np.load(_io.BytesIO(good), allow_pickle=False) as data:
        arrays = {key: data[key] for key in data.files}
    short = _io.BytesIO()
    np.savez_compressed(short, **{**arrays, "values": arrays["values"][:1]})
    missing = _io.BytesIO()
    np.savez_compressed(missing, **{k: v for k, v in arrays.items() if k != "rounds"})
    return {
        "garbage": b"not an npz",
        "cut short": good[: len(good) // 2],
        "values too short": short.getvalue(),
        "rounds missing": missing.getvalue(),
    }


def test_a_corrupt_snapshot_is_invalid_input_not_a_wrong_model(
    engine: sa.Engine, tree: Thesaurus
) -> None:
    # raw ValueError / BadZipFile / KeyError, and a values array of one cell was broadcast
    # over the whole matrix: a wrong model served without complaint
    repository.save_thesaurus(engine, tree)
    _feed(engine)
    snapshot_id = repository.rebuild_snapshot(engine, "fixture", min_pair=1, min_verb=1)
    table = repository.thesaurus_snapshots
    with engine.begin() as connection:
        good = connection.execute(
            sa.select(table.c.payload).where(table.c.id == snapshot_id)
        ).scalar_one()
    for payload in _corrupt_payloads(good).values():
        with engine.begin() as connection:
            connection.execute(
                sa.update(table).where(table.c.id == snapshot_id).values(payload=payload)
            )
        with pytest.raises(InvalidInput, match="similarity snapshot is corrupt"):
            repository.load_snapshot(engine, snapshot_id)  # each case in turn
