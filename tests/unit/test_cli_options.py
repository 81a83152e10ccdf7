"""CLI options checked before any work: clear refusals instead of tracebacks or lost pairs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from shared.config import get_settings
from tests.conftest import REPO

SAMPLES = REPO / "samples" / "crawl"


def test_a_job_id_the_gateway_would_refuse_is_refused_up_front(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 70-character id was accepted, then every pair was dead-lettered for it.
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    for bad in ("x" * 70, "has space"):
        result = CliRunner().invoke(app, ["process", str(SAMPLES), "--job-id", bad, "-q"])
        assert result.exit_code == 2 and "--job-id" in result.output
    assert not (tmp_path / "cli.db").exists()
    get_settings.cache_clear()


@pytest.mark.parametrize("option", [["--src-lang", "english"], ["--kind", "pc"]])
def test_align_pages_refuses_a_bad_option_without_a_traceback(option: list[str]) -> None:
    pages = [str(SAMPLES / "rail.en.html"), str(SAMPLES / "rail.fr.html")]
    result = CliRunner().invoke(app, ["align-pages", *pages, *option])
    assert result.exit_code == 2 and "invalid input" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
