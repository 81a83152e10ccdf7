"""Tests of the root CLI's printed reports and of its exports (services/cli/)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.cli.processing import print_failures, print_summary
from shared.config import get_settings
from shared.schemas import STAGES
from shared.store import Store
from tests.conftest import REPO


def test_job_summary_prints_failure_reasons_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reasons come from hostile input and library messages; as rich markup, "[type=...]"
    # vanished and "[/b]" raised MarkupError after the job had run.
    stages = {
        stage: {"in": 1, "out": 0, "failed": 1, "seconds": 0.1} for stage in ("ingest", *STAGES)
    }
    reasons = [
        "pair 3: Input should be a valid string [type=string_type, input_value=3]",
        "page.html: unexpected [/b] in <b>",
    ]
    report = {
        "job_id": "job-[1]",
        "stages": stages,
        "page_pairs": 2,
        "sentence_pairs": 0,
        "exported": 0,
        "duplicates_merged": 0,
        "flagged_left_out": {"wrong-language": 1},
        "outputs": [{"what": "store", "where": "x/[y].db", "count": None, "look": "cat [z]"}],
        "output": "out/[run]",
        "moses": ["out/[run]/sentence_pairs.en-de.en", "out/[run]/sentence_pairs.en-de.de"],
        "pages_waiting": 0,
        "failures": [
            {"stage": "ingest", "reason": reason, "count": 1, "of": "inputs", "line": reason}
            for reason in reasons
        ],
    }
    monkeypatch.setenv("COLUMNS", "400")  # one line per reason
    print_summary(report)
    print_failures(report)
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    for reason in reasons:
        assert f"failed {reason}" in printed
    assert "x/[y].db" in printed and "cat [z]" in printed and "1 wrong-language" in printed
    assert "job-[1]" in printed


# Sentence pairs of three language pairs, interleaved as a crawl of several sites stores them.
LANGUAGE_PAIRS = [("en", "fr"), ("en", "de"), ("ja", "ja"), ("en", "de"), ("en", "fr")]


def sentence_row(position: int, src_lang: str, tgt_lang: str) -> dict[str, Any]:
    return {
        "id": f"sp-{position}",
        "pair_id": "pp-mixed",
        "kind": "translation",
        "src_url": f"https://example.org/{src_lang}/{position}",
        "tgt_url": f"https://example.org/{tgt_lang}/{position}",
        "site": "example.org",
        "src_lang": src_lang,
        "tgt_lang": tgt_lang,
        "src_text": f"{src_lang} sentence {position}",
        "tgt_text": f"{tgt_lang} Satz {position}",
        "score": 0.9,
        "bead": "[0]:[0]",
        "chunk": 0,
        "position": position,
    }


@pytest.fixture
def mixed_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp SQLite store of LANGUAGE_PAIRS rows; the working directory is a fresh folder."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", url)
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "400")  # one printed line per corpus
    get_settings.cache_clear()
    rows = [sentence_row(n, src, tgt) for n, (src, tgt) in enumerate(LANGUAGE_PAIRS)]
    Store(url).add_sentence_pairs(rows, pair_id="pp-mixed", stage="sentence_align")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield work
    get_settings.cache_clear()


def moses_pairs(src: Path, tgt: Path) -> list[tuple[str, str]]:
    return list(
        zip(src.read_text("utf-8").splitlines(), tgt.read_text("utf-8").splitlines(), strict=True)
    )


def test_moses_export_writes_each_language_pair_to_its_own_files(mixed_store: Path) -> None:
    # All pairs went into two files named after the first row's languages (German and
    # Japanese in corpus.fr).
    result = CliRunner().invoke(app, ["export", "--format", "moses", "--out", "corpus"])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in mixed_store.iterdir()) == [
        "corpus.en-de.de", "corpus.en-de.en", "corpus.en-fr.en", "corpus.en-fr.fr",
        "corpus.ja-ja.ja.src", "corpus.ja-ja.ja.tgt",
    ]  # fmt: skip
    assert moses_pairs(mixed_store / "corpus.en-de.en", mixed_store / "corpus.en-de.de") == [
        ("en sentence 1", "de Satz 1"),
        ("en sentence 3", "de Satz 3"),
    ]
    assert moses_pairs(
        mixed_store / "corpus.ja-ja.ja.src", mixed_store / "corpus.ja-ja.ja.tgt"
    ) == [("ja sentence 2", "ja Satz 2")]
    assert "2 en-fr pairs → corpus.en-fr.en, corpus.en-fr.fr" in result.output
    assert "2 en-de pairs → corpus.en-de.en, corpus.en-de.de" in result.output
    assert "1 ja-ja pairs → corpus.ja-ja.ja.src, corpus.ja-ja.ja.tgt" in result.output


def test_moses_export_of_one_pair_keeps_plain_names(mixed_store: Path) -> None:
    # The README's `wc -l corpus.en corpus.de` after a filtered export.
    filtered = ["--src-lang", "en", "--tgt-lang", "de"]
    result = CliRunner().invoke(app, ["export", "--format", "moses", "--out", "corpus", *filtered])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in mixed_store.iterdir()) == ["corpus.de", "corpus.en"]
    assert moses_pairs(mixed_store / "corpus.en", mixed_store / "corpus.de") == [
        ("en sentence 1", "de Satz 1"),
        ("en sentence 3", "de Satz 3"),
    ]


def test_empty_moses_export_is_named_after_the_asked_languages(mixed_store: Path) -> None:
    # Nothing matched: the files were empty.src/empty.tgt whatever --src-lang/--tgt-lang said.
    filtered = ["--src-lang", "en", "--tgt-lang", "nl"]
    result = CliRunner().invoke(app, ["export", "--format", "moses", "--out", "empty", *filtered])
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in mixed_store.iterdir()) == ["empty.en", "empty.nl"]
    assert "0 en-nl pairs → empty.en, empty.nl" in result.output


def test_a_temporary_metrics_directory_is_removed_at_exit(tmp_path: Path) -> None:
    # every worker or gateway start without PARAMINE_METRICS_DIR left one in /tmp
    script = (
        "import os; from services.cli.runtime import use_metrics_dir; use_metrics_dir(); "
        "print(os.environ['PROMETHEUS_MULTIPROC_DIR'])"
    )
    unset = {"PARAMINE_METRICS_DIR", "PROMETHEUS_MULTIPROC_DIR"}
    env = {key: value for key, value in os.environ.items() if key not in unset}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPO, capture_output=True, text=True,
        check=True, timeout=120,
    )  # fmt: skip
    created = Path(done.stdout.strip())
    assert created.name.startswith("paramine-metrics-") and not created.exists()
