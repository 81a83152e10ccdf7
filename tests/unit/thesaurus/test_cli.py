"""The thesaurus commands on a temp SQLite store: names checked up front, no silent rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from services.cli import app
from services.thesaurus import repository
from services.thesaurus.cooccur import extract_cooccurrences
from services.thesaurus.thesauri import Thesaurus
from shared.config import get_settings
from tests.conftest import REPO

SAMPLE = REPO / "services" / "thesaurus" / "sample_thesaurus.csv"
CORPUS = "猫を飼う。犬を飼う。猫を見る。\n"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'thesaurus.db'}"
    monkeypatch.setenv("PARAMINE_DATABASE_URL", url)
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    get_settings.cache_clear()
    imported = CliRunner().invoke(
        app, ["thesaurus", "import-wlsp", str(SAMPLE), "--encoding", "utf-8", "--name", "wlsp"]
    )
    assert imported.exit_code == 0, imported.output
    yield url
    get_settings.cache_clear()


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_build_refuses_an_unknown_thesaurus_before_reading_the_corpus(
    store: str, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    code, output = _run("thesaurus", "build", "--corpus", str(corpus), "--thesaurus", "typo")
    assert code == 2 and "no thesaurus named 'typo'" in output and "wlsp" in output
    engine = sa.create_engine(store)
    repository.ensure_schema(engine)
    # the corpus was ingested first, then the name failed with a traceback
    assert not repository.cooccurrence_counts(engine)


def test_score_without_a_snapshot_or_with_an_unknown_name_fails(store: str, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("猫,犬\n", encoding="utf-8")
    code, output = _run("thesaurus", "score", str(pairs))  # exit 0, an empty column, before
    assert code == 1 and "no similarity snapshot yet" in output
    code, output = _run("thesaurus", "score", str(pairs), "--thesaurus", "typo")
    assert code == 2 and "no thesaurus named 'typo'" in output
    code, output = _run("thesaurus", "similarity", "猫", "犬", "--thesaurus", "typo")
    assert code == 2 and "no thesaurus named 'typo'" in output


def test_score_answers_every_row_or_names_the_bad_line(store: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS * 3, encoding="utf-8")
    code, output = _run("thesaurus", "build", "--corpus", str(corpus), "--min-verb", "1")
    assert code == 0, output
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("word1,word2\n猫,犬\n\n猫,未知語\n", encoding="utf-8")
    code, output = _run("thesaurus", "score", str(pairs))
    rows = output.splitlines()
    assert code == 0 and rows[0] == "word1,word2,similarity" and len(rows) == 3
    assert rows[2] == "猫,未知語,"  # undefined: an empty similarity, the row kept
    pairs.write_text("猫,犬\n猫\n", encoding="utf-8")  # the one-word row was dropped silently
    code, output = _run("thesaurus", "score", str(pairs))
    assert code == 2 and "pairs.csv:2: expected word1,word2" in output


def test_bad_input_of_any_command_is_one_line_and_exit_2(store: str, tmp_path: Path) -> None:
    # InvalidInput, OSError and UnicodeError ended in a rich traceback
    bad_tsv = tmp_path / "bad.tsv"
    bad_tsv.write_text("no tab here\n", encoding="utf-8")
    code, output = _run("mine-endings", str(bad_tsv))
    assert code == 2 and "invalid input" in output and "Traceback" not in output
    code, output = _run("thesaurus", "import-wlsp", str(SAMPLE))  # UTF-8 read as cp932
    assert code == 2 and "cannot decode the input" in output
    code, output = _run("cooccurrences", str(tmp_path / "missing.txt"))
    assert code == 2 and "No such file" in output
    # a CSV field over the csv module's limit: a _csv.Error traceback
    huge = tmp_path / "huge.csv"
    huge.write_text("犬," + "猫" * 200_000 + "\n", encoding="utf-8")
    code, output = _run("thesaurus", "import-wlsp", str(huge), "--encoding", "utf-8")
    assert code == 2 and "field larger than field limit" in output and "Traceback" not in output


def test_recompute_builds_from_the_stored_observations(store: str, tmp_path: Path) -> None:
    # nothing recomputed snapshots but the scheduler: embedded mode never had one
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS * 3, encoding="utf-8")
    code, output = _run("thesaurus", "build", "--corpus", str(corpus), "--min-verb", "1")
    built = output.strip().splitlines()[-1].split()[1].rstrip(":")
    code, output = _run("thesaurus", "recompute")
    assert code == 0 and output.strip() == f"wlsp: snapshot {built}"  # nothing new: kept
    engine = sa.create_engine(store)
    repository.record_many(engine, [("s-new", extract_cooccurrences("犬を洗う。"))])
    code, output = _run("thesaurus", "recompute")
    assert code == 0 and output.strip() != f"wlsp: snapshot {built}"


def test_recompute_names_each_snapshot_after_its_own_thesaurus(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the names were listed again after the recompute and zipped with the ids: a thesaurus
    # imported meanwhile got wlsp's snapshot id printed beside it, then zip raised ValueError
    engine = sa.create_engine(store)
    rebuild = repository.rebuild_snapshot

    def rebuild_while_another_is_imported(*args: Any, **kwargs: Any) -> int:
        snapshot_id = rebuild(*args, **kwargs)
        thesaurus = Thesaurus.build("alpha", [("root", None, ""), ("a", "root", "")], [])
        repository.save_thesaurus(engine, thesaurus)
        return snapshot_id

    monkeypatch.setattr(repository, "rebuild_snapshot", rebuild_while_another_is_imported)
    code, output = _run("thesaurus", "recompute")
    assert code == 0 and output == f"wlsp: snapshot {repository.latest_snapshot_id(engine)}\n"
    assert repository.thesaurus_names(engine) == ["alpha", "wlsp"]
