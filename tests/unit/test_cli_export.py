"""`paramine export` by the conventions a corpus user expects: standard output unless --out,
messages on standard error, a missing store refused, each distinct pair once with its count,
flagged pairs left out (and said so), provenance in JSONL and TMX."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.export.tmx import read_tmx
from shared.config import get_settings
from shared.store import Store
from tests.conftest import REPO

PROVENANCE = {"method": "tree+hybrid", "version": "0.1.0+abc", "model_version": "tree-x"}


def _row(pair: str, position: int, src: str, tgt: str, score: float, flag: str = "") -> Any:
    return {
        "id": f"sp-{pair}-{position}",
        "pair_id": pair,
        "kind": "translation",
        "src_url": f"https://e.org/en/{pair}",
        "tgt_url": f"https://e.org/de/{pair}",
        "site": "e.org",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": src,
        "tgt_text": tgt,
        "score": score,
        "bead": f"[{position}]:[{position}]",
        "chunk": 0,
        "position": position,
        "flag": flag,
        **PROVENANCE,
    }


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A store of four pairs: one twice (case and punctuation apart), one untranslated."""
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    store = Store(get_settings().database_url)
    store.add_sentence_pairs(
        [_row("pp1", 0, "Home", "Startseite", 0.7),
         _row("pp1", 1, "Skip to the content.", "Skip to the content.", 1.0, "untranslated")],
        pair_id="pp1", stage="sentence_align",
    )  # fmt: skip
    store.add_sentence_pairs(
        [_row("pp2", 0, "home", "Startseite!", 0.9), _row("pp2", 1, "Contact", "Kontakt", 0.8)],
        pair_id="pp2",
        stage="sentence_align",
    )
    yield tmp_path
    get_settings.cache_clear()


def _files(folder: Path) -> set[str]:
    return {path.name for path in folder.iterdir()}


@pytest.mark.parametrize("out", [[], ["--out", "-"]])
@pytest.mark.parametrize("format", ["jsonl", "tsv", "tmx", "ppdb"])
def test_every_format_goes_to_standard_output_without_out(
    corpus: Path, format: str, out: list[str]
) -> None:
    before = _files(corpus)
    result = CliRunner().invoke(app, ["export", "--format", format, *out])
    assert result.exit_code == 0, result.output
    assert _files(corpus) == before  # no "sentence_pairs" file, no file named "-"
    assert "→ standard output" in result.stderr and "→" not in result.stdout
    if format == "jsonl":
        assert [json.loads(line)["src"] for line in result.stdout.splitlines()] == [
            "Home",
            "Contact",
        ]
    elif format == "tsv":
        assert result.stdout.splitlines()[0].startswith("src\ttgt\tscore")
        assert len(result.stdout.splitlines()) == 3
    elif format == "tmx":
        units = read_tmx(io.BytesIO(result.stdout_bytes))
        assert [unit["src"] for unit in units] == ["Home", "Contact"]


def test_a_file_is_written_with_out_and_moses_needs_a_prefix(corpus: Path) -> None:
    result = CliRunner().invoke(app, ["export", "--format", "tsv", "--out", "pairs.tsv"])
    assert result.exit_code == 0 and result.stdout == ""
    assert len((corpus / "pairs.tsv").read_text(encoding="utf-8").splitlines()) == 3
    for out in ([], ["--out", "-"]):
        result = CliRunner().invoke(app, ["export", "--format", "moses", *out])
        assert result.exit_code == 2 and "prefix" in result.output
    result = CliRunner().invoke(app, ["export", "--format", "moses", "--out", "corpus"])
    assert result.exit_code == 0
    assert (corpus / "corpus.en").read_text(encoding="utf-8") == "Home\nContact\n"


def test_distinct_pairs_once_with_counts_and_flagged_pairs_left_out(corpus: Path) -> None:
    result = CliRunner().invoke(app, ["export"])
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["src"], r["count"], r["score"]) for r in records] == [
        ("Home", 2, 0.9),  # the best score of its two occurrences
        ("Contact", 1, 0.8),
    ]
    message = " ".join(result.stderr.split())
    assert "1 flagged stored pair left out (untranslated 1); --all keeps them" in message
    assert "1 duplicate pairs merged" in message
    every = CliRunner().invoke(app, ["export", "--all"])
    flags = [json.loads(line).get("flag", "") for line in every.stdout.splitlines()]
    assert flags == ["", "untranslated", ""] and "flagged" not in every.stderr
    stored = CliRunner().invoke(app, ["export", "--all", "--duplicates"])
    assert len(stored.stdout.splitlines()) == 4


def test_provenance_travels_in_jsonl_and_tmx(corpus: Path) -> None:
    record = json.loads(CliRunner().invoke(app, ["export"]).stdout.splitlines()[0])
    assert {key: record[key] for key in PROVENANCE} == PROVENANCE
    tmx = CliRunner().invoke(app, ["export", "--format", "tmx"]).stdout
    assert '<prop type="x-method">tree+hybrid</prop>' in tmx
    assert '<prop type="x-version">0.1.0+abc</prop>' in tmx
    assert '<prop type="x-count">2</prop>' in tmx


@pytest.mark.parametrize(
    "command", [["export"], ["export", "--format", "ppdb"], ["dead-letters", "list"],
                ["dead-letters", "purge"], ["migrate-store"],
                ["thesaurus", "similarity", "a", "b"]],
)  # fmt: skip
def test_reading_commands_refuse_a_missing_store(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "typo.db"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{path}")
    get_settings.cache_clear()
    result = CliRunner().invoke(app, command)
    get_settings.cache_clear()
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and f"no paramine store at {path}" in result.output
    assert not path.exists()  # it used to be created, empty, and "0 sentence pairs" said


def test_process_and_a_bare_export_share_the_default_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # right after `make run`, `paramine export` found no pairs: they used two stores
    monkeypatch.delenv("PARAMINE_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["process", str(REPO / "samples" / "crawl"), "-q"])
        assert result.exit_code == 0, result.output
        monkeypatch.chdir(tmp_path / "out")  # from anywhere
        exported = CliRunner().invoke(app, ["export", "--format", "tsv"])
    finally:
        get_settings.cache_clear()
    assert (tmp_path / "data" / "paramine" / "paramine.db").is_file()
    lines = exported.stdout.splitlines()
    assert exported.exit_code == 0 and len(lines) > 10
    assert (
        lines[1:] == (tmp_path / "out" / "sentence_pairs.tsv").read_text("utf-8").splitlines()[1:]
    )


def test_the_albatec_crawl_exports_distinct_translated_pairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # README's example command: 518 pairs came out, 222 distinct, 149 the same on both sides
    # (before the content model: its menus and breadcrumbs are template now, not stored)
    from shared.corpus_clean import normalise
    from tests.conftest import kit_path

    crawl = kit_path("bitextor-albatec-lett/v2.lett.gz")
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'store.db'}")
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        command = ["process", str(crawl), "--src-lang", "en", "--tgt-lang", "de"]
        result = CliRunner().invoke(app, [*command, "--url-key", r"/(\d+)-\d-", "-q"])
        assert result.exit_code == 0, result.output
        exported = CliRunner().invoke(app, ["export"])
        stored = CliRunner().invoke(app, ["export", "--all", "--duplicates"])
    finally:
        get_settings.cache_clear()
    pairs = [(r["src"], r["tgt"]) for r in map(json.loads, exported.stdout.splitlines())]
    keys = [(normalise(src), normalise(tgt)) for src, tgt in pairs]
    assert len(set(keys)) == len(pairs) > 50  # every exported pair distinct
    assert not any(a == b for a, b in keys)  # none the same on both sides
    assert len(stored.stdout.splitlines()) > len(pairs)  # duplicates, flagged, below threshold


def test_a_writing_command_creates_the_default_store_folder_and_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PARAMINE_DATABASE_URL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "new"))
    get_settings.cache_clear()
    try:
        sample = REPO / "services" / "thesaurus" / "sample_thesaurus.csv"
        result = CliRunner().invoke(
            app, ["thesaurus", "import-wlsp", str(sample), "--encoding", "utf-8"]
        )
        similarity = CliRunner().invoke(app, ["thesaurus", "similarity", "先生", "教師"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert (tmp_path / "new" / "paramine" / "paramine.db").is_file()
    assert "no paramine store" not in similarity.output  # it exists now (no snapshot yet)
