"""Command-line entry points of the paraphrase stage."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

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
    from services.paraphrase.endings import mine_endings  # lazy: fugashi stays off --help

    if unit not in ("char", "word"):
        raise typer.BadParameter("--unit must be char or word")
    table = mine_endings(_tsv_pairs(pairs_tsv), unit="char" if unit == "char" else "word", top=top)
    for noun, candidates in table.items():
        for rank, candidate in enumerate(candidates, start=1):
            typer.echo(f"{noun}\t{rank}\t{candidate.suffix}\t{candidate.score:.4f}")


def align_words_command(
    pairs_tsv: Annotated[Path, typer.Argument(help="source<TAB>target whitespace-token lines")],
    train: Annotated[Path | None, typer.Option(help="more pairs to train the HMM on")] = None,
    model: Annotated[
        Path | None, typer.Option(help="word model file (default: the one shipped)")
    ] = None,
    unsupervised: Annotated[
        bool, typer.Option("--unsupervised", help="IBM-1 + HMM alone, no link model")
    ] = False,
    symmetrize: Annotated[
        str, typer.Option(help="symmetrisation heuristic (with --unsupervised)")
    ] = "intersection",
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="no progress bar")] = False,
) -> None:
    """Align words of each pair; one Pharaoh line of i-j links each.

    By default with the shipped word model (``services/paraphrase/word_model.json``, trained
    by ``paramine train-word-model`` on gold): the IBM-1 + HMM aligner is trained on the pairs
    (unsupervised), a supervised link classifier decides every cell, and identical words left
    unlinked are linked one to one. ``--unsupervised`` gives the HMM's symmetrised links alone.
    While EM trains, a progress bar goes to stderr when stderr is a terminal, unless ``-q``;
    stdout carries only the links.
    """
    # lazy: rich.progress, numpy and the word model (LightGBM, numba) stay off paramine --help
    from rich.progress import Progress

    from services.paraphrase.evaluate import format_links
    from services.paraphrase.word_align import (
        SYMMETRIZATIONS,
        AlignerConfig,
        TrainingProgress,
        WordAligner,
    )
    from services.paraphrase.word_model import MAX_PAIR_TOKENS, load_word_model

    if symmetrize not in SYMMETRIZATIONS:
        raise typer.BadParameter(f"--symmetrize must be one of {', '.join(SYMMETRIZATIONS)}")
    if unsupervised and model is not None:
        raise typer.BadParameter("--model and --unsupervised exclude each other")
    pairs = [(s.split(), t.split()) for s, t in _tsv_pairs(pairs_tsv)]
    extra = [(s.split(), t.split()) for s, t in _tsv_pairs(train)] if train else []
    console = Console(stderr=True)
    if not unsupervised:
        word_model = load_word_model(model)
        missing = word_model.missing_features()
        if missing:
            console.print(f"warning: {missing}", highlight=False)
        long = sum(1 for s, t in pairs if max(len(s), len(t)) > MAX_PAIR_TOKENS)
        if long:
            console.print(
                f"{long} pairs over {MAX_PAIR_TOKENS} tokens a side: "
                "linked by identical words only",
                highlight=False,
            )
        for links in word_model.align_corpus(pairs, extra):
            typer.echo(format_links(links))
        return
    config = AlignerConfig(symmetrize=symmetrize)  # type: ignore[arg-type]
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


def _possible_file(gold: Path) -> Path | None:
    # jacana ships sure and sure+possible links as two files: X.sure.json + X.sure+poss.json
    # (Edinburgh++) or X.json + X.sure+poss.json (MSR RTE)
    stem = gold.name.removesuffix(".json").removesuffix(".sure")
    candidate = gold.with_name(f"{stem}.sure+poss.json")
    return candidate if candidate.exists() and candidate != gold else None


def train_word_model_command(
    gold: Annotated[
        list[Path],
        typer.Argument(
            help="jacana JSON gold files (sureAlign); each is one corpus of the cross-validation"
        ),
    ],
    out: Annotated[Path, typer.Option(help="where to write the model (JSON)")],
    no_wordnet: Annotated[
        bool, typer.Option("--no-wordnet", help="fit without WordNet features")
    ] = False,
) -> None:
    """Fit the supervised word-alignment model on gold, thresholds chosen by cross-validation.

    The classifier learns from the sure links; its two thresholds and the identity rule are
    chosen by 3-fold cross-validation on these files alone, maximising the mean F1 over the
    files (a sibling ``*.sure+poss.json`` gives the possible links the F1 counts as correct).
    """
    # lazy: numpy and the word model (LightGBM, numba) stay off paramine --help
    from services.paraphrase.evaluate import read_jacana
    from services.paraphrase.word_model import train_word_model

    corpora = [(path.name, read_jacana(path, _possible_file(path))) for path in gold]
    model = train_word_model(
        corpora,
        use_wordnet=not no_wordnet,
        progress=lambda text: typer.echo(text, err=True),
    )
    out.write_text(model.to_json(), encoding="utf-8")
    record = ", ".join(f"{name} {value:.3f}" for name, value in model.cross_validation)
    typer.echo(f"wrote {out}: {record}", err=True)


def eval_alignments_command(
    gold: Annotated[Path, typer.Argument(help="jacana JSON gold (sureAlign, possibleAlign)")],
    predicted: Annotated[Path, typer.Argument(help="one Pharaoh line of i-j links per pair")],
    possible: Annotated[
        Path | None, typer.Option(help="jacana sure+possible JSON (e.g. gold.test.sure+poss.json)")
    ] = None,
) -> None:
    """Word P/R/F1/AER (all and non-identical links) and phrase P/R/F1 against gold."""
    # lazy: numpy stays off paramine --help
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
    app.command("train-word-model")(train_word_model_command)
    eval_app.command("alignments")(eval_alignments_command)
