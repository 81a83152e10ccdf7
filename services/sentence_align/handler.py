"""sentence_align stage handler: aligned chunks in, stored sentence pairs out.

Monolingual pairs (PC/mobile news, two versions of one text) continue to the paraphrase
stage; Japanese sentences continue to the thesaurus stage for cooccurrence counts.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from shared.config import get_settings
from shared.corpus_clean import BOILERPLATE, pair_flag
from shared.delivery.ordering import learning_position
from shared.delivery.pipeline import Outgoing
from shared.ids import content_id
from shared.metrics import stage_metrics
from shared.provenance import code_version, model_version
from shared.schemas import (
    ArticleBatch,
    ChunkPairs,
    JapaneseSentences,
    PairContext,
    SentencePair,
    SentencePairs,
)
from shared.store import SentencePairRow, Store, site_of
from shared.text import base_lang

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary
    from services.sentence_align._two_pass import KeptText
    from services.sentence_align.beads import Bead
    from services.sentence_align.pair_features import Candidate

_NO_SPACE_LANGS = {"ja", "zh", "th"}
# Sentence pairs of the site learned from (``site_pairs``): beads of posterior 0.9 or more,
# sides of prose-sentence length (an unsplit paragraph stored as one sentence would be
# segmented again with every page pair of its site; Model 1 remembers the tokens of
# sentences up to the same length, tokens.CACHED_LENGTH).
SITE_PAIR_MIN_SCORE = 0.9
SITE_PAIR_MAX_LENGTH = 500


def sentence_separator(lang: str) -> str:
    """What joins sentences of ``lang``: nothing for scripts written without spaces."""
    return "" if base_lang(lang) in _NO_SPACE_LANGS else " "


def cost_score(bead: Bead) -> float:
    """exp(-cost) with the cost floored at 0: the score of a bead without a confidence (and
    of every bead before bead confidences)."""
    return math.exp(-max(bead.cost, 0.0))


def bead_score(bead: Bead) -> float:
    """The DP's own score of a bead (a sentence pair's ``posterior``): its posterior
    probability where the aligner gives one ("lexicon", "hybrid"; measured against gold in
    benchmarks/results/sentence_align.md), else ``cost_score`` ("length", "anchors")."""
    if bead.confidence is not None:
        return bead.confidence
    return cost_score(bead)


def sentence_pairs(
    message: ChunkPairs,
    *,
    site: KeptText | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> list[SentencePair]:
    """Split each aligned chunk into sentences and align them; 1-0/0-1 beads are not pairs.
    ``site`` and ``extra``: the site's earlier sentence pairs, as the aligner keeps them and
    as text to train on with the page pair (``site_learning``).
    Each pair's score is the pair classifier's probability (:func:`pair_scores`), its
    ``posterior`` the DP's own (:func:`bead_score`)."""
    from services.lexical.registry import dictionary_for
    from services.sentence_align.align import align_segments
    from services.sentence_align.beads import format_bead
    from services.sentence_align.pair_features import Candidate
    from services.sentence_align.splitter import split_sentences

    context = message.context
    pairs: list[SentencePair] = []
    split = [
        (index, split_sentences(chunk.src_text, context.src_lang, newline_is_boundary=True),
         split_sentences(chunk.tgt_text, context.tgt_lang, newline_is_boundary=True))
        for index, chunk in enumerate(message.chunks)
    ]  # fmt: skip
    split = [(index, src, tgt) for index, src, tgt in split if src and tgt]
    # One length model and one Model 1 per page pair, shared by its chunks; seeded with the
    # installed dictionaries of the two languages, as align-sentences is by default.
    dictionary = dictionary_for(context.src_lang, context.tgt_lang)
    aligned = align_segments(
        [(src, tgt) for _, src, tgt in split],
        method=message.method,
        src_lang=context.src_lang,
        tgt_lang=context.tgt_lang,
        dictionary=dictionary,
        site=site,
        extra=extra,
    )
    src_separator = sentence_separator(context.src_lang)
    tgt_separator = sentence_separator(context.tgt_lang)
    candidates: list[Candidate] = []
    for (index, src_sentences, tgt_sentences), beads in zip(split, aligned, strict=True):
        for bead in beads:
            if not bead.src or not bead.tgt:
                continue
            bead_text = format_bead(bead, with_cost=False)
            first_src, last_src = bead.src[0], bead.src[-1]
            first_tgt, last_tgt = bead.tgt[0], bead.tgt[-1]
            candidate = Candidate(
                src_separator.join(src_sentences[first_src : last_src + 1]),
                tgt_separator.join(tgt_sentences[first_tgt : last_tgt + 1]),
                len(bead.src),
                len(bead.tgt),
                bead_score(bead),
                _sentence(src_sentences, first_src - 1),
                _sentence(src_sentences, last_src + 1),
                _sentence(tgt_sentences, first_tgt - 1),
                _sentence(tgt_sentences, last_tgt + 1),
            )
            candidates.append(candidate)
            pairs.append(
                SentencePair(
                    id=content_id(context.pair_id, str(index), bead_text, prefix="sp"),
                    src=candidate.src,
                    tgt=candidate.tgt,
                    score=0.0,
                    bead=bead_text,
                    chunk=index,
                    posterior=candidate.posterior,
                )
            )
    scores = pair_scores(candidates, context.src_lang, context.tgt_lang, dictionary)
    return [
        pair.model_copy(update={"score": score}) for pair, score in zip(pairs, scores, strict=True)
    ]


def _sentence(sentences: Sequence[str], index: int) -> str:
    return sentences[index] if 0 <= index < len(sentences) else ""


def pair_scores(
    candidates: Sequence[Candidate],
    src_lang: str,
    tgt_lang: str,
    dictionary: BilingualDictionary | None,
) -> list[float]:
    """The shipped pair classifier's probability of each of a page pair's sentence pairs
    (services/sentence_align/pair_model.py; Model 1 of its features trained on them)."""
    from services.sentence_align.pair_model import load_pair_model

    if not candidates:
        return []
    model = load_pair_model()
    return [float(p) for p in model.score_page(candidates, src_lang, tgt_lang, dictionary)]


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
    """Align sentences, store them (replacing the page pair's pairs of other settings), and
    route them onwards."""
    if isinstance(message, ArticleBatch):
        # Rows are filed under the batch, the unit the job tracks, their positions running
        # through the batch (listings keep each article pair's sentences together).
        provenance = Provenance("simarticle", code_version(), model_version(tree=False, pair=False))
        rows: list[SentencePairRow] = []
        outgoing: list[Outgoing] = []
        for context, pairs in article_sentence_pairs(message):
            rows += stored_rows(context, pairs, message.batch_id, provenance, len(rows))
            outgoing += _route(context, pairs)
        store.add_sentence_pairs(
            rows, pair_id=message.batch_id, stage="sentence_align", supersede=message.batch_id
        )
        return outgoing
    context = message.context
    site, since = site_learning(message, store)
    pairs = sentence_pairs(message, site=site, extra=since)
    tree = any(chunk.src_xpath or chunk.tgt_xpath for chunk in message.chunks)
    provenance = Provenance(
        f"{'tree' if tree else 'flat'}+{message.method}", code_version(), model_version(tree=tree)
    )
    boilerplate = frozenset(k for k, chunk in enumerate(message.chunks) if chunk.boilerplate)
    store.add_sentence_pairs(
        stored_rows(context, pairs, context.pair_id, provenance, boilerplate=boilerplate),
        pair_id=context.pair_id,
        stage="sentence_align",
        supersede=context.pair_id,
    )
    return _route(context, pairs)


# The sites' earlier pairs trained on (``site_lexicon``), by sites, languages, method, limit
# and the snapshot's last page pair: one snapshot serves a site's page pairs up to its next
# checkpoint. (A few megabytes each.)
_SNAPSHOTS: OrderedDict[tuple[object, ...], KeptText | None] = OrderedDict()
SNAPSHOTS_KEPT = 16


def site_learning(
    message: ChunkPairs, store: Store
) -> tuple[KeptText | None, list[tuple[str, str]]]:
    """What a page pair learns from its site's earlier sentence pairs in its two languages
    (filed under either page's host; one sentence a side, DP posterior at least
    :data:`SITE_PAIR_MIN_SCORE`, the latest distinct, at most ``Settings.site_pairs``) for
    its length model and Model 1: those of the site's first page pairs in the ingest order
    up to the checkpoint before this one (``site_lexicon.checkpoint``), trained on once
    (the snapshot, shared by the page pairs up to the next checkpoint), and those of the
    page pairs since, trained on with the page pair. Both depend on the ingest order only
    (``shared.delivery.ordering``), not on the schedule. A page pair is a few dozen
    sentences; its site's earlier pages share its names and vocabulary (Moore 2002 trains on
    the whole corpus being aligned; measured on the page_match benchmark's crawls,
    benchmarks/results/page_match.md). A page pair no job recorded learns from the site's
    latest pairs, trained on once. Nothing for monolingual pairs, for methods without Model 1,
    and when the setting is 0."""
    from services.lexical.registry import dictionary_for
    from services.sentence_align.align import learn_site_text
    from services.sentence_align.site_lexicon import checkpoint

    context = message.context
    limit = get_settings().site_pairs
    if (
        not limit
        or message.method not in ("lexicon", "hybrid")
        or base_lang(context.src_lang) == base_lang(context.tgt_lang)
    ):
        return None, []
    sites = tuple(sorted({site_of(context.src_url), site_of(context.tgt_url)}))
    langs = (context.src_lang, context.tgt_lang)

    def stored(
        before: int | None, after: int | None = None, exclude: str = ""
    ) -> list[tuple[str, str]]:
        return store.site_pairs(
            sites, langs, limit=limit, min_score=SITE_PAIR_MIN_SCORE, exclude_pair_id=exclude,
            max_length=SITE_PAIR_MAX_LENGTH, before=before, after=after,
        )  # fmt: skip

    def learned(pairs: list[tuple[str, str]]) -> KeptText | None:
        return learn_site_text(
            pairs, method=message.method, src_lang=langs[0], tgt_lang=langs[1],
            dictionary=dictionary_for(*langs),
        )  # fmt: skip

    # the pairs of the page pairs accepted before this one, once they are all aligned
    position = learning_position(store, context.pair_id, "sentence_align")
    since: list[tuple[str, str]] = []
    if position is None:
        text = learned(stored(None, exclude=context.pair_id))
    else:
        first = checkpoint(store.earlier_pairs(position))
        last = store.nth_pair_seq(position, first) if first else None
        if last is None:
            return None, []
        key = (sites, langs, message.method, limit, last)
        if key in _SNAPSHOTS:
            _SNAPSHOTS.move_to_end(key)
            text = _SNAPSHOTS[key]
        else:
            text = _SNAPSHOTS[key] = learned(stored(last + 1))
            while len(_SNAPSHOTS) > SNAPSHOTS_KEPT:
                _SNAPSHOTS.popitem(last=False)
        since = stored(position.seq, after=last)
    used = len(since) + (len(text.texts) if text is not None else 0)
    stage_metrics().site_pairs_used.inc(used)
    return text, since


@dataclass(frozen=True)
class Provenance:
    """What produced a page pair's sentence pairs (stored with each)."""

    method: str
    version: str
    model_version: str


def stored_rows(
    context: PairContext,
    pairs: list[SentencePair],
    row_pair_id: str,
    provenance: Provenance,
    first_position: int = 0,
    *,
    boilerplate: frozenset[int] = frozenset(),
) -> list[SentencePairRow]:
    """The sentence_pairs rows of ``pairs``: text, score and posterior, their flag
    (untranslated, wrong language: :func:`shared.corpus_clean.pair_flag`; else boilerplate
    for a pair of a chunk in ``boilerplate``, template on both pages) and provenance."""
    return [
        SentencePairRow(
            id=pair.id,
            pair_id=row_pair_id,
            kind=context.kind,
            src_url=context.src_url,
            tgt_url=context.tgt_url,
            site=site_of(context.src_url),
            src_lang=context.src_lang,
            tgt_lang=context.tgt_lang,
            src_text=pair.src,
            tgt_text=pair.tgt,
            score=pair.score,
            posterior=pair.posterior,
            bead=pair.bead,
            chunk=pair.chunk,
            position=position,
            flag=pair_flag(pair.src, pair.tgt, context.src_lang, context.tgt_lang)
            or (BOILERPLATE if pair.chunk in boilerplate else ""),
            method=provenance.method,
            version=provenance.version,
            model_version=provenance.model_version,
        )
        for position, pair in enumerate(pairs, start=first_position)
    ]


def _route(context: PairContext, pairs: list[SentencePair]) -> list[Outgoing]:
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
