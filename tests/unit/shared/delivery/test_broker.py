"""The transport's check of BRPOP replies: envelopes pass, anything else arrives wrapped."""

from __future__ import annotations

import base64
import json

from hypothesis import given
from hypothesis import strategies as st
from kombu.transport.virtual import Message

from shared.delivery.broker import NO_ENVELOPE_TYPE, checked_brpop, is_envelope, wrapped_item

ENVELOPE = {
    "body": base64.b64encode(b"[[{}], {}, {}]").decode(),
    "content-encoding": "utf-8",
    "content-type": "application/json",
    "headers": {"task": "paramine.tree_align.process"},
    "properties": {"body_encoding": "base64", "delivery_tag": "t-1", "delivery_info": {}},
}


class _Channel:
    """What kombu's virtual Message reads off its channel."""

    def decode_body(self, body: str, encoding: str | None) -> bytes:
        return base64.b64decode(body) if encoding == "base64" else body.encode()


def test_an_envelope_passes_unchanged() -> None:
    item = json.dumps(ENVELOPE).encode()
    reply = checked_brpop(lambda response, **_: tuple(response))([b"paramine.tree_align", item])
    assert reply == (b"paramine.tree_align", item)
    assert checked_brpop(None)(None) is None  # BRPOP timed out


def test_no_envelope_for_other_shapes() -> None:
    assert not is_envelope(b"plain text \xff")
    assert not is_envelope(b'"a string"')
    assert not is_envelope(b'{"job_id": "x"}')
    broken = {**ENVELOPE, "properties": {"body_encoding": "base64", "delivery_tag": "t"}}
    assert not is_envelope(json.dumps({**broken, "body": "not base64!"}))
    assert not is_envelope(json.dumps({**ENVELOPE, "headers": ["task"]}))
    assert not is_envelope(json.dumps({**ENVELOPE, "properties": {"delivery_tag": 7}}))


@given(st.binary(max_size=300))
def test_whatever_is_popped_kombu_can_read_and_keeps_its_bytes(item: bytes) -> None:
    list_name = b"paramine.tree_align\x06\x163"  # a priority level's list
    name, delivered = checked_brpop(None)((list_name, item))
    assert name == list_name
    assert is_envelope(delivered)
    message = Message(json.loads(delivered), channel=_Channel())  # type: ignore[no-untyped-call]
    if delivered != item:  # wrapped: the exact bytes, addressed to the queue itself
        assert message.content_type == NO_ENVELOPE_TYPE
        assert message.body == item
        assert message.delivery_info["routing_key"] == "paramine.tree_align"


def test_each_wrapped_item_gets_its_own_delivery_tag() -> None:
    first, second = (json.loads(wrapped_item("q", b"x")) for _ in range(2))
    assert first["properties"]["delivery_tag"] != second["properties"]["delivery_tag"]
