"""Streaming download endpoints: sentence pairs (JSONL, TSV, Moses, TMX), PPDB, similarity."""

from __future__ import annotations

import re
import time
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Query, Response, status
from fastapi.responses import StreamingResponse

from services.export.corpus import corpus_query, flagged_left_out
from services.export.streams import (
    MEDIA_TYPES,
    MOSES_SIDES,
    SentenceFormat,
    download_name,
    encoded,
    sentence_pair_chunks,
)
from services.gateway.deps import (
    AllPairs,
    Duplicates,
    JobFilter,
    MinScore,
    SiteFilter,
    SrcLangFilter,
    StoreDep,
    TgtLangFilter,
)
from shared.schemas import LANG_PATTERN

router = APIRouter(prefix="/v1/exports", tags=["exports"])


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
    every: AllPairs = False,
    duplicates: Duplicates = False,
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
    if format in MOSES_SIDES and not (src_lang and tgt_lang):
        # Without them every language pair's sentences went into one file.
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            "a Moses file holds one side of one language pair: give src_lang and tgt_lang",
        )
    try:
        query = corpus_query(
            job=job,
            site=site,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            min_score=min_score,
            since=since,
            until=until,
            until_default=time.time(),
            every=every,
            duplicates=duplicates,
        )
    except ValueError as exc:
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, str(exc)) from None
    flagged = sum(flagged_left_out(store, query).values())
    rows = store.iter_sentence_pairs(query)
    return StreamingResponse(
        sentence_pair_chunks(rows, format, src_lang=src_lang),
        media_type=MEDIA_TYPES[format],
        headers={
            "Content-Disposition": attachment(download_name(format, src_lang, tgt_lang)),
            "X-Paramine-Until": repr(query.stored_before),
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
    # lazy: the paraphrase stage brings numba and LightGBM; the gateway starts without them
    from services.export.stage_tables import ppdb_lines

    return StreamingResponse(
        encoded(ppdb_lines(store, lang)),
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
    # lazy: the thesaurus stage's repository brings numpy and its similarity model
    from services.export.similarity import similarity_csv_lines, similarity_npz_bytes
    from services.thesaurus.repository import latest_similarity

    store.ensure_schema()
    matrix = latest_similarity(store.engine, thesaurus)
    if matrix is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no similarity snapshot yet; run the build")
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
        encoded(similarity_csv_lines(matrix)),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment(f"{name}.csv")},
    )
