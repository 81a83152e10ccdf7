"""The sentence_align handler stores each pair with its flag and provenance, and a replay of a
page pair with other settings replaces its pairs (the same settings change nothing)."""

from __future__ import annotations

from services.sentence_align.handler import handle
from shared.provenance import code_version, model_version
from shared.schemas import ChunkPairs, PairContext, TextChunkPair
from shared.store import SentencePairQuery, Store, StoredSentencePair

CONTEXT = PairContext(
    pair_id="p1", job_id="j1", kind="translation", src_url="https://e.org/de/1",
    tgt_url="https://e.org/fr/1", src_lang="de", tgt_lang="fr",
)  # fmt: skip
CHUNKS = [
    TextChunkPair(src_text="Zum Inhalt springen", tgt_text="Zum Inhalt springen",
                  src_xpath="/html/body/a", tgt_xpath="/html/body/a"),
    TextChunkPair(
        src_text="Wir stiegen 1956 auf den Gipfel. Es schneite den ganzen Tag in Zürich.",
        tgt_text="Nous sommes montés au sommet en 1956. Il a neigé toute la journée à Zürich.",
        src_xpath="/html/body/p", tgt_xpath="/html/body/p",
    ),
]  # fmt: skip
EVERY = SentencePairQuery(flagged=True, duplicates=True)


def _stored(store: Store) -> list[StoredSentencePair]:
    return store.list_sentence_pairs(EVERY)


def test_pairs_are_stored_with_flag_and_provenance() -> None:
    store = Store("sqlite://")
    handle(ChunkPairs(context=CONTEXT, chunks=CHUNKS, method="hybrid"), store)
    rows = _stored(store)
    assert (rows[0].src_text, rows[0].flag) == ("Zum Inhalt springen", "untranslated")
    assert all(r.flag == "" for r in rows[1:]) and len(rows) == 3
    assert {(r.method, r.version, r.model_version) for r in rows} == {
        ("tree+hybrid", code_version(), model_version(tree=True))
    }
    # the corpus leaves the untranslated menu item out
    assert len(store.list_sentence_pairs(SentencePairQuery())) == 2


def test_a_replay_with_other_settings_supersedes_its_pairs() -> None:
    store = Store("sqlite://")
    handle(ChunkPairs(context=CONTEXT, chunks=CHUNKS, method="length"), store)
    first = _stored(store)
    handle(ChunkPairs(context=CONTEXT, chunks=CHUNKS, method="length"), store)  # redelivered
    assert _stored(store) == first
    flat = [chunk.model_copy(update={"src_xpath": "", "tgt_xpath": ""}) for chunk in CHUNKS]
    handle(ChunkPairs(context=CONTEXT, chunks=flat, method="hybrid"), store)
    rows = _stored(store)
    assert len(rows) == len(first)  # replaced, not added beside them
    assert {r.method for r in rows} == {"flat+hybrid"}
    assert {r.model_version for r in rows} == {model_version(tree=False)}
