"""Pairing Web and mobile versions of Japanese news articles, then their sentences.

docs/methods.md §2 "Comparable Web / mobile articles", seed ``paraphrase-web-vs-mobile-news.txt``
section 3. A mobile article is a short rewrite of one Web article of the same day; it is paired
with the same-day Web article of highest SimArticle, and each of its sentences with the Web
sentence of the first paragraph that shares the most nouns.

Project decisions where the paper is silent:
- Nouns are fugashi/UniDic content nouns (``shared.text.japanese_nouns``), compared by surface.
- Keywords: a Web article's own ``keywords`` when given. Otherwise the ``KEYWORDS_PER_ARTICLE``
  nouns (2+ characters) of its title and body with the highest tf-idf inside the day batch of
  Web articles (smoothed idf = ln((1 + N) / (1 + df)) + 1; ties by first occurrence).
  A keyword "appears in M" when it is a substring of M's title or body.
- "Same day": the ``YYYY-MM-DD`` prefix of ``date`` (the whole string if it has none), so a
  caller may pass any day label, e.g. a bucket of several days.
- First paragraph of a plain-text body: the first blank-line-separated block; a body without
  blank lines uses its first ``FIRST_PARAGRAPH_SENTENCES`` sentences.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from services.sentence_align.aligners.splitter import split_sentences
from shared.errors import InvalidInput
from shared.ids import repeated_ids
from shared.text import japanese_nouns

DEFAULT_KEYWORD_WEIGHT = 3.0  # a, paper section 3.1
DEFAULT_TITLE_WEIGHT = 3.0  # b
DEFAULT_THRESHOLD = 35.0  # pairs scoring below are rejected
KEYWORDS_PER_ARTICLE = 5
FIRST_PARAGRAPH_SENTENCES = 3
LANG = "ja"

_DATE_PREFIX = re.compile(r"\d{4}-\d{2}-\d{2}")
_BLANK_LINE = re.compile(r"\n[ \t\r\u3000]*\n")  # \r: a CRLF text's blank line is \n\r\n


@dataclass(frozen=True)
class Article:
    """A news article: Web (keywords, title, body) or mobile (body; title optional)."""

    id: str
    date: str
    title: str
    body: str
    keywords: tuple[str, ...] = ()
    url: str = ""


@dataclass(frozen=True)
class ArticlePair:
    """A mobile article paired with a same-day Web article, with the SimArticle terms."""

    web_id: str
    mobile_id: str
    score: float
    k: int  # Web keywords found in the mobile article
    t: int  # nouns of the Web title found in the mobile article
    nn: int  # distinct nouns shared by the Web body and the mobile article


@dataclass(frozen=True)
class SentencePairing:
    """A mobile sentence and the first-paragraph Web sentence sharing the most nouns with it."""

    web_sentence: str
    mobile_sentence: str
    shared_nouns: int


@dataclass(frozen=True)
class _WebFeatures:
    keywords: tuple[str, ...]
    title_nouns: frozenset[str]
    body_nouns: frozenset[str]


@dataclass(frozen=True)
class _MobileFeatures:
    text: str
    nouns: frozenset[str]


def day_of(article: Article) -> str:
    """The day an article belongs to: ``YYYY-MM-DD`` prefix of its date, else the whole date."""
    match = _DATE_PREFIX.match(article.date.strip())
    return match.group(0) if match else article.date.strip()


def _title_and_body_nouns(article: Article) -> tuple[list[str], list[str]]:
    return japanese_nouns(article.title), japanese_nouns(article.body)


def _own_keywords(article: Article) -> tuple[str, ...]:
    """The article's keywords, stripped, without empty ones and repeats: K counts keywords
    found in the mobile text, "" is in every text, and a repeated keyword counted again (12
    empty keywords paired unrelated articles)."""
    return tuple(dict.fromkeys(k.strip() for k in article.keywords if k.strip()))


def _keywords(
    articles: Sequence[Article], noun_lists: Sequence[Sequence[str]], per_article: int
) -> list[tuple[str, ...]]:
    # Own keywords, else top tf-idf nouns (2+ characters) of title + body within the batch.
    noun_lists = [[noun for noun in nouns if len(noun) >= 2] for nouns in noun_lists]
    document_frequency = Counter(noun for nouns in noun_lists for noun in set(nouns))
    batch_size = len(articles)
    keywords: list[tuple[str, ...]] = []
    for article, nouns in zip(articles, noun_lists, strict=True):
        own = _own_keywords(article)
        if own:
            keywords.append(own)
            continue
        term_frequency = Counter(nouns)
        first_seen = {noun: k for k, noun in reversed(list(enumerate(nouns)))}

        def tf_idf(noun: str, tf: Counter[str] = term_frequency) -> float:
            # tf * (ln((1 + N) / (1 + df)) + 1), the smoothed idf
            return tf[noun] * (math.log((1 + batch_size) / (1 + document_frequency[noun])) + 1)

        ranked = sorted(term_frequency, key=lambda noun: (-tf_idf(noun), first_seen[noun]))
        keywords.append(tuple(ranked[:per_article]))
    return keywords


def batch_keywords(
    articles: Sequence[Article], *, per_article: int = KEYWORDS_PER_ARTICLE
) -> list[tuple[str, ...]]:
    """Keywords of each article: its own, else its top tf-idf nouns within this batch."""
    nouns = [japanese_nouns(f"{article.title}\n{article.body}") for article in articles]
    return _keywords(articles, nouns, per_article)


def _mobile_features(mobile: Article) -> _MobileFeatures:
    text = f"{mobile.title}\n{mobile.body}"
    return _MobileFeatures(text, frozenset(japanese_nouns(text)))


def _day_features(articles: Sequence[Article]) -> list[tuple[str, _WebFeatures]]:
    # One morphological analysis per Web article serves its keywords, title and body nouns.
    nouns = [_title_and_body_nouns(article) for article in articles]
    keywords = _keywords(articles, [title + body for title, body in nouns], KEYWORDS_PER_ARTICLE)
    return [
        (article.id, _WebFeatures(kw, frozenset(title), frozenset(body)))
        for article, kw, (title, body) in zip(articles, keywords, nouns, strict=True)
    ]


class _DayIndex:
    """Which of a day's Web articles share anything with a mobile article: a keyword found in
    its text (keywords indexed by their first two characters) or a title or body noun. Any
    other scores 0 (K = T = NN = 0), below every positive threshold, and is not scored:
    scoring every mobile article against every Web article of a day was quadratic
    (tuning_history.md, Web / mobile articles)."""

    def __init__(self, candidates: Sequence[tuple[str, _WebFeatures]]) -> None:
        self.by_start: defaultdict[str, set[str]] = defaultdict(set)
        self.by_keyword: defaultdict[str, set[int]] = defaultdict(set)
        self.by_noun: defaultdict[str, set[int]] = defaultdict(set)
        for number, (_, features) in enumerate(candidates):
            for keyword in features.keywords:
                self.by_start[keyword[:2]].add(keyword)
                self.by_keyword[keyword].add(number)
            for noun in features.title_nouns | features.body_nouns:
                self.by_noun[noun].add(number)

    def sharing(self, mobile: _MobileFeatures) -> list[int]:
        """Numbers of the Web articles sharing a keyword or noun with ``mobile``, in order."""
        text = mobile.text
        starts = {text[k : k + 2] for k in range(len(text) - 1)} | set(text)
        numbers: set[int] = set()
        for start in starts & self.by_start.keys():
            for keyword in self.by_start[start]:
                if keyword in text:
                    numbers |= self.by_keyword[keyword]
        for noun in mobile.nouns & self.by_noun.keys():
            numbers |= self.by_noun[noun]
        return sorted(numbers)


def _score(
    web_id: str, web: _WebFeatures, mobile_id: str, mobile: _MobileFeatures, a: float, b: float
) -> ArticlePair:
    # SimArticle(W, M) = a*K + b*T + NN   (paper section 3.1; docs/methods.md §2)
    k = sum(1 for keyword in web.keywords if keyword in mobile.text)
    t = len(web.title_nouns & mobile.nouns)
    nn = len(web.body_nouns & mobile.nouns)
    return ArticlePair(web_id, mobile_id, a * k + b * t + nn, k, t, nn)


def sim_article(
    web: Article,
    mobile: Article,
    *,
    a: float = DEFAULT_KEYWORD_WEIGHT,
    b: float = DEFAULT_TITLE_WEIGHT,
) -> ArticlePair:
    """SimArticle(W, M) = a*K + b*T + NN with W's own keywords (none: K = 0)."""
    _check_weights(a, b, 0.0)
    title, body = _title_and_body_nouns(web)
    web_features = _WebFeatures(_own_keywords(web), frozenset(title), frozenset(body))
    return _score(web.id, web_features, mobile.id, _mobile_features(mobile), a, b)


def _check_weights(a: float, b: float, threshold: float) -> None:
    if not all(math.isfinite(value) for value in (a, b, threshold)):
        raise InvalidInput(f"weights and threshold must be finite: a={a}, b={b}, {threshold=}")


def pair_articles(
    web: Sequence[Article],
    mobile: Sequence[Article],
    *,
    a: float = DEFAULT_KEYWORD_WEIGHT,
    b: float = DEFAULT_TITLE_WEIGHT,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[ArticlePair]:
    """Pair each mobile article with its best same-day Web article when SimArticle >= threshold.

    Ties go to the Web article given first. Pairs come in the order of ``mobile``.
    """
    _check_weights(a, b, threshold)
    for side, articles in (("Web", web), ("mobile", mobile)):
        # pairs name articles by id: with a repeated id, a pair scored on one article got
        # the sentences of the other
        repeated = repeated_ids(x.id for x in articles)
        if repeated:
            raise InvalidInput(f"{side} article ids must be unique; repeated: {repeated[:5]}")
    web_by_day: defaultdict[str, list[Article]] = defaultdict(list)
    for article in web:
        web_by_day[day_of(article)].append(article)
    features = {day: _day_features(articles) for day, articles in web_by_day.items()}
    indexes = {day: _DayIndex(candidates) for day, candidates in features.items()}
    pairs: list[ArticlePair] = []
    for article in mobile:
        candidates = features.get(day_of(article), [])
        if not candidates:
            continue
        mobile_features = _mobile_features(article)
        if threshold > 0:  # a Web article sharing nothing scores 0: only the others can win
            candidates = [candidates[k] for k in indexes[day_of(article)].sharing(mobile_features)]
            if not candidates:
                continue
        scored = [_score(wid, wf, article.id, mobile_features, a, b) for wid, wf in candidates]
        best = max(scored, key=lambda pair: pair.score)  # max keeps the first of equal scores
        if best.score >= threshold:
            pairs.append(best)
    return pairs


def first_paragraph_sentences(body: str) -> list[str]:
    """Sentences of a plain-text body's first paragraph (see the module docstring)."""
    blocks = [block.strip() for block in _BLANK_LINE.split(body.strip()) if block.strip()]
    if len(blocks) > 1:
        return split_sentences(blocks[0], LANG)
    return split_sentences(body, LANG)[:FIRST_PARAGRAPH_SENTENCES]


@functools.lru_cache(maxsize=256)
def _first_paragraph(body: str) -> tuple[tuple[str, ...], tuple[frozenset[str], ...]]:
    """A Web body's first-paragraph sentences and their nouns, once for all the mobile
    articles paired with it (not analysed again for each: tuning_history.md); tuples, as
    the cache hands the same ones to every caller."""
    sentences = tuple(first_paragraph_sentences(body))
    return sentences, tuple(frozenset(japanese_nouns(sentence)) for sentence in sentences)


def pair_sentences(web: Article, mobile: Article) -> list[SentencePairing]:
    """Pair each mobile sentence with the first-paragraph Web sentence sharing most nouns.

    Ws(Ms) = argmax over Ws in W's first paragraph of |nouns(Ws) & nouns(Ms)|, ties: the
    earlier Ws (paper section 3.2). Every mobile sentence gets a pairing, even with 0 nouns
    shared; callers may filter on ``shared_nouns``.
    """
    web_sentences, web_nouns = _first_paragraph(web.body)
    if not web_sentences:
        return []
    pairings: list[SentencePairing] = []
    for sentence in split_sentences(mobile.body, LANG):
        nouns = frozenset(japanese_nouns(sentence))
        overlaps = [len(nouns & candidate) for candidate in web_nouns]
        best = overlaps.index(max(overlaps))  # index() finds the earliest of equal overlaps
        pairings.append(SentencePairing(web_sentences[best], sentence, overlaps[best]))
    return pairings


def parse_article(record: object) -> Article:
    """An ``Article`` from one decoded JSON object (JSONL input, gateway day batches)."""
    if not isinstance(record, dict):
        raise InvalidInput(f"an article must be a JSON object, got {type(record).__name__}")
    text_fields = {name: record.get(name, "") for name in ("id", "date", "title", "body", "url")}
    bad = [name for name, value in text_fields.items() if not isinstance(value, str)]
    if bad or not text_fields["id"]:
        raise InvalidInput(f"article needs a string 'id' and string fields; bad: {bad or ['id']}")
    keywords = record.get("keywords", [])
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise InvalidInput(f"article {text_fields['id']}: 'keywords' must be a list of strings")
    return Article(
        id=str(text_fields["id"]),
        date=str(text_fields["date"]),
        title=str(text_fields["title"]),
        body=str(text_fields["body"]),
        keywords=tuple(keywords),
        url=str(text_fields["url"]),
    )
