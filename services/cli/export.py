"""``paramine export`` and ``paramine migrate-store``: the store's contents out, by the
conventions a corpus user expects (standard output unless ``--out``, messages on standard
error, each distinct pair once, flagged pairs left out unless ``--all``), and an older
store brought up to date."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from services.cli.common import language_option
from services.sentence_align.classifier.pair_threshold import default_threshold

if TYPE_CHECKING:
    from services.export.corpus import LeftOut
    from services.export.formats import MosesCorpus
    from shared.store import Store

console = Console(stderr=True, soft_wrap=True)  # a message is one line when piped


MIN_SCORE_HELP = (
    "only pairs scoring this or more (the pair classifier's probability of a translation, in "
    "[0, 1]); default: the shipped model's threshold, {threshold:.2f} (chosen for precision "
    "0.95 on the page_match benchmark's training crawls), for pairs the classifier scored; "
    "--all: none"
)


class ExportFormat(StrEnum):
    jsonl = "jsonl"
    moses = "moses"
    tsv = "tsv"
    tmx = "tmx"
    ppdb = "ppdb"
    thesaurus_csv = "thesaurus-csv"
    thesaurus_npz = "thesaurus-npz"


def export(
    format: Annotated[
        ExportFormat,
        typer.Option("--format", help="jsonl, moses, tsv, tmx; ppdb; thesaurus-csv, thesaurus-npz"),
    ] = ExportFormat.jsonl,
    out: Annotated[
        Path | None,
        typer.Option(help="output file; none or '-': standard output (moses: the files' prefix)"),
    ] = None,
    job: Annotated[str | None, typer.Option(help="only this job")] = None,
    site: Annotated[str | None, typer.Option(help="only pairs from this host")] = None,
    src_lang: Annotated[
        str | None,
        typer.Option(
            "--src-lang",
            help="only pairs from this language (BCP 47 tag or name; ppdb: the language)",
            callback=language_option,
        ),
    ] = None,
    tgt_lang: Annotated[
        str | None,
        typer.Option(
            "--tgt-lang",
            help="only pairs into this language (BCP 47 tag or name)",
            callback=language_option,
        ),
    ] = None,
    either_direction: Annotated[
        bool,
        typer.Option(
            "--either-direction",
            help="with --src-lang and --tgt-lang: pairs stored the other way round too, "
            "turned to read src → tgt",
        ),
    ] = False,
    min_score: Annotated[
        float | None,
        typer.Option(help=MIN_SCORE_HELP.format(threshold=default_threshold()), min=0, max=1),
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="only pairs stored since (unix seconds or ISO date)")
    ] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="keep flagged pairs (untranslated, wrong language, boilerplate) and pairs "
            "below the default threshold, each with its flag and score",
        ),
    ] = False,
    duplicates: Annotated[
        bool, typer.Option(help="every stored occurrence, not each distinct pair once")
    ] = False,
    thesaurus: Annotated[
        str | None, typer.Option(help="thesaurus-*: that thesaurus' newest snapshot")
    ] = None,
) -> None:
    """Export stored sentence pairs, paraphrases or similarities from PARAMINE_DATABASE_URL
    to standard output or --out; what was written goes to standard error.

    Sentence pairs: each distinct pair once (with its occurrence count and best score),
    pairs flagged as untranslated or in the wrong language left out, and pairs scoring below
    the pair classifier's default threshold (--min-score sets another; --all keeps them)."""
    # lazy: the export package brings the store and lxml, which `paramine --help` does without
    from services.export.corpus import corpus_query, exported_rows, left_out, stored_other_way
    from services.export.formats import write_lines, write_moses, write_pairs
    from services.export.tmx import write_tmx
    from shared.config import get_settings
    from shared.store import Store

    stdout = out is None or str(out) == "-"
    if format is ExportFormat.moses and (out is None or stdout):
        raise typer.BadParameter(
            "moses writes two files: give their prefix (--out corpus: corpus.en, corpus.de)",
            param_hint="--out",
        )
    if format is ExportFormat.ppdb:
        # The tables are built from every stored pair of a language; the sentence-pair
        # filters were silently ignored here
        ignored = {
            "--job": job, "--site": site, "--min-score": min_score, "--since": since,
            "--tgt-lang": tgt_lang, "--all": every or None, "--duplicates": duplicates or None,
        }  # fmt: skip
        given = [name for name, value in ignored.items() if value is not None]
        if given:
            raise typer.BadParameter(
                f"{', '.join(given)} do not apply to ppdb (--src-lang chooses a language)"
            )
    try:
        query = corpus_query(
            job=job,
            site=site,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            min_score=min_score,
            since=since,
            every=every,
            duplicates=duplicates,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--since") from None
    if either_direction and (src_lang is None or tgt_lang is None):
        raise typer.BadParameter("needs --src-lang and --tgt-lang", param_hint="--either-direction")
    store = Store.existing(get_settings().database_url)
    if job is not None and store.job_status(job) is None:
        console.print(
            f"[red]no job {escape(repr(job))}[/red] in the store: `paramine process` and "
            "`paramine submit` print a run's job id",
            soft_wrap=True,
        )
        raise typer.Exit(1)
    if out is not None and not stdout:
        out.parent.mkdir(parents=True, exist_ok=True)  # as process does for its --out
    target = "standard output" if stdout or out is None else str(out)
    text_out: Path | IO[str] = sys.stdout if stdout or out is None else out
    binary_out: Path | IO[bytes] = sys.stdout.buffer if stdout or out is None else out
    if format in (ExportFormat.thesaurus_csv, ExportFormat.thesaurus_npz):
        _export_similarity(store, thesaurus, format, text_out, binary_out, target)
        return
    if format is ExportFormat.ppdb:
        # lazy: the paraphrase stage brings numba and LightGBM, which other exports do without
        from services.export.stage_tables import ppdb_lines

        # embedded mode has no periodic task: the export brings the snapshot up to date
        count = write_lines(ppdb_lines(store, src_lang, recompute=True), text_out)
        console.print(f"{count} paraphrase pairs → {escape(target)}")
        return
    stored = exported_rows(store, query, either_direction=either_direction)
    if format is ExportFormat.moses:
        assert out is not None  # refused above
        for corpus in write_moses(stored, out, src_lang=src_lang, tgt_lang=tgt_lang):
            console.print(escape(_moses_written(corpus)))
    elif format is ExportFormat.tmx:
        count = write_tmx(stored, binary_out, srclang=src_lang)
        console.print(f"{count} translation units → {escape(target)}")
    else:
        count = write_pairs(stored, format.value, text_out)
        console.print(f"{count} sentence pairs → {escape(target)}")
    sys.stdout.flush()
    none_this_way = stored.distinct == 0 and not either_direction
    if none_this_way and src_lang and tgt_lang and stored_other_way(store, query):
        console.print(
            f"[red]no {escape(src_lang)}-{escape(tgt_lang)} pair[/red], but the store holds "
            f"{escape(tgt_lang)}-{escape(src_lang)} pairs (a single-page crawl stores the "
            f"direction page_match found): --src-lang {escape(tgt_lang)} --tgt-lang "
            f"{escape(src_lang)}, or --either-direction",
            soft_wrap=True,
        )
        raise typer.Exit(1)
    _print_left_out(left_out(store, query, stored), query.default_min_score)


def _export_similarity(
    store: Store,
    thesaurus: str | None,
    format: ExportFormat,
    text_out: Path | IO[str],
    binary_out: Path | IO[bytes],
    target: str,
) -> None:
    # lazy: the thesaurus stage's repository brings numpy and its similarity model
    from services.export.formats import write_lines
    from services.export.similarity import similarity_csv_lines, similarity_npz_bytes
    from services.thesaurus.repository import latest_similarity

    matrix = latest_similarity(store.engine, thesaurus)
    if matrix is None:
        console.print("[red]no similarity snapshot[/red]: run `paramine thesaurus build` first")
        raise typer.Exit(1)
    if format is ExportFormat.thesaurus_npz:
        data = similarity_npz_bytes(matrix.class_ids, matrix.labels, matrix.values, matrix.rounds)
        _write_bytes(data, binary_out)
        size = len(matrix.class_ids)
        console.print(f"{size}×{size} similarity matrix → {escape(target)}")
    else:
        count = write_lines(similarity_csv_lines(matrix), text_out) - 1
        console.print(f"{count} defined class pairs → {escape(target)}")


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless one: "1 stored pair", "3 stored pairs"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _print_left_out(omitted: LeftOut, threshold: float | None) -> None:
    # What the corpus conventions left out, on standard error (the data went to stdout).
    if omitted.merged:
        console.print(
            f"{omitted.merged} duplicate pairs merged into their first "
            f"occurrence ({omitted.stored} stored, {omitted.distinct} distinct; "
            "--duplicates keeps every one)"
        )
    if omitted.flagged:
        kinds = ", ".join(f"{flag} {count}" for flag, count in omitted.flagged.items())
        console.print(
            f"{counted(sum(omitted.flagged.values()), 'flagged stored pair')} left out ({kinds}); "
            "--all keeps them"
        )
    if omitted.below_threshold:
        console.print(
            f"{counted(omitted.below_threshold, 'stored pair')} scoring below the default "
            f"threshold {threshold:.2f} left out; --min-score or --all keeps them"
        )


def _write_bytes(data: bytes, target: Path | IO[bytes]) -> None:
    if isinstance(target, Path):
        target.write_bytes(data)
    else:
        target.write(data)
        target.flush()


def _moses_written(corpus: MosesCorpus) -> str:
    # One line per language pair, so a multi-pair export says which files hold which pair.
    languages = (
        f" {corpus.src_lang}-{corpus.tgt_lang}" if corpus.src_lang and corpus.tgt_lang else ""
    )
    return f"{corpus.pairs}{languages} pairs → {corpus.src}, {corpus.tgt}"


def migrate_store() -> None:
    """Bring a store written by an older paramine up to date (PARAMINE_DATABASE_URL): the
    sentence pairs' dedup keys, flags and provenance columns, and missing indexes. A current
    store is unchanged."""
    # lazy: the store (SQLAlchemy) and the settings load when a command needs them
    from shared.config import get_settings
    from shared.store import Store, display_url
    from shared.store.migrate import migrate

    url = get_settings().database_url
    done = migrate(Store.existing(url).engine)  # a store of thesaurus tables alone: as it is
    if done.added_columns:
        console.print(
            f"{escape(display_url(url))}: added {', '.join(done.added_columns)}; "
            f"{done.pairs_updated} sentence pairs keyed and flagged"
        )
    if done.added_indexes:
        console.print(f"{escape(display_url(url))}: added {', '.join(done.added_indexes)}")
    if not done.added_columns and not done.added_indexes:
        console.print(f"{escape(display_url(url))} is up to date")


def register(app: typer.Typer) -> None:
    """Add the commands to the ``paramine`` application."""
    app.command("export")(export)
    app.command("migrate-store")(migrate_store)
