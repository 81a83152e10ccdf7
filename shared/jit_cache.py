"""Where numba keeps its compiled functions: a folder named by the compiled modules' sources.

Numba caches a compiled function next to its source and checks only the timestamp of that
file, so a cached caller keeps the code of a compiled callee in another module that has
changed since (a documented limit of numba's cache; here a window program kept calling
``banded_dp`` with an argument that no longer existed until its own file changed). With
the cache in a folder named by a hash of every module that uses numba, changing any of them
starts a fresh cache, and stale code cannot run.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path


def source_key(root: Path) -> str:
    """Hash of the path and text of every ``.py`` file under ``root`` that uses numba."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + text + b"\0")
    return digest.hexdigest()[:16]


def use_keyed_cache(root: Path) -> Path | None:
    """Point numba's cache at ``<cache root>/<source_key(root)>`` for this process and its
    children. The cache root: ``$NUMBA_CACHE_DIR`` as the user set it, else
    ``$XDG_CACHE_HOME/paramine/numba`` (``~/.cache/...``). None, and numba's own folders
    kept, when the folder cannot be written (or there is no home folder)."""
    key = source_key(root)
    given = os.environ.get("NUMBA_CACHE_DIR")
    try:
        if given and Path(given).name == key:  # set here in a parent process
            folder = Path(given)
        elif given:
            folder = Path(given) / key
        else:
            base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
            folder = Path(base) / "paramine" / "numba" / key
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except (OSError, RuntimeError, KeyError):  # unwritable, or no home folder to be found
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported already: its config has read the variable before
        numba.config.CACHE_DIR = str(folder)
    return folder
