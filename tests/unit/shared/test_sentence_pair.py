"""The sentence-pair record (shared/sentence_pair.py): its derived dedup key, and the part of
it the paraphrase message carries, on the wire exactly as before the record."""

from __future__ import annotations

import json

from shared.corpus_clean import dedup_key
from shared.ids import site_of
from shared.schemas import PairContext, SentencePairs
from shared.sentence_pair import SentencePairRecord

FIELDS = {
    "id": "sp1",
    "pair_id": "pp1",
    "kind": "pc-mobile",
    "src_url": "https://News.example.jp:8080/a?x=1",
    "tgt_url": "https://m.news.example.jp/a",
    "site": "news.example.jp",
    "src_lang": "ja",
    "tgt_lang": "ja",
    "src_text": "積雪は60センチを越えた。",
    "tgt_text": "積雪が60センチを越えた。",
    "score": 0.75,
    "bead": "[0]:[0]",
    "position": 3,
}


def test_an_empty_dedup_key_is_derived_and_a_given_one_kept() -> None:
    record = SentencePairRecord(**FIELDS)
    assert record.dedup_key == dedup_key("ja", "ja", FIELDS["src_text"], FIELDS["tgt_text"])
    assert SentencePairRecord(**FIELDS, dedup_key="k1").dedup_key == "k1"
    assert (record.chunk, record.flag, record.method, record.posterior) == (-1, "", "", None)
    assert site_of(FIELDS["src_url"]) == FIELDS["site"]


def test_the_message_pair_is_the_wire_form_of_before() -> None:
    record = SentencePairRecord(**{**FIELDS, "chunk": 2, "posterior": 0.5, "flag": "x"})
    context = PairContext(pair_id="pp1", job_id="j1", kind="pc-mobile", src_url=FIELDS["src_url"],
                          tgt_url=FIELDS["tgt_url"], src_lang="ja", tgt_lang="ja")  # fmt: skip
    message = SentencePairs(context=context, pairs=[record.message_pair()])
    (pair,) = json.loads(message.model_dump_json())["pairs"]
    assert pair == {
        "id": "sp1",
        "src": FIELDS["src_text"],
        "tgt": FIELDS["tgt_text"],
        "score": 0.75,
        "bead": "[0]:[0]",
        "chunk": 2,
        "posterior": 0.5,
    }
