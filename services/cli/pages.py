"""``paramine align-pages``: two pages through tree alignment, then sentence alignment inside
the aligned nodes (the two stages' algorithms without the store or the queues)."""

from __future__ import annotations

import gzip
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import console, language_option
from services.sentence_align.aligners.align import Method
from shared.errors import InputTooLarge, InvalidInput
from shared.schemas import PagePair


class PageKind(StrEnum):
    translation = "translation"
    pc_mobile = "pc-mobile"


def align_pages(
    src: Annotated[Path, typer.Argument(help="source page HTML")],
    tgt: Annotated[Path, typer.Argument(help="target page HTML")],
    src_lang: Annotated[
        str | None,
        typer.Option(
            "--src-lang",
            help="the source page's language (BCP 47 tag or name; default: detected)",
            callback=language_option,
        ),
    ] = None,
    tgt_lang: Annotated[
        str | None,
        typer.Option(
            "--tgt-lang",
            help="the target page's language (BCP 47 tag or name; default: detected)",
            callback=language_option,
        ),
    ] = None,
    method: Annotated[
        Method, typer.Option(help="sentence aligner inside the aligned nodes")
    ] = Method.hybrid,
    flat: Annotated[
        bool, typer.Option(help="align the pages' plain text without the tree (Type I)")
    ] = False,
    kind: Annotated[PageKind, typer.Option(help="kind of page pair")] = PageKind.translation,
) -> None:
    """Align two pages: tree alignment, then sentences inside aligned nodes; prints JSONL pairs.

    A language not given is detected from the page's text (py3langid), and said on standard
    error; two pages of one language are refused unless ``--kind pc-mobile``."""
    # lazy: the two stages' handlers (SQLAlchemy, fugashi, prometheus_client) stay off --help
    from services.sentence_align.mining.records import sentence_pairs
    from services.tree_align.handler import chunk_pairs
    from shared.intake.inputs import decode_html

    src_html, tgt_html = decode_html(src.read_bytes()), decode_html(tgt.read_bytes())
    src_lang = src_lang or detected_language(src, src_html, "--src-lang")
    tgt_lang = tgt_lang or detected_language(tgt, tgt_html, "--tgt-lang")
    if src_lang == tgt_lang and kind is PageKind.translation:
        raise typer.BadParameter(
            f"both pages are {src_lang!r}: a translation pair needs two languages (two "
            "versions of one page in one language: --kind pc-mobile)",
            param_hint="'--src-lang' / '--tgt-lang'",
        )
    message = PagePair.model_validate(
        {
            "job_id": "cli",
            "kind": kind.value,
            "src": {"url": src.resolve().as_uri(), "lang": src_lang, "html": src_html},
            "tgt": {"url": tgt.resolve().as_uri(), "lang": tgt_lang, "html": tgt_html},
        }
    )
    chunks = chunk_pairs(message, flat=flat).model_copy(update={"method": method.value})
    for pair in sentence_pairs(chunks):
        typer.echo(
            json.dumps(
                {"src": pair.src_text, "tgt": pair.tgt_text, "score": pair.score},
                ensure_ascii=False,
            )
        )


def detected_language(path: Path, html: str, option: str) -> str:
    """The language py3langid reads in a page's text, said on standard error; a page with
    too little text to tell is refused, naming the option to give."""
    # lazy: lxml, numpy and shared.text's fugashi stay off paramine --help
    from services.html.parse import page_text, parse_page
    from shared import langid
    from shared.text import base_lang

    text = " ".join(page_text(parse_page(html)[0]))
    if langid.letters(text) < 20:
        raise typer.BadParameter(
            f"{path}: too little text to detect its language; give {option}", param_hint=option
        )
    lang, probability = langid.guess(text)
    lang = base_lang(lang)
    console.print(
        f"{path}: detected {option} {lang} (py3langid, p={probability:.2f})", soft_wrap=True
    )
    return lang


def read_page(path: Path) -> str:
    """A page file's text: ``.html`` or ``.html.gz`` bytes decoded as the pipeline decodes."""
    # lazy: the input readers (http.client, ssl, the CJK codecs) stay off paramine --help
    from shared.intake.inputs import decode_html

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
    separated by a blank line. The model is the one tree_align, the flat path and
    page_match read, with the extractor's precision setting as its verdict (a reader's
    text; alignment takes the recall setting: services/html/content.py).

    A page that cannot be read or parsed gets one line on standard error and the others go
    on; the exit code is then 1."""
    # lazy: lxml, numpy and pydantic-settings stay off paramine --help
    from services.html.content import main_paragraphs, page_blocks
    from services.html.parse import ParseLimits, parse_page
    from shared.config import get_settings

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
        text = "\n\n".join(main_paragraphs(page_blocks(tree, document, favor="precision")))
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
