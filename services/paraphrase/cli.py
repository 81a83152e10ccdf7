"""Command-line entry points of the paraphrase stage."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from shared.errors import InvalidInput


def _tsv_pairs(path: Path) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            raise InvalidInput(f"{path}:{number}: expected two tab-separated fields")
        pairs.append((fields[0], fields[1]))
    return pairs


def mine_endings_command(
    pairs_tsv: Annotated[Path, typer.Argument(help="web<TAB>mobile sentence pairs")],
    unit: Annotated[str, typer.Option(help="char or word (morpheme) suffixes")] = "char",
    top: Annotated[int, typer.Option(help="candidates per action noun")] = 10,
) -> None:
    """Rank sentence-ending paraphrases of action nouns: noun, rank, candidate, score."""
    from services.paraphrase.endings import mine_endings

    if unit not in ("char", "word"):
        raise typer.BadParameter("--unit must be char or word")
    table = mine_endings(_tsv_pairs(pairs_tsv), unit="char" if unit == "char" else "word", top=top)
    for noun, candidates in table.items():
        for rank, candidate in enumerate(candidates, start=1):
            typer.echo(f"{noun}\t{rank}\t{candidate.suffix}\t{candidate.score:.4f}")


def align_words_command(
    pairs_tsv: Annotated[Path, typer.Argument(help="source<TAB>target whitespace-token lines")],
    train: Annotated[Path | None, typer.Option(help="more pairs to train on")] = None,
    symmetrize: Annotated[str, typer.Option(help="symmetrisation heuristic")] = "intersection",
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="no progress bar")] = False,
) -> None:
    """Align words of each pair (IBM-1 + HMM both ways); one Pharaoh line of i-j links each.

    While EM trains, a progress bar (iteration, model, log-likelihood) goes to stderr when
    stderr is a terminal, unless ``-q``; stdout carries only the links.
    """
    import sys

    from rich.console import Console
    from rich.progress import Progress

    from services.paraphrase.evaluate import format_links
    from services.paraphrase.word_align import (
        SYMMETRIZATIONS,
        AlignerConfig,
        TrainingProgress,
        WordAligner,
    )

    if symmetrize not in SYMMETRIZATIONS:
        raise typer.BadParameter(f"--symmetrize must be one of {', '.join(SYMMETRIZATIONS)}")
    pairs = [(s.split(), t.split()) for s, t in _tsv_pairs(pairs_tsv)]
    extra = [(s.split(), t.split()) for s, t in _tsv_pairs(train)] if train else []
    config = AlignerConfig(symmetrize=symmetrize)  # type: ignore[arg-type]
    console = Console(stderr=True)
    steps = 2 * (config.ibm1_iterations + config.hmm_iterations)
    with Progress(
        *Progress.get_default_columns(), console=console, disable=quiet or not sys.stderr.isatty()
    ) as bar:
        task = bar.add_task("EM", total=steps)

        def progress(event: TrainingProgress) -> None:
            way = "source->target" if event.direction == 0 else "target->source"
            text = f"EM {event.step}/{steps} {event.model} {way} log-lik {event.log_likelihood:.1f}"
            bar.update(task, completed=event.step, description=text)

        aligner = WordAligner(config).fit(pairs + extra, progress=progress)
    for source, target in pairs:
        typer.echo(format_links(aligner.align(source, target)))


def eval_alignments_command(
    gold: Annotated[Path, typer.Argument(help="jacana JSON gold (sureAlign, possibleAlign)")],
    predicted: Annotated[Path, typer.Argument(help="one Pharaoh line of i-j links per pair")],
    possible: Annotated[
        Path | None, typer.Option(help="jacana sure+possible JSON (e.g. gold.test.sure+poss.json)")
    ] = None,
) -> None:
    """Word P/R/F1/AER (all and non-identical links) and phrase P/R/F1 against gold."""
    from services.paraphrase.evaluate import phrase_scores, read_jacana, read_pharaoh, word_scores

    reference = read_jacana(gold, possible)
    links = read_pharaoh(predicted)
    for label, only in (("all", False), ("non-identical", True)):
        s = word_scores(links, reference, only_non_identical=only)
        typer.echo(
            f"words {label}\tP={s.precision:.4f}\tR={s.recall:.4f}\tF1={s.f1:.4f}\tAER={s.aer:.4f}"
        )
    p = phrase_scores(links, reference)
    typer.echo(f"phrases atomic\tP={p.precision:.4f}\tR={p.recall:.4f}\tF1={p.f1:.4f}")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this stage's commands to the root ``paramine`` app and its ``eval`` group."""
    app.command("mine-endings")(mine_endings_command)
    app.command("align-words")(align_words_command)
    eval_app.command("alignments")(eval_alignments_command)
