"""Where a page pair's sentence pairs come from and go: the site's earlier pairs it learns
from (which, and for which page pairs) and the stages its pairs go on to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.ids import site_of
from shared.schemas import ChunkPairs, JapaneseSentences, Message, PairContext, SentencePairs
from shared.sentence_pair import SentencePairRecord
from shared.text import base_lang

# Sentence pairs of the site learned from: beads of posterior 0.9 or more, sides of
# prose-sentence length (an unsplit paragraph stored as one sentence would be segmented
# again with every page pair of its site; Model 1 remembers the tokens of sentences up to
# the same length, model1.CACHED_LENGTH).
SITE_PAIR_MIN_SCORE = 0.9
SITE_PAIR_MAX_LENGTH = 500


@dataclass(frozen=True)
class SitePairs:
    """Which of the site's stored sentence pairs a page pair learns from (the arguments of
    ``Store.site_pairs``, but for the ingest position the pairs must come before)."""

    sites: tuple[str, str]
    langs: tuple[str, str]
    limit: int
    exclude_pair_id: str
    min_score: float = SITE_PAIR_MIN_SCORE
    max_length: int = SITE_PAIR_MAX_LENGTH


def site_pairs_wanted(message: ChunkPairs, limit: int) -> SitePairs | None:
    """The site's latest distinct stored sentence pairs in the page pair's two languages,
    filed under either page's host, one sentence a side, score at least
    :data:`SITE_PAIR_MIN_SCORE`, at most ``limit`` (``Settings.site_pairs``), not the page
    pair's own: the text its length model and Model 1 also learn from. A page pair is a few
    dozen sentences; its site's earlier pages share its names and vocabulary (Moore 2002
    trains on the whole corpus being aligned; measured on the page_match benchmark's
    crawls, benchmarks/results/page_match.md). None for monolingual pairs, for methods
    without Model 1, and when ``limit`` is 0."""
    context = message.context
    if (
        not limit
        or message.method not in ("lexicon", "hybrid")
        or base_lang(context.src_lang) == base_lang(context.tgt_lang)
    ):
        return None
    return SitePairs(
        sites=(site_of(context.src_url), site_of(context.tgt_url)),
        langs=(context.src_lang, context.tgt_lang),
        limit=limit,
        exclude_pair_id=context.pair_id,
    )


def next_messages(
    context: PairContext, pairs: Sequence[SentencePairRecord]
) -> list[tuple[str, Message]]:
    """What goes on from a page pair's sentence pairs: a monolingual pair's to the paraphrase
    stage, Japanese sentences to the thesaurus stage (their cooccurrence counts)."""
    outgoing: list[tuple[str, Message]] = []
    monolingual = base_lang(context.src_lang) == base_lang(context.tgt_lang)
    if pairs and monolingual:
        message_pairs = [pair.message_pair() for pair in pairs]
        outgoing.append(("paraphrase", SentencePairs(context=context, pairs=message_pairs)))
    # A monolingual pair's target is a rewrite of its source (a mobile version): both sides
    # counted one article's cooccurrences twice, past the "seen once" filter. Its source only.
    japanese = [
        text
        for pair in pairs
        for lang, text in ((context.src_lang, pair.src_text), (context.tgt_lang, pair.tgt_text))[
            : 1 if monolingual else 2
        ]
        if base_lang(lang) == "ja"
    ]
    if japanese:
        sentences = JapaneseSentences(
            source_id=context.pair_id, job_id=context.job_id, sentences=japanese
        )
        outgoing.append(("thesaurus", sentences))
    return outgoing
