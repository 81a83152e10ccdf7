"""Store: idempotent writes, job progress, dead letters, paging (SQLite in a temp dir)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.store import SentencePairQuery, Store, normalise_url, sentence_pairs, site_of


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'store.db'}")


def _row(index: int, pair_id: str = "pp1", score: float = 0.5) -> dict[str, object]:
    return {
        "id": f"sp{pair_id}{index}",
        "pair_id": pair_id,
        "kind": "translation",
        "src_url": "https://a.example/en/x",
        "tgt_url": "https://a.example/de/x",
        "site": "a.example",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": f"sentence {index}",
        "tgt_text": f"Satz {index}",
        "score": score,
        "bead": f"[{index}]:[{index}]",
        "position": index,
    }


def test_writing_the_same_rows_twice_changes_nothing(store: Store) -> None:
    rows = [_row(i) for i in range(5)]
    assert store.add_sentence_pairs(rows, pair_id="pp1", stage="sentence_align") == 5
    assert store.add_sentence_pairs(rows, pair_id="pp1", stage="sentence_align") == 0
    assert store.count(sentence_pairs) == 5


def test_job_status_counts_completed_failed_and_sentences(store: Store) -> None:
    store.record_job("job1", [("pp1", "a", "b"), ("pp2", "c", "d")], source="test")
    status = store.job_status("job1")
    assert status is not None and status.state == "running" and status.pairs == 2
    store.add_sentence_pairs([_row(0), _row(1)], pair_id="pp1", stage="sentence_align")
    store.record_dead_letter(
        stage="tree_align",
        payload={"job_id": "job1", "x": 1},
        error_type="InvalidInput",
        reason="bad",
        attempts=1,
    )
    status = store.job_status("job1")
    assert status is not None
    assert (status.completed, status.failed, status.sentence_pairs, status.state) == (
        1,
        1,
        2,
        "done-with-errors",
    )
    assert store.job_status("nope") is None


def test_a_job_whose_inputs_were_refused_ends_with_errors(store: Store) -> None:
    # Its refusals were not counted anywhere: a job of refused inputs only said "done".
    store.record_job("job2", [], source="test")
    store.record_dead_letter(
        stage="ingest", payload={"job_id": "job2", "error": "x.jsonl:3: not a page-pair record"},
        error_type="InvalidInput", reason="x.jsonl:3: not a page-pair record", attempts=1,
        job_id="job2",
    )  # fmt: skip
    status = store.job_status("job2")
    assert status is not None
    assert (status.pairs, status.failed, status.refused, status.state) == (
        0, 0, 1, "done-with-errors"
    )  # fmt: skip


def test_dead_letter_of_the_same_message_is_kept_once_with_its_reason(store: Store) -> None:
    for _ in range(3):
        store.record_dead_letter(
            stage="paraphrase", payload={"a": 1}, error_type="X", reason="why", attempts=2
        )
    letters = store.list_dead_letters()
    assert (
        len(letters) == 1 and letters[0]["reason"] == "why" and letters[0]["stage"] == "paraphrase"
    )
    assert store.delete_dead_letters() == 1 and store.list_dead_letters() == []


def test_a_message_with_a_malformed_context_is_still_kept(store: Store) -> None:
    # Its job is looked up in the context; a context that is not an object raised
    # AttributeError, so the message that could not be processed was not kept either.
    for context in ("oops", ["job"], None):
        store.record_dead_letter(
            stage="sentence_align", payload={"context": context, "chunks": []},
            error_type="InvalidInput", reason="schema", attempts=1,
        )  # fmt: skip
    assert len(store.list_dead_letters()) == 3
    assert {letter["job_id"] for letter in store.list_dead_letters()} == {None}


def test_listing_filters_and_pages(store: Store) -> None:
    store.record_job("job1", [("pp1", "a", "b")], source="t")
    store.add_sentence_pairs(
        [_row(i, score=i / 10) for i in range(10)], pair_id="pp1", stage="sentence_align"
    )
    store.add_sentence_pairs(
        [_row(i, pair_id="pp9") for i in range(3)], pair_id="pp9", stage="sentence_align"
    )
    assert len(store.list_sentence_pairs(SentencePairQuery(job_id="job1", limit=100))) == 10
    assert len(store.list_sentence_pairs(SentencePairQuery(min_score=0.55))) == 4
    paged = list(store.iter_sentence_pairs(SentencePairQuery(job_id="job1"), batch=3))
    assert [row.position for row in paged] == list(range(10))
    assert store.list_sentence_pairs(SentencePairQuery(site="b.example")) == []


def test_jobs_are_listed_newest_first_with_their_counts(store: Store) -> None:
    # ids sorted against creation: a tie of the two creation times (a coarse clock) is
    # listed by id, which gives the same order
    store.record_job("job-b", [("pp1", "a", "b")], source="first")
    store.add_sentence_pairs([_row(0), _row(1)], pair_id="pp1", stage="sentence_align")
    store.record_job("job-a", [("pp2", "c", "d"), ("pp3", "e", "f")], source="second")
    listed = store.list_jobs(10)
    assert [(j["job_id"], j["source"], j["pairs"], j["sentence_pairs"]) for j in listed] == [
        ("job-a", "second", 2, 0),
        ("job-b", "first", 1, 2),
    ]
    assert [j["job_id"] for j in store.list_jobs(1, offset=1)] == ["job-b"]
    assert store.list_jobs(5, offset=2) == []


def test_an_export_sees_each_pair_once_while_pairs_are_stored(store: Store) -> None:
    store.add_sentence_pairs([_row(i) for i in range(10)], pair_id="pp5", stage="sentence_align")
    exported = []
    for k, row in enumerate(store.iter_sentence_pairs(SentencePairQuery(), batch=3)):
        if k == 4:
            # Pairs stored mid-export that sort first pushed later rows into the next
            # offset window, which returned them twice.
            store.add_sentence_pairs(
                [_row(i, pair_id="pp0") for i in range(5)], pair_id="pp0", stage="t"
            )
        exported.append(row.id)
    assert len(exported) == len(set(exported)) == 10


def test_urls_and_sites() -> None:
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("sqlite:///x.db") == "sqlite:///x.db"
    assert site_of("https://News.Example.org/a/b") == "news.example.org"
    assert site_of("relative/path") == ""
    # the host name only: a query string right after the host was taken as the site (and a
    # long one overflowed the column, losing the pair's sentences); port and user name
    assert site_of("https://example.com?session=" + "x" * 300) == "example.com"
    assert site_of("https://user@Example.com:8443/a") == "example.com"
    assert site_of("http://[::1") == ""  # an unclosed IPv6 bracket
    assert len(site_of("https://" + "a" * 300 + ".org/")) == 256


def test_nul_characters_are_stored_as_replacement_characters(tmp_path: Path) -> None:
    # PostgreSQL refuses a NUL in text, and the whole message's rows (its dead letter too)
    # were lost; both back ends store U+FFFD instead (tests/integration for PostgreSQL)
    store = Store(f"sqlite:///{tmp_path / 'nul.db'}")
    row = {**_row(0), "src_text": "a\x00b", "tgt_text": "c"}
    assert store.add_sentence_pairs([row], pair_id="pp0", stage="t") == 1
    (stored,) = store.list_sentence_pairs(SentencePairQuery())
    assert (stored.src_text, stored.tgt_text) == ("a\ufffdb", "c")
