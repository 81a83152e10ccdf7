"""Command-line entry points of the sentence_align stage: align-sentences and eval beads."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from services.sentence_align.aligners.align import Method
from shared.errors import InvalidInput
from shared.schemas import LANG_PATTERN

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

_METHOD_HELP = (
    "length (Gale-Church), lexicon (Moore 2002), hybrid (Zhao & Vogel 2002) or anchors "
    "(BAM, two versions of one text)"
)


def _read_sentences(path: Path, *, presplit: bool, lang: str | None) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if presplit:
        return text.splitlines()
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners.splitter import split_sentences

    return split_sentences(text, lang or "en")


def _bilingual_dictionary(
    path: Path | None, src_lang: str | None, tgt_lang: str | None
) -> BilingualDictionary | None:
    """The dictionary of ``--dictionary``, else the installed ones of the language pair;
    without one, says so on stderr (once: one call per command)."""
    # imported here: the stemmers and dictionaries load only when a dictionary is used
    from services.lexical.dictionary import load_freedict, load_word_pairs
    from services.lexical.registry import dictionary_for

    if path is None:
        bilingual = dictionary_for(src_lang, tgt_lang)
        if bilingual is None:
            pair = f"{src_lang}-{tgt_lang}" if src_lang and tgt_lang else "an unnamed pair"
            typer.echo(
                f"no bilingual dictionary installed for {pair}: aligning without one "
                "(see paramine dictionaries)",
                err=True,
            )
        return bilingual
    if not (src_lang and tgt_lang):
        raise typer.BadParameter("--dictionary needs --src-lang and --tgt-lang")
    if path.is_dir():
        bilingual = load_freedict(path, src_lang, tgt_lang)
    else:
        bilingual = load_word_pairs(path, src_lang, tgt_lang)
    if bilingual is None:
        raise typer.BadParameter(f"no FreeDict dictionary for {src_lang}-{tgt_lang} in {path}")
    return bilingual


def dictionaries_command() -> None:
    """List the installed bilingual dictionaries and their language pairs (each also serves
    the reverse pair); align-sentences uses them by default."""
    # lazy: paramine imports every command module at start-up
    from services.lexical.registry import ENVIRONMENT, installed_dictionaries

    sources = installed_dictionaries()
    for source in sources:
        typer.echo(f"{source.pair}\t{source.kind}\t{source.path}")
    if not sources:
        typer.echo(
            "no bilingual dictionary installed (e.g. apt-get install dict-freedict-deu-fra; "
            f"or word-pair files <src>-<tgt>.txt in a folder named by {ENVIRONMENT})",
            err=True,
        )


def align_sentences_command(
    texts: Annotated[
        list[Path],
        typer.Argument(
            exists=True, dir_okay=False, help="SRC TGT, or several pairs SRC1 TGT1 SRC2 TGT2 ..."
        ),
    ],
    method: Annotated[Method, typer.Option(help=_METHOD_HELP)] = Method.hybrid,
    src_lang: Annotated[str | None, typer.Option(help="source language (ISO 639-1)")] = None,
    tgt_lang: Annotated[str | None, typer.Option(help="target language (ISO 639-1)")] = None,
    presplit: Annotated[bool, typer.Option(help="each input line is one sentence")] = False,
    corpus: Annotated[
        bool,
        typer.Option(
            help="with several pairs: one length model and one Model 1 for all of them "
            "(Moore's corpus mode); --no-corpus aligns each pair on its own"
        ),
    ] = True,
    dictionary: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            help="folder of FreeDict dictionaries in dictd format (e.g. /usr/share/dictd, "
            "Debian's dict-freedict-<src>-<tgt>), or a word-pair file (source and target "
            "word per line, tab- or space-separated, as MUSE's dictionaries): the word "
            "pairs seed Model 1 (lexicon and hybrid; needs --src-lang and --tgt-lang). "
            "Default: the installed dictionaries of the pair (paramine dictionaries)",
        ),
    ] = None,
    use_dictionary: Annotated[
        bool,
        typer.Option(
            "--use-dictionary/--no-dictionary",
            help="seed Model 1 with a bilingual dictionary (--dictionary, else the installed "
            "ones of the language pair); --no-dictionary: the document's own evidence only",
        ),
    ] = True,
) -> None:
    r"""Align the sentences of SRC and TGT; print one bead per line,
    `[i, j]:[k]<TAB>cost<TAB>confidence` (confidence: the bead's posterior probability, from
    lexicon and hybrid; length and anchors print the cost only).

    With several pairs, each pair's beads follow a `# SRC TGT` line."""
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners.align import align_corpus, align_each
    from services.sentence_align.aligners.beads import format_bead

    for lang in (src_lang, tgt_lang):
        if lang is not None and not re.fullmatch(LANG_PATTERN, lang):
            raise typer.BadParameter(f"{lang!r} is not a language code (en, de, pt-BR, zh_Hant)")
    bilingual = None
    if use_dictionary and method in (Method.lexicon, Method.hybrid):
        bilingual = _bilingual_dictionary(dictionary, src_lang, tgt_lang)

    if len(texts) % 2:
        raise typer.BadParameter("give the texts in pairs: SRC TGT [SRC TGT ...]")
    paths = list(zip(texts[::2], texts[1::2], strict=True))
    pairs = [
        (
            _read_sentences(src, presplit=presplit, lang=src_lang),
            _read_sentences(tgt, presplit=presplit, lang=tgt_lang),
        )
        for src, tgt in paths
    ]
    # several pairs in corpus mode share one model; otherwise each is aligned alone
    align_all = align_corpus if len(pairs) > 1 and corpus else align_each
    aligned = align_all(
        pairs, method=method, src_lang=src_lang, tgt_lang=tgt_lang, dictionary=bilingual
    )
    lines: list[str] = []
    for (src_path, tgt_path), beads in zip(paths, aligned, strict=True):
        if len(pairs) > 1:
            lines.append(f"# {src_path} {tgt_path}")
        lines += [format_bead(bead) for bead in beads]
    typer.echo("\n".join(lines))


def eval_beads_command(
    gold: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="gold beads")],
    tests: Annotated[
        list[Path], typer.Argument(exists=True, dir_okay=False, help="aligner outputs")
    ],
) -> None:
    """Score each TEST bead file against GOLD: strict and lax P/R/F1 (vecalign convention),
    with the 95% block-bootstrap interval of strict F1; for a file whose beads carry
    confidences (third column), also how well they are calibrated and what keeping the pairs
    with confidence >= 0.9 gives."""
    # lazy: paramine imports every command module at start-up
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Column, Table

    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners.beads import parse_beads
    from services.sentence_align.aligners.evaluate import (
        bootstrap_f1_strict,
        calibration,
        expected_calibration_error,
        kept_above,
        score_documents,
    )

    gold_beads = parse_beads(gold.read_text(encoding="utf-8").splitlines())
    interval_column = Column("F1 strict 95%", no_wrap=True, min_width=11)
    table = Table(
        "test", "P strict", "R strict", "F1 strict", interval_column, "P lax", "R lax", "F1 lax"
    )
    notes: list[str] = []
    for test in tests:
        try:
            test_beads = parse_beads(test.read_text(encoding="utf-8").splitlines())
        except InvalidInput as error:
            raise typer.BadParameter(f"{test}: {error}") from None
        if test_beads and all(bead.confidence is not None for bead in test_beads):
            calibration_error = expected_calibration_error(calibration([gold_beads], [test_beads]))
            (kept,) = kept_above([gold_beads], [test_beads], [0.9])
            notes.append(
                f"{test}: confidence calibration error {calibration_error:.3f}; pairs with "
                f"confidence >= 0.9: {kept.kept:.0%} kept, precision {kept.precision:.3f}, recall "
                f"{kept.recall:.3f} (strict)"
            )
        scores = score_documents([gold_beads], [test_beads])
        interval = bootstrap_f1_strict([gold_beads], [test_beads])
        table.add_row(
            escape(str(test)),
            *(f"{value:.3f}" for value in (scores.precision_strict, scores.recall_strict)),
            f"{scores.f1_strict:.3f}",
            f"{interval.low:.3f}-{interval.high:.3f}",
            *(f"{value:.3f}" for value in (scores.precision_lax, scores.recall_lax, scores.f1_lax)),
        )
    console = Console()
    console.print(table)
    for note in notes:
        console.print(escape(note), soft_wrap=True)


def _default_kit() -> Path:
    return Path(os.environ.get("PARAMINE_KIT_DATA", "../shared/data"))


def train_pair_model_command(
    out: Annotated[Path, typer.Option(help="where to write the model (JSON)")],
    kit: Annotated[
        Path | None,
        typer.Option(
            help="the data kit's data/ folder (default: $PARAMINE_KIT_DATA, else ../shared/data)"
        ),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="the default export threshold instead of the cross-fitted one (the shipped "
            "model's 0.60: the lowest with precision >= 0.95 on the page_match benchmark's "
            "training crawls through paramine process)",
        ),
    ] = None,
) -> None:
    """Fit the pair classifier (the exported score) on the data kit's sentence-alignment gold.

    Training documents: Text+Berg dev and test0-2, MAC-Dev 001-003, the SpanAlign sample,
    each aligned by the default aligner, with synthetic wrong pairs (neighbour shifts,
    random pairs, a sentence added or dropped, menu items, untranslated copies). The
    calibration and the default export threshold come from cross-fitting on these
    documents alone (Text+Berg test3-6 and MAC-Dev 004-006 stay for validation)."""
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.classifier.pair_training import train_pair_model

    model = train_pair_model(
        kit if kit is not None else _default_kit(),
        progress=lambda text: typer.echo(text, err=True),
    )
    if threshold is not None:
        chosen = ("export threshold (given with --threshold)", threshold)
        model = dataclasses.replace(model, threshold=threshold, record=(*model.record, chosen))
    out.write_text(model.to_json(), encoding="utf-8")
    record = ", ".join(f"{name} {value:.3f}" for name, value in model.record)
    typer.echo(f"wrote {out}: default threshold {model.threshold:.2f}; {record}", err=True)


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this stage's commands to the root ``paramine`` app and its ``eval`` group."""
    app.command("align-sentences")(align_sentences_command)
    app.command("dictionaries")(dictionaries_command)
    app.command("train-pair-model")(train_pair_model_command)
    eval_app.command("beads")(eval_beads_command)
