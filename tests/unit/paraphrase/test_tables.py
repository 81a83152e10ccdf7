"""Paraphrase tables from the store: feeding the same pairs twice leaves every table unchanged."""

from __future__ import annotations

from pathlib import Path

from services.paraphrase import tables
from services.paraphrase.endings import EndingCandidate
from services.paraphrase.handler import handle
from services.paraphrase.phrases import PhraseTableEntry
from shared.ids import content_id
from shared.schemas import PairContext, SentencePair, SentencePairs
from shared.store import Store, paraphrase_observations

PAIRS = [
    ("政府は新しい方針を発表した。", "政府が新方針を発表。"),
    ("政府は新しい計画を明らかにした。", "政府が新計画を発表。"),
    ("会社は来年の予定を公表した。", "会社が来年の予定を発表。"),
    ("原因が分かった。", "原因が判明。"),
    ("事故の原因が明らかになった。", "事故の原因が判明。"),
]


def _message(pairs: list[tuple[str, str]]) -> SentencePairs:
    context = PairContext(
        pair_id="pp",
        job_id="j",
        kind="pc-mobile",
        src_url="a",
        tgt_url="b",
        src_lang="ja",
        tgt_lang="ja",
    )
    return SentencePairs(
        context=context,
        pairs=[
            SentencePair(id=content_id(w, m), src=w, tgt=m, score=1.0, bead="[0]:[0]")
            for w, m in pairs
        ],
    )


def _tables(
    store: Store,
) -> tuple[dict[str, list[EndingCandidate]], list[PhraseTableEntry]]:
    observations = [
        tables.Observation(r["lang"], r["kind"], r["src_text"], r["tgt_text"])
        for r in store.paraphrase_observations()
    ]
    return tables.ending_paraphrases(observations), tables.phrase_paraphrases(observations)


def test_feeding_the_same_pairs_twice_changes_no_table(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'p.db'}")
    handle(_message(PAIRS), store)
    count, before = store.count(paraphrase_observations), _tables(store)
    handle(_message(PAIRS), store)
    handle(_message(list(reversed(PAIRS))), store)
    assert store.count(paraphrase_observations) == count == len(PAIRS)
    assert _tables(store) == before
    endings, phrases = before
    assert set(endings) == {"発表", "判明"}
    assert phrases  # the aligner found non-identical phrase pairs
