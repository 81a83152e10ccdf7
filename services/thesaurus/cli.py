"""Command-line entry points of the thesaurus stage."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from shared.errors import InvalidInput
from shared.ids import content_id

if TYPE_CHECKING:
    import sqlalchemy as sa

thesaurus_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Thesaurus import, similarity build and queries (Shinnou).",
)

DEFAULT_WORDNET_DIR = Path("/usr/share/wordnet")


def _engine(*, reading: bool = False) -> sa.Engine:
    """The store's engine; ``reading``: refuse a store that does not exist (one line, exit
    2) rather than create an empty one."""
    # lazy: SQLAlchemy, numpy and fugashi stay off paramine --help
    from services.thesaurus import repository
    from shared.config import get_settings
    from shared.store import Store, make_engine

    url = get_settings().database_url
    engine = Store.existing(url).engine if reading else make_engine(url)
    repository.ensure_schema(engine)
    return engine


def cooccurrences(file: Path) -> None:
    """Print line<TAB>noun<TAB>verb for every noun–を–verb cooccurrence (one sentence a line)."""
    from services.thesaurus.cooccur import extract_cooccurrences  # lazy: fugashi stays off --help

    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            for pair in extract_cooccurrences(line.rstrip("\n")):
                typer.echo(f"{number}\t{pair.noun}\t{pair.verb}")


@thesaurus_app.command("import-wordnet")
def import_wordnet(
    lemmas: Annotated[Path, typer.Option(help="OMW Japanese tab file (wn-*-jpn.tab).")],
    wordnet_dir: Annotated[
        Path, typer.Option(help="WordNet 3.0 dict dir (Debian wordnet-base).")
    ] = DEFAULT_WORDNET_DIR,
    name: Annotated[str, typer.Option(help="Name to store the thesaurus under.")] = "wordnet-jpn",
) -> None:
    """Build the WordNet noun-hypernym thesaurus with Japanese lemmas and store it."""
    # lazy: SQLAlchemy, numpy and fugashi stay off paramine --help
    from services.thesaurus import repository
    from services.thesaurus.thesauri import load_wordnet

    thesaurus = load_wordnet(wordnet_dir, lemmas, name=name)
    repository.save_thesaurus(_engine(), thesaurus)
    typer.echo(f"{name}: {len(thesaurus.leaves)} leaf classes, {len(thesaurus.words)} words")


@thesaurus_app.command("import-wlsp")
def import_wlsp(
    file: Path,
    koumoku1: Annotated[Path | None, typer.Option(help="koumoku1.txt (class names).")] = None,
    koumoku2: Annotated[Path | None, typer.Option(help="koumoku2.txt (section names).")] = None,
    encoding: Annotated[str, typer.Option(help="Encoding of FILE.")] = "cp932",
    leaf_level: Annotated[str, typer.Option(help="'item' (分類項目) or 'paragraph'.")] = "item",
    name: Annotated[str, typer.Option(help="Name to store the thesaurus under.")] = "wlsp",
) -> None:
    """Load a WLSP (Bunrui-goi-hyou) word database file and store it as a thesaurus."""
    # lazy: SQLAlchemy, numpy and fugashi stay off paramine --help
    from services.thesaurus import repository
    from services.thesaurus.thesauri import load_wlsp

    thesaurus = load_wlsp(
        file,
        koumoku1=koumoku1,
        koumoku2=koumoku2,
        encoding=encoding,
        leaf_level=leaf_level,
        name=name,
    )
    repository.save_thesaurus(_engine(), thesaurus)
    typer.echo(f"{name}: {len(thesaurus.leaves)} leaf classes, {len(thesaurus.words)} words")


@thesaurus_app.command("build")
def build(
    corpus: Annotated[list[Path], typer.Option(help="Text files or the livedoor tarball.")],
    thesaurus: Annotated[str | None, typer.Option(help="Stored thesaurus name.")] = None,
    min_pair: Annotated[int, typer.Option(help="Drop (noun, verb) seen fewer times.")] = 2,
    min_verb: Annotated[int, typer.Option(help="Drop verbs seen fewer times.")] = 21,
) -> None:
    """Record the corpus' cooccurrences in the store and recompute the similarity snapshot."""
    # lazy: SQLAlchemy, numpy, fugashi and tarfile stay off paramine --help
    from services.thesaurus import repository
    from services.thesaurus.cooccur import extract_cooccurrences
    from services.thesaurus.corpus import iter_sentences

    engine = _engine()
    thesaurus = _stored_thesaurus(engine, thesaurus)  # before minutes of corpus reading
    for path in corpus:
        observed = (
            (content_id(sentence, prefix="js"), extract_cooccurrences(sentence))
            for sentence in dict.fromkeys(iter_sentences(path))
        )
        inserted = repository.record_many(engine, observed)
        typer.echo(f"{path}: {inserted} new observations")
    snapshot_id = repository.rebuild_snapshot(
        engine,
        thesaurus,
        min_pair=min_pair,
        min_verb=min_verb,
    )
    snapshot = repository.load_snapshot(engine, snapshot_id)
    typer.echo(f"snapshot {snapshot_id}: {snapshot.summary}")


@thesaurus_app.command("recompute")
def recompute() -> None:
    """Recompute the similarity snapshots from the stored observations (what the scheduler
    does periodically): each thesaurus whose observations changed, with the parameters of its
    newest snapshot; prints the snapshot id per thesaurus."""
    # lazy: SQLAlchemy, pydantic-settings and prometheus_client stay off paramine --help
    from services.thesaurus.handler import recompute_snapshots
    from shared.config import get_settings
    from shared.store import Store

    snapshot_ids = recompute_snapshots(Store(get_settings().database_url))
    if not snapshot_ids:
        typer.echo("no thesaurus stored: import one first (paramine thesaurus import-...)")
        raise typer.Exit(1)
    for name, snapshot_id in snapshot_ids.items():
        typer.echo(f"{name}: snapshot {snapshot_id}")


def _stored_thesaurus(engine: sa.Engine, name: str | None) -> str:
    """``name`` if such a thesaurus is stored (else exit 2 naming the stored ones); without a
    name, the only stored thesaurus."""
    from services.thesaurus import repository  # lazy: off paramine --help, as in _engine

    names = repository.thesaurus_names(engine)
    if name is None:
        if len(names) == 1:
            return names[0]
        typer.echo(f"choose a thesaurus with --thesaurus (stored: {names})", err=True)
        raise typer.Exit(2)
    if name not in names:
        typer.echo(f"no thesaurus named {name!r} (stored: {names})", err=True)
        raise typer.Exit(2)
    return name


def _snapshot_thesaurus(engine: sa.Engine, name: str | None) -> str | None:
    """The thesaurus to answer from: checked when named; exit 1 when it has no snapshot."""
    from services.thesaurus import repository  # lazy: off paramine --help, as in _engine

    if name is not None:
        _stored_thesaurus(engine, name)
    if repository.latest_snapshot_id(engine, name) is None:
        typer.echo("no similarity snapshot yet: run `paramine thesaurus build`", err=True)
        raise typer.Exit(1)
    return name


def _similarity_text(first: str, second: str, thesaurus: str | None) -> str:
    from services.thesaurus import repository  # lazy: off paramine --help, as in _engine

    engine = _engine(reading=True)
    thesaurus = _snapshot_thesaurus(engine, thesaurus)
    answer = repository.similarity(engine, first, second, thesaurus_name=thesaurus)
    return "" if answer is None or answer.match is None else f"{answer.match.value:.6g}"


@thesaurus_app.command("similarity")
def similarity(
    first: str,
    second: str,
    thesaurus: Annotated[str | None, typer.Option(help="Stored thesaurus name.")] = None,
) -> None:
    """Print the similarity of two words (max over their classes; empty when undefined)."""
    typer.echo(_similarity_text(first, second, thesaurus))


@thesaurus_app.command("score")
def score(
    pairs: Path,
    thesaurus: Annotated[str | None, typer.Option(help="Stored thesaurus name.")] = None,
) -> None:
    """Read a CSV of word1,word2 and print it with a similarity column added (one output row
    per input row; a row without two words is refused with its line number)."""
    from services.thesaurus import repository  # lazy: off paramine --help, as in _engine

    engine = _engine(reading=True)
    thesaurus = _snapshot_thesaurus(engine, thesaurus)
    writer = csv.writer(sys.stdout, lineterminator="\r\n")  # RFC 4180; quotes a bare CR
    with pairs.open(encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle), start=1):
            if not row:
                continue  # a blank line
            if len(row) < 2:
                raise InvalidInput(f"{pairs}:{number}: expected word1,word2, got {row!r}")
            if number == 1 and row[:2] == ["word1", "word2"]:
                writer.writerow([*row, "similarity"])
                continue
            answer = repository.similarity(engine, row[0], row[1], thesaurus_name=thesaurus)
            match = None if answer is None else answer.match
            writer.writerow([*row, "" if match is None else f"{match.value:.6g}"])


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this stage's commands to the root ``paramine`` app and its ``eval`` group."""
    app.command("cooccurrences")(cooccurrences)
    app.add_typer(thesaurus_app, name="thesaurus")
