"""A page pair's (or an article batch's) sentence-pair records: sentences split and aligned
inside each aligned chunk, each pair scored by the pair classifier, flagged and stamped with
what produced it (``shared.sentence_pair.SentencePairRecord``, as the store keeps it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from services.lexical.dictionary import BilingualDictionary
from services.lexical.registry import dictionary_for
from services.sentence_align.aligners.align import align_segments
from services.sentence_align.aligners.articles import Article, pair_articles, pair_sentences
from services.sentence_align.aligners.beads import Bead, format_bead
from services.sentence_align.aligners.splitter import split_sentences
from services.sentence_align.classifier.pair_features import Candidate
from services.sentence_align.classifier.pair_model import load_pair_model
from services.sentence_align.dp.two_pass import KeptText
from shared.corpus_clean import BOILERPLATE, pair_flag
from shared.ids import content_id, site_of
from shared.provenance import code_version, model_version
from shared.schemas import ArticleBatch, ArticleIn, ChunkPairs, PairContext
from shared.sentence_pair import SentencePairRecord
from shared.text import base_lang

_NO_SPACE_LANGS = {"ja", "zh", "th"}


@dataclass(frozen=True)
class Provenance:
    """What produced a page pair's sentence pairs (stored with each)."""

    method: str
    version: str
    model_version: str


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
) -> list[SentencePairRecord]:
    """Split each aligned chunk into sentences and align them; 1-0/0-1 beads are not pairs.
    ``site`` and ``extra``: the site's earlier sentence pairs the length model and Model 1
    also learn from, as a snapshot trained on before (``site_lexicon``) and as text trained
    on with the page pair (``align_segments``). Each pair's score is the pair classifier's
    probability (:func:`pair_scores`), its ``posterior`` the DP's own (:func:`bead_score`);
    its flag and provenance as :func:`record` gives them (boilerplate: a chunk of template
    on both pages)."""
    context = message.context
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
        extra=extra,
        site=site,
    )
    src_separator = sentence_separator(context.src_lang)
    tgt_separator = sentence_separator(context.tgt_lang)
    candidates: list[Candidate] = []
    found: list[tuple[str, str, int]] = []  # (id, bead, chunk) of each candidate
    for (index, src_sentences, tgt_sentences), beads in zip(split, aligned, strict=True):
        for bead in beads:
            if not bead.src or not bead.tgt:
                continue
            bead_text = format_bead(bead, with_cost=False)
            first_src, last_src = bead.src[0], bead.src[-1]
            first_tgt, last_tgt = bead.tgt[0], bead.tgt[-1]
            candidates.append(
                Candidate(
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
            )
            sentence_id = content_id(context.pair_id, str(index), bead_text, prefix="sp")
            found.append((sentence_id, bead_text, index))
    scores = pair_scores(candidates, context.src_lang, context.tgt_lang, dictionary)
    provenance = page_pair_provenance(message)
    boilerplate = frozenset(k for k, chunk in enumerate(message.chunks) if chunk.boilerplate)
    return [
        record(context, provenance, filed_under=context.pair_id, position=position,
               id=sentence_id, src=candidate.src, tgt=candidate.tgt, score=score, bead=bead,
               chunk=chunk, posterior=candidate.posterior, boilerplate=boilerplate)
        for position, ((sentence_id, bead, chunk), candidate, score)
        in enumerate(zip(found, candidates, scores, strict=True))
    ]  # fmt: skip


def _sentence(sentences: Sequence[str], index: int) -> str:
    return sentences[index] if 0 <= index < len(sentences) else ""


def pair_scores(
    candidates: Sequence[Candidate],
    src_lang: str,
    tgt_lang: str,
    dictionary: BilingualDictionary | None,
) -> list[float]:
    """The shipped pair classifier's probability of each of a page pair's sentence pairs
    (services/sentence_align/classifier/pair_model.py; Model 1 of its features trained on
    them)."""
    if not candidates:
        return []
    model = load_pair_model()
    return [float(p) for p in model.score_page(candidates, src_lang, tgt_lang, dictionary)]


def page_pair_provenance(message: ChunkPairs) -> Provenance:
    """What produces a page pair's pairs: tree or flat chunks and the aligner, this code's
    version, and the tree model (for tree chunks), the pair classifier and the language
    identifier."""
    tree = any(chunk.src_xpath or chunk.tgt_xpath for chunk in message.chunks)
    return Provenance(
        f"{'tree' if tree else 'flat'}+{message.method}", code_version(), model_version(tree=tree)
    )


def article_sentence_pairs(
    message: ArticleBatch,
) -> list[tuple[PairContext, list[SentencePairRecord]]]:
    """Pair same-day Web and mobile articles (SimArticle), then their sentences (shared nouns),
    each article pair with its context and records.

    A pairing that shares no noun is not a sentence pair. Score: n / (n + 1) for n shared
    nouns, so more shared nouns read as more certain. The records are filed under the
    batch, the unit the job tracks, their positions running through the batch (listings keep
    each article pair's sentences together).
    """
    web = {item.id: _article(item) for item in message.web}
    mobile = {item.id: _article(item) for item in message.mobile}
    provenance = Provenance("simarticle", code_version(), model_version(tree=False, pair=False))
    results: list[tuple[PairContext, list[SentencePairRecord]]] = []
    stored = 0
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
        paired = enumerate(pair_sentences(web_article, mobile_article))
        pairings = [(index, pairing) for index, pairing in paired if pairing.shared_nouns > 0]
        sentences = [
            record(
                context,
                provenance,
                filed_under=message.batch_id,
                position=stored + number,
                id=content_id(pair_id, str(index), prefix="sp"),
                src=pairing.web_sentence,
                tgt=pairing.mobile_sentence,
                score=pairing.shared_nouns / (pairing.shared_nouns + 1),
                bead=f"article:{pair.score:g}",
                chunk=index,
            )
            for number, (index, pairing) in enumerate(pairings)
        ]
        results.append((context, sentences))
        stored += len(sentences)
    return results


def _article(item: ArticleIn) -> Article:
    data = item.model_dump()
    return Article(**{**data, "keywords": tuple(data["keywords"])})


def record(
    context: PairContext,
    provenance: Provenance,
    *,
    filed_under: str,
    position: int,
    id: str,
    src: str,
    tgt: str,
    score: float,
    bead: str,
    chunk: int,
    posterior: float | None = None,
    boilerplate: frozenset[int] = frozenset(),
) -> SentencePairRecord:
    """The record of one sentence pair of ``context``'s page pair, filed under the
    ``pair_id`` ``filed_under`` at ``position``: text, score and posterior, its flag
    (untranslated, wrong language: :func:`shared.corpus_clean.pair_flag`; else boilerplate
    for a pair of a chunk in ``boilerplate``, template on both pages) and provenance."""
    return SentencePairRecord(
        id=id,
        pair_id=filed_under,
        kind=context.kind,
        src_url=context.src_url,
        tgt_url=context.tgt_url,
        site=site_of(context.src_url),
        src_lang=context.src_lang,
        tgt_lang=context.tgt_lang,
        src_text=src,
        tgt_text=tgt,
        score=score,
        posterior=posterior,
        bead=bead,
        chunk=chunk,
        position=position,
        flag=pair_flag(src, tgt, context.src_lang, context.tgt_lang)
        or (BOILERPLATE if chunk in boilerplate else ""),
        method=provenance.method,
        version=provenance.version,
        model_version=provenance.model_version,
    )
