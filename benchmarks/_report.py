"""Writing a benchmark's results file: every benchmark ends the same way."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def publish(path: Path, lines: Sequence[str]) -> None:
    """Write the report's lines to ``path`` (one trailing newline) and print them."""
    text = "\n".join(lines).rstrip("\n") + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(text, end="")
