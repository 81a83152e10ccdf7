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


def read_page(path: Path) -> str:
    """A page file's text: ``.html`` or ``.html.gz`` bytes decoded as the pipeline decodes."""
    import gzip

    from shared.errors import InvalidInput
    from shared.inputs import decode_html

    data = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InvalidInput(f"not a readable gzip file ({exc})") from None
    return decode_html(data)


def extract_content(
    pages: Annotated[list[Path], typer.Argument(help="page files, .html or .html.gz")],
    jsonl: Annotated[
        bool, typer.Option("--jsonl", help='one {"path", "text"} line per page')
    ] = False,
) -> None:
    """Print each page's main content: the blocks the content model keeps, paragraphs
    separated by a blank line (the text tree_align, the flat path and page_match align).

    A page that cannot be read or parsed gets one line on standard error and the others go
    on; the exit code is then 1."""
    from services.cli.common import console
    from services.html.content import main_paragraphs, page_blocks
    from services.html.parse import ParseLimits, parse_page
    from shared.config import get_settings
    from shared.errors import InputTooLarge, InvalidInput

    limits = get_settings().html
    parse_limits = ParseLimits(
        max_bytes=limits.max_bytes, max_depth=limits.max_depth, max_elements=limits.max_elements
    )
    failed = 0
    for path in pages:
        try:
            tree, document = parse_page(read_page(path), limits=parse_limits)
        except (InvalidInput, InputTooLarge, OSError) as exc:
            failed += 1
            console.print(f"[red]refused[/red] {path}: {exc}", soft_wrap=True, markup=True)
            continue
        text = "\n\n".join(main_paragraphs(page_blocks(tree, document)))
        if jsonl:
            typer.echo(json.dumps({"path": str(path), "text": text}, ensure_ascii=False))
        else:
            typer.echo(text + "\n" if len(pages) > 1 else text)
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``align-pages`` and ``extract-content`` to the ``paramine`` application."""
    app.command("align-pages")(align_pages)
    app.command("extract-content")(extract_content)
