"""Gateway routes: thin handlers that validate, call shared code and map errors to HTTP."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated, Any, Literal

import redis
from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from services.export.corpus import corpus_query
from services.gateway.deps import (
    AdminKey,
    AllPairs,
    Duplicates,
    IngestKey,
    JobFilter,
    Limit,
    MinScore,
    Offset,
    SettingsDep,
    SiteFilter,
    SrcLangFilter,
    StoreDep,
    TgtLangFilter,
)
from services.gateway.listing import SentencePairOut, listed_pair
from services.gateway.queries import best_match, ending_table, matching_phrases, word_similarity
from services.wiring.dispatch import dispatch, enqueue_job
from shared.errors import InvalidInput
from shared.ids import content_id
from shared.intake.ingest import build_job
from shared.intake.inputs import PairSource, decode_html
from shared.metrics import CONTENT_TYPE_LATEST, metrics_payload, stage_metrics
from shared.schemas import (
    JOB_ID_PATTERN,
    LANG_PATTERN,
    MAX_DAY_ARTICLES,
    MAX_INGEST_PAIRS,
    MAX_REFUSAL_CHARS,
    ArticleBatch,
    ArticleIn,
    Page,
    unique_article_ids,
)

router = APIRouter()


class PagePairIn(BaseModel):
    """One page pair as a crawler posts it."""

    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(default=None, max_length=256)
    kind: Literal["translation", "pc-mobile"] = "translation"
    src: Page
    tgt: Page


class IngestRequest(BaseModel):
    """A batch of page pairs; ``job_id`` groups them (default: derived from their content)."""

    model_config = ConfigDict(extra="forbid")
    job_id: str | None = Field(default=None, pattern=JOB_ID_PATTERN)
    pairs: list[dict[str, Any]] = Field(default_factory=list, max_length=MAX_INGEST_PAIRS)
    # Inputs the client could not read or send (``paramine submit``): recorded as ingest
    # dead letters of the job with these reasons, as if refused here.
    refused: list[Annotated[str, Field(max_length=MAX_REFUSAL_CHARS)]] = Field(
        default_factory=list, max_length=MAX_INGEST_PAIRS
    )

    @model_validator(mode="after")
    def _not_empty(self) -> IngestRequest:
        if not self.pairs and not self.refused:
            raise ValueError("give at least one page pair (or refused input)")
        return self


# Characters of one part of a validation error's location kept in answers and reasons.
_LOC_PART_CHARS = 64


def short_loc_part(part: Any) -> Any:
    """A part of a validation error's ``loc``, a string cut to ``_LOC_PART_CHARS``."""
    if isinstance(part, str) and len(part) > _LOC_PART_CHARS:
        return part[:_LOC_PART_CHARS] + "…"
    return part


class IngestResponse(BaseModel):
    job_id: str
    accepted: int
    pair_ids: list[str]
    refused: list[str]


class SentencePairPage(BaseModel):
    items: list[SentencePairOut]
    limit: int
    offset: int
    next_offset: int | None


_INGEST_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": IngestRequest.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["src_file", "tgt_file", "src_lang", "tgt_lang"],
                    "properties": {
                        "src_file": {"type": "string", "format": "binary"},
                        "tgt_file": {"type": "string", "format": "binary"},
                        "src_lang": {"type": "string"},
                        "tgt_lang": {"type": "string"},
                        "src_url": {"type": "string"},
                        "tgt_url": {"type": "string"},
                        "kind": {"type": "string", "enum": ["translation", "pc-mobile"]},
                        "job_id": {"type": "string"},
                    },
                }
            },
        },
    }
}


async def _ingest_request(request: Request) -> IngestRequest:
    content_type = request.headers.get("content-type", "")
    try:
        if content_type.startswith("multipart/form-data"):
            form = await request.form()
            src_file, tgt_file = form.get("src_file"), form.get("tgt_file")
            if (
                src_file is None
                or tgt_file is None
                or isinstance(src_file, str)
                or isinstance(tgt_file, str)
            ):
                raise InvalidInput("multipart ingest needs src_file and tgt_file uploads")
            pair = {
                "kind": str(form.get("kind") or "translation"),
                "src": {
                    "url": str(form.get("src_url") or ""),
                    "lang": str(form.get("src_lang") or ""),
                    "html": decode_html(await src_file.read()),
                },
                "tgt": {
                    "url": str(form.get("tgt_url") or ""),
                    "lang": str(form.get("tgt_lang") or ""),
                    "html": decode_html(await tgt_file.read()),
                },
            }
            job_id = form.get("job_id")
            return IngestRequest(job_id=str(job_id) if job_id else None, pairs=[pair])
        body = json.loads(await request.body())
        if isinstance(body, dict) and "pairs" not in body and "src" in body:
            body = {"job_id": body.pop("job_id", None), "pairs": [body]}
        return IngestRequest.model_validate(body)
    except ValidationError as exc:
        # answered by the app's handler, as FastAPI's own validation errors are: a 422
        # without the refused values (app._invalid_request)
        raise RequestValidationError(exc.errors()) from None
    except (ValueError, UnicodeDecodeError, InvalidInput) as exc:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, f"malformed body: {exc}"
        ) from None
    except RecursionError:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT, "malformed body: JSON nested too deeply"
        ) from None


@router.post(
    "/v1/page-pairs",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=IngestResponse,
    openapi_extra=_INGEST_BODY,
    responses={413: {"description": "body too large"}, 422: {"description": "malformed body"}},
)
async def ingest_page_pairs(request: Request, store: StoreDep, _key: IngestKey) -> IngestResponse:
    """Accept page pairs (JSON batch or multipart upload); each pair flows through every stage."""
    ingest = await _ingest_request(request)
    items: list[PairSource | InvalidInput] = []
    for number, raw in enumerate(ingest.pairs):
        try:
            pair = PagePairIn.model_validate(raw)
            items.append(
                PairSource(pair.src, pair.tgt, pair.kind, origin=pair.id or f"pairs[{number}]")
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(short_loc_part(part)) for part in first["loc"])
            named = raw.get("id") if isinstance(raw, dict) else None
            label = f" (id {short_loc_part(named)!r})" if isinstance(named, str) else ""
            items.append(
                InvalidInput(f"pairs[{number}].{where}{label}: {first['msg']}", refused=raw)
            )
    items += [InvalidInput(f"refused by the client: {reason}") for reason in ingest.refused]
    job = build_job(items, ingest.job_id)
    metrics = stage_metrics()
    metrics.messages_in.labels("gateway").inc(len(ingest.pairs))
    metrics.messages_failed.labels("gateway", "InvalidInput").inc(len(job.refused))
    await run_in_threadpool(enqueue_job, store, job, "gateway")
    metrics.messages_out.labels("gateway").inc(len(job.pairs))
    return IngestResponse(
        job_id=job.job_id,
        accepted=len(job.pairs),
        pair_ids=[pair.pair_id for pair in job.pairs],
        refused=[str(error) for error in job.refused],
    )


class ArticleBatchIn(BaseModel):
    """A day batch of Web and mobile news articles to pair (docs/methods.md §2, Web/mobile)."""

    model_config = ConfigDict(extra="forbid")
    job_id: str | None = Field(default=None, pattern=JOB_ID_PATTERN)
    web: list[ArticleIn] = Field(min_length=1, max_length=MAX_DAY_ARTICLES)
    mobile: list[ArticleIn] = Field(min_length=1, max_length=MAX_DAY_ARTICLES)

    @field_validator("web", "mobile")
    @classmethod
    def _unique_ids(cls, articles: list[ArticleIn]) -> list[ArticleIn]:
        return unique_article_ids(articles)  # a 422 here, not a 500 building the message


class ArticleBatchAccepted(BaseModel):
    job_id: str
    batch_id: str
    web: int
    mobile: int


@router.post(
    "/v1/articles", status_code=status.HTTP_202_ACCEPTED, response_model=ArticleBatchAccepted
)
async def ingest_articles(
    batch: ArticleBatchIn, store: StoreDep, settings: SettingsDep, _key: IngestKey
) -> ArticleBatchAccepted:
    """Pair a day's Web and mobile articles, then their sentences; pairs go on to paraphrase."""
    draft = ArticleBatch(job_id="-", web=batch.web, mobile=batch.mobile)
    message = draft.model_copy(
        update={"job_id": batch.job_id or content_id(draft.batch_id, prefix="job")}
    )
    # Distributed: tracked until sentence_align has stored it (shared/delivery/reconcile.py).
    tracked = {message.batch_id: message.model_dump_json()} if settings.redis_url else None
    store.record_job(
        message.job_id,
        [(message.batch_id, "", "")],
        source="articles",
        stage="sentence_align",
        payloads=tracked,
    )
    stage_metrics().messages_in.labels("gateway").inc()
    await run_in_threadpool(dispatch, store, "sentence_align", message)
    return ArticleBatchAccepted(
        job_id=message.job_id,
        batch_id=message.batch_id,
        web=len(batch.web),
        mobile=len(batch.mobile),
    )


@router.get("/v1/paraphrases/endings")
def ending_paraphrases(
    store: StoreDep,
    noun: Annotated[
        str | None, Query(max_length=64, description="one action noun's endings (e.g. 決定)")
    ] = None,
    top: Annotated[
        int, Query(ge=1, le=100, description="endings given per noun, the best first")
    ] = 10,
    unit: Annotated[
        Literal["char", "word"],
        Query(description="what an ending is made of: characters or words (morphemes)"),
    ] = "char",
) -> dict[str, list[dict[str, Any]]]:
    """Sentence-ending paraphrases per action noun, ranked by Para = freq · log(n − 1)."""
    return ending_table(store, unit=unit, top=top, noun=noun)


@router.get("/v1/paraphrases/phrases")
def phrase_paraphrases(
    store: StoreDep,
    q: Annotated[
        str | None,
        Query(
            max_length=256,
            description="only entries whose phrase or paraphrase contains this text, case "
            'ignored (bank finds "the bank of")',
        ),
    ] = None,
    limit: Limit = 50,
    lang: Annotated[
        str | None, Query(max_length=16, pattern=LANG_PATTERN, description="one language's table")
    ] = None,
) -> list[dict[str, Any]]:
    """PPDB-style phrase paraphrases (phrase, paraphrase, count, p(e|f), p(f|e), lang, and
    the word alignment inside the pair) of the newest phrase table snapshot (computed by the
    periodic task; [] before the first)."""
    return [asdict(entry) for entry in matching_phrases(store, q, lang=lang)[:limit]]


@router.get(
    "/v1/thesaurus/similarity", responses={404: {"description": "no similarity snapshot yet"}}
)
def thesaurus_similarity(
    store: StoreDep,
    a: Annotated[str, Query(min_length=1, max_length=64, description="the first word")],
    b: Annotated[str, Query(min_length=1, max_length=64, description="the second word")],
    thesaurus: Annotated[
        str | None,
        Query(max_length=100, description="the thesaurus by name; default: the newest snapshot's"),
    ] = None,
) -> dict[str, Any]:
    """Similarity of two words: max over their classes, from the newest similarity snapshot
    (``match`` is null when a word is in no class of the thesaurus or no similarity of their
    classes is defined)."""
    answer = word_similarity(store, a, b, thesaurus)
    if answer is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            "no similarity snapshot yet: the scheduler computes one periodically, or run "
            "`paramine thesaurus recompute` (or `paramine thesaurus build`)",
        )
    return {
        "a": a,
        "b": b,
        "snapshot": answer.snapshot_id,
        "thesaurus": answer.thesaurus,
        "match": best_match(answer),
    }


@router.get("/v1/sentence-pairs", response_model=SentencePairPage)
def list_sentence_pairs(
    store: StoreDep,
    job: JobFilter = None,
    site: SiteFilter = None,
    src_lang: SrcLangFilter = None,
    tgt_lang: TgtLangFilter = None,
    min_score: MinScore = None,
    limit: Limit = 100,
    offset: Offset = 0,
    every: AllPairs = False,
    duplicates: Duplicates = False,
) -> SentencePairPage:
    """Stored sentence pairs, paged, filtered by job, site, languages and score: each
    distinct pair once (with its occurrence count and best score), flagged pairs left out,
    as ``paramine export`` gives them."""
    rows = store.list_sentence_pairs(
        corpus_query(
            job=job,
            site=site,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            min_score=min_score,
            limit=limit,
            offset=offset,
            every=every,
            duplicates=duplicates,
        )
    )
    items = [listed_pair(row) for row in rows]
    return SentencePairPage(
        items=items,
        limit=limit,
        offset=offset,
        next_offset=offset + limit if len(items) == limit else None,
    )


@router.get("/v1/dead-letters")
def list_dead_letters(
    store: StoreDep,
    _admin: AdminKey,
    stage: Annotated[
        str | None,
        Query(max_length=64, description="one stage's letters (ingest, page_match, tree_align…)"),
    ] = None,
    limit: Limit = 100,
    offset: Offset = 0,
) -> list[dict[str, Any]]:
    """Messages that could not be processed, with their reasons (admin key), oldest first,
    paged by ``limit`` and ``offset``."""
    return [
        {key: row[key] for key in ("id", "stage", "job_id", "error_type", "reason", "attempts")}
        for row in store.list_dead_letters(stage=stage, limit=limit, offset=offset)
    ]


@router.get("/healthz")
def healthz(store: StoreDep, settings: SettingsDep) -> dict[str, str]:
    """Liveness (always 200 while the process answers) and the reachability of the store
    and the broker; ``/readyz`` answers 503 when either is unreachable."""
    return _health(store, settings)


@router.get("/readyz", responses={503: {"description": "the store or the broker is unreachable"}})
def readyz(store: StoreDep, settings: SettingsDep, response: Response) -> dict[str, str]:
    """Readiness: 200 when the store and the broker answer, else 503 (a readiness probe takes
    the gateway out of service instead of letting it answer 503s)."""
    health = _health(store, settings)
    if health["status"] != "ok":
        response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    return health


def _health(store: Any, settings: Any) -> dict[str, str]:
    health = {"status": "ok", "database": "ok", "broker": "embedded"}
    try:
        store.count_jobs()
    except Exception as exc:
        health.update(status="degraded", database=f"error: {exc.__class__.__name__}")
    if settings.redis_url:
        try:
            redis.Redis.from_url(settings.redis_url, socket_timeout=2).ping()
            health["broker"] = "ok"
        except redis.RedisError as exc:
            health.update(status="degraded", broker=f"error: {exc.__class__.__name__}")
    return health


@router.get("/metrics", response_class=Response)
def metrics(settings: SettingsDep) -> Response:
    """Prometheus text exposition of the gateway's metrics, plus queue depths when distributed."""
    payload = metrics_payload()
    if settings.redis_url:
        # lazy: Celery (and kombu) load only when the gateway runs distributed
        from shared.delivery.celery_app import queue_name
        from shared.metrics import queue_depth_payload
        from shared.schemas import STAGES

        payload += queue_depth_payload(settings.redis_url, [queue_name(stage) for stage in STAGES])
    return Response(content=payload, media_type=CONTENT_TYPE_LATEST)
