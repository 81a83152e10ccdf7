"""CLI options checked before any work: clear refusals instead of tracebacks or lost pairs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from shared.config import get_settings
from shared.store import Store
from tests.conftest import REPO

BOX = str.maketrans("", "", "│╭╮╰╯─")


def plain(output: str) -> str:
    """The words of a CLI message, out of rich's error box and its line breaks."""
    return " ".join(output.translate(BOX).split())


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


@pytest.mark.parametrize(
    ("option", "message"),
    [
        # a language name is read (english -> en); a word that names no language is refused
        (["--src-lang", "xyzzy"], "is not a language"),
        # a bad --kind or --method dumped pydantic's whole validation error: now choices
        (["--kind", "pc"], "'pc' is not one of"),
        (["--method", "neural"], "'neural' is not one of"),
    ],
)
def test_align_pages_refuses_a_bad_option_without_a_traceback(
    option: list[str], message: str
) -> None:
    pages = [str(SAMPLES / "rail.en.html"), str(SAMPLES / "rail.fr.html")]
    result = CliRunner().invoke(app, ["align-pages", *pages, *option])
    assert result.exit_code == 2 and message in plain(result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_align_pages_takes_every_sentence_method() -> None:
    pages = [str(SAMPLES / "museum.en.html"), str(SAMPLES / "museum.de.html")]
    for method in ("length", "lexicon", "hybrid", "anchors"):
        result = CliRunner().invoke(app, ["align-pages", *pages, "--method", method])
        assert result.exit_code == 0 and result.output.count('"src"') > 0, (method, result.output)


@pytest.fixture
def embedded_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_process_fails_when_an_input_is_refused_or_nothing_was_read(embedded_cli: Path) -> None:
    # a typo in the path exited 0 after doing nothing, so `process ... && export` went on
    # a missing input is a usage error (exit 2, as documented), named before anything runs
    result = CliRunner().invoke(app, ["process", str(embedded_cli / "nope"), "-q"])
    assert result.exit_code == 2 and "does not exist" in plain(result.output)
    empty = embedded_cli / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    result = CliRunner().invoke(app, ["process", str(empty), "-q"])
    assert result.exit_code == 1 and "no page pair found" in result.output


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--pairs-file", "nope.tsv"], "does not exist"),
        (["--url-key", "("], "regular expression"),
        (["--url-key", r"x\.com"], "needs a group"),  # an IndexError traceback
    ],
)
def test_process_checks_pairing_options_up_front(
    embedded_cli: Path, option: list[str], message: str
) -> None:
    # a missing --pairs-file was blamed on the crawl file; a bad regex ended in a traceback
    result = CliRunner().invoke(app, ["process", str(SAMPLES), "-q", *option])
    assert result.exit_code == 2 and message in result.output
    assert not (embedded_cli / "cli.db").exists()


def test_process_out_holds_only_this_runs_moses_files(embedded_cli: Path) -> None:
    out = embedded_cli / "out"
    for name in ("rail", "museum"):  # en-fr, then en-de
        pages = embedded_cli / name
        pages.mkdir()
        for page in SAMPLES.glob(f"{name}.*"):
            (pages / page.name).write_bytes(page.read_bytes())
        result = CliRunner().invoke(app, ["process", str(pages), "--out", str(out), "-q"])
        assert result.exit_code == 0, result.output
    names = sorted(path.name for path in out.iterdir())
    # the en-fr files of the first run stayed beside the second run's corpus
    assert names == [
        "cooccurrences.tsv",
        "paraphrases.ppdb",
        "sentence_pairs.de",
        "sentence_pairs.en",
        "sentence_pairs.jsonl",
        "sentence_pairs.tsv",
    ]


def test_process_and_export_report_what_they_did(embedded_cli: Path) -> None:
    result = CliRunner().invoke(app, ["process", str(SAMPLES), "--json", "-q"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["stages"]["ingest"] == {  # was in 0 out 0 whatever was read
        "in": report["page_pairs"], "out": report["page_pairs"], "failed": 0,
        "seconds": report["stages"]["ingest"]["seconds"],
    }  # fmt: skip
    out = embedded_cli / "new" / "pairs.tsv"  # a missing parent directory: FileNotFoundError
    result = CliRunner().invoke(app, ["export", "--format", "tsv", "--out", str(out)])
    pairs = len(out.read_text(encoding="utf-8").splitlines()) - 1
    assert result.exit_code == 0 and f"{pairs} sentence pairs" in result.output  # not the header
    result = CliRunner().invoke(
        app, ["export", "--format", "tsv", "--out", str(out), "--min-score", "2"]
    )
    assert result.exit_code == 2  # scores lie in [0, 1]: 2 matched nothing, silently


def test_ppdb_export_refuses_sentence_pair_filters(embedded_cli: Path) -> None:
    # --job, --site, --min-score and --since were silently ignored: the whole table came out
    out = embedded_cli / "p.ppdb"
    result = CliRunner().invoke(
        app, ["export", "--format", "ppdb", "--out", str(out), "--job", "j"]
    )
    assert result.exit_code == 2 and "do not apply to ppdb" in plain(result.output)
    Store(get_settings().database_url).ensure_schema()  # an existing (empty) store
    result = CliRunner().invoke(app, ["export", "--format", "ppdb", "--out", str(out)])
    assert result.exit_code == 0 and out.exists()


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["submit", "x.jsonl", "--gateway", "http://[::1"], "not a URL"),
        (["submit", "x.jsonl", "--gateway", "ftp://host"], "http:// or https://"),
        (["dead-letters", "list", "--limit", "0"], "--limit"),  # -1 listed everything
    ],
)
def test_bad_command_options_end_in_one_line(
    embedded_cli: Path, command: list[str], message: str
) -> None:
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 2 and message in plain(result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("PARAMINE_MODE", "production", "invalid settings: PARAMINE_API_KEY must be set"),
        ("PARAMINE_DATABASE_URL", "nonsense", "invalid settings: Could not parse"),
    ],
)
def test_settings_that_cannot_work_end_in_one_line(
    embedded_cli: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    # these ended in a traceback (ConfigurationError, SQLAlchemy's ArgumentError)
    monkeypatch.setenv(name, value)
    monkeypatch.delenv("PARAMINE_API_KEY", raising=False)
    get_settings.cache_clear()
    result = CliRunner().invoke(app, ["dead-letters", "list"])
    assert result.exit_code == 2 and message in plain(result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--format", "moses", "--src-lang", "en/../../x", "--tgt-lang", "de"], "not a language"),
        (["--format", "tmx", "--src-lang", "e\x01"], "not a language"),
        (["--format", "ppdb", "--tgt-lang", "de"], "--tgt-lang do not apply to ppdb"),
    ],
)
def test_export_checks_its_languages(embedded_cli: Path, option: list[str], message: str) -> None:
    # a "/" or a control character ended in a traceback (and an empty .tmx left behind);
    # --tgt-lang was silently ignored by ppdb
    out = embedded_cli / "out"
    result = CliRunner().invoke(app, ["export", "--out", str(out), *option])
    assert result.exit_code == 2 and message in plain(result.output)
    assert not list(embedded_cli.glob("out*"))
