"""A site's reads in ingest order stay what a read of every earlier pair gives: the settled
marks and remembered checkpoints (``shared.store.order``) and the walk back through the
site's page pairs (``CorpusRepository.site_pairs`` with ``before``), each against a
brute-force oracle over all stored rows, in any order of asking and with progress made
between two questions."""

from __future__ import annotations

from collections.abc import Callable
from unittest import mock

import sqlalchemy as sa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from shared.store import PairPosition, Store, pair_progress
from shared.store import corpus as corpus_module
from shared.store.tables import pair_order, sentence_pairs

HOSTS = ("a.org", "b.org", "c.org")
STAGE = "tree_align"


def recorded(store: Store, hosts: list[tuple[int, int]]) -> list[PairPosition]:
    """Page pairs between the hosts given, recorded in that order, each registered at its
    seq times ten seconds (so that ``since`` can leave some out)."""
    pairs = [(f"pp{k}", f"https://{HOSTS[s]}/{k}", f"https://{HOSTS[t]}/{k}f")
             for k, (s, t) in enumerate(hosts)]  # fmt: skip
    store.record_job("j", pairs, source="t")
    with store.engine.begin() as conn:
        conn.execute(sa.update(pair_order).values(registered_at=pair_order.c.seq * 10.0))
    positions = [store.pair_position(pair_id) for pair_id, _, _ in pairs]
    assert all(position is not None for position in positions)
    return [position for position in positions if position is not None]


def unsettled_oracle(store: Store, position: PairPosition, since: float) -> int:
    with store.engine.connect() as conn:
        order = conn.execute(sa.select(pair_order)).all()
        done = {r.pair_id for r in conn.execute(sa.select(pair_progress)) if r.stage == STAGE}
    return sum(
        1
        for r in order
        if (r.site in position.sites or r.tgt_site in position.sites)
        and r.seq < position.seq
        and r.registered_at >= since
        and not r.failed
        and r.pair_id not in done
    )


def doubling(earlier: int) -> int:
    """A checkpoint rule of the kind sentence_align's is: powers of two, then every fourth."""
    if earlier < 4:
        return 1 << (earlier.bit_length() - 1) if earlier else 0
    return earlier - earlier % 4


hosts_drawn = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=24)


@settings(max_examples=40, deadline=None)
@given(
    hosts_drawn,
    st.lists(
        st.tuples(st.integers(0, 23), st.integers(0, 30), st.sets(st.integers(0, 23)),
                  st.sets(st.integers(0, 23), max_size=2)),
        min_size=1, max_size=12,
    ),
)  # fmt: skip
# a mark made with a later since (every earlier pair left out) must not be used by an ask
# with an earlier one
@example(hosts=[(0, 0)] * 7, asks=[(4, 0, set(), set()), (5, 30, set(), set())])
def test_earlier_unsettled_with_marks_counts_what_a_full_read_counts(
    hosts: list[tuple[int, int]], asks: list[tuple[int, int, set[int], set[int]]]
) -> None:
    store = Store("sqlite://")
    positions = recorded(store, hosts)
    for which, back, through, failing in asks:
        position = positions[which % len(positions)]
        since = position.registered_at - 10.0 * back
        assert store.earlier_unsettled(position, STAGE, since) == unsettled_oracle(
            store, position, since
        )
        # progress made between two questions: pairs through the stage, pairs failed
        for k in sorted(through):
            if k < len(positions):
                store.record_progress(f"pp{k}", STAGE, 1)
        with store.engine.begin() as conn:
            ids = [f"pp{k}" for k in failing]
            conn.execute(
                sa.update(pair_order).where(pair_order.c.pair_id.in_(ids)).values(failed=1)
            )


@settings(max_examples=40, deadline=None)
@given(hosts_drawn, st.lists(st.integers(0, 23), min_size=1, max_size=20))
def test_remembered_checkpoints_give_the_seq_a_full_count_gives(
    hosts: list[tuple[int, int]], asks: list[int]
) -> None:
    store = Store("sqlite://")
    positions = recorded(store, hosts)
    rule: Callable[[int], int] = doubling
    for which in asks:
        position = positions[which % len(positions)]
        number = rule(store.earlier_pairs(position))
        expected = store.nth_pair_seq(position, number) if number else None
        assert store.checkpoint_seq(position, rule) == expected


def site_pairs_oracle(
    store: Store,
    sites: list[str],
    limit: int,
    before: int,
    after: int | None,
) -> list[tuple[str, str]]:
    """The documented rule, read off every stored row: of the sites' latest SITE_SCAN x
    limit page pairs between after and before, the latest SITE_SCAN x limit rows by ingest
    seq filed under the hosts that meet the conditions, each distinct pair once."""
    quota = corpus_module.SITE_SCAN * limit
    with store.engine.connect() as conn:
        order = conn.execute(sa.select(pair_order)).all()
        rows = conn.execute(sa.select(sentence_pairs)).all()
    seq_of = {r.pair_id: r.seq for r in order}
    latest = sorted(
        (r.seq for r in order
         if (r.site in sites or r.tgt_site in sites) and r.seq < before
         and (after is None or r.seq > after)),
        reverse=True,
    )[:quota]  # fmt: skip

    def wanted(r: sa.Row[object]) -> bool:
        return (
            {r.src_lang, r.tgt_lang} == {"en", "de"}
            and (r.posterior if r.posterior is not None else r.score) >= 0.9
            and r.flag == ""
            and r.bead.startswith("[")
            and "," not in r.bead
            and r.site in sites
            and seq_of[r.pair_id] in latest
        )

    found = sorted((r for r in rows if wanted(r)), key=lambda r: (-seq_of[r.pair_id], r.id))
    seen: set[str] = set()
    pairs = []
    for r in found[:quota]:
        if r.dedup_key not in seen:
            seen.add(r.dedup_key)
            pairs.append(
                (r.src_text, r.tgt_text) if r.src_lang == "en" else (r.tgt_text, r.src_text)
            )
    return pairs[:limit]


rows_drawn = st.lists(
    st.tuples(st.booleans(), st.integers(0, 3), st.sampled_from([0.5, 0.95]),
              st.sampled_from(["", "", "untranslated"]), st.booleans()),
    max_size=4,
)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    hosts_drawn,
    st.lists(rows_drawn, min_size=24, max_size=24),
    st.sets(st.integers(0, 2), min_size=1),
    st.integers(1, 3),
    st.integers(1, 26),
    st.one_of(st.none(), st.integers(0, 20)),
)
# rows all one text beyond the quota: only the quota's rows may be read
@example(
    hosts=[(0, 0)] * 6 + [(1, 1)] * 3,
    drawn=[[(False, 1, 0.95, "", True)] * 4] * 4
    + [[(False, 0, 0.95, "", True)] * 4] * 2
    + [[(False, 2, 0.95, "", True)]] * 3
    + [[]] * 15,
    site_numbers={0},
    limit=2,
    before=26,
    after=None,
)
# every page pair its own text: a pair the walk stepped over would be missing
@example(
    hosts=[(0, 0)] * 4,
    drawn=[[(False, k, 0.95, "", True)] for k in range(4)] + [[]] * 20,
    site_numbers={0},
    limit=3,
    before=5,
    after=None,
)
# rows only on page pairs older than the latest SITE_SCAN x limit: none may be read
@example(
    hosts=[(0, 0)] * 6,
    drawn=[[(False, 0, 0.95, "", True)], [(False, 1, 0.95, "", True)]] + [[]] * 22,
    site_numbers={0},
    limit=1,
    before=7,
    after=None,
)
def test_site_pairs_in_ingest_order_are_what_a_read_of_every_row_gives(
    hosts: list[tuple[int, int]],
    drawn: list[list[tuple[bool, int, float, str, bool]]],
    site_numbers: set[int],
    limit: int,
    before: int,
    after: int | None,
) -> None:
    store = Store("sqlite://")
    recorded(store, hosts)
    for k, (src, tgt) in enumerate(hosts):
        records = []
        for n, (turned, text, score, flag, one_to_one) in enumerate(drawn[k]):
            langs = ("de", "en") if turned else ("en", "de")
            records.append({
                "id": f"sp-{k}-{n}", "pair_id": f"pp{k}", "kind": "translation",
                "src_url": f"https://{HOSTS[src]}/{k}", "tgt_url": f"https://{HOSTS[tgt]}/{k}f",
                "site": HOSTS[src], "src_lang": langs[0], "tgt_lang": langs[1],
                "src_text": f"{langs[0]}{text}", "tgt_text": f"{langs[1]}{text}", "score": score,
                "bead": f"[{n}]:[{n}]" if one_to_one else f"[{n},{n + 1}]:[{n}]", "chunk": 0,
                "position": n, "flag": flag,
            })  # fmt: skip
        store.add_sentence_pairs(records, pair_id=f"pp{k}", stage="s")
    sites = [HOSTS[n] for n in sorted(site_numbers)]
    after = None if after is None or after >= before else after
    # a first window of one seq, so that the walk back takes many steps
    with mock.patch.object(corpus_module, "SITE_WALK_FIRST", 1):
        found = store.site_pairs(
            sites, ("en", "de"), limit=limit, min_score=0.9, before=before, after=after
        )
    assert found == site_pairs_oracle(store, sites, limit, before, after)
