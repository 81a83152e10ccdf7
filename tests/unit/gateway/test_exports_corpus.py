"""The gateway's listings follow the corpus rules of `paramine export`: each distinct pair
once with its count and best score, flagged pairs left out unless asked, provenance carried."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.export.tmx import read_tmx
from shared.store import Store
from tests.unit.gateway.sample_store import ROWS

PROVENANCE = {"method": "tree+hybrid", "version": "0.1.0+abc", "model_version": "tree-x"}


def _twin(row: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**row, "pair_id": "pp-twin", "id": f"{row['id']}-twin", **PROVENANCE, **changes}


@pytest.fixture
def twins(store_url: str) -> None:
    """A second page pair holding the first pair again (another case and score) and an
    untranslated one."""
    Store(store_url).add_sentence_pairs(
        [
            _twin(ROWS[0], src_text="OPENING HOURS", score=0.95, position=0),
            _twin(ROWS[0], id="sp-menu", src_text="Menu Menu", tgt_text="Menu Menu",
                  flag="untranslated", position=1),
        ],
        pair_id="pp-twin",
        stage="sentence_align",
    )  # fmt: skip


def test_the_listing_gives_distinct_unflagged_pairs(client: TestClient, twins: None) -> None:
    items = client.get("/v1/sentence-pairs").json()["items"]
    assert len(items) == len(ROWS)
    first = next(item for item in items if item["tgt"] == "Öffnungszeiten.")
    assert (first["count"], first["score"]) == (2, 0.95)
    every = client.get("/v1/sentence-pairs", params={"all": "true"}).json()["items"]
    assert [item["flag"] for item in every].count("untranslated") == 1
    stored = client.get("/v1/sentence-pairs", params={"all": "true", "duplicates": "true"})
    assert len(stored.json()["items"]) == len(ROWS) + 2


def test_the_listing_names_its_fields_as_the_jsonl_export(client: TestClient, twins: None) -> None:
    # the listing said src_text/tgt_text where an exported record says src/tgt
    items = client.get("/v1/sentence-pairs").json()["items"]
    download = client.get("/v1/exports/sentence-pairs", params={"format": "jsonl"})
    records = {record["id"]: record for record in map(json.loads, download.content.splitlines())}
    assert {item["id"] for item in items} == set(records)
    for item in items:
        record = records[item["id"]]
        assert {"src", "tgt"} <= item.keys() and not {"src_text", "tgt_text"} & item.keys()
        assert {key: item[key] for key in item.keys() & record.keys()} == {
            key: record[key] for key in item.keys() & record.keys()
        }
        assert record.keys() - item.keys() <= {"posterior"}


def test_the_download_carries_counts_flags_and_provenance(client: TestClient, twins: None) -> None:
    response = client.get("/v1/exports/sentence-pairs", params={"format": "jsonl"})
    assert response.headers["x-paramine-flagged"] == "1"
    records = [json.loads(line) for line in response.content.splitlines()]
    assert len(records) == len(ROWS) and "Menu Menu" not in {r["src"] for r in records}
    twin = next(r for r in records if r["tgt"] == "Öffnungszeiten.")
    assert twin["count"] == 2 and twin["score"] == 0.95
    response = client.get("/v1/exports/sentence-pairs", params={"format": "tmx", "all": "true"})
    assert response.headers["x-paramine-flagged"] == "0"
    assert len(read_tmx(io.BytesIO(response.content))) == len(ROWS) + 1
    assert b'<prop type="x-method">tree+hybrid</prop>' in response.content
    assert b'<prop type="x-flag">untranslated</prop>' in response.content
