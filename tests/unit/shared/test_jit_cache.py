"""numba's cache folder is named by the compiled modules' sources (shared.jit_cache)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from shared.jit_cache import source_key, use_keyed_cache

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _numba_config_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    # use_keyed_cache also sets the running numba's config: restored after each test
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)


def test_the_key_follows_the_modules_that_use_numba_only(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "dp.py").write_text("from numba import njit\n")
    (tmp_path / "a" / "cli.py").write_text("import typer\n")
    key = source_key(tmp_path)
    (tmp_path / "a" / "cli.py").write_text("import typer  # changed\n")
    assert source_key(tmp_path) == key
    (tmp_path / "a" / "dp.py").write_text("from numba import njit  # changed\n")
    assert source_key(tmp_path) != key


def test_a_child_process_keeps_the_folder_and_a_users_root_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dp.py").write_text("import numba\n")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    folder = use_keyed_cache(tmp_path)
    assert folder == tmp_path / "mine" / source_key(tmp_path)
    assert os.environ["NUMBA_CACHE_DIR"] == numba.config.CACHE_DIR == str(folder)
    assert use_keyed_cache(tmp_path) == folder  # as a child inheriting the variable sees it


def test_an_unwritable_root_leaves_numba_its_own_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocked))
    assert use_keyed_cache(tmp_path) is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(blocked)


def test_no_home_folder_leaves_numba_its_own_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert use_keyed_cache(tmp_path) is None


def test_the_compiled_programs_cache_under_the_key(tmp_path: Path) -> None:
    # A fresh interpreter: numba's cache path of a compiled program is the keyed folder.
    code = (
        "from services.sentence_align.dp import banded as dp\n"
        "print(dp.banded_dp._cache._cache_path)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    expected = tmp_path / "paramine" / "numba" / source_key(REPO / "services")
    assert Path(out.stdout.strip()).parent == expected
