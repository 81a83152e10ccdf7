"""The alignment viewer at ``/ui/``: jobs, page pairs side by side, paraphrase and thesaurus tables.

Server-rendered with Jinja2 (autoescape on: crawled text is hostile) plus a little vanilla JS
that highlights a clicked bead on both sides. Reads the store through its repositories.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

import jinja2
from fastapi import APIRouter, HTTPException, Query, Request, status
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from services.gateway.deps import Offset, StoreDep
from services.gateway.queries import best_match, ending_table, matching_phrases, word_similarity
from shared.store import NodePairRow, stored_fields

_HERE = Path(__file__).parent
_STATIC = {"viewer.js": "text/javascript", "viewer.css": "text/css"}
BEAD_COLOURS = 8

templates = Jinja2Templates(
    env=jinja2.Environment(
        loader=jinja2.FileSystemLoader(_HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
)

router = APIRouter(include_in_schema=False)

_BEAD = re.compile(r"^\[([\d,\s]*)\]:\[([\d,\s]*)\]")


def bead_type(bead: str) -> str:
    """``"[0, 1]:[2]"`` → ``"2-1"``; beads of other aligners (``article:…``) → their prefix."""
    match = _BEAD.match(bead)
    if match is None:
        return bead.split(":", 1)[0] or "?"
    sizes = (len([i for i in side.split(",") if i.strip()]) for side in match.groups())
    return "-".join(str(size) for size in sizes)


PHRASES_SHOWN = 1_000  # phrase pairs listed on /ui/paraphrases (after the search)


@dataclass(frozen=True)
class BeadRow:
    """One stored sentence pair as the pair view shows it."""

    position: int
    colour: int
    bead: str
    bead_type: str
    score: float
    src_text: str
    tgt_text: str
    chunk: int  # the aligned node pair (text chunk) the bead came from; -1: none


@dataclass(frozen=True)
class NodeRow(NodePairRow):
    """One aligned tree-node pair (text chunk pair) of the page pair, as tree_align stored it,
    with the sentence beads aligned inside it."""

    beads: int = 0


# Rows per viewer page (jobs, a job's page pairs, a page pair's beads); older rows are one
# "next" link away (the jobs page showed the newest 200 and said nothing of the rest, and a
# page pair of tens of thousands of beads was one page; tuning_history.md, the viewer).
JOBS_PER_PAGE = 200
PAIRS_PER_PAGE = 500
BEADS_PER_PAGE = 1_000


@dataclass(frozen=True)
class Paging:
    """Where a viewer page is in its list: the rows shown and the offsets around them."""

    offset: int
    shown: int
    limit: int
    more: bool  # rows after these

    @property
    def previous(self) -> int | None:
        return max(0, self.offset - self.limit) if self.offset > 0 else None

    @property
    def next(self) -> int | None:
        return self.offset + self.limit if self.more else None


def page_of(rows: list[Any], offset: int, limit: int) -> tuple[list[Any], Paging]:
    """``rows`` (read with one row more than ``limit``, from ``offset``) cut to the page."""
    return rows[:limit], Paging(offset, min(len(rows), limit), limit, len(rows) > limit)


def _page(request: Request, name: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context)


@router.get("/ui", response_class=RedirectResponse)
def ui_root() -> RedirectResponse:
    return RedirectResponse("/ui/")


@router.get("/ui/", response_class=HTMLResponse)
def jobs_page(request: Request, store: StoreDep, offset: Offset = 0) -> HTMLResponse:
    """Every job, newest first, a page at a time."""
    shown, paging = page_of(store.list_jobs(JOBS_PER_PAGE + 1, offset), offset, JOBS_PER_PAGE)
    return _page(request, "jobs.html", jobs=shown, paging=paging)


@router.get("/ui/pair", response_class=RedirectResponse)
def pair_lookup(id: Annotated[str, Query(min_length=1, max_length=64)]) -> RedirectResponse:
    """The jobs page's "open page pair" form: go to that pair's view."""
    return RedirectResponse(f"/ui/pairs/{quote(id.strip(), safe='')}", status_code=303)


@router.get("/ui/jobs/{job_id}", response_class=HTMLResponse)
def job_page(request: Request, store: StoreDep, job_id: str, offset: Offset = 0) -> HTMLResponse:
    """A job's page pairs, a page at a time."""
    status_ = store.job_status(job_id)
    if status_ is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no job {job_id!r}")
    rows = store.job_page_pairs(job_id, PAIRS_PER_PAGE + 1, offset)
    shown, paging = page_of(rows, offset, PAIRS_PER_PAGE)
    return _page(request, "job.html", job=status_, pairs=shown, paging=paging)


@router.get("/ui/pairs/{pair_id}", response_class=HTMLResponse)
def pair_page(
    request: Request,
    store: StoreDep,
    pair_id: str,
    min_score: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
    bead: Annotated[str | None, Query(max_length=16, description="bead type, e.g. 1-2")] = None,
    offset: Offset = 0,
) -> HTMLResponse:
    """Both sides of a page pair, beads in matching colours, with score and bead-type filters."""
    stored = store.page_pair_sentences(pair_id)
    urls = store.page_pair_urls(pair_id)
    if not stored and urls is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no page pair {pair_id!r}")
    rows = [
        BeadRow(
            position=row.position,
            colour=row.position % BEAD_COLOURS,
            bead=row.bead,
            bead_type=bead_type(row.bead),
            score=row.score,
            src_text=row.src_text,
            tgt_text=row.tgt_text,
            chunk=row.chunk,
        )
        for row in stored
    ]
    beads_per_chunk: dict[int, int] = {}
    for row in rows:
        beads_per_chunk[row.chunk] = beads_per_chunk.get(row.chunk, 0) + 1
    nodes = [
        NodeRow(**stored_fields(NodePairRow, node), beads=beads_per_chunk.get(node["chunk"], 0))
        for node in store.node_pairs(pair_id)
    ]
    bead_types = sorted({row.bead_type for row in rows})
    matching = [
        row
        for row in rows
        if (min_score is None or row.score >= min_score) and (not bead or row.bead_type == bead)
    ]
    shown, paging = page_of(matching[offset : offset + BEADS_PER_PAGE + 1], offset, BEADS_PER_PAGE)
    first = stored[0] if stored else None
    return _page(
        request,
        "pair.html",
        pair_id=pair_id,
        src_url=urls[0] if urls else (first.src_url if first else ""),
        tgt_url=urls[1] if urls else (first.tgt_url if first else ""),
        src_lang=first.src_lang if first else "",
        tgt_lang=first.tgt_lang if first else "",
        kind=first.kind if first else "",
        rows=shown,
        matching=len(matching),
        pager_query=urlencode(
            {key: value for key, value in (("min_score", min_score), ("bead", bead)) if value}
        ),
        paging=paging,
        nodes=nodes,
        total=len(rows),
        bead_types=bead_types,
        min_score=min_score,
        bead=bead or "",
    )


@router.get("/ui/paraphrases", response_class=HTMLResponse)
def paraphrases_page(
    request: Request,
    store: StoreDep,
    q: Annotated[str, Query(max_length=256)] = "",
    unit: Literal["char", "word"] = "char",
    top: Annotated[int, Query(ge=1, le=100)] = 10,
) -> HTMLResponse:
    """Ending paraphrases per action noun and the phrase table, filtered by a search string."""
    endings = ending_table(store, unit=unit, top=top)
    # searched over the whole table, then cut for display (cut first, a search missed most);
    # as GET /v1/paraphrases/phrases searches it: a substring of either side, case ignored
    matching = [asdict(entry) for entry in matching_phrases(store, q)]
    if q:
        endings = {noun: cands for noun, cands in endings.items() if q in noun}
    return _page(
        request, "paraphrases.html", q=q, unit=unit, top=top, endings=endings,
        phrases=matching[:PHRASES_SHOWN], phrases_found=len(matching),
    )  # fmt: skip


@router.get("/ui/thesaurus", response_class=HTMLResponse)
def thesaurus_page(
    request: Request,
    store: StoreDep,
    q: Annotated[str, Query(max_length=64)] = "",
    a: Annotated[str, Query(max_length=64)] = "",
    b: Annotated[str, Query(max_length=64)] = "",
    limit: Annotated[int, Query(ge=1, le=1_000)] = 200,
    thesaurus: Annotated[str | None, Query(max_length=100)] = None,
) -> HTMLResponse:
    """Words of the newest snapshot's thesaurus (``thesaurus``: of that one; else of any) with
    their classes, and a similarity lookup."""
    # lazy: the thesaurus stage's repository brings numpy and its similarity model
    from services.thesaurus import repository

    store.ensure_schema()
    repository.ensure_schema(store.engine)
    names = repository.snapshot_thesauri(store.engine)
    snapshot_id = repository.latest_snapshot_id(store.engine, thesaurus or None)
    words: list[dict[str, Any]] = []
    answer: dict[str, Any] | None = None
    thesaurus_name = ""
    if snapshot_id is not None:
        snapshot = repository.load_snapshot(store.engine, snapshot_id)
        tree = snapshot.thesaurus
        thesaurus_name = tree.name
        matching = sorted(word for word in tree.words if q in word) if q else []
        for word in matching[:limit]:
            classes = [(tree.class_ids[node], tree.labels[node]) for node in tree.words[word]]
            words.append({"word": word, "classes": classes})
        if a and b:
            found = word_similarity(store, a, b, tree.name)
            answer = {"a": a, "b": b, "match": best_match(found)}
    return _page(
        request,
        "thesaurus.html",
        snapshot_id=snapshot_id,
        thesaurus=thesaurus_name,
        thesauri=names,
        q=q,
        a=a,
        b=b,
        words=words,
        answer=answer,
    )


@router.get("/ui/static/{name}")
def static_file(name: str) -> FileResponse:
    """The viewer's script and stylesheet (a fixed list: no path is taken from the request)."""
    if name not in _STATIC:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such file")
    return FileResponse(_HERE / "static" / name, media_type=_STATIC[name])
