"""Command-line entry point of the page_match stage: ``paramine match-pages``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from shared.errors import InvalidInput


def match_pages_command(
    inputs: Annotated[
        list[Path],
        typer.Argument(help="directories of .html files, .jsonl pages, .lett or .warc files"),
    ],
    threshold: Annotated[
        float, typer.Option(help="lowest content score of a pair found by content")
    ] = 0.4,
) -> None:
    """Pair single crawled pages: one JSON line per page pair, {"src_url", "tgt_url",
    "src_lang", "tgt_lang", "kind", "score", "by"}.

    Pages of one site (host) pair by URL once their language markers are stripped, the rest
    by content and structure (anchors, length, paragraphing, a bilingual dictionary where one
    is installed), one to one. Page languages are identified from the text. Pages that cannot
    be read are listed on stderr; the exit code is then 1.
    """
    # lazy: the stage's numba, scipy and lxml stay off paramine --help
    from services.page_match.features import page_features
    from services.page_match.matching import match_pages
    from shared.intake.page_inputs import UNDETERMINED, read_single_pages

    if not 0.0 <= threshold <= 1.0:
        raise typer.BadParameter("--threshold must lie in [0, 1]")
    features = []
    refused = 0
    for page in read_single_pages(inputs):
        if isinstance(page, InvalidInput):
            refused += 1
            typer.echo(f"refused: {page}", err=True)
            continue
        declared = None if page.lang == UNDETERMINED else page.lang
        try:
            features.append(page_features(page.url, page.html, declared))
        except InvalidInput as error:
            refused += 1
            typer.echo(f"refused: {page.url[:200]}: {error}", err=True)
    for match in match_pages(features, threshold=threshold):
        typer.echo(json.dumps(match.as_json(), ensure_ascii=False))
    typer.echo(f"{len(features)} pages read, {refused} refused", err=True)
    if refused:
        raise typer.Exit(1)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this stage's commands to the root ``paramine`` app."""
    app.command("match-pages")(match_pages_command)
