"""sentence_align stage handler: aligned chunks in, stored sentence pairs out.

Monolingual pairs (PC/mobile news, two versions of one text) continue to the paraphrase
stage; Japanese sentences continue to the thesaurus stage for cooccurrence counts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from shared.ids import content_id
from shared.pipeline import Outgoing
from shared.schemas import (
    ArticleBatch,
    ChunkPairs,
    JapaneseSentences,
    PairContext,
    SentencePair,
    SentencePairs,
)
from shared.store import Store, site_of
from shared.text import base_lang

if TYPE_CHECKING:
    from services.sentence_align.beads import Bead

_NO_SPACE_LANGS = {"ja", "zh", "th"}


def sentence_separator(lang: str) -> str:
    """What joins sentences of ``lang``: nothing for scripts written without spaces."""
    return "" if base_lang(lang) in _NO_SPACE_LANGS else " "


def cost_score(bead: Bead) -> float:
    """exp(-cost) with the cost floored at 0: the score of a bead without a confidence (and
    of every bead before bead confidences)."""
    return math.exp(-max(bead.cost, 0.0))


def bead_score(bead: Bead) -> float:
    """A sentence pair's score: the bead's posterior probability where the aligner gives one
    ("lexicon", "hybrid"; measured against gold in benchmarks/results/sentence_align.md),
    else ``cost_score`` ("length", "anchors")."""
    if bead.confidence is not None:
        return bead.confidence
    return cost_score(bead)


def sentence_pairs(message: ChunkPairs) -> list[SentencePair]:
    """Split each aligned chunk into sentences and align them; 1-0/0-1 beads are not pairs."""
    from services.sentence_align.align import align_segments
    from services.sentence_align.beads import format_bead
    from services.sentence_align.splitter import split_sentences

    context = message.context
    pairs: list[SentencePair] = []
    split = [
        (index, split_sentences(chunk.src_text, context.src_lang, newline_is_boundary=True),
         split_sentences(chunk.tgt_text, context.tgt_lang, newline_is_boundary=True))
        for index, chunk in enumerate(message.chunks)
    ]  # fmt: skip
    split = [(index, src, tgt) for index, src, tgt in split if src and tgt]
    # One length model and one Model 1 per page pair, shared by its chunks.
    aligned = align_segments(
        [(src, tgt) for _, src, tgt in split],
        method=message.method,
        src_lang=context.src_lang,
        tgt_lang=context.tgt_lang,
    )
    src_separator = sentence_separator(context.src_lang)
    tgt_separator = sentence_separator(context.tgt_lang)
    for (index, src_sentences, tgt_sentences), beads in zip(split, aligned, strict=True):
        for bead in beads:
            if not bead.src or not bead.tgt:
                continue
            bead_text = format_bead(bead, with_cost=False)
            pairs.append(
                SentencePair(
                    id=content_id(context.pair_id, str(index), bead_text, prefix="sp"),
                    src=src_separator.join(src_sentences[bead.src[0] : bead.src[-1] + 1]),
                    tgt=tgt_separator.join(tgt_sentences[bead.tgt[0] : bead.tgt[-1] + 1]),
                    score=bead_score(bead),
                    bead=bead_text,
                    chunk=index,
                )
            )
    return pairs


def article_sentence_pairs(message: ArticleBatch) -> list[tuple[PairContext, list[SentencePair]]]:
    """Pair same-day Web and mobile articles (SimArticle), then their sentences (shared nouns).

    A pairing that shares no noun is not a sentence pair. Score: n / (n + 1) for n shared
    nouns, so more shared nouns read as more certain.
    """
    from services.sentence_align.articles import Article, pair_articles, pair_sentences

    def article(item: object) -> Article:
        data = item.model_dump()  # type: ignore[attr-defined]
        return Article(**{**data, "keywords": tuple(data["keywords"])})

    web = {item.id: article(item) for item in message.web}
    mobile = {item.id: article(item) for item in message.mobile}
    results: list[tuple[PairContext, list[SentencePair]]] = []
    for pair in pair_articles(list(web.values()), list(mobile.values())):
        web_article, mobile_article = web[pair.web_id], mobile[pair.mobile_id]
        pair_id = content_id(message.batch_id, pair.web_id, pair.mobile_id, prefix="ap")
        context = PairContext(
            pair_id=pair_id,
            job_id=message.job_id,
            kind="pc-mobile",
            src_url=web_article.url,
            tgt_url=mobile_article.url,
            src_lang=message.lang,
            tgt_lang=message.lang,
        )
        sentences = [
            SentencePair(
                id=content_id(pair_id, str(index), prefix="sp"),
                src=pairing.web_sentence,
                tgt=pairing.mobile_sentence,
                score=pairing.shared_nouns / (pairing.shared_nouns + 1),
                bead=f"article:{pair.score:g}",
                chunk=index,
            )
            for index, pairing in enumerate(pair_sentences(web_article, mobile_article))
            if pairing.shared_nouns > 0
        ]
        results.append((context, sentences))
    return results


def handle(message: ChunkPairs | ArticleBatch, store: Store) -> list[Outgoing]:
    """Align sentences, store them (idempotently), and route them onwards."""
    if isinstance(message, ArticleBatch):
        outgoing: list[Outgoing] = []
        position = 0
        for context, pairs in article_sentence_pairs(message):
            # Rows are filed under the batch, the unit the job tracks, their positions running
            # through the batch (listings keep each article pair's sentences together).
            outgoing.extend(
                _store_and_route(context, pairs, store, message.batch_id, "articles", position)
            )
            position += len(pairs)
        store.record_progress(message.batch_id, "sentence_align", len(outgoing))
        return outgoing
    context = message.context
    return _store_and_route(
        context, sentence_pairs(message), store, context.pair_id, "sentence_align"
    )


def _store_and_route(
    context: PairContext,
    pairs: list[SentencePair],
    store: Store,
    row_pair_id: str,
    stage: str,
    first_position: int = 0,
) -> list[Outgoing]:
    rows: list[dict[str, Any]] = [
        {
            "id": pair.id,
            "pair_id": row_pair_id,
            "kind": context.kind,
            "src_url": context.src_url,
            "tgt_url": context.tgt_url,
            "site": site_of(context.src_url),
            "src_lang": context.src_lang,
            "tgt_lang": context.tgt_lang,
            "src_text": pair.src,
            "tgt_text": pair.tgt,
            "score": pair.score,
            "bead": pair.bead,
            "chunk": pair.chunk,
            "position": position,
        }
        for position, pair in enumerate(pairs, start=first_position)
    ]
    store.add_sentence_pairs(rows, pair_id=context.pair_id, stage=stage)
    outgoing: list[Outgoing] = []
    monolingual = base_lang(context.src_lang) == base_lang(context.tgt_lang)
    if pairs and monolingual:
        outgoing.append(("paraphrase", SentencePairs(context=context, pairs=pairs)))
    # A monolingual pair's target is a rewrite of its source (a mobile version): both sides
    # counted one article's cooccurrences twice, past the "seen once" filter. Its source only.
    japanese = [
        text
        for pair in pairs
        for lang, text in ((context.src_lang, pair.src), (context.tgt_lang, pair.tgt))[
            : 1 if monolingual else 2
        ]
        if base_lang(lang) == "ja"
    ]
    if japanese:
        outgoing.append(
            (
                "thesaurus",
                JapaneseSentences(
                    source_id=context.pair_id, job_id=context.job_id, sentences=japanese
                ),
            )
        )
    return outgoing
