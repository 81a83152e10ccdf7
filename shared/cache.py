"""The user's cache folder for what paramine derives once and reads again: merged bilingual
dictionaries, the language identifier's model uncompressed.

``$PARAMINE_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/paramine`` (``~/.cache/paramine``).
What is kept there is a copy of something found elsewhere, keyed by what it was made from,
so a stale or missing entry is made again, never trusted.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache folder (module docstring); it may not exist yet, nor be writable."""
    if explicit := os.environ.get("PARAMINE_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paramine"
