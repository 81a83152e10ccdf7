"""What every ``paramine`` command shares: the root application and its groups, the error
handling that turns bad input into one line and exit code 2, the console for messages, and
the input options of ``process`` and ``submit``."""

from __future__ import annotations

import csv
import os
import re
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from typer.core import TyperGroup

from services.cli.help import UsageError, close_suggestions
from shared.errors import ConfigurationError, InvalidInput, TransientError
from shared.schemas import JOB_ID_PATTERN

HELP = "The ``paramine`` command line: one entry point for every mode and algorithm."


class ClearErrors(TyperGroup):
    """Every command's bad input ends in one line and exit code 2, not a traceback.

    ``InvalidInput`` (a malformed file, a bad option value found late), input that fails a
    message schema (pydantic's ``ValidationError``), a file that cannot be read (``OSError``)
    or decoded (``UnicodeError``) are the user's to fix; anything else is a bug and keeps its
    traceback.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except UsageError as exc:  # the root's unknown option
            raise close_suggestions(exc) from None

    def invoke(self, ctx: Any) -> Any:  # a click Context (typer vendors its own click)
        from sqlalchemy.exc import ArgumentError  # lazy: SQLAlchemy stays off paramine --help

        try:
            return super().invoke(ctx)
        except UsageError as exc:  # a subcommand's unknown option: close suggestions only
            raise close_suggestions(exc) from None
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


console = Console(stderr=True, soft_wrap=True)  # a message is one line when piped


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"paramine {version('paramine')}")
        raise typer.Exit()


def _root_options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="print paramine's version and exit",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """The ``paramine`` command line: one entry point for every mode and algorithm."""


def root_app() -> tuple[typer.Typer, typer.Typer, typer.Typer]:
    """The root ``paramine`` application, its ``eval`` group and its ``dead-letters`` group."""
    # Markdown: the docstrings' ``code`` shows as code and their paragraphs reflow
    app = typer.Typer(
        no_args_is_help=True,
        add_completion=False,
        help=HELP,
        cls=ClearErrors,
        rich_markup_mode="markdown",
    )
    app.callback()(_root_options)
    eval_app = typer.Typer(
        no_args_is_help=True, help="Score aligner output against gold.", rich_markup_mode="markdown"
    )
    dead_letter_app = typer.Typer(
        no_args_is_help=True,
        help="Inspect, retry or purge dead letters.",
        rich_markup_mode="markdown",
    )
    app.add_typer(eval_app, name="eval")
    app.add_typer(dead_letter_app, name="dead-letters")
    return app, eval_app, dead_letter_app


InputPaths = Annotated[
    list[Path],
    typer.Argument(
        help="HTML pair folders, .jsonl, .lett(.gz), .warc(.gz), or folders holding them "
        "(searched)",
        exists=True,
    ),
]


def language_option(value: str | None) -> str | None:
    """``--src-lang`` / ``--tgt-lang``: a BCP 47 tag in any case (``EN``, ``en-GB``, ``deu``)
    or a language name (``english``, ``Deutsch``), read as its language (``en``); anything
    else refused with a hint (``EN`` once found nothing: page languages are lower case)."""
    if value is None:
        return None
    # lazy: langcodes' tables and shared.text's fugashi stay off paramine --help
    import langcodes

    from shared.text import base_lang

    try:
        tag = str(langcodes.standardize_tag(value.strip()))
    except ValueError:
        tag = ""
    if not tag or not langcodes.tag_is_valid(tag):
        try:
            tag = str(langcodes.find(value.strip()))
        except LookupError:
            raise typer.BadParameter(
                f"{value!r} is not a language: give a BCP 47 tag (en, en-GB, zh-Hant) or a "
                "language name (english)"
            ) from None
    return base_lang(tag)


OptionalSrcLang = Annotated[
    str | None,
    typer.Option(
        "--src-lang",
        help="pair .lett/WARC pages of this source language by URL (BCP 47 tag or name)",
        callback=language_option,
    ),
]
OptionalTgtLang = Annotated[
    str | None,
    typer.Option(
        "--tgt-lang",
        help="pair .lett/WARC pages of this target language by URL (BCP 47 tag or name)",
        callback=language_option,
    ),
]


def url_key(value: str | None) -> str | None:
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
        callback=url_key,
    ),
]
PairsFile = Annotated[
    Path | None,
    typer.Option("--pairs-file", help="TSV of src_url tgt_url pairs", exists=True, dir_okay=False),
]


def job_id_option(value: str | None) -> str | None:
    """``--job-id``: checked as the gateway checks it (a bad id dead-lettered every pair)."""
    if value is not None and not re.fullmatch(JOB_ID_PATTERN, value):
        raise typer.BadParameter("1-64 characters of letters, digits and . _ : -")
    return value


def pairing_options(
    src_lang: str | None, tgt_lang: str | None, url_key: str | None, pairs_file: Path | None
) -> Any:
    """How .lett/WARC pages are paired into page pairs (``shared.intake.inputs.PairingOptions``);
    None when no pairing option is given (the pages are single pages, for page_match).
    Pairing needs both languages, and two different ones: a pairing option without them
    is refused with a hint (exit 2), as is ``--src-lang de --tgt-lang de``, which paired
    each page with itself."""
    # lazy: the input readers (http.client, ssl, the CJK codecs) stay off paramine --help
    from shared.intake.inputs import PairingOptions

    if all(option is None for option in (src_lang, tgt_lang, url_key, pairs_file)):
        return None
    if src_lang is None or tgt_lang is None:
        given = "--url-key" if url_key else "--pairs-file" if pairs_file else "one language"
        raise typer.BadParameter(
            f"pairing pages by URL needs both --src-lang and --tgt-lang ({given} given); "
            "without any pairing option the pages are matched by page_match",
            param_hint="'--src-lang' / '--tgt-lang'",
        )
    if src_lang == tgt_lang:
        raise typer.BadParameter(
            f"--src-lang and --tgt-lang are both {src_lang!r}: a translation pair needs two "
            "languages (two versions of one page in one language: align-pages --kind pc-mobile)",
            param_hint="'--src-lang' / '--tgt-lang'",
        )
    return PairingOptions(src_lang, tgt_lang, url_key, pairs_file)
