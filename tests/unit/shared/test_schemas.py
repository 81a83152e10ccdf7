"""Message schemas: validation errors become InvalidInput with the field named."""

from __future__ import annotations

import pytest

from shared.errors import InvalidInput
from shared.ids import content_id
from shared.schemas import PagePair, parse_message


def _pair(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "job_id": "j",
        "kind": "translation",
        "src": {"url": "u1", "lang": "en", "html": "<p>a</p>"},
        "tgt": {"url": "u2", "lang": "de", "html": "<p>b</p>"},
    }
    return {**base, **overrides}


def test_valid_page_pair_round_trips_through_json() -> None:
    message = parse_message("tree_align", _pair())
    assert isinstance(message, PagePair)
    again = parse_message("tree_align", message.model_dump(mode="json"))
    assert again == message and again.pair_id == message.pair_id


def test_pair_id_depends_on_content_not_job() -> None:
    one = PagePair.model_validate(_pair(job_id="a"))
    other = PagePair.model_validate(_pair(job_id="b"))
    changed = PagePair.model_validate(_pair(tgt={"url": "u2", "lang": "de", "html": "<p>c</p>"}))
    assert one.pair_id == other.pair_id != changed.pair_id


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        (_pair(src={"url": "u", "html": "x"}), "src.lang"),
        (_pair(kind="poem"), "kind"),
        (_pair(extra=1), "extra"),
        (_pair(schema_version=2), "schema_version"),
        ([1, 2], "JSON object"),
    ],
)
def test_bad_payloads_name_what_is_wrong(payload: object, needle: str) -> None:
    with pytest.raises(InvalidInput, match=needle):
        parse_message("tree_align", payload)


def test_unknown_stage_is_invalid() -> None:
    with pytest.raises(InvalidInput, match="unknown stage"):
        parse_message("nope", {})


def test_content_id_separates_boundaries() -> None:
    assert content_id("ab", "c") != content_id("a", "bc")
    assert content_id("x", prefix="p").startswith("p") and len(content_id("x")) == 32


def test_pair_id_of_names_the_page_pair_of_every_alignment_message() -> None:
    from shared.schemas import ArticleBatch, pair_id_of

    page_pair = PagePair.model_validate(_pair())
    assert pair_id_of(page_pair.model_dump(mode="json")) == page_pair.pair_id
    assert pair_id_of({"context": {"pair_id": "pp1"}, "chunks": []}) == "pp1"
    batch = ArticleBatch.model_validate(
        {"job_id": "j", "web": [{"id": "w", "body": "x"}], "mobile": [{"id": "m", "body": "y"}]}
    )
    assert pair_id_of(batch.model_dump(mode="json")) == batch.batch_id
    assert pair_id_of(_pair(src={"lang": "??", "html": ""})) is None  # invalid: cannot tell
    assert pair_id_of({"sentences": []}) is None


@pytest.mark.parametrize(
    "payload",
    [
        {"context": {"pair_id": "p", "job_id": "j", "kind": "translation", "src_url": "",
                     "tgt_url": "", "src_lang": "ja", "tgt_lang": "ja"},
         "chunks": [{"src_text": "\ud800", "tgt_text": "x"}]},
    ],
)  # fmt: skip
def test_a_lone_surrogate_in_message_text_is_invalid_input(payload: dict[str, object]) -> None:
    # it passed the schema (JSON carries it) and failed in MeCab with UnicodeEncodeError
    with pytest.raises(InvalidInput, match="surrogate"):
        parse_message("sentence_align", payload)
