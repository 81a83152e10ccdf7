"""Hostile HTML through parse_html and the alignment handlers: InvalidInput or success."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from services.html.parse import ParseLimits, parse_html, text_chunks
from services.html.tag_tree import TagTree
from services.sentence_align.mining.records import sentence_pairs
from services.tree_align.handler import chunk_pairs
from shared.errors import InvalidInput
from shared.schemas import PagePair
from tests.fuzz.html_generator import TAGS, random_bytes_html, random_html

PARSED_DOCUMENTS = 100_000
PIPELINE_PAIRS = 3_000
SMALL = ParseLimits(max_bytes=200_000, max_depth=200, max_elements=5_000)


def _parse_or_refuse(document: str | bytes) -> TagTree | None:
    try:
        tree = parse_html(document, limits=SMALL)
    except InvalidInput:
        return None
    assert tree.size >= 1
    assert tree.size <= SMALL.max_elements + 1
    return tree


def test_a_hundred_thousand_generated_documents_parse_or_are_refused_clearly() -> None:
    rng = random.Random(7)
    outcomes = {"parsed": 0, "refused": 0}
    for number in range(PARSED_DOCUMENTS):
        document: str | bytes = random_html(rng) if number % 4 else random_bytes_html(rng)
        tree = _parse_or_refuse(document)
        if tree is None:
            outcomes["refused"] += 1
            continue
        outcomes["parsed"] += 1
        text_chunks(tree)
    # The generator must exercise both paths, or it tests nothing.
    assert outcomes["parsed"] > PARSED_DOCUMENTS // 2 and outcomes["refused"] > 100, outcomes


def _pair(src: str, tgt: str, src_lang: str = "en", tgt_lang: str = "fr") -> PagePair:
    return PagePair.model_validate(
        {
            "job_id": "fuzz",
            "src": {"lang": src_lang, "html": src},
            "tgt": {"lang": tgt_lang, "html": tgt},
        }
    )


def _no_surrogates(text: str) -> str:
    # Lone surrogates have their own test below; here they would mask every other finding.
    return text.encode("utf-8", "replace").decode("utf-8")


def _through_handlers(message: PagePair) -> None:
    try:
        chunks = chunk_pairs(message)
    except InvalidInput:
        return
    for pair in sentence_pairs(chunks):
        assert pair.src_text and pair.tgt_text and 0.0 <= pair.score <= 1.0


def test_generated_page_pairs_go_through_tree_and_sentence_alignment() -> None:
    rng = random.Random(11)
    langs = ("en", "fr", "ja", "de", "zh")
    for _ in range(PIPELINE_PAIRS):
        src, tgt = _no_surrogates(random_html(rng)), _no_surrogates(random_html(rng))
        _through_handlers(_pair(src, tgt, rng.choice(langs), rng.choice(langs)))


@st.composite
def nested_html(draw: st.DrawFn, depth: int = 0) -> str:
    """Structured documents: nested tags with text, for shrinking to a minimal crash."""
    tag = draw(st.sampled_from(TAGS))
    if depth > 6:
        return draw(st.text(max_size=20))
    children = draw(st.lists(st.one_of(st.text(max_size=30), nested_html(depth + 1)), max_size=4))
    closing = draw(st.booleans())
    return f"<{tag}>" + "".join(children) + (f"</{tag}>" if closing else "")


@settings(max_examples=300)
@given(src=nested_html(), tgt=nested_html(), src_lang=st.sampled_from(["en", "ja"]))
def test_structured_documents_through_both_handlers(src: str, tgt: str, src_lang: str) -> None:
    _through_handlers(_pair(_no_surrogates(src), _no_surrogates(tgt), src_lang, "ja"))


def test_a_lone_surrogate_in_a_page_is_refused_as_invalid_input() -> None:
    with pytest.raises((InvalidInput, ValidationError)):
        chunk_pairs(_pair("<p>broken \ud800 text</p>", "<p>texte</p>"))


@settings(max_examples=500)
@given(st.binary(max_size=2_000))
def test_arbitrary_bytes_parse_or_are_refused(data: bytes) -> None:
    _parse_or_refuse(data)


@settings(max_examples=500)
@given(st.text(max_size=2_000))
def test_arbitrary_text_parses_or_is_refused(text: str) -> None:
    _parse_or_refuse(text)


@pytest.mark.parametrize("encoding", ["utf-16-le", "shift_jis", "euc-jp", "cp1252", "utf-32"])
def test_wrong_declared_encoding_still_gives_text_or_a_clear_error(encoding: str) -> None:
    body = "<p>日本語の文です。 Ünïcödé text.</p>".encode(encoding, errors="replace")
    lying = b'<meta charset="utf-8">' + body if "16" not in encoding else body
    tree = _parse_or_refuse(lying)
    if tree is not None:
        assert all("\x00" not in chunk.text for chunk in text_chunks(tree))
