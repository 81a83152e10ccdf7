"""``paramine export`` and ``paramine migrate-store``: the store's contents out, by the
conventions a corpus user expects (standard output unless ``--out``, messages on standard
error, each distinct pair once, flagged pairs left out unless ``--all``), and an older
store brought up to date."""

from __future__ import annotations

import dataclasses
import itertools
import sys
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from services.cli.common import language_option

if TYPE_CHECKING:
    from shared.exports import MosesCorpus

console = Console(stderr=True, soft_wrap=True)  # a message is one line when piped


def _default_threshold() -> float:
    from services.sentence_align.classifier.pair_threshold import default_threshold

    return default_threshold()


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
        typer.Option(help=MIN_SCORE_HELP.format(threshold=_default_threshold()), min=0, max=1),
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
    from shared.config import get_settings
    from shared.exports import jsonl_lines, tsv_lines, write_lines, write_moses, write_tmx
    from shared.pair_query import sentence_pair_query
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
        query = sentence_pair_query(
            job=job,
            site=site,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            min_score=min_score,
            since=since,
            every=every,
            duplicates=duplicates,
            default_min_score=_default_threshold(),
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
        from services.thesaurus.repository import latest_similarity
        from shared.exports import similarity_csv_lines, similarity_npz_bytes

        matrix = latest_similarity(store.engine, thesaurus)
        if matrix is None:
            console.print("[red]no similarity snapshot[/red]: run `paramine thesaurus build` first")
            raise typer.Exit(1)
        if format is ExportFormat.thesaurus_npz:
            data = similarity_npz_bytes(
                matrix.class_ids, matrix.labels, matrix.values, matrix.rounds
            )
            _write_bytes(data, binary_out)
            size = len(matrix.class_ids)
            console.print(f"{size}×{size} similarity matrix → {escape(target)}")
        else:
            count = write_lines(similarity_csv_lines(matrix), text_out) - 1
            console.print(f"{count} defined class pairs → {escape(target)}")
        return
    if format is ExportFormat.ppdb:
        from services.paraphrase import repository
        from services.paraphrase.handler import recompute_phrase_table
        from services.paraphrase.phrases import format_ppdb

        # embedded mode has no periodic task: the export brings the snapshot up to date
        recompute_phrase_table(store)
        table = format_ppdb(repository.latest_phrase_table(store.engine, lang=src_lang))
        count = write_lines((line + "\n" for line in table), text_out)
        console.print(f"{count} paraphrase pairs → {escape(target)}")
        return
    reverse = dataclasses.replace(query, src_lang=tgt_lang, tgt_lang=src_lang)
    rows = store.iter_sentence_pairs(query)
    if either_direction:
        rows = itertools.chain(rows, map(turned, store.iter_sentence_pairs(reverse)))
    stored = _Occurrences(rows)
    if format is ExportFormat.moses:
        assert out is not None  # refused above
        for corpus in write_moses(stored, out, src_lang=src_lang, tgt_lang=tgt_lang):
            console.print(escape(_moses_written(corpus)))
    elif format is ExportFormat.tmx:
        count = write_tmx(stored, binary_out, srclang=src_lang)
        console.print(f"{count} translation units → {escape(target)}")
    else:
        lines = jsonl_lines(stored) if format is ExportFormat.jsonl else tsv_lines(stored)
        header = 1 if format is ExportFormat.tsv else 0  # the TSV's column line is no pair
        count = write_lines(lines, text_out) - header
        console.print(f"{count} sentence pairs → {escape(target)}")
    sys.stdout.flush()
    if stored.distinct == 0 and src_lang and tgt_lang and not either_direction:
        other_way = next(store.iter_sentence_pairs(dataclasses.replace(reverse, limit=1)), None)
        if other_way is not None:
            console.print(
                f"[red]no {escape(src_lang)}-{escape(tgt_lang)} pair[/red], but the store holds "
                f"{escape(tgt_lang)}-{escape(src_lang)} pairs (a single-page crawl stores the "
                f"direction page_match found): --src-lang {escape(tgt_lang)} --tgt-lang "
                f"{escape(src_lang)}, or --either-direction",
                soft_wrap=True,
            )
            raise typer.Exit(1)
    _print_left_out(stored, store.flag_counts(query) if not every else {})
    below = store.below_threshold(query)
    if below:
        console.print(
            f"{counted(below, 'stored pair')} scoring below the default threshold "
            f"{query.default_min_score:.2f} left out; --min-score or --all keeps them"
        )


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless one: "1 stored pair", "3 stored pairs"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def turned(row: dict[str, Any]) -> dict[str, Any]:
    """A sentence pair read the other way round: every src_ field swapped with its tgt_ one
    (the bead too: ``[0, 1]:[2]`` becomes ``[2]:[0, 1]``)."""
    turned_row = dict(row)
    for key in row:
        if key == "src" or key.startswith("src_"):
            other = "tgt" + key[3:]
            if other in row:
                turned_row[key], turned_row[other] = row[other], row[key]
    bead = row.get("bead")
    if isinstance(bead, str) and bead.count(":") == 1:
        left, right = bead.split(":")
        turned_row["bead"] = f"{right}:{left}"
    return turned_row


class _Occurrences:
    """Rows passed through, counting the distinct pairs and the stored rows they stand for."""

    def __init__(self, rows: Iterator[dict[str, Any]]) -> None:
        self.rows = rows
        self.distinct = 0
        self.occurrences = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self.rows:
            self.distinct += 1
            self.occurrences += int(row.get("count", 1))
            yield row


def _print_left_out(stored: _Occurrences, flagged: dict[str, int]) -> None:
    # What the corpus conventions left out, on standard error (the data went to stdout).
    if stored.occurrences > stored.distinct:
        console.print(
            f"{stored.occurrences - stored.distinct} duplicate pairs merged into their first "
            f"occurrence ({stored.occurrences} stored, {stored.distinct} distinct; "
            "--duplicates keeps every one)"
        )
    if flagged:
        kinds = ", ".join(f"{flag} {count}" for flag, count in flagged.items())
        console.print(
            f"{counted(sum(flagged.values()), 'flagged stored pair')} left out ({kinds}); "
            "--all keeps them"
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
