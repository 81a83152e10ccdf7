"""Tests of the align-sentences and eval beads commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.sentence_align.aligners.beads import check_coverage, parse_beads

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
    lines = result.stdout.strip().splitlines()
    assert all("\t" in line for line in lines)
    beads = parse_beads(lines)
    check_coverage(beads, 3, 3)
    # Lexical aligners add each bead's posterior probability as a third column.
    with_confidence = method in ("lexicon", "hybrid")
    assert all((bead.confidence is not None) == with_confidence for bead in beads)


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
    # the same choices as align-pages --method: usage error, exit 2, no traceback
    assert result.exit_code == 2
    assert "'neural' is not one of" in " ".join(result.output.split())


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


def test_eval_beads_reports_confidences_when_the_beads_have_them(tmp_path: Path) -> None:
    gold = tmp_path / "gold"
    gold.write_text("[0]:[0]\n[1]:[1, 2]\n[]:[3]\n[2]:[4]\n", encoding="utf-8")
    plain, scored = tmp_path / "plain", tmp_path / "scored"
    plain.write_text("[0]:[0]\t0.1\n[1]:[1, 2, 3]\t0.2\n[2]:[4]\t0.3\n", encoding="utf-8")
    scored.write_text(
        "[0]:[0]\t0.1\t0.95\n[1]:[1, 2, 3]\t0.2\t0.6\n[2]:[4]\t0.3\t0.92\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["eval", "beads", str(gold), str(plain), str(scored)])
    assert result.exit_code == 0, result.output
    # Pairs: two right (0.95, 0.92 in the 0.9-0.95 and 0.95-0.99 groups, |0.92 - 1| and
    # |0.95 - 1|), one wrong (0.6, |0.6 - 0|): error (0.08 + 0.05 + 0.6) / 3; two of three
    # pairs kept at 0.9, both right, two of the gold's three pairs found.
    assert (
        f"{scored}: confidence calibration error 0.243; pairs with confidence >= 0.9: 67% "
        "kept, precision 1.000, recall 0.667 (strict)"
    ) in result.output
    assert f"{plain}: confidence" not in result.output


def test_align_sentences_help_shows_the_bead_format() -> None:
    # Typer renders help as rich markup, where "[i, j]" would be read as a tag and vanish.
    result = runner.invoke(app, ["align-sentences", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "[i, j]:[k]" in result.output


def test_eval_beads_prints_file_names_as_written(tmp_path: Path) -> None:
    # Rich markup would swallow "[hybrid]" as a style tag; file names are printed escaped.
    folder = tmp_path / "[hybrid]"
    folder.mkdir()
    gold, test = folder / "gold", folder / "test"
    gold.write_text("[0]:[0]\n[1]:[1]\n", encoding="utf-8")
    test.write_text("[0]:[0]\t0.1\t0.9\n[1]:[1]\t0.2\t0.8\n", encoding="utf-8")
    result = runner.invoke(app, ["eval", "beads", str(gold), str(test)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert f"{test}: confidence calibration error" in result.output
