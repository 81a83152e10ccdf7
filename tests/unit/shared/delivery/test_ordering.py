"""How long a worker holds a deferred message (``DeferralPauses``), against a direct model
of the rule: a message is held only when it comes back deferred again before the worker
completed another one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from shared.delivery.ordering import DEFER_SECONDS, DeferralPauses
from shared.errors import Deferred


def deferred(key: str) -> Deferred:
    return Deferred("1 earlier page pairs of the site are not through sentence_align yet",
                    DEFER_SECONDS, key=key)  # fmt: skip


def test_a_queue_behind_an_earlier_pair_goes_round_once_unheld() -> None:
    """A fault left pairs 3..9 before 1..2 in the queue: the first round defers 3..9 without
    a pause, 1 and 2 complete, and 3..9 are ready; a pair deferred again is held."""
    pauses = DeferralPauses()
    assert [pauses.pause(deferred(f"pp{k}")) for k in range(3, 10)] == [0.0] * 7
    assert pauses.pause(deferred("pp3")) == DEFER_SECONDS  # round two, nothing completed
    pauses.completed()
    assert pauses.pause(deferred("pp3")) == 0.0


@given(
    st.lists(st.one_of(st.none(), st.integers(0, 6)), max_size=60),
    st.integers(1, 5),
)
def test_pauses_follow_the_rule(events: list[int | None], remembered: int) -> None:
    """``None``: a message completed; ``k``: page pair k deferred."""
    pauses = DeferralPauses(remembered=remembered)
    seen: set[int] = set()
    for event in events:
        if event is None:
            pauses.completed()
            seen = set()
            continue
        expected = DEFER_SECONDS if event in seen else 0.0
        if event not in seen:
            if len(seen) >= remembered:
                seen = set()
            seen.add(event)
        assert pauses.pause(deferred(f"pp{event}")) == expected
