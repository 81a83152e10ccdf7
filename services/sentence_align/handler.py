"""sentence_align stage handler: aligned chunks in, stored sentence pairs out.

Monolingual pairs (PC/mobile news, two versions of one text) continue to the paraphrase
stage; Japanese sentences continue to the thesaurus stage for cooccurrence counts.
"""

from __future__ import annotations

import math
from typing import Any

from shared.ids import content_id
from shared.pipeline import Outgoing
from shared.schemas import ChunkPairs, JapaneseSentences, SentencePair, SentencePairs
from shared.store import Store, site_of

_NO_SPACE_LANGS = {"ja", "zh", "th"}


def base_lang(lang: str) -> str:
    return lang.replace("_", "-").split("-")[0].lower()


def join_sentences(sentences: list[str], lang: str) -> str:
    separator = "" if base_lang(lang) in _NO_SPACE_LANGS else " "
    return separator.join(sentences)


def sentence_pairs(message: ChunkPairs) -> list[SentencePair]:
    """Split each aligned chunk into sentences and align them; 1-0/0-1 beads are not pairs."""
    from services.sentence_align.align import align_sentences
    from services.sentence_align.beads import format_bead
    from services.sentence_align.splitter import split_sentences

    context = message.context
    pairs: list[SentencePair] = []
    for index, chunk in enumerate(message.chunks):
        src_sentences = split_sentences(chunk.src_text, context.src_lang)
        tgt_sentences = split_sentences(chunk.tgt_text, context.tgt_lang)
        if not src_sentences or not tgt_sentences:
            continue
        beads = align_sentences(
            src_sentences,
            tgt_sentences,
            method=message.method,
            src_lang=context.src_lang,
            tgt_lang=context.tgt_lang,
        )
        for bead in beads:
            if not bead.src or not bead.tgt:
                continue
            bead_text = format_bead(bead, with_cost=False)
            pairs.append(
                SentencePair(
                    id=content_id(context.pair_id, str(index), bead_text, prefix="sp"),
                    src=join_sentences([src_sentences[i] for i in bead.src], context.src_lang),
                    tgt=join_sentences([tgt_sentences[j] for j in bead.tgt], context.tgt_lang),
                    score=math.exp(-max(bead.cost, 0.0)),
                    bead=bead_text,
                    chunk=index,
                )
            )
    return pairs


def handle(message: ChunkPairs, store: Store) -> list[Outgoing]:
    """Align sentences, store them (idempotently), and route them onwards."""
    context = message.context
    pairs = sentence_pairs(message)
    rows: list[dict[str, Any]] = [
        {
            "id": pair.id,
            "pair_id": context.pair_id,
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
            "position": position,
        }
        for position, pair in enumerate(pairs)
    ]
    store.add_sentence_pairs(rows, pair_id=context.pair_id, stage="sentence_align")
    outgoing: list[Outgoing] = []
    if pairs and base_lang(context.src_lang) == base_lang(context.tgt_lang):
        outgoing.append(("paraphrase", SentencePairs(context=context, pairs=pairs)))
    japanese = [
        text
        for pair in pairs
        for lang, text in ((context.src_lang, pair.src), (context.tgt_lang, pair.tgt))
        if base_lang(lang) == "ja"
    ]
    if japanese:
        outgoing.append(
            (
                "thesaurus",
                JapaneseSentences(source_id=context.pair_id, job_id=context.job_id, sentences=japanese),
            )
        )
    return outgoing
