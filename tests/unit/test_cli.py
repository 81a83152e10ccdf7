"""Tests of the root CLI's printed reports (services/cli.py)."""

from __future__ import annotations

import pytest

from services.cli import _print_summary
from shared.schemas import STAGES


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
        "output": "out/[run]",
        "failures": [{"stage": "ingest", "reason": reason} for reason in reasons],
    }
    monkeypatch.setenv("COLUMNS", "400")  # one line per reason
    _print_summary(report)
    printed = capsys.readouterr().out
    for reason in reasons:
        assert f"failed ingest: {reason}" in printed
    assert "written to out/[run]/sentence_pairs" in printed
    assert "job-[1]" in printed
