"""The ingest order read per site: how many page pairs of a site came before one, and the
seq of its n-th (what sentence_align's site snapshots are keyed by)."""

from __future__ import annotations

from shared.store import Store

PAIRS = [
    ("pp1", "https://a.org/1", "https://a.org/1f"),
    ("pp2", "https://b.org/1", "https://b.org/1f"),
    ("pp3", "https://de.a.org/2", "https://a.org/2f"),  # a.org through its target page
    ("pp4", "https://a.org/3", "https://a.org/3f"),
    ("pp5", "https://a.org/4", "https://a.org/4f"),
]


def filled(store: Store) -> Store:
    store.record_job("j1", PAIRS[:3], source="t")
    store.record_job("j2", PAIRS[3:], source="t")
    store.record_job("j3", PAIRS[:1], source="t")  # recorded again: keeps its place
    return store


def check_order(store: Store) -> None:
    positions = {pair_id: store.pair_position(pair_id) for pair_id, _, _ in PAIRS}
    fifth = positions["pp5"]
    assert fifth is not None
    assert store.earlier_pairs(fifth) == 3  # pp1, pp3, pp4: pp2 is another site's
    seqs = [store.nth_pair_seq(fifth, n) for n in (1, 2, 3, 4)]
    assert seqs[:3] == [positions[p].seq for p in ("pp1", "pp3", "pp4")]  # type: ignore[union-attr]
    assert seqs[3] is None  # only three before it
    first = positions["pp1"]
    assert first is not None and store.earlier_pairs(first) == 0
    assert store.nth_pair_seq(first, 1) is None


def test_a_sites_earlier_pairs_are_counted_and_numbered_in_ingest_order() -> None:
    check_order(filled(Store("sqlite://")))
