"""The store's own tables (paramine's results and bookkeeping; each stage's derived tables
live in its repository module) and the values their columns take."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from shared.ids import SITE_LENGTH

metadata = sa.MetaData()

SOURCE_LENGTH = 256  # jobs.source: a label, cut to fit

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("job_id", sa.String(64), primary_key=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("source", sa.String(SOURCE_LENGTH), nullable=False, server_default=""),
)

job_pairs = sa.Table(
    "job_pairs",
    metadata,
    sa.Column("job_id", sa.String(64), primary_key=True),
    sa.Column("pair_id", sa.String(64), primary_key=True),
    sa.Column("src_url", sa.Text, nullable=False, server_default=""),
    sa.Column("tgt_url", sa.Text, nullable=False, server_default=""),
    # Delivery tracking (distributed mode, shared/delivery/reconcile.py): the message that starts
    # the pair's work, kept until the pair completes. state: NULL untracked (embedded runs),
    # 'pending', 'done' (payload dropped) or 'dead' (dead-lettered; kept for a retry).
    sa.Column("state", sa.String(8), nullable=True),
    sa.Column("stage", sa.String(32), nullable=True),
    sa.Column("payload", sa.Text, nullable=True),
    sa.Column("enqueued_at", sa.Float, nullable=True),
    sa.Column("enqueues", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_job_pairs_state_enqueued", "state", "enqueued_at"),
    sa.Index("ix_job_pairs_pair_id", "pair_id"),
)

pair_progress = sa.Table(
    "pair_progress",
    metadata,
    sa.Column("pair_id", sa.String(64), primary_key=True),
    sa.Column("stage", sa.String(32), primary_key=True),
    sa.Column("outputs", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.Float, nullable=False),
)

# The ingest sequence of page pairs (``shared.store.order``): a page pair learns from its
# site's page pairs of lower ``seq`` only, so its output does not depend on the schedule.
# ``site``/``tgt_site``: the hosts of its two pages; ``failed``: 1 once it is dead-lettered.
pair_order = sa.Table(
    "pair_order",
    metadata,
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("pair_id", sa.String(64), nullable=False, unique=True),
    sa.Column("site", sa.String(SITE_LENGTH), nullable=False),
    sa.Column("tgt_site", sa.String(SITE_LENGTH), nullable=False),
    sa.Column("registered_at", sa.Float, nullable=False),
    sa.Column("failed", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_pair_order_site", "site", "seq"),
    sa.Index("ix_pair_order_tgt_site", "tgt_site", "seq"),
    sqlite_autoincrement=True,
)

# What the ingest order has settled already, so that a page pair's checks read only the
# pairs of its site since (``shared.store.order``); ``sites``: a page pair's hosts, sorted
# and joined by a space. ``settled_marks``: the seq at or below which every pair of the sites
# is through ``stage``, failed, or was recorded before ``since`` (being through or failed
# never ends, so a mark stays true). ``site_checkpoints``: the seq of the sites' ``number``-th
# pair in the ingest order (fixed once that pair is recorded).
SITES_LENGTH = 2 * SITE_LENGTH + 1
settled_marks = sa.Table(
    "settled_marks",
    metadata,
    sa.Column("sites", sa.String(SITES_LENGTH), primary_key=True),
    sa.Column("stage", sa.String(32), primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("since", sa.Float, nullable=False),
)
site_checkpoints = sa.Table(
    "site_checkpoints",
    metadata,
    sa.Column("sites", sa.String(SITES_LENGTH), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Index("ix_site_checkpoints_seq", "sites", "seq"),
)

# Columns this version added to sentence_pairs: a store without them is migrated by
# `paramine migrate-store` (shared/store/migrate.py).
PROVENANCE = ("method", "version", "model_version")
PROVENANCE_COLUMNS = (
    sa.Column("method", sa.String(64), nullable=False, server_default=""),
    sa.Column("version", sa.String(64), nullable=False, server_default=""),
    sa.Column("model_version", sa.String(128), nullable=False, server_default=""),
)
# The DP's own score of the bead (its posterior, or exp(-cost) for aligners without one)
# beside ``score``, the pair classifier's probability
# (services/sentence_align/classifier/pair_model.py);
# NULL for pairs no bead aligner produced (article pairs). A store of the versions before
# the classifier gets it as a copy of ``score``, which was that posterior.
POSTERIOR = "posterior"
ADDED_COLUMNS = ("dedup_key", "flag", *PROVENANCE, POSTERIOR)
MIGRATE_COMMAND = "paramine migrate-store"

sentence_pairs = sa.Table(
    "sentence_pairs",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("pair_id", sa.String(64), nullable=False, index=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("src_url", sa.Text, nullable=False),
    sa.Column("tgt_url", sa.Text, nullable=False),
    sa.Column("site", sa.String(SITE_LENGTH), nullable=False, index=True),
    sa.Column("src_lang", sa.String(16), nullable=False),
    sa.Column("tgt_lang", sa.String(16), nullable=False),
    sa.Column("src_text", sa.Text, nullable=False),
    sa.Column("tgt_text", sa.Text, nullable=False),
    # The pair classifier's probability that the two sides translate each other (what
    # exports filter on); the DP's own score of the bead is ``posterior``, below.
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("bead", sa.String(128), nullable=False),
    # Index of the aligned text chunk (node pair) the bead came from; -1: not from a tree.
    sa.Column("chunk", sa.Integer, nullable=False, server_default="-1"),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    # The corpus conventions (shared/corpus_clean.py): pairs with one dedup_key are one pair
    # of the corpus; flag '' or why the pair is no translation (untranslated, wrong-language,
    # boilerplate).
    sa.Column("dedup_key", sa.String(64), nullable=False, server_default="", index=True),
    sa.Column("flag", sa.String(32), nullable=False, server_default=""),
    # Provenance (shared/provenance.py): what produced the pair.
    *PROVENANCE_COLUMNS,
    sa.Column(POSTERIOR, sa.Float, nullable=True),
    # A site's latest pairs (what sentence_align learns from: Store.site_pairs) without
    # sorting every pair of the site (`paramine migrate-store` adds it to an older store).
    sa.Index("ix_sentence_pairs_site_created", "site", "created_at"),
)

# The tree alignment's aligned text chunks of one page pair (what sentence_align worked
# inside): the xpaths of the two block elements, their text and the summed -log Pr.
node_pairs = sa.Table(
    "node_pairs",
    metadata,
    sa.Column("pair_id", sa.String(64), primary_key=True),
    sa.Column("chunk", sa.Integer, primary_key=True),
    sa.Column("src_xpath", sa.Text, nullable=False),
    sa.Column("tgt_xpath", sa.Text, nullable=False),
    sa.Column("src_text", sa.Text, nullable=False),
    sa.Column("tgt_text", sa.Text, nullable=False),
    sa.Column("cost", sa.Float, nullable=False),
)

paraphrase_observations = sa.Table(
    "paraphrase_observations",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("lang", sa.String(16), nullable=False),
    sa.Column("src_text", sa.Text, nullable=False),
    sa.Column("tgt_text", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)

# The page_match messages of a job (single pages, PAGES_PER_MESSAGE a message), recorded before
# they are sent: a job is not done while one of them is pending (state as job_pairs.state,
# without NULL: 'pending', 'done' when page_match has stored its pages, 'dead' when the whole
# message became a dead letter).
job_batches = sa.Table(
    "job_batches",
    metadata,
    sa.Column("job_id", sa.String(64), primary_key=True),
    sa.Column("batch_id", sa.String(64), primary_key=True),
    sa.Column("pages", sa.Integer, nullable=False),
    sa.Column("state", sa.String(8), nullable=False),
    sa.Index("ix_job_batches_batch_id", "batch_id"),
)

dead_letters = sa.Table(
    "dead_letters",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("stage", sa.String(32), nullable=False, index=True),
    sa.Column("job_id", sa.String(64), nullable=True, index=True),
    sa.Column("error_type", sa.String(128), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("payload", sa.Text, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)


def missing_columns(engine: Engine) -> list[str]:
    """The columns this version added to sentence_pairs that the store's table lacks."""
    present = {column["name"] for column in sa.inspect(engine).get_columns(sentence_pairs.name)}
    return [name for name in ADDED_COLUMNS if name not in present]


# Tracked pair states (job_pairs.state) and the stage whose progress row completes a pair.
PENDING, DONE, DEAD = "pending", "done", "dead"
COMPLETING_STAGE = "sentence_align"
