"""docs/README.md's module map names files and folders that exist: every backticked path of
its tables (``services/tree_align/align.py``), and every bare module name after it in the same
row (``two_pass.py``), read in the folder of the last path named before it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO

MAP = REPO / "docs" / "README.md"
NAME = re.compile(r"`([\w./<>-]+)`")


def listed_paths(text: str) -> list[Path]:
    """The files and folders the map's table rows name (templates with ``<stage>`` left out)."""
    found: list[Path] = []
    for row in (line for line in text.splitlines() if line.startswith("|")):
        folder: Path | None = None
        for name in NAME.findall(row):
            if "<" in name or not (name.endswith((".py", "/")) or "/" in name):
                continue
            if "/" in name:
                path = REPO / name
                folder = path if name.endswith("/") else path.parent
            elif folder is not None:
                path = folder / name
            else:
                continue
            found.append(path)
    return found


def test_every_module_the_map_names_exists() -> None:
    paths = listed_paths(MAP.read_text(encoding="utf-8"))
    assert len(paths) > 40
    assert [str(p.relative_to(REPO)) for p in paths if not p.exists()] == []


def test_the_check_reads_bare_names_in_the_last_folder() -> None:
    row = "| x | `services/tree_align/align.py` (a), `two_pass.py`, `nowhere.py`; `shared/` |"
    assert listed_paths(row) == [
        REPO / "services/tree_align/align.py",
        REPO / "services/tree_align/two_pass.py",
        REPO / "services/tree_align/nowhere.py",
        REPO / "shared",
    ]
