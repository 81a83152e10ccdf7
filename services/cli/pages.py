"""``paramine align-pages``: two pages through tree alignment, then sentence alignment inside
the aligned nodes (the two stages' algorithms without the store or the queues)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from services.sentence_align.align import Method


class PageKind(StrEnum):
    translation = "translation"
    pc_mobile = "pc-mobile"


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


def register(app: typer.Typer) -> None:
    """Add ``align-pages`` to the ``paramine`` application."""
    app.command("align-pages")(align_pages)
