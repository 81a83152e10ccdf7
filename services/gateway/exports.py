"""Streaming download endpoints: sentence pairs (JSONL, TSV, Moses, TMX), PPDB, similarity."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Query, Response, status
from fastapi.responses import StreamingResponse

from services.gateway.deps import (
    JobFilter,
    MinScore,
    SiteFilter,
    SrcLangFilter,
    StoreDep,
    TgtLangFilter,
)
from services.sentence_align.classifier.pair_threshold import default_threshold
from shared.exports import (
    SimilarityMatrix,
    jsonl_lines,
    moses_lines,
    similarity_csv_lines,
    similarity_npz_bytes,
    tmx_chunks,
    tsv_lines,
)
from shared.pair_query import sentence_pair_query
from shared.schemas import LANG_PATTERN
from shared.store import Store

router = APIRouter(prefix="/v1/exports", tags=["exports"])

SentenceFormat = Literal["jsonl", "tsv", "moses-src", "moses-tgt", "tmx"]
_MEDIA = {
    "jsonl": "application/x-ndjson; charset=utf-8",
    "tsv": "text/tab-separated-values; charset=utf-8",
    "moses-src": "text/plain; charset=utf-8",
    "moses-tgt": "text/plain; charset=utf-8",
    "tmx": "application/x-tmx+xml",
}
_SUFFIX = {
    "jsonl": "jsonl",
    "tsv": "tsv",
    "moses-src": "src.txt",
    "moses-tgt": "tgt.txt",
    "tmx": "tmx",
}


def _encoded(lines: Iterable[str]) -> Iterator[bytes]:
    for line in lines:
        yield line.encode("utf-8")


@router.get("/sentence-pairs")
def export_sentence_pairs(
    store: StoreDep,
    format: Annotated[
        SentenceFormat,
        Query(
            description="jsonl, tsv, tmx, or one side of a Moses pair (moses-src, moses-tgt: "
            "give src_lang and tgt_lang)"
        ),
    ] = "jsonl",
    job: JobFilter = None,
    site: SiteFilter = None,
    src_lang: SrcLangFilter = None,
    tgt_lang: TgtLangFilter = None,
    min_score: MinScore = None,
    since: Annotated[
        str | None, Query(max_length=40, description="unix seconds or ISO date")
    ] = None,
    until: Annotated[
        str | None,
        Query(
            max_length=40,
            description="rows stored before this (unix seconds or ISO date); default: when the "
            "export starts, sent back as X-Paramine-Until",
        ),
    ] = None,
    every: Annotated[
        bool,
        Query(
            alias="all", description="flagged pairs too (untranslated, wrong language, boilerplate)"
        ),
    ] = False,
    duplicates: Annotated[
        bool, Query(description="every stored occurrence, not each distinct pair once")
    ] = False,
) -> StreamingResponse:
    """Every stored sentence pair matching the filters, streamed in the chosen format (the
    Moses formats need ``src_lang`` and ``tgt_lang``: one file holds one side of one pair).

    The rows are those stored before ``until``, by default the start of the export, which the
    answer's ``X-Paramine-Until`` header gives: a second download (the other Moses side) sent
    with that ``until`` holds the same rows, so the two files stay line-parallel (pairs
    stored between two downloads went into the second file only).

    As ``paramine export``: each distinct pair once (its count and best score), flagged
    pairs left out (``all=true`` keeps them, ``duplicates=true`` gives every occurrence);
    the ``X-Paramine-Flagged`` header says how many stored pairs were left out as flagged."""
    moses = format in ("moses-src", "moses-tgt")
    if moses and not (src_lang and tgt_lang):
        # Without them every language pair's sentences went into one file.
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            "a Moses file holds one side of one language pair: give src_lang and tgt_lang",
        )
    try:
        query = sentence_pair_query(
            job=job,
            site=site,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            min_score=min_score,
            default_min_score=default_threshold(),
            since=since,
            until=until,
            until_default=time.time(),
            every=every,
            duplicates=duplicates,
        )
    except ValueError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None
    before = query.stored_before
    flagged = 0 if every else sum(store.flag_counts(query).values())
    rows = store.iter_sentence_pairs(query)
    body: Iterator[bytes]
    if format == "tmx":
        body = tmx_chunks(rows, srclang=src_lang)
    elif format == "jsonl":
        body = _encoded(jsonl_lines(rows))
    elif format == "tsv":
        body = _encoded(tsv_lines(rows))
    else:
        body = _encoded(moses_lines(rows, "src" if format == "moses-src" else "tgt"))
    filename = (
        f"sentence_pairs.{src_lang}-{tgt_lang}.{_SUFFIX[format]}"
        if moses
        else f"sentence_pairs.{_SUFFIX[format]}"
    )
    return StreamingResponse(
        body,
        media_type=_MEDIA[format],
        headers={
            "Content-Disposition": attachment(filename),
            "X-Paramine-Until": repr(before),
            "X-Paramine-Flagged": str(flagged),
        },
    )


@router.get("/paraphrases.ppdb")
def export_ppdb(
    store: StoreDep,
    lang: Annotated[
        str | None, Query(max_length=16, pattern=LANG_PATTERN, description="one language's table")
    ] = None,
) -> StreamingResponse:
    """The PPDB-style phrase paraphrase tables of the newest phrase table snapshot, one per
    language (``lang=xx`` ends each line's features); empty before the first snapshot."""
    from services.paraphrase.phrases import format_ppdb
    from services.paraphrase.repository import latest_phrase_table

    entries = latest_phrase_table(store.engine, lang=lang)
    lines = (line + "\n" for line in format_ppdb(entries))
    return StreamingResponse(
        _encoded(lines),
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": attachment("paraphrases.ppdb")},
    )


_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


def attachment(filename: str) -> str:
    """A Content-Disposition value for ``filename``: an ASCII fallback, and the name itself
    in RFC 6266's ``filename*`` (a thesaurus name in Japanese made the header unencodable, a
    500; one with a quote or a line break broke the header)."""
    fallback = _UNSAFE_FILENAME.sub("_", filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def _matrix_or_404(store: Store, thesaurus: str | None) -> SimilarityMatrix:
    from services.thesaurus.repository import latest_similarity

    store.ensure_schema()
    matrix = latest_similarity(store.engine, thesaurus)
    if matrix is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no similarity snapshot yet; run the build")
    return matrix


@router.get(
    "/thesaurus-similarity",
    response_model=None,
    responses={404: {"description": "no similarity snapshot"}},
)
def export_thesaurus_similarity(
    store: StoreDep,
    format: Annotated[
        Literal["csv", "npz"],
        Query(description="csv: the defined cells; npz: the full matrices (NumPy)"),
    ] = "csv",
    thesaurus: Annotated[
        str | None,
        Query(max_length=100, description="the thesaurus by name; default: the newest snapshot's"),
    ] = None,
) -> Response | StreamingResponse:
    """The newest class similarity matrix: CSV of defined cells, or NPZ of the full matrices."""
    matrix = _matrix_or_404(store, thesaurus)
    name = f"similarity-{matrix.thesaurus}-{matrix.snapshot_id}"
    if format == "npz":
        payload = similarity_npz_bytes(
            matrix.class_ids, matrix.labels, matrix.values, matrix.rounds
        )
        return Response(
            payload,
            media_type="application/octet-stream",
            headers={"Content-Disposition": attachment(f"{name}.npz")},
        )
    return StreamingResponse(
        _encoded(similarity_csv_lines(matrix)),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment(f"{name}.csv")},
    )
