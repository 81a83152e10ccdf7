"""Tests of the tree_align commands: align-trees and train-tree-model."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.tree_align.cli import page_pair_files
from services.tree_align.model import TreeModel, initial_model
from shared.errors import InvalidInput

SRC = (
    "<html><body><div><p>Ein ziemlich langer erster Absatz steht hier.</p>"
    "<p>Kurz.</p></div></body></html>"
)
TGT = (
    "<html><body><p>A fairly long first paragraph is standing here.</p><p>Short.</p></body></html>"
)


@pytest.fixture
def pages(tmp_path: Path) -> Path:
    (tmp_path / "a.de.html").write_text(SRC, encoding="utf-8")
    (tmp_path / "a.en.html").write_text(TGT, encoding="utf-8")
    (tmp_path / "b.de.html").write_text(SRC.replace("Kurz", "Knapp"), encoding="utf-8")
    (tmp_path / "b.en.html").write_text(TGT, encoding="utf-8")
    (tmp_path / "c.de.html").write_text(SRC, encoding="utf-8")  # no partner: ignored
    return tmp_path


def _align_trees_report(pages: Path, model: Path) -> dict[str, Any]:
    """``align-trees --json`` on the pair ``a`` with ``model``, exit code 0 required."""
    result = CliRunner().invoke(
        app,
        ["align-trees", str(pages / "a.de.html"), str(pages / "a.en.html"), "--json",
         "--model", str(model)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.output)
    return report


def test_align_trees_json(pages: Path, tmp_path: Path) -> None:
    model = tmp_path / "initial.json"
    initial_model(["html", "body", "div", "p"], deletion=0.1).save(model)
    report = _align_trees_report(pages, model)
    assert report["src_nodes"] > 0 and report["tgt_nodes"] > 0
    assert report["aligned_pairs"] == len(report["pairs"])
    assert report["aligned_pairs"] + report["deleted_src"] == report["src_nodes"]
    texts = {(p["src_xpath"], p["tgt_xpath"]) for p in report["pairs"]}
    assert ("/html/body/div/p[1]/text()[1]", "/html/body/p[1]/text()[1]") in texts
    assert ("/html/body/div/p[2]/text()[1]", "/html/body/p[2]/text()[1]") in texts


def test_page_pair_files_reads_directories_and_colon_pairs(pages: Path) -> None:
    pairs = page_pair_files([str(pages), f"{pages / 'a.de.html'}:{pages / 'b.en.html'}"])
    names = [(a.name, b.name) for a, b in pairs]
    assert names == [
        ("a.de.html", "a.en.html"),
        ("b.de.html", "b.en.html"),
        ("a.de.html", "b.en.html"),
    ]
    with pytest.raises(InvalidInput):
        page_pair_files([str(pages / "missing.html")])


def test_train_tree_model_writes_a_loadable_model(pages: Path, tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    result = CliRunner().invoke(
        app, ["train-tree-model", str(pages), "--out", str(out), "--iterations", "2"]
    )
    assert result.exit_code == 0, result.output
    model = TreeModel.load(out)
    assert model.iterations >= 1
    assert model.trained_on == "2 page pairs"


def test_train_tree_model_json_reports_the_em_run(pages: Path, tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    result = CliRunner().invoke(
        app, ["train-tree-model", str(pages), "--out", str(out), "--iterations", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)  # nothing but the JSON document on stdout
    assert report["page_pairs"] == 2 and report["out"] == str(out)
    assert 1 <= len(report["log_likelihoods"]) <= 2
    assert report["log_likelihoods"] == sorted(report["log_likelihoods"])  # EM never decreases


def test_train_progress_reports_every_iteration(pages: Path) -> None:
    from services.tree_align.cli import _parse
    from services.tree_align.train import train

    trees = [
        (_parse(a, fold_inline=True), _parse(b, fold_inline=True))
        for a, b in page_pair_files([str(pages)])
    ]
    seen: list[tuple[int, float]] = []
    result = train(trees, max_iterations=3, tol=-1.0, progress=lambda i, ll: seen.append((i, ll)))
    assert seen == list(enumerate(result.log_likelihoods))
    assert len(seen) == 3


def test_a_model_trained_without_smoothing_aligns(pages: Path, tmp_path: Path) -> None:
    # long EM without smoothing drove Pr_del(html) to 0: saved as 0.0, the decoder met NaN
    out = tmp_path / "model.json"
    trained = CliRunner().invoke(
        app,
        ["train-tree-model", str(pages), "--out", str(out), "--iterations", "14", "--tol", "-1",
         "--smoothing", "0", "-q"],
    )  # fmt: skip
    assert trained.exit_code == 0, trained.output
    report = _align_trees_report(pages, out)
    assert math.isfinite(report["cost"]) and report["aligned_pairs"] > 0
