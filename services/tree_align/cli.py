"""Command-line entry points of the tree_align stage: align-trees and train-tree-model."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from shared.errors import InvalidInput

if TYPE_CHECKING:
    from services.html.tag_tree import TagTree
    from services.tree_align.model import TreeModel

_PAIRS_HELP = (
    "page pairs: SRC.html:TGT.html arguments, or directories holding <id>.<lang>.html files "
    "(pages with the same id pair up; the two languages are sorted by name, first = source)"
)
_PAGE_NAME = re.compile(r"^(?P<id>.+)\.(?P<lang>[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)?)\.html?$")


def _parse(path: Path, *, fold_inline: bool) -> TagTree:
    from services.html.parse import block_tree, parse_html  # lazy: lxml stays off --help

    try:
        tree = parse_html(path.read_bytes())
    except InvalidInput as error:
        raise typer.BadParameter(f"{path}: {error}") from None
    return block_tree(tree) if fold_inline else tree


_FOLD_HELP = "fold inline markup into one text leaf per block first (as align-pages does)"


def _model(path: Path | None) -> TreeModel:
    # lazy: numpy and scipy stay off paramine --help
    from services.tree_align.model import TreeModel, default_model

    return TreeModel.load(path) if path else default_model()


def align_trees_command(
    src: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="source page")],
    tgt: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="target page")],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
    model_path: Annotated[
        Path | None, typer.Option("--model", help="tree model JSON (default: shipped model)")
    ] = None,
    band: Annotated[
        float | None, typer.Option(help="pruning: max relative position gap of a node pair")
    ] = None,
    fold_inline: Annotated[bool, typer.Option(help=_FOLD_HELP)] = True,
) -> None:
    """Align the tag trees of two pages: node pairs, costs, node counts and seconds."""
    from services.tree_align.decoder import align_trees  # lazy: numba stays off --help

    model = _model(model_path)
    src_tree, tgt_tree = _parse(src, fold_inline=fold_inline), _parse(tgt, fold_inline=fold_inline)
    alignment = align_trees(src_tree, tgt_tree, model, band=band)
    pairs = [
        {
            "src": int(x),
            "tgt": int(y),
            "src_label": src_tree.label(int(x)),
            "tgt_label": tgt_tree.label(int(y)),
            "src_xpath": src_tree.xpath(int(x)),
            "tgt_xpath": tgt_tree.xpath(int(y)),
        }
        for x, y in alignment.pairs
    ]
    summary = {
        "cost": alignment.cost,
        "src_nodes": src_tree.size,
        "tgt_nodes": tgt_tree.size,
        "aligned_pairs": len(pairs),
        "deleted_src": len(alignment.deleted_src()),
        "deleted_tgt": len(alignment.deleted_tgt()),
        "seconds": round(alignment.seconds, 4),
    }
    if as_json:
        typer.echo(json.dumps({**summary, "pairs": pairs}, ensure_ascii=False))
        return
    for pair in pairs:
        typer.echo(f"{pair['src_xpath']}\t{pair['tgt_xpath']}")
    typer.echo(" ".join(f"{key}={value}" for key, value in summary.items()), err=True)


def page_pair_files(specs: list[str]) -> list[tuple[Path, Path]]:
    """Resolve ``a.html:b.html`` arguments and directories of ``<id>.<lang>.html`` files."""
    pairs: list[tuple[Path, Path]] = []
    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            pairs.extend(_directory_pairs(path))
            continue
        src, sep, tgt = spec.rpartition(":")
        if not sep or not Path(src).is_file() or not Path(tgt).is_file():
            raise InvalidInput(
                f"{spec!r} is neither a directory nor SRC.html:TGT.html of two files"
            )
        pairs.append((Path(src), Path(tgt)))
    return pairs


def _directory_pairs(directory: Path) -> list[tuple[Path, Path]]:
    by_id: dict[str, dict[str, Path]] = {}
    for file in sorted(directory.iterdir()):
        match = _PAGE_NAME.match(file.name)
        if match and file.is_file():
            by_id.setdefault(match["id"], {})[match["lang"]] = file
    pairs = []
    for pages in by_id.values():
        if len(pages) == 2:
            first, second = sorted(pages)
            pairs.append((pages[first], pages[second]))
    return pairs


def train_tree_model_command(
    pairs: Annotated[list[str], typer.Argument(help=_PAIRS_HELP)],
    out: Annotated[Path, typer.Option(help="where to write the trained model JSON")],
    iterations: Annotated[int, typer.Option(help="maximum EM iterations")] = 10,
    tol: Annotated[float, typer.Option(help="stop when the log-likelihood gains less")] = 1e-2,
    smoothing: Annotated[
        float,
        typer.Option(help="weight of the initial model mixed in after training", min=0.0, max=1.0),
    ] = 0.01,
    fold_inline: Annotated[bool, typer.Option(help=_FOLD_HELP)] = True,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON summary")] = False,
    quiet: Annotated[bool, typer.Option("-q", "--quiet", help="no progress bar")] = False,
) -> None:
    """Train Pr_tag and Pr_del by EM (inside-outside) on page pairs and write the model."""
    # lazy: rich.progress, numpy, scipy and numba stay off paramine --help
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from services.tree_align.model import initial_model
    from services.tree_align.train import smooth, train

    files = page_pair_files(pairs)
    if not files:
        raise typer.BadParameter("no page pairs found")
    trees = [
        (_parse(src, fold_inline=fold_inline), _parse(tgt, fold_inline=fold_inline))
        for src, tgt in files
    ]
    with Progress(
        TextColumn("[bold]EM"),
        BarColumn(),
        TextColumn("iteration {task.completed}/{task.total}"),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=quiet or as_json,
    ) as bar:
        task = bar.add_task("log-likelihood ?", total=iterations)

        def progress(step: int, log_likelihood: float) -> None:
            bar.update(task, completed=step + 1, description=f"log-likelihood {log_likelihood:.3f}")

        result = train(trees, max_iterations=iterations, tol=tol, progress=progress)
    model = smooth(result.model, initial_model(result.model.labels), smoothing)
    model = replace(model, trained_on=f"{len(trees)} page pairs")
    model.save(out)
    if as_json:
        summary = {
            "out": str(out),
            "page_pairs": len(trees),
            "labels": len(model.labels),
            "iterations": model.iterations,
            "log_likelihoods": result.log_likelihoods,
        }
        typer.echo(json.dumps(summary))
    elif not quiet:
        typer.echo(f"wrote {out} ({len(model.labels)} labels, {model.iterations} EM iterations)")


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this stage's commands to the root ``paramine`` app and its ``eval`` group."""
    del eval_app
    app.command("align-trees")(align_trees_command)
    app.command("train-tree-model")(train_tree_model_command)
