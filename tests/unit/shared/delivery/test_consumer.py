"""What a dead letter of the worker's consumer keeps, and the stage message retry takes back."""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from shared.delivery.consumer import kept_stage_message


def kept(body: bytes, content_type: str = "application/json") -> dict[str, Any]:
    return {"body_base64": base64.b64encode(body).decode("ascii"), "content_type": content_type}


def test_a_task_body_with_one_payload_gives_it_back() -> None:
    payload = {"job_id": "j", "src": {"url": "u"}}
    body = json.dumps([[payload], {}, {"callbacks": None}]).encode()
    assert kept_stage_message(kept(body)) == payload


def test_bytes_holding_no_single_json_payload_give_nothing() -> None:
    assert kept_stage_message(kept(b'[[{"job_id": "x \xff"}], {}, {}]')) is None  # not UTF-8
    assert kept_stage_message(kept(b"[[{}], {}")) is None  # truncated JSON
    assert (
        kept_stage_message(kept(b'[[{"a": 1}], {}, {}]', "application/x-python-serialize")) is None
    )
    assert kept_stage_message(kept(b'[[{"a": 1}, {"b": 2}], {}, {}]')) is None  # two payloads
    assert kept_stage_message(kept(b'[[{"a": 1}], {"k": 1}, {}]')) is None  # keywords
    assert kept_stage_message(kept(b'[["text"], {}, {}]')) is None  # not an object
    assert (
        kept_stage_message({"body_base64": "not base64!", "content_type": "application/json"})
        is None
    )
    assert kept_stage_message(["not", "a", "letter"]) is None


@given(st.binary(max_size=200))
def test_any_bytes_give_a_payload_or_nothing_and_never_raise(body: bytes) -> None:
    result = kept_stage_message(kept(body))
    assert result is None or isinstance(result, dict)
