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


ENGLISH = tables.Observation(
    "en", "pc-mobile", "old soldiers never die", "old soldiers never perish"
)
GERMAN = [
    tables.Observation("de", "pc-mobile", f"die Katze schläft {k}", f"die Mieze schläft {k}")
    for k in range(3)
]


def _pairs(entries: list[PhraseTableEntry]) -> set[tuple[str, str, str]]:
    return {(entry.lang, entry.phrase, entry.paraphrase) for entry in entries}


def test_each_language_gets_its_own_table() -> None:
    # one aligner over all languages: German's "die" ~ "die" took the English "die" ~
    # "perish" away, and the counts behind p(e|f) were summed across languages
    alone = _pairs(tables.phrase_paraphrases([ENGLISH]))
    assert ("en", "die", "perish") in alone
    mixed = tables.phrase_paraphrases([ENGLISH, *GERMAN])
    assert alone <= _pairs(mixed) and ("de", "Katze", "Mieze") in _pairs(mixed)
    assert {e.lang for e in tables.phrase_paraphrases([ENGLISH, *GERMAN], lang="de")} == {"de"}


def test_a_language_tag_with_an_underscore_is_still_japanese() -> None:
    # ja_JP (accepted at ingest) gave whole unsegmented sentences as tokens
    sentence = "新幹線の運転を見合わせた。"
    assert tables.tokens(sentence, "ja_JP") == tables.tokens(sentence, "ja") != [sentence]


def test_half_width_katakana_is_no_paraphrase_of_its_full_width_form() -> None:
    # Japanese tokens were not normalised: ｱｯﾌﾟﾛｰﾄﾞ was listed as a paraphrase of アップロード
    assert tables.tokens("動画をｱｯﾌﾟﾛｰﾄﾞした", "ja") == tables.tokens("動画をアップロードした", "ja")
    widths = tables.Observation("ja", "pc-mobile", "動画をアップロードした", "動画をｱｯﾌﾟﾛｰﾄﾞした")
    assert tables.phrase_paraphrases([widths]) == []


def test_overlong_or_unbalanced_pairs_stay_out_of_the_phrase_table() -> None:
    # the HMM is cubic in the length: one 1,500-token pair held every table request 195 s
    pad = " ".join(f"w{k}" for k in range(110))  # 114 tokens a side with the sentence
    long = tables.Observation("en", "pc-mobile", f"{ENGLISH.src} {pad}", f"{ENGLISH.tgt} {pad}")
    tail = " ".join(f"v{k}" for k in range(20))  # 2 tokens against 22
    unbalanced = tables.Observation("en", "pc-mobile", "never die", f"never perish {tail}")
    assert tables.phrase_paraphrases([long]) == tables.phrase_paraphrases([unbalanced]) == []
    assert ("en", "die", "perish") in _pairs(tables.phrase_paraphrases([ENGLISH]))
