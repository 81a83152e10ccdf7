"""Persistence of the thesaurus stage: thesauri, cooccurrence observations, similarity snapshots.

Tables live in this module's own ``MetaData`` (created by ``ensure_schema``), and every
function takes an ``Engine``, so the same code runs on SQLite and PostgreSQL.

* Observations are keyed by (sentence id, position): recording a sentence again changes
  nothing, and counts are always aggregated from the stored observations (never incremented).
* A snapshot is one recompute of the similarity model for one thesaurus: versioned per
  thesaurus, with its parameters and diagnostics as JSON and the arrays as an ``.npz`` blob
  (upper triangle of the symmetric SIM and round matrices, plus the thesaurus itself as
  JSON so a snapshot answers queries on its own even after the thesaurus is re-imported).
"""

from __future__ import annotations

import functools
import io
import json
import math
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import sqlalchemy as sa

from services.thesaurus.cooccur import Cooccurrence, filter_counts
from services.thesaurus.estimate import estimate_undefined
from services.thesaurus.similarity import (
    ClassPairMatch,
    SimilarityModel,
    best_class_pair,
    build_model,
)
from services.thesaurus.thesauri import Thesaurus
from shared.errors import InvalidInput
from shared.store import create_tables_once, insert_ignoring_conflicts

metadata = sa.MetaData()

thesaurus_classes = sa.Table(
    "thesaurus_classes",
    metadata,
    sa.Column("thesaurus", sa.String(100), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("class_id", sa.String(100), nullable=False),
    sa.Column("parent_position", sa.Integer, nullable=False),  # -1 for the root
    sa.Column("label", sa.Text, nullable=False),
)

thesaurus_words = sa.Table(
    "thesaurus_words",
    metadata,
    sa.Column("thesaurus", sa.String(100), primary_key=True),
    sa.Column("word", sa.String(200), primary_key=True),
    sa.Column("class_position", sa.Integer, primary_key=True),
)

thesaurus_observations = sa.Table(
    "thesaurus_observations",
    metadata,
    sa.Column("sentence_id", sa.String(64), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("noun", sa.String(200), nullable=False),
    sa.Column("verb", sa.String(200), nullable=False),
    sa.Index("ix_thesaurus_observations_pair", "noun", "verb"),
)

thesaurus_snapshots = sa.Table(
    "thesaurus_snapshots",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("thesaurus", sa.String(100), nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("summary", sa.Text, nullable=False),  # JSON: parameters, counts, diagnostics
    sa.Column("payload", sa.LargeBinary, nullable=False),  # npz
    sa.UniqueConstraint("thesaurus", "version", name="uq_thesaurus_snapshot_version"),
)

_BATCH = 5_000


def ensure_schema(engine: sa.Engine) -> None:
    """Create this stage's tables when they are missing (safe for concurrent callers); once
    per engine and process (it ran on every message and request)."""
    create_tables_once(engine, metadata)


# -- thesauri ----------------------------------------------------------------------------------


def save_thesaurus(engine: sa.Engine, thesaurus: Thesaurus) -> None:
    """Store a thesaurus under its name, replacing any previous one of that name."""
    classes = [
        {
            "thesaurus": thesaurus.name,
            "position": position,
            "class_id": class_id,
            "parent_position": int(thesaurus.parent[position]),
            "label": thesaurus.labels[position],
        }
        for position, class_id in enumerate(thesaurus.class_ids)
    ]
    words = [
        {"thesaurus": thesaurus.name, "word": word, "class_position": node}
        for word, nodes in thesaurus.words.items()
        for node in nodes
    ]
    with engine.begin() as connection:
        for table in (thesaurus_classes, thesaurus_words):
            connection.execute(table.delete().where(table.c.thesaurus == thesaurus.name))
        for table, rows in ((thesaurus_classes, classes), (thesaurus_words, words)):
            for start in range(0, len(rows), _BATCH):
                connection.execute(table.insert(), rows[start : start + _BATCH])


def load_thesaurus(engine: sa.Engine, name: str) -> Thesaurus:
    """The stored thesaurus of that name (``InvalidInput`` when there is none).

    Classes, their parents and their words are read by one SELECT joined on the class key,
    so a re-import committed meanwhile is seen whole or not at all (two SELECTs joined by
    list position filed words under another version's classes, or raised IndexError)."""
    parent = thesaurus_classes.alias("parent")
    query = (
        sa.select(
            thesaurus_classes.c.class_id,
            parent.c.class_id.label("parent_id"),
            thesaurus_classes.c.label,
            thesaurus_words.c.word,
        )
        .select_from(
            thesaurus_classes.outerjoin(
                parent,
                sa.and_(
                    parent.c.thesaurus == thesaurus_classes.c.thesaurus,
                    parent.c.position == thesaurus_classes.c.parent_position,
                ),
            ).outerjoin(
                thesaurus_words,
                sa.and_(
                    thesaurus_words.c.thesaurus == thesaurus_classes.c.thesaurus,
                    thesaurus_words.c.class_position == thesaurus_classes.c.position,
                ),
            )
        )
        .where(thesaurus_classes.c.thesaurus == name)
        .order_by(thesaurus_classes.c.position, thesaurus_words.c.word)
    )
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    if not rows:
        raise InvalidInput(f"no thesaurus named {name!r} in the store; import one first")
    # One row per (class, word), or (class, NULL) for a class without words.
    classes = {row.class_id: (row.class_id, row.parent_id, row.label) for row in rows}
    return Thesaurus.build(
        name,
        list(classes.values()),
        [(row.word, row.class_id) for row in rows if row.word is not None],
    )


def thesaurus_names(engine: sa.Engine) -> list[str]:
    with engine.connect() as connection:
        rows = connection.execute(sa.select(thesaurus_classes.c.thesaurus).distinct()).all()
    return sorted(row.thesaurus for row in rows)


# -- observations ------------------------------------------------------------------------------


def record_cooccurrences(
    engine: sa.Engine, sentence_id: str, cooccurrences: Sequence[Cooccurrence]
) -> int:
    """Store a sentence's cooccurrences; a sentence already stored is left as it is.

    Returns the number of rows inserted (0 when the sentence was recorded before).
    """
    rows = [
        {"sentence_id": sentence_id, "position": position, "noun": pair.noun, "verb": pair.verb}
        for position, pair in enumerate(cooccurrences)
    ]
    with engine.begin() as connection:
        return insert_ignoring_conflicts(connection, thesaurus_observations, rows)


def record_many(engine: sa.Engine, sentences: Iterable[tuple[str, Sequence[Cooccurrence]]]) -> int:
    """Record many sentences in batched transactions (for bulk builds); returns rows inserted."""
    inserted = 0
    batch: list[dict[str, Any]] = []
    with engine.begin() as connection:
        for sentence_id, cooccurrences in sentences:
            batch.extend(
                {"sentence_id": sentence_id, "position": k, "noun": p.noun, "verb": p.verb}
                for k, p in enumerate(cooccurrences)
            )
            if len(batch) >= _BATCH:
                inserted += insert_ignoring_conflicts(connection, thesaurus_observations, batch)
                batch = []
        inserted += insert_ignoring_conflicts(connection, thesaurus_observations, batch)
    return inserted


def cooccurrence_counts(engine: sa.Engine) -> dict[Cooccurrence, int]:
    """Frequency of every (noun, verb) over all stored observations."""
    query = sa.select(
        thesaurus_observations.c.noun, thesaurus_observations.c.verb, sa.func.count()
    ).group_by(thesaurus_observations.c.noun, thesaurus_observations.c.verb)
    with engine.connect() as connection:
        return {Cooccurrence(noun, verb): int(n) for noun, verb, n in connection.execute(query)}


# -- snapshots ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """A stored similarity model with the thesaurus it was built over."""

    id: int
    thesaurus: Thesaurus
    model: SimilarityModel
    summary: dict[str, Any]


def _pack(model: SimilarityModel, thesaurus: Thesaurus) -> bytes:
    upper = np.triu(np.ones(model.values.shape, dtype=bool))
    buffer = io.BytesIO()
    np.savez(
        buffer,
        values=model.values[upper],
        rounds=model.rounds[upper],
        class_frequency=model.class_frequency,
        total=np.array([model.total]),
        thesaurus=np.array([thesaurus.to_json()]),
    )
    return buffer.getvalue()


def _symmetric(upper_values: np.ndarray[Any, Any], size: int, dtype: Any) -> Any:
    upper = np.triu(np.ones((size, size), dtype=bool))
    full = np.zeros((size, size), dtype=dtype)
    full[upper] = upper_values
    return np.where(upper, full, full.T)


def _unpack(payload: bytes) -> tuple[SimilarityModel, Thesaurus]:
    """A snapshot's model and thesaurus; InvalidInput when the payload is not one (garbage, cut
    short, a key missing, or arrays of the wrong size: a short ``values`` was broadcast over
    the whole matrix and a wrong model served)."""
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as data:
            thesaurus = Thesaurus.from_json(str(data["thesaurus"][0]))
            size = len(thesaurus.leaves)
            cells = size * (size + 1) // 2
            values, rounds = data["values"], data["rounds"]
            frequency = data["class_frequency"]
            if values.shape != (cells,) or rounds.shape != (cells,) or len(frequency) != size:
                raise ValueError(
                    f"arrays of {values.shape}, {rounds.shape}, {frequency.shape} for "
                    f"{size} classes"
                )
            model = SimilarityModel(
                thesaurus.leaf_ids,
                _symmetric(values, size, np.float32),
                _symmetric(rounds, size, np.int8),
                frequency,
                float(data["total"][0]),
            )
    except (ValueError, KeyError, IndexError, OSError, zipfile.BadZipFile, EOFError) as error:
        raise InvalidInput(f"the similarity snapshot is corrupt: {error}") from None
    return model, thesaurus


# Snapshots kept per thesaurus (older ones are deleted when a new one is stored): one of the
# WordNet thesaurus takes hundreds of megabytes (benchmarks/results/tuning_history.md,
# services/thesaurus/repository.py), and the hourly recompute stored one each time.
KEEP_SNAPSHOTS = 3
_SAVE_ATTEMPTS = 10


def save_snapshot(
    engine: sa.Engine, model: SimilarityModel, thesaurus: Thesaurus, summary: dict[str, Any]
) -> int:
    """Store a model as the next version for its thesaurus (keeping the newest
    ``KEEP_SNAPSHOTS``); returns the snapshot id. Two saves at once both land: the one that
    loses the race for a version number takes the next (it failed on the unique version)."""
    payload = _pack(model, thesaurus)
    for attempt in range(_SAVE_ATTEMPTS):
        try:
            return _insert_snapshot(engine, thesaurus.name, summary, payload)
        except sa.exc.IntegrityError:
            if attempt == _SAVE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _insert_snapshot(engine: sa.Engine, name: str, summary: dict[str, Any], payload: bytes) -> int:
    # The version is computed inside the INSERT (one statement: SQLite's write lock covers it;
    # PostgreSQL may still see two equal versions, and the unique index refuses the second,
    # which save_snapshot sends again). Read first, inserted after, two saves took one number.
    next_version = (
        sa.select(sa.func.coalesce(sa.func.max(thesaurus_snapshots.c.version), 0) + 1)
        .where(thesaurus_snapshots.c.thesaurus == name)
        .scalar_subquery()
    )
    with engine.begin() as connection:
        row = connection.execute(
            thesaurus_snapshots.insert()
            .values(
                thesaurus=name,
                version=next_version,
                created_at=datetime.now(UTC),
                # NaN (a CV of nothing) is no JSON: stored as null; the version is the column's
                summary=json.dumps(_finite(summary), ensure_ascii=False, allow_nan=False),
                payload=payload,
            )
            .returning(thesaurus_snapshots.c.id, thesaurus_snapshots.c.version)
        ).one()
        connection.execute(
            sa.delete(thesaurus_snapshots).where(
                thesaurus_snapshots.c.thesaurus == name,
                thesaurus_snapshots.c.version <= row.version - KEEP_SNAPSHOTS,
            )
        )
    return int(row.id)


DEFAULT_SNAPSHOT_PARAMETERS: dict[str, Any] = {
    "min_pair": 2, "min_verb": 21, "polysemy": "verb", "diagonal": True,
}  # fmt: skip


def snapshot_parameters(engine: sa.Engine, thesaurus_name: str) -> dict[str, Any]:
    """The build parameters of the thesaurus' newest snapshot (defaults without one): the
    periodic recompute keeps what ``paramine thesaurus build`` was told (it replaced them with
    the defaults, and a user's snapshot with another answer)."""
    stored = (_latest_summary(engine, thesaurus_name) or {}).get("parameters", {})
    return {key: stored.get(key, value) for key, value in DEFAULT_SNAPSHOT_PARAMETERS.items()}


def _latest_summary(engine: sa.Engine, thesaurus_name: str) -> dict[str, Any] | None:
    """The stored summary of the thesaurus' newest snapshot (None without one)."""
    with engine.connect() as connection:
        summary = connection.execute(
            sa.select(thesaurus_snapshots.c.summary)
            .where(thesaurus_snapshots.c.thesaurus == thesaurus_name)
            .order_by(thesaurus_snapshots.c.id.desc())
            .limit(1)
        ).scalar()
    return None if summary is None else dict(json.loads(summary))


def rebuild_snapshot(
    engine: sa.Engine,
    thesaurus_name: str,
    *,
    min_pair: int = 2,
    min_verb: int = 21,
    polysemy: str = "verb",
    diagonal: bool = True,
    unless_unchanged: bool = False,
) -> int:
    """Recompute the similarity model from all stored observations (§4 steps 1–4); snapshot id.

    ``unless_unchanged``: when the newest snapshot of the thesaurus was built from as many
    observations of as many types with the same parameters over the same thesaurus content
    (observations are only ever added; the content by ``Thesaurus.digest``, since a corrected
    re-import with as many leaves kept serving the old classes), return its id instead of
    storing an identical one."""
    thesaurus = load_thesaurus(engine, thesaurus_name)
    observed = cooccurrence_counts(engine)
    parameters = {
        "min_pair": min_pair, "min_verb": min_verb, "polysemy": polysemy, "diagonal": diagonal,
    }  # fmt: skip
    if unless_unchanged:
        latest = latest_snapshot_id(engine, thesaurus_name)
        summary = _latest_summary(engine, thesaurus_name) or {}
        same = (
            summary.get("parameters") == parameters
            and summary.get("observations") == sum(observed.values())
            and summary.get("observed_types") == len(observed)
            and summary.get("thesaurus_digest") == thesaurus.digest
        )
        if latest is not None and same:
            return latest
    kept = filter_counts(observed, min_pair=min_pair, min_verb=min_verb)
    model = build_model(kept, thesaurus, polysemy=polysemy)
    estimation = estimate_undefined(model, thesaurus, diagonal=diagonal)
    corpus_share = model.defined_share()
    final = SimilarityModel(
        model.leaf_ids, estimation.values, estimation.rounds, model.class_frequency, model.total
    )
    summary = {
        "parameters": parameters,
        "observations": sum(observed.values()),
        "observed_types": len(observed),
        "kept_observations": sum(kept.values()),
        "kept_types": len(kept),
        "generalised_total": model.total,
        "leaves": len(model.leaf_ids),
        "thesaurus_digest": thesaurus.digest,
        "corpus_defined_share": corpus_share.get(0, 0.0),
        "round_shares": {str(k): v for k, v in final.defined_share().items()},
        "first_round_cv": estimation.first_round_cv,
        "corpus_cv": estimation.corpus_cv,
    }
    return save_snapshot(engine, final, thesaurus, summary)


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, inf) inside it replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def snapshot_thesauri(engine: sa.Engine) -> list[str]:
    """Names of the thesauri that have a similarity snapshot, sorted."""
    with engine.connect() as connection:
        rows = connection.execute(sa.select(thesaurus_snapshots.c.thesaurus).distinct()).all()
    return sorted(row.thesaurus for row in rows)


def latest_snapshot_id(engine: sa.Engine, thesaurus_name: str | None = None) -> int | None:
    """Id of the newest snapshot (of that thesaurus, or of any)."""
    query = sa.select(sa.func.max(thesaurus_snapshots.c.id))
    if thesaurus_name is not None:
        query = query.where(thesaurus_snapshots.c.thesaurus == thesaurus_name)
    with engine.connect() as connection:
        found = connection.execute(query).scalar()
    return None if found is None else int(found)


@functools.lru_cache(maxsize=2)
def load_snapshot(engine: sa.Engine, snapshot_id: int) -> Snapshot:
    """A stored snapshot, decoded (cached: snapshots never change once written)."""
    with engine.connect() as connection:
        row = connection.execute(
            sa.select(thesaurus_snapshots).where(thesaurus_snapshots.c.id == snapshot_id)
        ).first()
    if row is None:
        raise InvalidInput(f"no similarity snapshot with id {snapshot_id}")
    model, thesaurus = _unpack(row.payload)
    return Snapshot(row.id, thesaurus, model, {**json.loads(row.summary), "version": row.version})


@dataclass(frozen=True)
class SimilarityAnswer:
    """The similarity of two words as served, with where it came from."""

    snapshot_id: int
    thesaurus: str
    match: ClassPairMatch | None  # None: a word is unknown or no value is defined


def similarity(
    engine: sa.Engine, a: str, b: str, *, thesaurus_name: str | None = None
) -> SimilarityAnswer | None:
    """Word similarity from the newest snapshot (None when no snapshot exists yet)."""
    snapshot_id = latest_snapshot_id(engine, thesaurus_name)
    if snapshot_id is None:
        return None
    snapshot = load_snapshot(engine, snapshot_id)
    match = best_class_pair(snapshot.model, snapshot.thesaurus, a, b)
    return SimilarityAnswer(snapshot_id, snapshot.thesaurus.name, match)


@dataclass(frozen=True)
class SimilarityMatrix:
    """The newest similarity snapshot's leaf classes and symmetric SIM/round matrices."""

    snapshot_id: int
    thesaurus: str
    class_ids: tuple[str, ...]
    labels: tuple[str, ...]
    values: np.ndarray[Any, Any]
    rounds: np.ndarray[Any, Any]


def latest_similarity(engine: sa.Engine, thesaurus: str | None = None) -> SimilarityMatrix | None:
    """The newest snapshot (of that thesaurus, or of any) as a matrix; None when there is none."""
    ensure_schema(engine)
    snapshot_id = latest_snapshot_id(engine, thesaurus)
    if snapshot_id is None:
        return None
    snapshot = load_snapshot(engine, snapshot_id)
    tree = snapshot.thesaurus
    return SimilarityMatrix(
        snapshot_id,
        tree.name,
        snapshot.model.leaf_ids,
        tuple(tree.labels[int(node)] for node in tree.leaves),
        snapshot.model.values,
        snapshot.model.rounds,
    )
