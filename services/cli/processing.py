"""``paramine process`` (every stage in-process on the inputs, then the outputs written) and
``paramine submit`` (the inputs sent to the gateway, or straight to the first queue)."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from services.cli.common import (
    InputPaths,
    OptionalSrcLang,
    OptionalTgtLang,
    PairsFile,
    UrlKey,
    console,
    job_id_option,
    pairing_options,
)
from shared.schemas import STAGES

if TYPE_CHECKING:
    from shared.delivery.pipeline import RunSummary
    from shared.intake.gateway_client import Submitted, Waited
    from shared.intake.ingest import Job
    from shared.intake.inputs import PairingOptions
    from shared.schemas import Page
    from shared.store import Store


def process(
    inputs: InputPaths,
    out: Annotated[Path, typer.Option(help="directory for the exported sentence pairs")] = Path(
        "out"
    ),
    job_id: Annotated[
        str | None,
        typer.Option(help="job id (default: derived from content)", callback=job_id_option),
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
    # lazy: the stages, the store and the exports load when `process` runs, not for every command
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from services.export.run_outputs import write_job_outputs
    from services.page_match.repository import with_waiting_pages
    from services.wiring.registry import all_handlers, stage_schemas
    from shared.config import get_settings
    from shared.delivery.pipeline import LocalRunner, RunSummary
    from shared.intake.ingest import (
        build_job,
        build_page_job,
        merged_job,
        page_messages,
        register_job,
        register_page_messages,
        single_page_input,
    )
    from shared.intake.inputs import expand_inputs, read_page_pairs
    from shared.intake.page_inputs import read_single_pages
    from shared.metrics import stage_metrics
    from shared.store import Store
    from shared.store.schema import prepare_store

    options = pairing_options(src_lang, tgt_lang, url_key, pairs_file)
    pairing = options is not None
    inputs = expand_inputs(inputs)
    page_inputs = [] if pairing else [path for path in inputs if single_page_input(path)]
    pair_inputs = [path for path in inputs if path not in page_inputs]
    if not (quiet or as_json):
        say_what_is_read(page_inputs, pair_inputs)
    store = Store(get_settings().database_url)
    page_job = build_page_job(read_single_pages(page_inputs), job_id)
    job = build_job(read_page_pairs(pair_inputs, options), job_id)
    if page_inputs:
        job = merged_job(job, page_job, job_id)
    prepare_store(store, stage_schemas())  # every schema, once, before the first message
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
            completed, total = pair_progress(len(job.pairs), summary)
            progress.update(task, completed=completed, total=total)

        runner = LocalRunner(all_handlers(), store, stage_metrics(), on_message=advance)
        batches = register_page_messages(
            store, job.job_id, page_messages(job.job_id, page_job.pages)
        )
        runner.run("page_match", batches, summary)
        runner.run("tree_align", (pair.model_dump(mode="json") for pair in job.pairs), summary)
    program = sys.argv[0] if Path(sys.argv[0]).name == "paramine" else "paramine"
    written = write_job_outputs(store, job.job_id, out, program=program)
    status = store.job_status(job.job_id)
    if status is not None:
        status = with_waiting_pages(store.engine, status)
    page_pairs = status.pairs if status else len(job.pairs)
    # what failed, from the store's dead letters of the job: a page page_match refuses is one,
    # though the message that carried it succeeded (the runner counts messages only)
    failures = status.failures if status else ()
    failed = Counter[str]()
    for failure in failures:
        failed[failure.stage] += failure.count
    report = {
        "job_id": job.job_id,
        "state": status.state if status else "done",
        "pages": len(page_job.pages),
        "pages_waiting": status.waiting_pages if status else 0,
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
                "failed": failed[stage],
                "seconds": round(summary.seconds[stage], 3),
            }
            for stage in ("ingest", *STAGES)
        },
        "failures": [
            {"stage": f.stage, "reason": f.reason, "count": f.count, "of": f.unit, "line": f.line()}
            for f in failures
        ],
    }
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        if not quiet:
            print_summary(report)
        print_failures(report)  # -q too: a run never fails unsaid
    if not page_pairs:
        # a typo in a path "succeeded" with nothing done: `process ... && export` went on
        console.print(
            f"[red]job {escape(job.job_id)}[/red]: no page pair found: "
            f"{escape(read_what(len(page_job.pages), len(job.refused), options))}",
            soft_wrap=True,
        )
        raise typer.Exit(1)
    if failures:
        count = sum(f.count for f in failures)
        console.print(
            f"[red]job {escape(job.job_id)}[/red]: {count} failed or refused "
            f"(`paramine dead-letters list` shows each)",
            soft_wrap=True,
        )
        raise typer.Exit(1)


def pair_progress(given_pairs: int, summary: RunSummary) -> tuple[int, int]:
    """(completed, total) of ``process``'s page-pair bar: the page pairs tree_align has taken
    (stored or failed), of the ``given_pairs`` read plus those page_match has found so far.

    The runner reports a message after it has counted what the message emitted and before
    it takes any of those, so every pair tree_align takes is in the total already: the
    total was once the pairs read only, and a run whose pages paired showed 5/4."""
    return summary.received["tree_align"], given_pairs + summary.emitted["page_match"]


def say_what_is_read(page_inputs: Sequence[Path], pair_inputs: Sequence[Path]) -> None:
    """One line per input, saying how it is read (a folder is searched for inputs)."""
    for path in pair_inputs:
        how = "page pairs (HTML folder)" if path.is_dir() else "page pairs"
        console.print(f"reading {escape(str(path))}: {how}", soft_wrap=True)
    for path in page_inputs:
        console.print(f"reading {escape(str(path))}: single pages", soft_wrap=True)


def read_what(pages: int, refused: int, options: PairingOptions | None) -> str:
    """What a run read, and what to try, when it found no page pair."""
    if pages:
        return (
            f"{pages} single pages read; none has a counterpart yet (they wait in the store "
            "for a later run); to pair them by URL give --src-lang and --tgt-lang"
        )
    if options is not None:
        seen = options.languages_seen
        languages = ", ".join(f"{n} {lang}" for lang, n in sorted(seen.items())) or "none"
        return (
            f"{sum(seen.values())} pages read ({languages}); none paired as "
            f"{options.src_lang} → {options.tgt_lang}: check the languages, and --url-key "
            "or --pairs-file against the URLs"
        )
    return (
        f"{refused} input{'' if refused == 1 else 's'} refused, none read: give HTML pair "
        "folders (<id>.<lang>.html), .jsonl, .lett or WARC files, or folders holding them"
    )


def print_summary(report: dict[str, Any]) -> None:
    table = Table(title=escape(f"paramine job {report['job_id']}"))
    for column in ("stage", "in", "out", "failed", "seconds"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, row in report["stages"].items():
        table.add_row(stage, *(str(row[key]) for key in ("in", "out", "failed", "seconds")))
    # piped or redirected: as wide as the rows are (a terminal's 80 columns cut paths)
    out = Console() if sys.stdout.isatty() else Console(width=1_000)
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
    if report["pages_waiting"]:
        out.print(f"pages waiting for a counterpart: {report['pages_waiting']}")


def print_failures(report: dict[str, Any]) -> None:
    """One line per distinct reason, with its count, on standard error."""
    for failure in report["failures"]:
        console.print(f"[red]failed[/red] {escape(failure['line'])}", soft_wrap=True)


def _gateway_url(value: str | None) -> str | None:
    """``--gateway``: an http(s) URL with a host (a malformed one failed with a traceback)."""
    if value is not None:
        # lazy: httpx only for --gateway, off paramine --help
        import httpx

        try:
            url = httpx.URL(value)
        except httpx.InvalidURL as error:
            raise typer.BadParameter(f"not a URL: {error}") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise typer.BadParameter("needs an http:// or https:// URL with a host")
    return value


def submit(
    inputs: InputPaths,
    gateway: Annotated[
        str | None,
        typer.Option(help="gateway base URL (default: straight to Redis)", callback=_gateway_url),
    ] = None,
    job_id: Annotated[
        str | None,
        typer.Option(help="job id (default: derived from content)", callback=job_id_option),
    ] = None,
    src_lang: OptionalSrcLang = None,
    tgt_lang: OptionalTgtLang = None,
    url_key: UrlKey = None,
    pairs_file: PairsFile = None,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait",
            help="wait until the job is done (or its pages wait for a counterpart), print its "
            "status and exit 1 if anything of it failed",
        ),
    ] = False,
    wait_timeout: Annotated[
        float, typer.Option(help="seconds --wait waits at most (then exit 1)", min=0)
    ] = 3600.0,
) -> None:
    """Send INPUTS to the gateway, or straight to the first queue when PARAMINE_REDIS_URL is set.

    Page pairs go to tree_align (``POST /v1/page-pairs``); single pages (as ``process`` reads
    them) go to page_match (``POST /v1/pages``), all under one job. With ``--wait`` the job's
    status is asked until it is finished."""
    # lazy: settings (pydantic-settings) stay off paramine --help
    from shared.config import get_settings, secret
    from shared.intake.ingest import build_job, build_page_job, merged_job, single_page_input
    from shared.intake.inputs import expand_inputs, read_page_pairs
    from shared.intake.page_inputs import read_single_pages

    settings = get_settings()
    options = pairing_options(src_lang, tgt_lang, url_key, pairs_file)
    inputs = expand_inputs(inputs)
    page_inputs = [] if options is not None else [p for p in inputs if single_page_input(p)]
    pages = build_page_job(read_single_pages(page_inputs))
    job = build_job(read_page_pairs([p for p in inputs if p not in page_inputs], options), job_id)
    if page_inputs:
        job = merged_job(job, pages, job_id)
    for error in job.refused:
        console.print(f"[red]refused[/red] {escape(str(error))}")
    if gateway:
        _to_gateway(gateway, job, secret(settings.api_key), pages.pages)
        if wait:
            _report_wait(
                _wait_on_gateway(gateway, job.job_id, secret(settings.api_key), wait_timeout)
            )
        return
    if not settings.redis_url:
        raise typer.BadParameter("give --gateway URL or set PARAMINE_REDIS_URL")
    # lazy: the pipeline, its stores and metrics stay off paramine --help
    from services.wiring.dispatch import enqueue_job, enqueue_pages
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
    if wait:
        _report_wait(_wait_on_store(store, job.job_id, wait_timeout))


def _wait_on_gateway(gateway: str, job_id: str, api_key: str | None, timeout: float) -> Waited:
    # lazy: httpx and the gateway client only for --gateway, off paramine --help
    import httpx

    from shared.intake.gateway_client import GatewayRefused, wait_for_job

    headers = {"X-API-Key": api_key} if api_key else {}
    try:
        with httpx.Client(base_url=gateway, headers=headers, timeout=60) as client:
            return wait_for_job(client, job_id, timeout)
    except (GatewayRefused, httpx.HTTPError) as exc:
        console.print(f"[red]waiting for job {escape(job_id)} failed[/red]: {escape(str(exc))}")
        raise typer.Exit(1) from None


def _wait_on_store(store: Store, job_id: str, timeout: float) -> Waited:
    """``--wait`` without a gateway: the job's status read from the store, as the gateway
    reads it."""
    # lazy: the page_match repository (SQLAlchemy) stays off paramine --help
    from services.page_match.repository import with_waiting_pages
    from shared.intake.gateway_client import FINISHED_STATES, Waited

    deadline = time.monotonic() + timeout
    while True:
        job = store.job_status(job_id)
        answer: dict[str, object] = {"job_id": job_id, "state": "unknown"}
        if job is not None:
            answer = with_waiting_pages(store.engine, job).answer()
        if answer["state"] in FINISHED_STATES or time.monotonic() >= deadline:
            return Waited(answer, answer["state"] in FINISHED_STATES)
        time.sleep(1.0)


def _report_wait(waited: Waited) -> None:
    """The finished job's status as one JSON line, its failures one line per reason; exit 1
    when anything failed or the wait ran out."""
    typer.echo(json.dumps(waited.status, ensure_ascii=False))
    failures = waited.status.get("failures")
    for failure in failures if isinstance(failures, list) else []:
        console.print(f"[red]failed[/red] {escape(str(failure.get('line', failure)))}")
    if not waited.finished:
        console.print(f"[red]the job is not finished[/red]: state {waited.status.get('state')}")
        raise typer.Exit(1)
    if waited.status.get("state") == "done-with-errors":
        raise typer.Exit(1)


def _to_gateway(gateway: str, job: Job, api_key: str | None, pages: Sequence[Page]) -> None:
    # lazy: httpx and the gateway client only for --gateway, off paramine --help
    from shared.intake.gateway_client import SubmitFailed, submit_job

    try:
        submitted = submit_job(gateway, job, api_key, pages)
    except SubmitFailed as failure:
        _print_partial_submit(failure.reason, failure.submitted, job)
        raise typer.Exit(1) from None
    typer.echo(json.dumps(asdict(submitted), ensure_ascii=False))
    if not job.pairs and not pages:
        console.print("[red]nothing submitted[/red]: no page pair or page was read")
    if submitted.refused or (not job.pairs and not pages):
        raise typer.Exit(1)  # as `process`: the rest went in, the refusals are dead letters


def _print_partial_submit(reason: str, submitted: Submitted, job: Job) -> None:
    console.print(f"[red]submit failed[/red]: {escape(reason)}")
    console.print(
        f"{submitted.accepted} of {len(job.pairs)} page pairs were accepted into job "
        f"{escape(job.job_id)} before the failure; submitting the same inputs again is "
        "idempotent"
    )
