"""Corpus listings of shared.pair_query on a real store: each distinct pair once at its first
occurrence with its count and best score, flagged pairs left out; checked against a
brute-force oracle over random stores, in pages of every size."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.corpus_clean import normalise
from shared.store import SentencePairQuery, Store

TEXTS = [("Home", "Startseite"), ("home!", "startseite"), ("Contact", "Kontakt"),
         ("Skip", "Skip"), ("About us", "Über uns")]  # fmt: skip


def row(pair: int, position: int, text: int, score: float, flag: str = "") -> dict[str, Any]:
    src, tgt = TEXTS[text]
    return {
        "id": f"sp-{pair}-{position}",
        "pair_id": f"pp{pair}",
        "kind": "translation",
        "src_url": f"https://a{pair % 2}.org/en/{pair}",
        "tgt_url": f"https://a{pair % 2}.org/de/{pair}",
        "site": f"a{pair % 2}.org",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": src,
        "tgt_text": tgt,
        "score": score,
        "bead": "[0]:[0]",
        "chunk": 0,
        "position": position,
        "flag": flag,
    }


def oracle(rows: list[dict[str, Any]], query: SentencePairQuery) -> list[tuple[Any, ...]]:
    """The listing by hand: filter, group by normalised text, first occurrence in order."""
    kept = [
        r for r in rows
        if (query.flagged or not r["flag"])
        and (query.site is None or r["site"] == query.site)
        and (query.min_score is None or r["score"] >= query.min_score)
    ]  # fmt: skip
    kept.sort(key=lambda r: (r["pair_id"], r["position"], r["id"]))
    if query.duplicates:
        return [(r["id"], r["score"], 1) for r in kept]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in kept:
        groups[(normalise(r["src_text"]), normalise(r["tgt_text"]))].append(r)
    firsts = sorted(
        (group[0] for group in groups.values()),
        key=lambda r: (r["pair_id"], r["position"], r["id"]),
    )
    best = {id(group[0]): max(r["score"] for r in group) for group in groups.values()}
    size = {id(group[0]): len(group) for group in groups.values()}
    return [(r["id"], best[id(r)], size[id(r)]) for r in firsts]


stored_rows = st.lists(
    st.tuples(
        st.integers(0, 4),
        st.integers(0, len(TEXTS) - 1),
        st.sampled_from([0.1, 0.5, 0.9]),
        st.sampled_from(["", "", "untranslated"]),
    ),
    max_size=25,
)


@given(
    stored_rows,
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, "a0.org"]),
    st.sampled_from([None, 0.5]),
    st.integers(1, 7),
)
def test_listing_matches_the_oracle_in_pages_of_any_size(
    drawn: list[tuple[int, int, float, str]],
    flagged: bool,
    duplicates: bool,
    site: str | None,
    min_score: float | None,
    batch: int,
) -> None:
    store = Store("sqlite://")
    positions: dict[int, int] = defaultdict(int)
    rows = []
    for pair, text, score, flag in drawn:
        rows.append(row(pair, positions[pair], text, score, flag))
        positions[pair] += 1
    by_pair: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_pair[r["pair_id"]].append(r)
    for pair_id, pair_rows in by_pair.items():
        store.add_sentence_pairs(pair_rows, pair_id=pair_id, stage="sentence_align")
    query = SentencePairQuery(
        site=site, min_score=min_score, flagged=flagged, duplicates=duplicates
    )
    listed = [(r.id, r.score, r.count) for r in store.iter_sentence_pairs(query, batch=batch)]
    assert listed == oracle(rows, query)
    flags = store.flag_counts(query)
    expected = sum(
        1 for r in rows
        if r["flag"] and (site is None or r["site"] == site)
        and (min_score is None or r["score"] >= min_score)
    )  # fmt: skip
    assert sum(flags.values()) == expected


def test_a_distinct_pair_counts_its_occurrences_and_keeps_the_best_score() -> None:
    store = Store("sqlite://")
    store.add_sentence_pairs([row(1, 0, 0, 0.4), row(1, 1, 2, 0.8)], pair_id="pp1", stage="s")
    store.add_sentence_pairs([row(2, 0, 1, 0.9), row(2, 1, 3, 1.0, "untranslated")],
                             pair_id="pp2", stage="s")  # fmt: skip
    listed = store.list_sentence_pairs(SentencePairQuery())
    assert [(r.src_text, r.count, r.score) for r in listed] == [
        ("Home", 2, 0.9),  # "home!" ||| "startseite" is the same pair
        ("Contact", 1, 0.8),
    ]
    assert store.flag_counts(SentencePairQuery()) == {"untranslated": 1}
    every = store.list_sentence_pairs(SentencePairQuery(flagged=True, duplicates=True))
    assert len(every) == 4 and {r.count for r in every} == {1}


def test_the_builder_reads_the_filters_as_the_cli_and_the_gateway_give_them() -> None:
    from shared.pair_query import sentence_pair_query

    query = sentence_pair_query(
        job="j", src_lang="en", since="1970-01-02", until_default=5.0, every=True, limit=7
    )
    assert (query.job_id, query.src_lang, query.limit) == ("j", "en", 7)
    assert (query.stored_since, query.stored_before, query.flagged) == (86_400.0, 5.0, True)
    assert sentence_pair_query(until="10", until_default=5.0).stored_before == 10.0
    assert sentence_pair_query() == SentencePairQuery()
    with pytest.raises(ValueError, match="until"):
        sentence_pair_query(until="tomorrow")
