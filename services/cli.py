"""The ``paramine`` command line: one entry point for every mode and algorithm."""

from __future__ import annotations

import csv
import os
import sys
import tempfile

# Prometheus chooses single- or multi-process storage when it is first imported: a worker or
# gateway must have PROMETHEUS_MULTIPROC_DIR set before anything imports prometheus_client.
if (
    len(sys.argv) > 1
    and sys.argv[1] in {"worker", "serve"}
    and "PROMETHEUS_MULTIPROC_DIR" not in os.environ
):
    _metrics_dir = os.environ.get("PARAMINE_METRICS_DIR")
    if _metrics_dir is None:
        # our own temp directory: removed when this process exits (each start left one
        # behind); forked pool processes inherit the hook, so it checks the pid
        import atexit
        import shutil

        _own_dir = _metrics_dir = tempfile.mkdtemp(prefix="paramine-metrics-")
        _creator = os.getpid()

        def _remove_own_metrics_dir() -> None:
            if os.getpid() == _creator:
                shutil.rmtree(_own_dir, ignore_errors=True)

        atexit.register(_remove_own_metrics_dir)
    os.makedirs(_metrics_dir, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir

import json
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from services.sentence_align.align import Method
from shared.schemas import STAGES

if TYPE_CHECKING:
    import httpx

    from shared.ingest import Job
    from shared.schemas import Page


class _ClearErrors(TyperGroup):
    """Every command's bad input ends in one line and exit code 2, not a traceback.

    ``InvalidInput`` (a malformed file, a bad option value found late), input that fails a
    message schema (pydantic's ``ValidationError``), a file that cannot be read (``OSError``)
    or decoded (``UnicodeError``) are the user's to fix; anything else is a bug and keeps its
    traceback.
    """

    def invoke(self, ctx: Any) -> Any:  # a click Context (typer vendors its own click)
        from pydantic import ValidationError
        from sqlalchemy.exc import ArgumentError

        from shared.errors import ConfigurationError, InvalidInput, TransientError

        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # the reader went away (| head): quiet, as Unix tools are; no flush into the pipe
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(141) from None
        except (InvalidInput, ValidationError, OSError, UnicodeError, csv.Error) as exc:
            # csv.Error: a CSV input with a field over the csv module's limit (131,072)
            message = str(exc) or type(exc).__name__
            if isinstance(exc, UnicodeError):
                message = f"cannot decode the input ({message}): not in the encoding expected"
            console.print(f"[red]invalid input[/red]: {escape(message)}", soft_wrap=True)
            raise typer.Exit(2) from None
        except (ConfigurationError, ArgumentError) as exc:
            # unsafe settings, a PARAMINE_DATABASE_URL SQLAlchemy cannot read
            console.print(f"[red]invalid settings[/red]: {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(2) from None
        except TransientError as exc:  # the database (or Redis) is unreachable
            console.print(f"[red]unavailable[/red]: {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(1) from None


app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__, cls=_ClearErrors)
eval_app = typer.Typer(no_args_is_help=True, help="Score aligner output against gold.")
dead_letter_app = typer.Typer(no_args_is_help=True, help="Inspect, retry or purge dead letters.")
app.add_typer(eval_app, name="eval")
app.add_typer(dead_letter_app, name="dead-letters")
console = Console(stderr=True)


InputPaths = Annotated[
    list[Path], typer.Argument(help="HTML pair directories, .jsonl, .lett(.gz), .warc(.gz)")
]
SrcLang = Annotated[str, typer.Option("--src-lang", help="source language of .lett/WARC pairing")]
TgtLang = Annotated[str, typer.Option("--tgt-lang", help="target language of .lett/WARC pairing")]
OptionalSrcLang = Annotated[
    str | None,
    typer.Option("--src-lang", help="pair .lett/WARC pages of this source language by URL"),
]
OptionalTgtLang = Annotated[
    str | None,
    typer.Option("--tgt-lang", help="pair .lett/WARC pages of this target language by URL"),
]


def _url_key(value: str | None) -> str | None:
    """``--url-key``: a regex that compiles and has a group to take the key from (a bad one
    failed late, with a traceback)."""
    if value is not None:
        try:
            pattern = re.compile(value)
        except re.error as error:
            raise typer.BadParameter(f"not a regular expression: {error}") from None
        if pattern.groups == 0:
            raise typer.BadParameter("needs a group holding the key: (?P<key>...) or (...)")
    return value


UrlKey = Annotated[
    str | None,
    typer.Option(
        "--url-key",
        help="regex whose group 'key' (or 1) pairs URLs across languages",
        callback=_url_key,
    ),
]
PairsFile = Annotated[
    Path | None,
    typer.Option("--pairs-file", help="TSV of src_url tgt_url pairs", exists=True, dir_okay=False),
]


def _job_id(value: str | None) -> str | None:
    """``--job-id``: checked as the gateway checks it (a bad id dead-lettered every pair)."""
    from shared.schemas import JOB_ID_PATTERN

    if value is not None and not re.fullmatch(JOB_ID_PATTERN, value):
        raise typer.BadParameter("1-64 characters of letters, digits and . _ : -")
    return value


def _pairing(src_lang: str, tgt_lang: str, url_key: str | None, pairs_file: Path | None) -> Any:
    from shared.inputs import PairingOptions

    return PairingOptions(src_lang, tgt_lang, url_key, pairs_file)


@app.command()
def process(
    inputs: InputPaths,
    out: Annotated[Path, typer.Option(help="directory for the exported sentence pairs")] = Path(
        "out"
    ),
    job_id: Annotated[
        str | None,
        typer.Option(help="job id (default: derived from content)", callback=_job_id),
    ] = None,
    src_lang: OptionalSrcLang = None,
    tgt_lang: OptionalTgtLang = None,
    url_key: UrlKey = None,
    pairs_file: PairsFile = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="no progress bar or table")] = False,
) -> None:
    """Run every stage in-process on INPUTS against PARAMINE_DATABASE_URL (no Redis needed).

    Single pages (.lett and WARC files when no pairing option is given, .jsonl of
    {"url", "html", "lang"?} lines) go through page_match first, which pairs them with each
    other and with the pages stored by earlier runs; page pairs (HTML pair directories, .jsonl
    of src/tgt pairs, .lett/WARC with --src-lang/--tgt-lang, --url-key or --pairs-file) go
    straight to tree_align. Exit code 0 when every input was read and processed; 1 when no
    page pair was found or anything failed (the rest is still processed and exported; the
    failures are listed).
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from services.registry import all_handlers
    from services.run_outputs import write_job_outputs
    from shared.config import get_settings
    from shared.ingest import (
        build_job,
        build_page_job,
        merged_job,
        page_messages,
        register_job,
        single_page_input,
    )
    from shared.inputs import read_page_pairs
    from shared.metrics import stage_metrics
    from shared.page_inputs import read_single_pages
    from shared.pipeline import LocalRunner, RunSummary
    from shared.store import Store

    store = Store(get_settings().database_url)
    pairing = any(option is not None for option in (src_lang, tgt_lang, url_key, pairs_file))
    page_inputs = [] if pairing else [path for path in inputs if single_page_input(path)]
    pair_inputs = [path for path in inputs if path not in page_inputs]
    options = _pairing(src_lang or "en", tgt_lang or "de", url_key, pairs_file)
    page_job = build_page_job(read_single_pages(page_inputs), job_id)
    job = build_job(read_page_pairs(pair_inputs, options), job_id)
    if page_inputs:
        job = merged_job(job, page_job, job_id)
    register_job(store, job, source=",".join(str(p) for p in inputs))
    summary = RunSummary()
    # ingest: the inputs read (pages, page pairs, refusals) in, the messages sent on out
    summary.received["ingest"] = len(job.pairs) + len(page_job.pages) + len(job.refused)
    summary.emitted["ingest"] = len(job.pairs) + len(page_job.pages)
    summary.failed["ingest"] = len(job.refused)
    summary.failures.extend(("ingest", str(error)) for error in job.refused)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet or as_json,
    ) as progress:
        task = progress.add_task("page pairs", total=len(job.pairs))

        def advance(stage: str) -> None:
            if stage == "tree_align":
                progress.advance(task)

        runner = LocalRunner(all_handlers(), store, stage_metrics(), on_message=advance)
        runner.run("page_match", page_messages(job.job_id, page_job.pages), summary)
        runner.run("tree_align", (pair.model_dump(mode="json") for pair in job.pairs), summary)
    program = sys.argv[0] if Path(sys.argv[0]).name == "paramine" else "paramine"
    written = write_job_outputs(store, job.job_id, out, program=program)
    status = store.job_status(job.job_id)
    page_pairs = status.pairs if status else len(job.pairs)
    report = {
        "job_id": job.job_id,
        "pages": len(page_job.pages),
        "page_pairs": page_pairs,
        "sentence_pairs": status.sentence_pairs if status else 0,
        "exported": written.exported,
        "duplicates_merged": written.stored - written.exported,
        "flagged_left_out": written.flagged,
        "output": str(out),
        "moses": written.moses,
        "outputs": [asdict(output) for output in written.outputs],
        "stages": {
            stage: {
                "in": summary.received[stage],
                "out": summary.emitted[stage],
                "failed": summary.failed[stage],
                "seconds": round(summary.seconds[stage], 3),
            }
            for stage in ("ingest", *STAGES)
        },
        "failures": [{"stage": s, "reason": r} for s, r in summary.failures],
    }
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    elif not quiet:
        _print_summary(report)
    if not page_pairs or summary.failures:
        # a typo in a path "succeeded" with nothing done: `process ... && export` went on
        problem = f"{len(summary.failures)} failed" if summary.failures else "no page pair read"
        console.print(f"[red]job {escape(job.job_id)}[/red]: {escape(problem)}", soft_wrap=True)
        raise typer.Exit(1)


def _print_summary(report: dict[str, Any]) -> None:
    table = Table(title=escape(f"paramine job {report['job_id']}"))
    for column in ("stage", "in", "out", "failed", "seconds"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, row in report["stages"].items():
        table.add_row(stage, *(str(row[key]) for key in ("in", "out", "failed", "seconds")))
    out = Console()
    out.print(table)
    flagged = report["flagged_left_out"]
    left_out = ", ".join(f"{count} {flag}" for flag, count in flagged.items()) or "none"
    out.print(
        f"page pairs: {report['page_pairs']}   sentence pairs: {report['sentence_pairs']} "
        f"stored, {report['exported']} distinct exported ({report['duplicates_merged']} "
        f"duplicates merged; flagged, left out: {left_out})"
    )
    outputs = Table(title="outputs", title_justify="left")
    for column in ("output", "where", "entries", "look at it"):
        outputs.add_column(column, overflow="fold")
    for row in report["outputs"]:
        entries = "" if row["count"] is None else str(row["count"])
        outputs.add_row(
            *(escape(text) for text in (row["what"], row["where"], entries, row["look"]))
        )
    out.print(outputs)
    for failure in report["failures"]:
        reason = escape(f"{failure['stage']}: {failure['reason']}")
        out.print(f"[red]failed[/red] {reason}")


@app.command()
def worker(
    stage: Annotated[str, typer.Option(help=f"one of {', '.join(STAGES)}")],
    concurrency: Annotated[int, typer.Option(help="worker processes")] = 1,
    metrics_port: Annotated[int, typer.Option(help="port of this worker's /metrics (0: none)")] = 0,
    metrics_host: Annotated[str, typer.Option(help="address of /metrics")] = "127.0.0.1",
    loglevel: Annotated[str, typer.Option()] = "INFO",
) -> None:
    """Start a Celery worker consuming one stage's Redis queue (PARAMINE_REDIS_URL)."""
    from shared.config import get_settings

    if stage not in STAGES:
        raise typer.BadParameter(f"stage must be one of {', '.join(STAGES)}")
    if not get_settings().redis_url:
        raise typer.BadParameter("PARAMINE_REDIS_URL must be set to run a worker")
    from services.worker_process import run_worker

    run_worker(
        stage,
        concurrency=concurrency,
        metrics_host=metrics_host,
        metrics_port=metrics_port,
        loglevel=loglevel,
    )


@app.command()
def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
) -> None:
    """Start the HTTP gateway (ingest, status, queries, /metrics, /healthz)."""
    import uvicorn

    from services.gateway.app import create_app
    from shared.config import get_settings

    uvicorn.run(
        create_app(),
        host=host,
        port=port,
        log_level="info",
        timeout_graceful_shutdown=int(get_settings().gateway_shutdown_timeout),
    )


@app.command()
def scheduler(loglevel: Annotated[str, typer.Option()] = "INFO") -> None:
    """Run the periodic tasks (similarity recompute) with Celery beat; needs PARAMINE_REDIS_URL."""
    from shared.celery_app import get_celery

    get_celery().start(["beat", f"--loglevel={loglevel}", "--schedule=/tmp/paramine-beat-schedule"])


@app.command()
def reconcile(
    once: Annotated[bool, typer.Option(help="one sweep, print its result, exit")] = False,
) -> None:
    """Resend tracked page pairs whose message was lost (tree_align workers also run this)."""
    import threading

    from shared.config import get_settings

    settings = get_settings()
    if not settings.redis_url:
        raise typer.BadParameter("PARAMINE_REDIS_URL must be set to reconcile")
    if not once:
        from shared.reconcile import run_forever

        run_forever(threading.Event())
        return
    import dataclasses

    from shared.reconcile import sweep_once

    typer.echo(json.dumps(dataclasses.asdict(sweep_once())))


def _gateway_url(value: str | None) -> str | None:
    """``--gateway``: an http(s) URL with a host (a malformed one failed with a traceback)."""
    if value is not None:
        import httpx

        try:
            url = httpx.URL(value)
        except httpx.InvalidURL as error:
            raise typer.BadParameter(f"not a URL: {error}") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise typer.BadParameter("needs an http:// or https:// URL with a host")
    return value


@app.command()
def submit(
    inputs: InputPaths,
    gateway: Annotated[
        str | None,
        typer.Option(help="gateway base URL (default: straight to Redis)", callback=_gateway_url),
    ] = None,
    job_id: Annotated[str | None, typer.Option(callback=_job_id)] = None,
    src_lang: OptionalSrcLang = None,
    tgt_lang: OptionalTgtLang = None,
    url_key: UrlKey = None,
    pairs_file: PairsFile = None,
) -> None:
    """Send INPUTS to the gateway, or straight to the first queue when PARAMINE_REDIS_URL is set.

    Page pairs go to tree_align (``POST /v1/page-pairs``); single pages (as ``process`` reads
    them) go to page_match (``POST /v1/pages``), all under one job."""
    from shared.config import get_settings, secret
    from shared.ingest import build_job, build_page_job, merged_job, single_page_input
    from shared.inputs import read_page_pairs
    from shared.page_inputs import read_single_pages

    settings = get_settings()
    pairing = any(option is not None for option in (src_lang, tgt_lang, url_key, pairs_file))
    page_inputs = [] if pairing else [path for path in inputs if single_page_input(path)]
    options = _pairing(src_lang or "en", tgt_lang or "de", url_key, pairs_file)
    pages = build_page_job(read_single_pages(page_inputs))
    job = build_job(read_page_pairs([p for p in inputs if p not in page_inputs], options), job_id)
    if page_inputs:
        job = merged_job(job, pages, job_id)
    for error in job.refused:
        console.print(f"[red]refused[/red] {escape(str(error))}")
    if gateway:
        _submit_to_gateway(gateway, job, secret(settings.api_key), pages.pages)
        return
    if not settings.redis_url:
        raise typer.BadParameter("give --gateway URL or set PARAMINE_REDIS_URL")
    from services.gateway.dispatch import enqueue_job, enqueue_pages
    from shared.store import Store

    store = Store(settings.database_url)
    enqueue_job(store, job, source="submit")
    enqueue_pages(store, job.job_id, pages.pages, source="submit")
    typer.echo(
        json.dumps(
            {
                "job_id": job.job_id,
                "pairs": len(job.pairs),
                "pages": len(pages.pages),
                "refused": len(job.refused),
            }
        )
    )


# A rate-limited (429) or unavailable (503: store or broker briefly unreachable) ingest
# request is sent again up to this many times, after the gateway's
# Retry-After or else a doubling wait (1 s, 2 s, ... at most _SUBMIT_BACKOFF_MAX); a Retry-After
# beyond _RETRY_AFTER_MAX is cut to it so a wrong header cannot stall submit for hours.
_SUBMIT_RETRIES = 8
_SUBMIT_BACKOFF_MAX = 60.0
_RETRY_AFTER_MAX = 600.0


@dataclass
class _Submitted:
    """What the gateway accepted of one job, merged over the requests that carried it."""

    job_id: str
    accepted: int = 0
    pair_ids: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    requests: int = 0


class _GatewayRefused(Exception):
    """The gateway answered an ingest request with an error that sending again cannot help."""


def _ingest_limits() -> tuple[int, int]:
    # The body limit is the gateway's setting (PARAMINE_MAX_BODY_BYTES, read here from the same
    # environment); the pair limit is the bound of its request model.
    from shared.config import get_settings
    from shared.schemas import MAX_INGEST_PAIRS

    return get_settings().max_body_bytes, MAX_INGEST_PAIRS


def _ingest_body(job_id: str, pairs: Sequence[bytes], key: str = "pairs") -> bytes:
    """The JSON body of ``POST /v1/page-pairs`` (``key`` pages: ``/v1/pages``) from items
    already encoded as JSON."""
    # Assembled from items encoded once, so the size of a chunk is known before it is sent.
    head = b'{"job_id":' + json.dumps(job_id).encode() + b',"' + key.encode() + b'":['
    return head + b",".join(pairs) + b"]}"


def _ingest_chunks(
    job_id: str, pairs: Sequence[bytes], max_bytes: int, max_pairs: int, key: str = "pairs"
) -> Iterator[list[bytes]]:
    """Consecutive runs of encoded pairs whose ingest body has at most ``max_pairs`` pairs and
    ``max_bytes`` bytes; a pair too large even alone goes alone, for the gateway to refuse."""
    empty = len(_ingest_body(job_id, [], key))
    chunk: list[bytes] = []
    size = empty
    for pair in pairs:
        added = len(pair) + (1 if chunk else 0)  # the comma before every pair but the first
        if chunk and (len(chunk) >= max_pairs or size + added > max_bytes):
            yield chunk
            chunk, size, added = [], empty, len(pair)
        chunk.append(pair)
        size += added
    if chunk:
        yield chunk


def _wait(seconds: float) -> None:
    time.sleep(seconds)


def _retry_after(response: httpx.Response) -> float | None:
    # Retry-After is delay-seconds or an HTTP date (RFC 9110, section 10.2.3).
    import email.utils

    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), _RETRY_AFTER_MAX)


def _post_ingest(
    client: httpx.Client, url: str, body: bytes, headers: dict[str, str]
) -> httpx.Response:
    """POST one ingest body, sending it again while the gateway answers 429 or 503 (the job
    id is derived from the content, so a resent body lands in the same job)."""
    response = client.post(url, content=body, headers=headers)
    for attempt in range(_SUBMIT_RETRIES):
        if response.status_code not in (429, 503):
            break
        delay = _retry_after(response)
        _wait(min(2.0**attempt, _SUBMIT_BACKOFF_MAX) if delay is None else delay)
        response = client.post(url, content=body, headers=headers)
    return response


def _send_chunks(
    client: httpx.Client,
    url: str,
    headers: dict[str, str],
    chunks: list[list[bytes]],
    submitted: _Submitted,
    key: str = "pairs",
) -> list[str]:
    """Send every chunk under ``submitted.job_id``, merging the gateway's answers into
    ``submitted``; a chunk refused as too large (413: the gateway's limit is below ours) is
    halved and sent again. Returns the refusals of single pairs still too large."""
    too_large: list[str] = []
    pending = chunks[::-1]  # a stack: the next chunk on top, halves pushed back in order
    while pending:
        chunk = pending.pop()
        response = _post_ingest(client, url, _ingest_body(submitted.job_id, chunk, key), headers)
        submitted.requests += 1
        if response.status_code == 413 and len(chunk) > 1:
            half = len(chunk) // 2
            pending += [chunk[half:], chunk[:half]]
            continue
        if response.status_code == 413:
            # One pair over the gateway's body limit: refused, the rest goes on (it stopped
            # the whole submit, and sending again met the same 413).
            item = json.loads(chunk[0])
            name = f"page pair {item.get('id', '?')}" if key == "pairs" else f"page {item['url']}"
            too_large.append(f"{name}: {len(chunk[0]):,} bytes, over the gateway's body limit")
            continue
        if response.status_code >= 400:
            raise _GatewayRefused(f"gateway answered {response.status_code}: {response.text}")
        answer = response.json()
        submitted.accepted += int(answer["accepted"])
        submitted.pair_ids += answer.get("pair_ids", [])
        submitted.refused += answer.get("refused", [])
    return too_large


def _submit_to_gateway(
    gateway: str, job: Job, api_key: str | None, pages: Sequence[Page] = ()
) -> None:
    # One job in as many requests as the gateway's body and pair limits need, all under the job
    # id build_job derived from every pair (the gateway adds each request's pairs to that job).
    import httpx

    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["X-API-Key"] = api_key
    encoded = [
        json.dumps(
            {
                "id": pair.pair_id,
                **pair.model_dump(mode="json", exclude={"job_id", "schema_version"}),
            },
            ensure_ascii=False,
        ).encode("utf-8")
        for pair in job.pairs
    ]
    chunks = list(_ingest_chunks(job.job_id, encoded, *_ingest_limits()))
    page_chunks = list(
        _ingest_chunks(job.job_id, _encoded_pages(pages), *_ingest_limits(), "pages")
    )
    url = f"{gateway.rstrip('/')}/v1/page-pairs"
    submitted = _Submitted(job.job_id)
    try:
        with httpx.Client(timeout=120) as client:
            too_large = _send_chunks(client, url, headers, chunks, submitted)
            pages_url = f"{gateway.rstrip('/')}/v1/pages"
            too_large += _send_chunks(client, pages_url, headers, page_chunks, submitted, "pages")
            # What was refused here, or by the gateway's body limit, becomes dead letters of
            # the job there, as with `process` (it was only printed here).
            refusals = [str(error) for error in job.refused] + too_large
            _send_refusals(client, url, headers, refusals, submitted)
    except _GatewayRefused as exc:
        _print_partial_submit(str(exc), submitted, job)
        raise typer.Exit(1) from None
    except httpx.HTTPError as exc:  # unreachable, timed out, connection lost
        _print_partial_submit(f"{exc.__class__.__name__}: {exc}", submitted, job)
        raise typer.Exit(1) from None
    typer.echo(json.dumps(asdict(submitted), ensure_ascii=False))
    if not job.pairs and not pages:
        console.print("[red]nothing submitted[/red]: no page pair or page was read")
    if submitted.refused or (not job.pairs and not pages):
        raise typer.Exit(1)  # as `process`: the rest went in, the refusals are dead letters


def _encoded_pages(pages: Sequence[Page]) -> list[bytes]:
    # {"url", "html", "lang"?}: an undetermined language is left for page_match to identify
    return [
        json.dumps(
            {"url": page.url, "html": page.html}
            | ({} if page.lang == "und" else {"lang": page.lang}),
            ensure_ascii=False,
        ).encode("utf-8")
        for page in pages
    ]


# Refusals per request (each reason cut to the gateway's limit on one).
_REFUSALS_PER_REQUEST = 1_000


def _send_refusals(
    client: httpx.Client,
    url: str,
    headers: dict[str, str],
    refusals: Sequence[str],
    submitted: _Submitted,
) -> None:
    from shared.schemas import MAX_REFUSAL_CHARS

    for start in range(0, len(refusals), _REFUSALS_PER_REQUEST):
        batch = [
            reason[:MAX_REFUSAL_CHARS] for reason in refusals[start : start + _REFUSALS_PER_REQUEST]
        ]
        body = json.dumps({"job_id": submitted.job_id, "refused": batch}).encode("utf-8")
        response = _post_ingest(client, url, body, headers)
        submitted.requests += 1
        if response.status_code >= 400:
            raise _GatewayRefused(f"gateway answered {response.status_code}: {response.text}")
        submitted.refused += response.json()["refused"]


def _print_partial_submit(reason: str, submitted: _Submitted, job: Job) -> None:
    console.print(f"[red]submit failed[/red]: {escape(reason)}")
    console.print(
        f"{submitted.accepted} of {len(job.pairs)} page pairs were accepted into job "
        f"{escape(job.job_id)} before the failure; submitting the same inputs again is "
        "idempotent"
    )


class PageKind(StrEnum):
    translation = "translation"
    pc_mobile = "pc-mobile"


@app.command("align-pages")
def align_pages(
    src: Annotated[Path, typer.Argument(help="source page HTML")],
    tgt: Annotated[Path, typer.Argument(help="target page HTML")],
    src_lang: Annotated[str, typer.Option("--src-lang")] = "en",
    tgt_lang: Annotated[str, typer.Option("--tgt-lang")] = "de",
    method: Annotated[
        Method, typer.Option(help="sentence aligner inside the aligned nodes")
    ] = Method.hybrid,
    flat: Annotated[
        bool, typer.Option(help="align the pages' plain text without the tree (Type I)")
    ] = False,
    kind: Annotated[PageKind, typer.Option(help="kind of page pair")] = PageKind.translation,
) -> None:
    """Align two pages: tree alignment, then sentences inside aligned nodes; prints JSONL pairs.

    A bad ``--src-lang`` fails the message's schema: one line and exit 2 (root group)."""
    from services.sentence_align.handler import sentence_pairs
    from services.tree_align.handler import chunk_pairs
    from shared.inputs import decode_html
    from shared.schemas import PagePair

    message = PagePair.model_validate(
        {
            "job_id": "cli",
            "kind": kind.value,
            "src": {
                "url": src.resolve().as_uri(),
                "lang": src_lang,
                "html": decode_html(src.read_bytes()),
            },
            "tgt": {
                "url": tgt.resolve().as_uri(),
                "lang": tgt_lang,
                "html": decode_html(tgt.read_bytes()),
            },
        }
    )
    chunks = chunk_pairs(message, flat=flat).model_copy(update={"method": method.value})
    for pair in sentence_pairs(chunks):
        typer.echo(
            json.dumps({"src": pair.src, "tgt": pair.tgt, "score": pair.score}, ensure_ascii=False)
        )


@dead_letter_app.command("list")
def dead_letters_list(
    stage: Annotated[str | None, typer.Option()] = None,
    limit: Annotated[int, typer.Option(min=1)] = 100,
) -> None:
    """List dead letters: id, stage, error type and reason."""
    from shared.config import get_settings
    from shared.store import Store

    store = Store.existing(get_settings().database_url)
    for row in store.list_dead_letters(stage=stage, limit=limit):
        typer.echo(
            f"{row['id']}\t{row['stage']}\t{row['attempts']}\t{row['error_type']}\t{row['reason']}"
        )


@dead_letter_app.command("retry")
def dead_letters_retry(
    ids: Annotated[list[str] | None, typer.Argument(help="dead-letter ids (default: all)")] = None,
) -> None:
    """Send dead letters back to their stage's queue (or run them in-process without Redis)."""
    from services.gateway.dispatch import retry_dead_letters
    from shared.config import get_settings
    from shared.store import Store

    result = retry_dead_letters(Store.existing(get_settings().database_url), ids or None)
    typer.echo(json.dumps(result))
    if result["unknown"]:
        console.print(f"no dead letter {escape(', '.join(result['unknown']))}", soft_wrap=True)
    if result["failed"] or result["unknown"]:
        # The letter that could not be sent, and those after it, are still dead letters.
        raise typer.Exit(code=1)


@dead_letter_app.command("purge")
def dead_letters_purge(
    ids: Annotated[list[str] | None, typer.Argument(help="dead-letter ids (default: all)")] = None,
) -> None:
    """Delete dead letters."""
    from shared.config import get_settings
    from shared.store import Store

    deleted = Store.existing(get_settings().database_url).delete_dead_letters(ids or None)
    typer.echo(f"purged {deleted}")


def _register_stage_commands() -> None:
    # Each stage contributes its own algorithm commands from services/<stage>/cli*.py.
    from services import cli_export
    from services.page_match import cli as page_match_cli
    from services.paraphrase import cli as paraphrase_cli
    from services.sentence_align import cli as sentence_cli
    from services.sentence_align import cli_comparable
    from services.thesaurus import cli as thesaurus_cli
    from services.tree_align import cli as tree_cli

    for module in (
        page_match_cli,
        tree_cli,
        sentence_cli,
        cli_comparable,
        paraphrase_cli,
        thesaurus_cli,
    ):
        module.register(app, eval_app)
    cli_export.register(app)  # export and migrate-store


_register_stage_commands()
