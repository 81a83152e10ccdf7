"""The long-running modes: ``paramine worker`` (one stage's Celery worker), ``serve`` (the
HTTP gateway), ``scheduler`` (periodic tasks) and ``reconcile`` (lost messages resent)."""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import shutil
import tempfile
import threading
from typing import Annotated

import typer

from shared.schemas import STAGES


def use_metrics_dir() -> None:
    """Give this process a PROMETHEUS_MULTIPROC_DIR unless it has one.

    Prometheus chooses single- or multi-process storage when it is first imported: a worker
    or gateway must have PROMETHEUS_MULTIPROC_DIR set before anything imports
    prometheus_client, so ``worker`` and ``serve`` call this first. PARAMINE_METRICS_DIR names
    the directory; without it, a temporary directory of our own, removed when this process
    exits (each start left one behind; forked pool processes inherit the hook, so it checks
    the pid)."""
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        return
    metrics_dir = os.environ.get("PARAMINE_METRICS_DIR")
    if metrics_dir is None:
        own_dir = metrics_dir = tempfile.mkdtemp(prefix="paramine-metrics-")
        creator = os.getpid()

        def remove_own_metrics_dir() -> None:
            if os.getpid() == creator:
                shutil.rmtree(own_dir, ignore_errors=True)

        atexit.register(remove_own_metrics_dir)
    os.makedirs(metrics_dir, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir


def worker(
    stage: Annotated[str, typer.Option(help=f"one of {', '.join(STAGES)}")],
    concurrency: Annotated[int, typer.Option(help="worker processes")] = 1,
    metrics_port: Annotated[int, typer.Option(help="port of this worker's /metrics (0: none)")] = 0,
    metrics_host: Annotated[str, typer.Option(help="address of /metrics")] = "127.0.0.1",
    loglevel: Annotated[
        str, typer.Option(help="Celery log level: DEBUG, INFO, WARNING, ERROR")
    ] = "INFO",
) -> None:
    """Start a Celery worker consuming one stage's Redis queue (PARAMINE_REDIS_URL)."""
    use_metrics_dir()
    from shared.config import get_settings  # lazy: pydantic-settings stays off paramine --help

    if stage not in STAGES:
        raise typer.BadParameter(f"stage must be one of {', '.join(STAGES)}")
    if not get_settings().redis_url:
        raise typer.BadParameter("PARAMINE_REDIS_URL must be set to run a worker")
    from services.cli.worker_process import run_worker  # lazy: Celery stays off paramine --help

    run_worker(
        stage,
        concurrency=concurrency,
        metrics_host=metrics_host,
        metrics_port=metrics_port,
        loglevel=loglevel,
    )


def serve(
    host: Annotated[str, typer.Option(help="address the gateway listens on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port the gateway listens on")] = 8000,
) -> None:
    """Start the HTTP gateway (ingest, status, queries, /metrics, /healthz)."""
    use_metrics_dir()
    # lazy: after use_metrics_dir() (the gateway's prometheus_client reads it when imported),
    # and uvicorn, FastAPI and the store stay off paramine --help
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


def scheduler(
    loglevel: Annotated[
        str, typer.Option(help="Celery log level: DEBUG, INFO, WARNING, ERROR")
    ] = "INFO",
) -> None:
    """Run the periodic tasks (similarity recompute) with Celery beat; needs PARAMINE_REDIS_URL."""
    from shared.delivery.celery_app import get_celery  # lazy: Celery stays off paramine --help

    get_celery().start(["beat", f"--loglevel={loglevel}", "--schedule=/tmp/paramine-beat-schedule"])


def reconcile(
    once: Annotated[bool, typer.Option(help="one sweep, print its result, exit")] = False,
) -> None:
    """Resend tracked page pairs whose message was lost (tree_align workers also run this)."""
    from shared.config import get_settings  # lazy: pydantic-settings stays off paramine --help

    settings = get_settings()
    if not settings.redis_url:
        raise typer.BadParameter("PARAMINE_REDIS_URL must be set to reconcile")
    if not once:
        from shared.delivery.reconcile import run_forever  # lazy: SQLAlchemy stays off --help

        run_forever(threading.Event())
        return
    from shared.delivery.reconcile import sweep_once  # lazy: SQLAlchemy stays off paramine --help

    typer.echo(json.dumps(dataclasses.asdict(sweep_once())))


def register(app: typer.Typer) -> None:
    """Add the long-running modes to the ``paramine`` application."""
    for command in (worker, serve, scheduler, reconcile):
        app.command()(command)
