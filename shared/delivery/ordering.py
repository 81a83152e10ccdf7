"""Learning from a site in the order its page pairs were accepted, whatever the schedule.

tree_align and sentence_align learn from the site's earlier page pairs (blocks that recur
on its pages; its stored sentence pairs). :func:`learning_position` tells a stage which
pairs are "earlier" for a page pair (those of lower ingest ``seq``, ``shared.store.order``)
and makes sure they are all through the stage before it reads them: while one is not, the
message is deferred (:class:`~shared.errors.Deferred`, run again a little later), so an
earlier pair that finishes late, is redelivered after a worker was killed, or waits behind a
retry is still seen. The same crawl then gives the same corpus embedded, on a cluster and
after faults.

The wait is bounded by ``Settings.site_wait`` seconds from the page pair's acceptance; an
earlier pair accepted that long before it and still not through (an abandoned run) is not
waited for. Embedded runs never defer: they process pairs one after the other in ingest
order, so the earlier pairs have been through every stage already (or failed).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

from shared.config import get_settings
from shared.errors import Deferred
from shared.store import PairPosition, Store

# How long a worker holds a deferred message before it sends it again (to the back of the
# queue): short, since the pairs queued behind it may be waiting for the same earlier pair,
# which kombu's restore after a visibility timeout puts back where it is taken next; long
# enough not to spin (benchmarks/results/tuning_history.md, "Deferral").
DEFER_SECONDS = 0.1

_deferring: ContextVar[bool] = ContextVar("paramine_deferring", default=True)


@contextlib.contextmanager
def never_deferring() -> Iterator[None]:
    """Within this block stages read what is stored and never defer (the embedded runner)."""
    token = _deferring.set(False)
    try:
        yield
    finally:
        _deferring.reset(token)


def learning_position(store: Store, pair_id: str, stage: str) -> PairPosition | None:
    """The page pair's place in the ingest order, once every earlier pair of its site is
    through ``stage`` (or failed, or abandoned); raises Deferred while one is not, unless
    the wait for it ran out. None for a pair no job recorded: it learns from what is stored."""
    position = store.pair_position(pair_id)
    if position is None or not _deferring.get():
        return position
    wait = get_settings().site_wait
    if time.time() - position.registered_at >= wait:
        return position  # waited long enough: learn from what is there
    waiting = store.earlier_unsettled(position, stage, since=position.registered_at - wait)
    if waiting:
        raise Deferred(
            f"{waiting} earlier page pairs of the site are not through {stage} yet", DEFER_SECONDS
        )
    return position
