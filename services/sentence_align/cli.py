"""Command-line entry points of the sentence_align stage: align-sentences and eval beads."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from shared.errors import InvalidInput

_METHOD_HELP = (
    "length (Gale-Church), lexicon (Moore 2002), hybrid (Zhao & Vogel 2002) or anchors "
    "(BAM, two versions of one text)"
)


def _read_sentences(path: Path, *, presplit: bool, lang: str | None) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if presplit:
        return text.splitlines()
    from services.sentence_align.splitter import split_sentences

    return split_sentences(text, lang or "en")


def align_sentences_command(
    src: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="source text")],
    tgt: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="target text")],
    method: Annotated[str, typer.Option(help=_METHOD_HELP)] = "hybrid",
    src_lang: Annotated[str | None, typer.Option(help="source language (ISO 639-1)")] = None,
    tgt_lang: Annotated[str | None, typer.Option(help="target language (ISO 639-1)")] = None,
    presplit: Annotated[bool, typer.Option(help="each input line is one sentence")] = False,
) -> None:
    """Align the sentences of SRC and TGT; print one bead per line, `[i, j]:[k]<TAB>cost`."""
    from services.sentence_align.align import align_sentences
    from services.sentence_align.beads import format_bead

    src_sentences = _read_sentences(src, presplit=presplit, lang=src_lang)
    tgt_sentences = _read_sentences(tgt, presplit=presplit, lang=tgt_lang)
    try:
        beads = align_sentences(
            src_sentences, tgt_sentences, method=method, src_lang=src_lang, tgt_lang=tgt_lang
        )
    except InvalidInput as error:
        raise typer.BadParameter(str(error)) from None
    typer.echo("\n".join(format_bead(bead) for bead in beads))


def eval_beads_command(
    gold: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="gold beads")],
    tests: Annotated[
        list[Path], typer.Argument(exists=True, dir_okay=False, help="aligner outputs")
    ],
) -> None:
    """Score each TEST bead file against GOLD: strict and lax P/R/F1 (vecalign convention)."""
    from rich.console import Console
    from rich.table import Table

    from services.sentence_align.beads import parse_beads
    from services.sentence_align.evaluate import score_documents

    gold_beads = parse_beads(gold.read_text(encoding="utf-8").splitlines())
    table = Table("test", "P strict", "R strict", "F1 strict", "P lax", "R lax", "F1 lax")
    for test in tests:
        try:
            test_beads = parse_beads(test.read_text(encoding="utf-8").splitlines())
        except InvalidInput as error:
            raise typer.BadParameter(f"{test}: {error}") from None
        scores = score_documents([gold_beads], [test_beads])
        table.add_row(
            str(test),
            *(
                f"{value:.3f}"
                for value in (
                    scores.precision_strict,
                    scores.recall_strict,
                    scores.f1_strict,
                    scores.precision_lax,
                    scores.recall_lax,
                    scores.f1_lax,
                )
            ),
        )
    Console().print(table)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this stage's commands to the root ``paramine`` app and its ``eval`` group."""
    app.command("align-sentences")(align_sentences_command)
    eval_app.command("beads")(eval_beads_command)
