"""`make run` shows the whole product: the sample crawl goes through every stage, and the
summary names each output, where it is and a command that shows it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from shared.config import get_settings
from tests.conftest import REPO


def test_make_run_is_process_on_the_sample_crawl() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^run: .*\n\t\$\(BIN\)/paramine process samples/crawl samples/pages.jsonl "
                     r"--out out$",
                     makefile, re.M)  # fmt: skip


def test_the_sample_crawl_exercises_every_stage_and_every_output_can_be_looked_at(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARAMINE_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        crawl = [str(REPO / "samples" / "crawl"), str(REPO / "samples" / "pages.jsonl")]
        result = CliRunner().invoke(app, ["process", *crawl, "--json"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    for stage, counts in report["stages"].items():
        assert counts["in"] > 0 and counts["failed"] == 0, stage  # paraphrase, thesaurus too
    outputs = {row["what"]: row for row in report["outputs"]}
    expected = {"sentence pairs (JSONL)", "phrase paraphrases (PPDB, store)",
                "thesaurus (noun, を, verb) counts (store)", "store (every job)"}  # fmt: skip
    assert expected <= set(outputs)
    assert outputs["store (every job)"]["where"] == str(tmp_path / "data/paramine/paramine.db")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    env.pop("PARAMINE_DATABASE_URL", None)
    for row in report["outputs"]:
        if row["count"] is not None:
            assert row["count"] > 0, row["what"]
            for path in row["where"].split(", "):
                assert Path(path).stat().st_size > 0, path
        shown = subprocess.run(["bash", "-c", row["look"]], env=env, cwd=tmp_path,
                               capture_output=True, text=True, check=False)  # fmt: skip
        assert shown.returncode == 0 and shown.stdout.strip(), (row["look"], shown.stderr)


def test_the_summary_table_lists_the_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["process", str(REPO / "samples" / "crawl")])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    for text in ("out/paraphrases.ppdb", "out/cooccurrences.tsv", "out/sentence_pairs.jsonl",
                 str(tmp_path / "store.db"), "head -n 3 out/sentence_pairs.jsonl",
                 "paramine export | head", "distinct exported"):  # fmt: skip
        assert text in result.stdout, text
