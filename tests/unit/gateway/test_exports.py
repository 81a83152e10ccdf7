"""Streaming download endpoints: every format parses back to the stored pairs; filters apply."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import numpy as np
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from services.export.tmx import read_tmx
from services.paraphrase.handler import recompute_phrase_table
from shared.pair_query import parse_since
from shared.store import Store, sentence_pairs
from tests.unit.export.test_tmx import assert_tmx_14b
from tests.unit.gateway.sample_store import BIG_LARGE, ROWS, save_tiny_snapshot

EXPECTED = [(row["src_text"], row["tgt_text"]) for row in ROWS]


def download(client: TestClient, path: str, **params: object) -> bytes:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-disposition"].startswith("attachment;")
    return response.content


def test_tmx_download_is_valid_and_round_trips(client: TestClient) -> None:
    data = download(client, "/v1/exports/sentence-pairs", format="tmx")
    assert_tmx_14b(data)
    assert [(u["src"], u["tgt"]) for u in read_tmx(io.BytesIO(data))] == EXPECTED


def test_jsonl_tsv_and_moses_downloads_round_trip(client: TestClient) -> None:
    records = [
        json.loads(line)
        for line in download(client, "/v1/exports/sentence-pairs", format="jsonl").splitlines()
    ]
    assert [(r["src"], r["tgt"]) for r in records] == EXPECTED
    tsv = download(client, "/v1/exports/sentence-pairs", format="tsv").decode()
    table = list(csv.reader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert [(r[0], r[1]) for r in table[1:]] == EXPECTED
    pair = {"src_lang": "en", "tgt_lang": "de"}
    src = download(client, "/v1/exports/sentence-pairs", format="moses-src", **pair)
    tgt = download(client, "/v1/exports/sentence-pairs", format="moses-tgt", **pair)
    assert list(zip(src.decode().splitlines(), tgt.decode().splitlines(), strict=True)) == EXPECTED


def test_a_moses_download_needs_its_language_pair(client: TestClient) -> None:
    # Without languages, the sentences of every language pair went into one file.
    for params in ({}, {"src_lang": "en"}):
        response = client.get(
            "/v1/exports/sentence-pairs", params={"format": "moses-src", **params}
        )
        assert response.status_code == 422 and "src_lang and tgt_lang" in response.text
    response = client.get(
        "/v1/exports/sentence-pairs",
        params={"format": "moses-tgt", "src_lang": "en", "tgt_lang": "de"},
    )
    assert 'filename="sentence_pairs.en-de.tgt.txt"' in response.headers["content-disposition"]


def test_filters_by_score_site_language_and_date(client: TestClient, store_url: str) -> None:
    def pairs(**params: object) -> list[str]:
        data = download(client, "/v1/exports/sentence-pairs", format="jsonl", **params)
        return [json.loads(line)["src"] for line in data.splitlines()]

    assert pairs(min_score=0.5) == ["Opening hours.", "One long sentence."]
    assert pairs(site="other.org") == [] and len(pairs(site="example.org")) == 3
    assert pairs(src_lang="fr") == [] and len(pairs(src_lang="en", tgt_lang="de")) == 3
    # Back-date one row: a `since` between the two dates keeps only the newer rows.
    with Store(store_url).begin() as conn:
        conn.execute(
            sa.update(sentence_pairs)
            .where(sentence_pairs.c.id == "sp-0")
            .values(created_at=1_000_000_000.0)  # 2001-09-09
        )
    assert len(pairs(since="2010-01-01")) == 2
    assert len(pairs(since="999999999")) == 3
    assert pairs(since=str(time.time() + 3600)) == []
    bad = client.get("/v1/exports/sentence-pairs", params={"since": "yesterday"})
    assert bad.status_code == 422 and "ISO 8601" in bad.text
    assert client.get("/v1/exports/sentence-pairs", params={"format": "xml"}).status_code == 422


def test_parse_since() -> None:
    assert parse_since(None) is None and parse_since("") is None
    assert parse_since("86400") == 86400.0
    assert parse_since("1970-01-02") == 86400.0
    assert parse_since("1970-01-01T01:00:00+01:00") == 0.0
    with pytest.raises(ValueError):
        parse_since("nan")


def test_ppdb_download(client: TestClient, store_url: str) -> None:
    assert download(client, "/v1/exports/paraphrases.ppdb") == b""
    Store(store_url).add_paraphrase_observations(BIG_LARGE)
    # the download reads the newest snapshot: nothing until the periodic task has run
    assert download(client, "/v1/exports/paraphrases.ppdb") == b""
    recompute_phrase_table(Store(store_url))
    lines = download(client, "/v1/exports/paraphrases.ppdb").decode().splitlines()
    fields = [line.split(" ||| ") for line in lines]
    assert all(len(f) == 5 and f[0] == "[X]" and f[3].endswith(" lang=en") for f in fields)
    # LHS ||| PHRASE ||| PARAPHRASE ||| FEATURES (count=N among them) ||| ALIGNMENT
    assert all(re.search(r" count=[1-9]\d* ", f[3]) for f in fields)
    assert all(re.fullmatch(r"\d+-\d+( \d+-\d+)*", f[4]) for f in fields)
    assert ["big", "large", "0-0"] in [[f[1], f[2], f[4]] for f in fields]
    assert download(client, "/v1/exports/paraphrases.ppdb", lang="de") == b""  # one language


def test_thesaurus_similarity_downloads(client: TestClient, store_url: str) -> None:
    missing = client.get("/v1/exports/thesaurus-similarity")
    assert missing.status_code == 404
    save_tiny_snapshot(store_url)
    table = list(
        csv.reader(io.StringIO(download(client, "/v1/exports/thesaurus-similarity").decode()))
    )
    assert table[0] == ["class_a", "class_b", "label_a", "label_b", "similarity", "round"]
    # the snapshot's SIM: a-a 2.0 (corpus), a-v 0.5 (round 1), v-v undefined
    assert [(r[0], r[1], float(r[4]), int(r[5])) for r in table[1:]] == [
        ("a", "a", 2.0, 0),
        ("a", "v", 0.5, 1),
    ]
    assert table[2][2:4] == ["animals", "vehicles"]
    npz = download(client, "/v1/exports/thesaurus-similarity", format="npz")
    with np.load(io.BytesIO(npz)) as data:
        assert data["class_ids"].tolist() == ["a", "v"]
        np.testing.assert_array_equal(
            data["values"], np.array([[2.0, 0.5], [0.5, np.nan]], np.float32)
        )
        np.testing.assert_array_equal(data["rounds"], [[0, 1], [1, -1]])


@pytest.mark.parametrize("value", ["日", "en\r\nX-Injected: 1", "en\x01", "e n"])
def test_a_language_filter_that_is_no_language_code_is_refused(
    client: TestClient, value: str
) -> None:
    # went unchecked into the download's file name and the TMX header: a 500 (not Latin-1),
    # no answer at all (CR/LF in a header), a 200 with a cut body (a control character)
    for format in ("tmx", "moses-src", "jsonl"):
        response = client.get(
            "/v1/exports/sentence-pairs",
            params={"format": format, "src_lang": value, "tgt_lang": "de"},
        )
        assert response.status_code == 422, (format, response.text)


def test_moses_sides_downloaded_apart_hold_the_same_rows(
    client: TestClient, store_url: str
) -> None:
    # a pair stored between the two downloads went into the second file only, and the files
    # were no longer line-parallel: the first answer's X-Paramine-Until pins the second
    pair = {"src_lang": "en", "tgt_lang": "de"}
    first = client.get("/v1/exports/sentence-pairs", params={"format": "moses-src", **pair})
    until = first.headers["x-paramine-until"]
    late = {**ROWS[0], "id": "late", "pair_id": "pp-late", "src_text": "Late.", "position": 9}
    time.sleep(0.01)
    Store(store_url).add_sentence_pairs([late], pair_id="pp-late", stage="sentence_align")
    second = download(client, "/v1/exports/sentence-pairs", format="moses-tgt", until=until, **pair)
    src, tgt = first.content.decode().splitlines(), second.decode().splitlines()
    assert list(zip(src, tgt, strict=True)) == EXPECTED
    everything = download(client, "/v1/exports/sentence-pairs", format="moses-src", **pair)
    assert "Late." in everything.decode().splitlines()


def test_a_thesaurus_name_outside_ascii_makes_a_valid_download_header() -> None:
    # a Japanese name could not be encoded in the header (a 500); a quote or a line break
    # broke it
    from services.gateway.exports import attachment

    assert attachment("similarity-分類語彙表-3.csv") == (
        'attachment; filename="similarity-_____-3.csv"; '
        "filename*=UTF-8''similarity-%E5%88%86%E9%A1%9E%E8%AA%9E%E5%BD%99%E8%A1%A8-3.csv"
    )
    header = attachment('a"b\r\nX-Injected: 1.csv')
    header.encode("latin-1")
    assert "\r" not in header and "\n" not in header and header.count('"') == 2


def test_similarity_csv_quotes_a_carriage_return_in_a_label() -> None:
    from services.export.similarity import similarity_csv_lines
    from services.thesaurus.repository import SimilarityMatrix

    values = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
    rounds = np.array([[0, 1], [1, 0]], np.int16)
    matrix = SimilarityMatrix(1, "t", ("a", "v"), ("事\r柄", "物"), values, rounds)
    table = list(csv.reader(io.StringIO("".join(similarity_csv_lines(matrix)), newline="")))
    assert [row[2:4] for row in table[1:]] == [["事\r柄", "事\r柄"], ["事\r柄", "物"], ["物", "物"]]


def test_phrase_queries_read_the_newest_snapshot_only(client: TestClient, store_url: str) -> None:
    store = Store(store_url)
    store.add_paraphrase_observations(BIG_LARGE)
    assert client.get("/v1/paraphrases/phrases").json() == []  # no snapshot: nothing computed
    first = recompute_phrase_table(store)
    phrases = client.get("/v1/paraphrases/phrases", params={"limit": 1000}).json()
    assert ("big", "large", "en") in {(e["phrase"], e["paraphrase"], e["lang"]) for e in phrases}
    assert client.get("/v1/paraphrases/phrases", params={"lang": "de"}).json() == []
    assert recompute_phrase_table(store) == first  # nothing new: the snapshot is kept
    store.add_paraphrase_observations(
        [{"id": "p-new", "kind": "pc-mobile", "lang": "en", "src_text": "a huge dog",
          "tgt_text": "a big dog"}]
    )  # fmt: skip
    assert recompute_phrase_table(store) > first
