"""Tests of the align-sentences and eval beads commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.sentence_align.beads import check_coverage, parse_beads

runner = CliRunner()


@pytest.mark.parametrize("method", ["length", "lexicon", "hybrid", "anchors"])
def test_align_sentences_presplit_prints_vecalign_beads(tmp_path: Path, method: str) -> None:
    src = tmp_path / "a.de"
    tgt = tmp_path / "a.fr"
    src.write_text("Der Berg ist hoch.\nWir stiegen auf.\nEnde 1956.\n", encoding="utf-8")
    tgt.write_text("La montagne est haute.\nNous sommes montés.\nFin 1956.\n", encoding="utf-8")
    result = runner.invoke(
        app, ["align-sentences", str(src), str(tgt), "--presplit", "--method", method]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert all("\t" in line for line in lines)
    check_coverage(parse_beads(lines), 3, 3)


def test_align_sentences_splits_running_text(tmp_path: Path) -> None:
    src = tmp_path / "a.txt"
    tgt = tmp_path / "b.txt"
    src.write_text("Der Berg ist hoch. Wir stiegen auf.", encoding="utf-8")
    tgt.write_text("La montagne est haute. Nous sommes montés.", encoding="utf-8")
    result = runner.invoke(
        app,
        [
            "align-sentences",
            str(src),
            str(tgt),
            "--src-lang",
            "de",
            "--tgt-lang",
            "fr",
            "--method",
            "length",
        ],
    )
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[0] for line in result.output.strip().splitlines()] == [
        "[0]:[0]",
        "[1]:[1]",
    ]


def test_unknown_method_fails_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("a\n", encoding="utf-8")
    result = runner.invoke(
        app, ["align-sentences", str(path), str(path), "--presplit", "--method", "neural"]
    )
    assert result.exit_code != 0
    assert "unknown sentence alignment method" in result.output


def test_eval_beads_prints_scores(tmp_path: Path) -> None:
    gold = tmp_path / "gold"
    test = tmp_path / "test"
    gold.write_text("[0]:[0]\n[1]:[1, 2]\n[]:[3]\n[2]:[4]\n", encoding="utf-8")
    test.write_text(
        "[0]:[0]\t0.1\n[1]:[1]\t0.2\n[]:[2]\t1\n[]:[3]\t1\n[2]:[4]\t0.3\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["eval", "beads", str(gold), str(test)])
    assert result.exit_code == 0, result.output
    # Hand-computed in test_evaluate: P/R/F1 strict .600/.667/.632, lax .800/1.000/.889.
    for value in ("0.600", "0.667", "0.632", "0.800", "1.000", "0.889"):
        assert value in result.output
    # Four blocks hold beads (see test_evaluate); the one with the two wrong test beads and
    # the wrong gold bead drawn in every resample gives F1 0, in none gives 1.
    assert "0.000-1.000" in result.output


def test_eval_beads_interval_of_a_perfect_alignment(tmp_path: Path) -> None:
    gold = tmp_path / "gold"
    gold.write_text("[0]:[0]\n[1]:[1, 2]\n[]:[3]\n[2]:[4]\n", encoding="utf-8")
    result = runner.invoke(app, ["eval", "beads", str(gold), str(gold)])
    assert result.exit_code == 0, result.output
    assert "1.000-1.000" in result.output
