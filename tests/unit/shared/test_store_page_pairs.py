"""The store's reads of one job's or one page pair's rows (the viewer's pages): a job's page
pairs with their sentence pairs' count and mean score, a page pair's sentence pairs in page
order and its URLs, and typed rows built from what a read gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shared.store import NodePairRow, Store, stored_fields


def sentence(pair_id: str, position: int, score: float) -> dict[str, Any]:
    return {
        "id": f"{pair_id}-{position}",
        "pair_id": pair_id,
        "kind": "translation",
        "src_url": f"https://e.org/en/{pair_id}",
        "tgt_url": f"https://e.org/de/{pair_id}",
        "site": "e.org",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": f"Sentence {position}",
        "tgt_text": f"Satz {position}",
        "score": score,
        "bead": f"[{position}]:[{position}]",
        "chunk": 0,
        "position": position,
    }


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'pages.db'}")
    urls = [
        (pair, f"https://e.org/en/{pair[1]}", f"https://e.org/de/{pair[1]}")
        for pair in ("pb", "pa")
    ]
    store.record_job("job", urls, "test")
    # stored out of page order: the read puts them in it
    rows = [sentence("pa", 2, 0.5), sentence("pa", 0, 0.25), sentence("pa", 1, 0.75)]
    store.add_sentence_pairs(rows, pair_id="pa", stage="sentence_align")
    return store


def test_a_jobs_page_pairs_come_by_source_url_with_their_counts(store: Store) -> None:
    pairs = store.job_page_pairs("job")
    assert [(p["pair_id"], p["sentence_pairs"]) for p in pairs] == [("pa", 3), ("pb", 0)]
    assert pairs[0]["mean_score"] == pytest.approx(0.5)
    assert pairs[1]["mean_score"] is None
    assert [p["pair_id"] for p in store.job_page_pairs("job", 1, 1)] == ["pb"]
    assert store.job_page_pairs("no-such-job") == []


def test_a_page_pairs_sentences_come_in_page_order(store: Store) -> None:
    assert [row.position for row in store.page_pair_sentences("pa")] == [0, 1, 2]
    assert store.page_pair_sentences("pb") == []


def test_a_page_pairs_urls_are_those_its_job_recorded(store: Store) -> None:
    assert store.page_pair_urls("pb") == ("https://e.org/en/b", "https://e.org/de/b")
    assert store.page_pair_urls("nothing") is None


def test_stored_fields_takes_the_typed_rows_columns_of_a_read(store: Store) -> None:
    node = {"chunk": 3, "src_xpath": "/p", "tgt_xpath": "/p", "src_text": "a", "tgt_text": "b"}
    store.add_node_pairs("pa", [{**node, "cost": 1.5}])
    (read,) = store.node_pairs("pa")
    assert "pair_id" in read
    assert NodePairRow(**stored_fields(NodePairRow, read)) == NodePairRow(**node, cost=1.5)
    with pytest.raises(KeyError):
        stored_fields(NodePairRow, node)  # no cost: a column missing from the read
