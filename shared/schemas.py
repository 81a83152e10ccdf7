"""Versioned message schemas for every queue (JSON on the wire, validated on both ends).

A message is a pydantic model with ``schema_version``; a stage validates what it receives
with :func:`parse_message` and anything that does not fit becomes ``InvalidInput`` (never
retried, dead-lettered with the validation errors as the reason).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from shared.errors import InvalidInput
from shared.ids import content_id, repeated_ids

SCHEMA_VERSION = 1
PairKind = Literal["translation", "pc-mobile"]
STAGES = ("page_match", "tree_align", "sentence_align", "paraphrase", "thesaurus")


class Message(BaseModel):
    """Base of every queue message: strict fields, explicit version."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    schema_version: Literal[1] = 1


# A job id given from outside (gateway requests, ``paramine process/submit --job-id``).
JOB_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"
# Page pairs in one ingest request (the gateway's bound; ``paramine submit`` splits below it).
MAX_INGEST_PAIRS = 10_000
# Articles a side in one day batch. Pairing compares every mobile article with the Web
# articles of its day sharing a noun: 5,000 a side that all share common nouns take about a
# minute (20,000, the former bound, about 17: past the worker's time limit).
MAX_DAY_ARTICLES = 5_000
MAX_REFUSAL_CHARS = 2_000  # of one refused input's reason sent to the gateway by a client


# A language code: ISO 639 with optional region or script subtags (en, en-GB, zh_Hant).
LANG_PATTERN = r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$"


# C0 control characters and DEL: in no URL, id or filter value
CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")


def url_text(url: str) -> str:
    """``url`` if it is text a URL can be (ValueError otherwise): no control characters (a
    NUL failed the PostgreSQL insert of the whole request), no lone surrogates."""
    if CONTROL_CHARACTER.search(url):
        raise ValueError("url contains a control character")
    return encodable(url)


# A page's or article's URL: up to 4,096 characters, no control characters.
Url = Annotated[str, Field(max_length=4_096), AfterValidator(url_text)]


def encodable(text: str) -> str:
    """``text`` if UTF-8 can carry it (ValueError otherwise): JSON can carry lone surrogates
    ("\ud800"), no page or article text can, and a message holding one failed later, when
    it was written."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text contains an unpaired surrogate code point") from None
    return text


# Text a stage reads (sentences, chunks): UTF-8 can carry it. A lone surrogate put straight
# on a queue passed the schema and failed in the handler (UnicodeEncodeError in MeCab).
Text = Annotated[str, AfterValidator(encodable)]


class Page(BaseModel):
    """One crawled page: where it came from, its language and its HTML."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: Url = ""
    lang: str = Field(min_length=2, max_length=16, pattern=LANG_PATTERN)
    html: Text

    @field_validator("lang")
    @classmethod
    def _lower_case(cls, lang: str) -> str:
        """Language codes are case-insensitive (BCP 47): one spelling, as the .lett and HTML
        directory readers give, so "EN" pages pair, store and filter as "en" ones."""
        return lang.lower()


class PagePair(Message):
    """Two pages that say the same thing: input of tree_align."""

    job_id: str = Field(min_length=1, max_length=64)
    kind: PairKind = "translation"
    src: Page
    tgt: Page

    @property
    def pair_id(self) -> str:
        return page_pair_id(self.src, self.tgt, self.kind)


def page_pair_id(src: Page, tgt: Page, kind: str) -> str:
    """Content id of a page pair: the same two pages give the same id, whatever the job."""
    return content_id(kind, src.url, src.lang, src.html, tgt.url, tgt.lang, tgt.html, prefix="pp")


class PairContext(BaseModel):
    """What every downstream message carries about the page pair it came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    pair_id: str
    job_id: str
    kind: PairKind
    src_url: str
    tgt_url: str
    src_lang: str
    tgt_lang: str


class TextChunkPair(BaseModel):
    """Aligned text of two tree nodes (or the whole page text in flat mode)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    src_text: Text
    tgt_text: Text
    src_xpath: str = ""
    tgt_xpath: str = ""
    cost: float = 0.0
    # template on both sides (menus, footers: services/html/content.py); its sentence pairs
    # are stored flagged "boilerplate" and left out of exports by default
    boilerplate: bool = False


class ChunkPairs(Message):
    """Output of tree_align, input of sentence_align."""

    context: PairContext
    chunks: list[TextChunkPair]
    method: str = "hybrid"


class SentencePair(BaseModel):
    """One aligned sentence bead with its text, as stored and exported."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    src: Text
    tgt: Text
    # the pair classifier's probability (services/sentence_align/classifier/pair_model.py)
    score: float
    bead: str
    chunk: int = 0
    posterior: float | None = None  # the DP's own score of the bead; None: no bead aligner


class SentencePairs(Message):
    """Output of sentence_align for monolingual pairs: input of paraphrase."""

    context: PairContext
    pairs: list[SentencePair]


class ArticleIn(BaseModel):
    """A news article of a day batch (Web: title, keywords, body; mobile: body)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    # Text: a lone surrogate gave a 500 building the batch id
    id: Text = Field(min_length=1, max_length=256)
    date: Text = Field(default="", max_length=64)
    title: Text = ""
    body: Text
    keywords: list[Text] = Field(default_factory=list, max_length=1_000)
    url: Url = ""


def unique_article_ids(articles: list[ArticleIn]) -> list[ArticleIn]:
    """``articles`` if no id repeats (ValueError otherwise): pairs name articles by id, so a
    repeated id lost one article and could give a pair scored on one article the sentences
    of the other."""
    repeated = repeated_ids(article.id for article in articles)
    if repeated:
        raise ValueError(f"article ids must be unique within a side; repeated: {repeated[:5]}")
    return articles


class ArticleBatch(Message):
    """A day batch of Web and mobile articles: sentence_align pairs articles, then sentences."""

    job_id: str = Field(min_length=1, max_length=64)
    web: list[ArticleIn] = Field(max_length=MAX_DAY_ARTICLES)
    mobile: list[ArticleIn] = Field(max_length=MAX_DAY_ARTICLES)
    lang: str = "ja"

    @field_validator("web", "mobile")
    @classmethod
    def _unique_ids(cls, articles: list[ArticleIn]) -> list[ArticleIn]:
        return unique_article_ids(articles)

    @property
    def batch_id(self) -> str:
        return content_id(self.model_dump_json(exclude={"job_id"}), prefix="ab")


class CrawledPages(Message):
    """Single crawled pages (language optional: ``und``): input of page_match, which keeps
    them until their counterparts arrive and sends the page pairs it finds to tree_align."""

    job_id: str = Field(min_length=1, max_length=64)
    pages: list[Page] = Field(min_length=1, max_length=MAX_INGEST_PAIRS)
    # the job's record of this message (job_batches): settled when page_match is done with it,
    # so the job is not "done" before its pages are matched (None: an untracked message)
    batch_id: str | None = Field(default=None, min_length=1, max_length=64)


class JapaneseSentences(Message):
    """Japanese sentences for the thesaurus stage's cooccurrence counts."""

    source_id: str
    job_id: str
    sentences: list[Text]


MESSAGE_TYPES: dict[str, tuple[type[Message], ...]] = {
    "page_match": (CrawledPages,),
    "tree_align": (PagePair,),
    "sentence_align": (ChunkPairs, ArticleBatch),
    "paraphrase": (SentencePairs,),
    "thesaurus": (JapaneseSentences,),
}


def parse_message(stage: str, payload: Any) -> Message:
    """Validate a queue payload for ``stage``; bad payloads raise ``InvalidInput``."""
    models = MESSAGE_TYPES.get(stage)
    if models is None:
        raise InvalidInput(f"unknown stage {stage!r}")
    if not isinstance(payload, dict):
        raise InvalidInput(f"{stage} message must be a JSON object, got {type(payload).__name__}")
    # A stage taking several message kinds tells them apart by their required fields.
    model = next((m for m in models if _required_fields(m) <= payload.keys()), models[0])
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()
        )
        raise InvalidInput(
            f"{stage} message does not match schema v{SCHEMA_VERSION}: {details}"
        ) from None


def _required_fields(model: type[Message]) -> set[str]:
    return {name for name, field in model.model_fields.items() if field.is_required()}


def pair_id_of(payload: dict[str, Any]) -> str | None:
    """The page pair (or article batch) a message's work belongs to; None when it cannot tell
    (the delivery tracking of :mod:`shared.delivery.reconcile` is keyed by it)."""
    context = payload.get("context")
    if isinstance(context, dict):
        pair_id = context.get("pair_id")
        return pair_id if isinstance(pair_id, str) else None
    try:
        if "src" in payload and "tgt" in payload:
            return PagePair.model_validate(payload).pair_id
        if "web" in payload and "mobile" in payload:
            return ArticleBatch.model_validate(payload).batch_id
    except ValidationError:
        return None
    return None
