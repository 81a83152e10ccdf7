"""``paramine dead-letters list|retry|purge``: the messages a stage gave up on."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from services.cli.common import console

if TYPE_CHECKING:
    from shared.store import Store


def _store() -> Store:
    """The existing store of PARAMINE_DATABASE_URL."""
    # lazy: pydantic-settings and SQLAlchemy stay off paramine --help
    from shared.config import get_settings
    from shared.store import Store

    return Store.existing(get_settings().database_url)


def dead_letters_list(
    stage: Annotated[
        str | None, typer.Option(help="only this stage's (ingest, page_match, tree_align, ...)")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="at most this many, oldest first")] = 100,
) -> None:
    """List dead letters: id, stage, error type and reason."""
    for row in _store().list_dead_letters(stage=stage, limit=limit):
        typer.echo(
            f"{row['id']}\t{row['stage']}\t{row['attempts']}\t{row['error_type']}\t{row['reason']}"
        )


def dead_letters_retry(
    ids: Annotated[list[str] | None, typer.Argument(help="dead-letter ids (default: all)")] = None,
) -> None:
    """Send dead letters back to their stage's queue (or run them in-process without Redis)."""
    # lazy: the pipeline and its metrics (prometheus_client) stay off paramine --help
    from services.wiring.dispatch import retry_dead_letters

    result = retry_dead_letters(_store(), ids or None)
    typer.echo(json.dumps(result))
    if result["unknown"]:
        console.print(f"no dead letter {escape(', '.join(result['unknown']))}", soft_wrap=True)
    if result["failed"] or result["unknown"]:
        # The letter that could not be sent, and those after it, are still dead letters.
        raise typer.Exit(code=1)


def dead_letters_purge(
    ids: Annotated[list[str] | None, typer.Argument(help="dead-letter ids (default: all)")] = None,
) -> None:
    """Delete dead letters."""
    deleted = _store().delete_dead_letters(ids or None)
    typer.echo(f"purged {deleted}")


def register(dead_letter_app: typer.Typer) -> None:
    """Add the commands to the ``paramine dead-letters`` group."""
    dead_letter_app.command("list")(dead_letters_list)
    dead_letter_app.command("retry")(dead_letters_retry)
    dead_letter_app.command("purge")(dead_letters_purge)
