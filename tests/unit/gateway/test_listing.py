"""The sentence-pair listing's record: the API's fields are the stored record's, renamed as a
JSONL export record names them, but the few it leaves out."""

from __future__ import annotations

from dataclasses import MISSING, fields

from fastapi.testclient import TestClient

from services.gateway.listing import LISTED_NAMES, NOT_LISTED, SentencePairOut, listed_pair
from shared.pair_query import SentencePairQuery
from shared.sentence_pair import StoredSentencePair
from shared.store import Store

# What GET /v1/sentence-pairs has always answered, field by field in this order.
LISTING = [
    "id", "pair_id", "kind", "src_url", "tgt_url", "site", "src_lang", "tgt_lang",
    "src", "tgt", "score", "bead", "count", "flag", "method", "version", "model_version",
]  # fmt: skip


def test_the_listing_answers_the_stored_records_fields(client: TestClient, store_url: str) -> None:
    items = client.get("/v1/sentence-pairs", params={"every": "true"}).json()["items"]
    assert items and all(list(item) == LISTING for item in items)
    # every field of the record is listed (renamed) or left out by name: none is dropped
    record_fields = [field.name for field in fields(StoredSentencePair)]
    assert sorted(LISTED_NAMES.get(name, name) for name in record_fields) == sorted(
        [*LISTING, *NOT_LISTED]
    )
    records = Store(store_url).list_sentence_pairs(SentencePairQuery(flagged=True))
    assert [listed_pair(record).model_dump() for record in records] == items
    assert items == [
        {LISTED_NAMES.get(name, name): getattr(record, name) for name in record_fields
         if name not in NOT_LISTED}
        for record in records
    ]  # fmt: skip


def test_the_listing_model_takes_the_records_types_and_defaults(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]["SentencePairOut"]
    assert list(schema["properties"]) == LISTING
    by_name = {
        LISTED_NAMES.get(field.name, field.name): field for field in fields(StoredSentencePair)
    }
    required = [name for name in LISTING if by_name[name].default is MISSING]
    assert schema["required"] == required == LISTING[:12]  # id … bead
    assert {name: SentencePairOut.model_fields[name].default for name in LISTING[12:]} == {
        name: by_name[name].default for name in LISTING[12:]
    }
    assert schema["properties"]["score"]["type"] == "number"
    assert schema["properties"]["count"] == {"type": "integer", "title": "Count", "default": 1}
