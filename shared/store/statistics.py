"""The planner's statistics of a PostgreSQL store, kept up to date by the store itself.

PostgreSQL plans each query from statistics that ``ANALYZE`` takes; autovacuum takes them
again once a table has changed by a tenth, but a server may run without it (this project's
CI server does). Then a table is planned from what it held when last analyzed, or from
defaults when it never was, for ever: reading the rows of 64 page pairs became a scan of
every row of the store, and a site's read grew with the site (``benchmarks/results/soak.md``).
So every ``CHECK_EVERY`` transactions a process looks for tables of its schema changed by
more than autovacuum's own bound since their last analysis, and analyzes them: one process
at a time (an advisory lock; the others go on), never waiting long for a lock. With
autovacuum on, it has seldom anything left to do.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa

log = logging.getLogger(__name__)

# Transactions of a store object between two looks at the statistics (one query, ~1 ms).
CHECK_EVERY = 500
# autovacuum's defaults (autovacuum_analyze_threshold, autovacuum_analyze_scale_factor):
# analyze once this many rows and this share of the table changed since the last analysis
ANALYZE_THRESHOLD = 50
ANALYZE_SCALE = 0.1
# The advisory lock one analyzing process holds (any constant no other lock of the store uses).
ANALYZE_LOCK = 0x7061_7261_6D73
_GROWN = sa.text(
    "SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema()"
    " AND n_mod_since_analyze > :threshold + :scale * n_live_tup ORDER BY relname"
)


def analyze_grown(engine: sa.Engine) -> list[str]:
    """Analyze the tables of the engine's schema grown past autovacuum's bound since their
    last analysis; their names (none when another process is at it, or not PostgreSQL)."""
    if engine.dialect.name != "postgresql":
        return []
    with engine.begin() as conn:
        if not conn.execute(sa.text("SELECT pg_try_advisory_xact_lock(:key)"),
                            {"key": ANALYZE_LOCK}).scalar():  # fmt: skip
            return []
        conn.execute(sa.text("SET LOCAL lock_timeout = '2s'"))
        bound = {"threshold": ANALYZE_THRESHOLD, "scale": ANALYZE_SCALE}
        grown = [str(name) for name in conn.execute(_GROWN, bound).scalars()]
        quote = conn.dialect.identifier_preparer.quote
        for name in grown:
            conn.execute(sa.text(f"ANALYZE {quote(name)}"))
    return grown


def keep_statistics(engine: sa.Engine) -> None:
    """``analyze_grown``, a failure logged in one line and otherwise ignored: the statistics
    are worth a retry at the next look, never a failed message."""
    try:
        grown = analyze_grown(engine)
    except sa.exc.DBAPIError as exc:
        log.warning("store statistics not updated: %s", str(exc).splitlines()[0])
        return
    if grown:
        log.info("store statistics updated: %s", ", ".join(grown))
