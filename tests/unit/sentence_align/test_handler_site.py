"""The sentence_align stage learns a site's words from its earlier page pairs: the handler
passes the site's stored sentence pairs to the aligner (``site_learning``), and only those."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from services.lexical.registry import dictionary_for
from services.sentence_align.aligners.align import align_segments
from services.sentence_align.aligners.beads import parse_bead
from services.sentence_align.handler import handle
from services.sentence_align.mining.records import sentence_pairs
from services.sentence_align.mining.routing import SITE_PAIR_MIN_SCORE
from services.sentence_align.mining.site_lexicon import learn_site_text
from shared.config import get_settings
from shared.schemas import ChunkPairs, PairContext, TextChunkPair
from shared.store import SentencePairQuery, Store

PAGES = [
    (
        "Der Gipfel ist hoch. Wir stiegen 1956 auf. Es schneite in Zürich.",
        "Le sommet est haut. Nous sommes montés en 1956. Il neigeait à Zürich.",
    ),
    (
        "Die Hütte war voll. Am Morgen schneite es wieder.",
        "La cabane était pleine. Le matin, il neigeait de nouveau.",
    ),
]


def site_message(
    pair_id: str, host: str, texts: tuple[str, str], method: str = "hybrid"
) -> ChunkPairs:
    context = PairContext(
        pair_id=pair_id, job_id="j1", kind="translation", src_url=f"https://{host}/de/{pair_id}",
        tgt_url=f"https://{host}/fr/{pair_id}", src_lang="de", tgt_lang="fr",
    )  # fmt: skip
    chunk = TextChunkPair(src_text=texts[0], tgt_text=texts[1])
    return ChunkPairs(context=context, chunks=[chunk], method=method)


def site_pairs_used() -> float:
    return REGISTRY.get_sample_value("paramine_site_pairs_used_total") or 0.0


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    monkeypatch.delenv("PARAMINE_SITE_PAIRS", raising=False)  # the default
    get_settings.cache_clear()
    yield Store(f"sqlite:///{tmp_path / 'store.db'}")
    get_settings.cache_clear()


def learnable(store: Store, pair_id: str) -> int:
    """The stored pairs of ``pair_id`` a later page pair of its site learns from."""
    rows = store.list_sentence_pairs(SentencePairQuery(duplicates=True, flagged=True))
    return sum(
        1
        for row in rows
        if row.pair_id == pair_id
        and row.score >= SITE_PAIR_MIN_SCORE
        and not row.flag
        and len(parse_bead(row.bead).src) == len(parse_bead(row.bead).tgt) == 1
    )


def test_a_page_pair_learns_from_the_earlier_pairs_of_its_site_only(store: Store) -> None:
    before = site_pairs_used()
    handle(site_message("pp1", "alps.example", PAGES[0]), store)
    assert site_pairs_used() == before  # the site's first page pair: nothing to learn from
    earlier = learnable(store, "pp1")
    assert earlier >= 2
    handle(site_message("pp2", "alps.example", PAGES[1]), store)
    assert site_pairs_used() == before + earlier
    handle(site_message("pp3", "other.example", PAGES[1]), store)
    assert site_pairs_used() == before + earlier  # another site's pairs are not its own
    handle(site_message("pp2", "alps.example", PAGES[1]), store)  # a replay: not its own pairs
    assert site_pairs_used() == before + 2 * earlier


def test_a_site_with_a_host_per_language_is_one_site_either_way_round(store: Store) -> None:
    german, french = "https://de.alps.example/gipfel", "https://fr.alps.example/sommet"
    first = site_message("pp1", "unused", PAGES[0])
    first_context = first.context.model_copy(update={"src_url": german, "tgt_url": french})
    handle(first.model_copy(update={"context": first_context}), store)  # de.alps.example's
    earlier = learnable(store, "pp1")
    before = site_pairs_used()
    context = first_context.model_copy(
        update={"pair_id": "pp2", "src_url": french, "tgt_url": german, "src_lang": "fr",
                "tgt_lang": "de"}
    )  # fmt: skip
    chunk = TextChunkPair(src_text=PAGES[1][1], tgt_text=PAGES[1][0])
    handle(ChunkPairs(context=context, chunks=[chunk]), store)
    assert site_pairs_used() == before + earlier


def test_the_site_pairs_reach_the_aligner(store: Store) -> None:
    earlier = [
        ("Der Gipfel ist hoch.", "Le sommet est haut."),
        ("Es war kalt.", "Il faisait froid."),
    ]
    message = site_message("pp2", "alps.example", PAGES[1])
    segments = [(["Die Hütte war voll.", "Am Morgen schneite es wieder."],
                 ["La cabane était pleine.", "Le matin, il neigeait de nouveau."])]  # fmt: skip
    dictionary = dictionary_for("de", "fr")
    site = learn_site_text(earlier, src_lang="de", tgt_lang="fr", dictionary=dictionary)
    assert site is not None and site.texts == tuple(earlier)
    (beads,) = align_segments(
        segments, src_lang="de", tgt_lang="fr", dictionary=dictionary, site=site
    )
    expected = [(bead.src, bead.tgt, bead.confidence) for bead in beads if bead.src and bead.tgt]
    got = [
        (parse_bead(pair.bead).src, parse_bead(pair.bead).tgt, pair.posterior)
        for pair in sentence_pairs(message, site=site)
    ]
    assert got == expected


@pytest.mark.parametrize(("setting", "method"), [("0", "hybrid"), ("500", "length")])
def test_no_site_pairs_when_turned_off_or_without_model1(
    store: Store, monkeypatch: pytest.MonkeyPatch, setting: str, method: str
) -> None:
    monkeypatch.setenv("PARAMINE_SITE_PAIRS", setting)
    get_settings.cache_clear()
    handle(site_message("pp1", "alps.example", PAGES[0], method), store)
    before = site_pairs_used()
    handle(site_message("pp2", "alps.example", PAGES[1], method), store)
    assert site_pairs_used() == before
