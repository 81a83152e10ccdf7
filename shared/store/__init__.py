"""The result store on SQLAlchemy Core: SQLite file by default, PostgreSQL by URL.

Every row is keyed by a content-derived id and written with an insert that ignores
conflicts, so replaying a message (redelivery, resubmission) leaves the tables unchanged.
Aggregates (job progress, paraphrase tables) are computed from these observations.

One module per concern: ``engine`` (connections, table creation, transactions), ``inserts``
(idempotent inserts), ``tables`` (the store's tables), ``rows`` (typed rows), and a
repository per domain that ``Store`` combines: ``jobs`` (jobs, delivery tracking, progress,
status), ``corpus`` (sentence pairs, node pairs), ``paraphrases`` (paraphrase observations),
``dead_letters``, ``order`` (the page pairs' ingest order). Each stage's derived tables
live in its own ``services/<stage>/repository.py``.
"""

from __future__ import annotations

from shared.ids import site_of
from shared.pair_query import SentencePairQuery
from shared.sentence_pair import SentencePairRecord, StoredSentencePair
from shared.store.corpus import CorpusRepository
from shared.store.dead_letters import DeadLetterRepository
from shared.store.engine import (
    create_tables,
    create_tables_once,
    display_url,
    make_engine,
    normalise_url,
    sqlite_path,
)
from shared.store.inserts import insert_ignoring_conflicts, without_nul
from shared.store.jobs import JobRepository
from shared.store.order import OrderRepository, PairPosition
from shared.store.paraphrases import ParaphraseRepository
from shared.store.rows import (
    FailureCount,
    JobStatus,
    NodePairRow,
    ParaphraseObservationRow,
    TrackedPair,
    stored_fields,
)
from shared.store.tables import (
    ADDED_COLUMNS,
    DEAD,
    DONE,
    MIGRATE_COMMAND,
    PENDING,
    POSTERIOR,
    PROVENANCE,
    PROVENANCE_COLUMNS,
    dead_letters,
    job_pairs,
    jobs,
    metadata,
    missing_columns,
    node_pairs,
    pair_progress,
    paraphrase_observations,
    sentence_pairs,
)

__all__ = [
    "ADDED_COLUMNS",
    "DEAD",
    "DONE",
    "MIGRATE_COMMAND",
    "PENDING",
    "POSTERIOR",
    "PROVENANCE",
    "PROVENANCE_COLUMNS",
    "FailureCount",
    "JobStatus",
    "NodePairRow",
    "PairPosition",
    "ParaphraseObservationRow",
    "SentencePairQuery",
    "SentencePairRecord",
    "Store",
    "StoredSentencePair",
    "TrackedPair",
    "create_tables",
    "create_tables_once",
    "dead_letters",
    "display_url",
    "insert_ignoring_conflicts",
    "job_pairs",
    "jobs",
    "make_engine",
    "metadata",
    "missing_columns",
    "node_pairs",
    "normalise_url",
    "pair_progress",
    "paraphrase_observations",
    "sentence_pairs",
    "site_of",
    "sqlite_path",
    "stored_fields",
    "without_nul",
]


class Store(
    JobRepository, CorpusRepository, ParaphraseRepository, DeadLetterRepository, OrderRepository
):
    """All reads and writes of paramine's own tables, one repository per domain."""
