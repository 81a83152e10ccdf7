"""Streaming download endpoints: sentence pairs (JSONL, TSV, Moses, TMX), PPDB, similarity."""

from __future__ import annotations

import csv
import io
import math
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote

import numpy as np
import sqlalchemy as sa
from fastapi import APIRouter, HTTPException, Query, Response, status
from fastapi.responses import StreamingResponse

from services.gateway.deps import StoreDep
from shared.exports import (
    SIMILARITY_CSV_HEADER,
    jsonl_lines,
    moses_lines,
    similarity_csv_rows,
    similarity_npz_bytes,
    tmx_chunks,
    tsv_lines,
)
from shared.schemas import LANG_PATTERN
from shared.store import SentencePairQuery, Store

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


def parse_since(value: str | None, name: str = "since") -> float | None:
    """Unix seconds from ``since`` (or ``until``, ``name``): seconds, an ISO date or an ISO
    date-time (UTC if no zone)."""
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{name} must be unix seconds or an ISO 8601 date, not {value!r}"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    if not math.isfinite(seconds):
        raise ValueError(f"{name} must be a finite number of seconds")
    return seconds


def _since(value: str | None, name: str = "since") -> float | None:
    try:
        return parse_since(value, name)
    except ValueError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None


def _encoded(lines: Iterable[str]) -> Iterator[bytes]:
    for line in lines:
        yield line.encode("utf-8")


@router.get("/sentence-pairs")
def export_sentence_pairs(
    store: StoreDep,
    format: SentenceFormat = "jsonl",
    job: Annotated[str | None, Query(max_length=64)] = None,
    site: Annotated[str | None, Query(max_length=256)] = None,
    src_lang: Annotated[str | None, Query(max_length=16, pattern=LANG_PATTERN)] = None,
    tgt_lang: Annotated[str | None, Query(max_length=16, pattern=LANG_PATTERN)] = None,
    min_score: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
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
        bool, Query(alias="all", description="flagged pairs too (untranslated, wrong language)")
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
    after = _since(since)
    before = _since(until, "until") if until is not None else time.time()
    query = SentencePairQuery(
        job,
        site,
        src_lang,
        tgt_lang,
        min_score,
        stored_since=after,
        stored_before=before,
        flagged=every,
        duplicates=duplicates,
    )
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


@dataclass(frozen=True)
class SimilarityMatrix:
    """The newest similarity snapshot's leaf classes and symmetric SIM/round matrices."""

    snapshot_id: int
    thesaurus: str
    class_ids: tuple[str, ...]
    labels: tuple[str, ...]
    values: np.ndarray[Any, Any]
    rounds: np.ndarray[Any, Any]


def latest_similarity(engine: sa.Engine, thesaurus: str | None = None) -> SimilarityMatrix | None:
    """The newest snapshot (of that thesaurus, or of any) as a matrix; None when there is none."""
    from services.thesaurus import repository

    repository.ensure_schema(engine)
    snapshot_id = repository.latest_snapshot_id(engine, thesaurus)
    if snapshot_id is None:
        return None
    snapshot = repository.load_snapshot(engine, snapshot_id)
    tree = snapshot.thesaurus
    return SimilarityMatrix(
        snapshot_id,
        tree.name,
        snapshot.model.leaf_ids,
        tuple(tree.labels[int(node)] for node in tree.leaves),
        snapshot.model.values,
        snapshot.model.rounds,
    )


_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]")


def attachment(filename: str) -> str:
    """A Content-Disposition value for ``filename``: an ASCII fallback, and the name itself
    in RFC 6266's ``filename*`` (a thesaurus name in Japanese made the header unencodable, a
    500; one with a quote or a line break broke the header)."""
    fallback = _UNSAFE_FILENAME.sub("_", filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def similarity_csv_lines(matrix: SimilarityMatrix) -> Iterator[str]:
    """CSV text of the defined upper-triangle cells, header first."""
    buffer = io.StringIO()
    # CRLF, as RFC 4180: the writer then quotes a field holding a bare CR too (with "\n" it
    # did not, and a label with one split its row in two)
    writer = csv.writer(buffer, lineterminator="\r\n")
    cells = similarity_csv_rows(matrix.class_ids, matrix.labels, matrix.values, matrix.rounds)
    for record in (SIMILARITY_CSV_HEADER, *cells):
        writer.writerow(record)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def _matrix_or_404(store: Store, thesaurus: str | None) -> SimilarityMatrix:
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
    format: Literal["csv", "npz"] = "csv",
    thesaurus: Annotated[str | None, Query(max_length=100)] = None,
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
