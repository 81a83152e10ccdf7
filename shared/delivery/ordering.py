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

# Page pairs a worker remembers as deferred since it last completed a message, at most
DEFERRALS_REMEMBERED = 10_000

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
            f"{waiting} earlier page pairs of the site are not through {stage} yet",
            DEFER_SECONDS,
            key=pair_id,
        )
    return position


class DeferralPauses:
    """How long a worker holds a deferred message before it sends it again. Not at all the
    first time the message is deferred since the worker last completed one, and
    ``Deferred.seconds`` when the same one comes back deferred again before that.

    A fault leaves a queue behind in which a site's pairs wait one after another for an
    earlier one that is behind them: a pair redelivered after a lease, or sent back by a
    deferral itself. Each is then deferred once, in turn, until the earlier pairs come up;
    holding every one of them took most of a worker's time, for the rest of the run
    (``benchmarks/results/soak.md``). A message seen again is waiting for a pair that is not
    in the queue (a killed worker's, until its lease ends): that one is held, so a worker
    does not spin."""

    def __init__(self, remembered: int = DEFERRALS_REMEMBERED) -> None:
        self._deferred: set[str] = set()
        self._remembered = remembered

    def pause(self, deferred: Deferred) -> float:
        """Seconds to hold the message ``deferred`` was raised for."""
        if deferred.key in self._deferred:
            return deferred.seconds
        if len(self._deferred) >= self._remembered:
            self._deferred.clear()
        self._deferred.add(deferred.key)
        return 0.0

    def completed(self) -> None:
        """A message was run through (not deferred): every pair may be ready now."""
        self._deferred.clear()
