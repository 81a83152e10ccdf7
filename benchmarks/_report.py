"""Writing a benchmark's results file (every benchmark ends the same way), and measuring a
process's peak memory the same way everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def publish(path: Path, lines: Sequence[str]) -> None:
    """Write the report's lines to ``path`` (one trailing newline) and print them."""
    text = "\n".join(lines).rstrip("\n") + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(text, end="")


def peak_rss_mb(status: Path = Path("/proc/self/status")) -> float:
    """This process's peak resident memory in MB: ``VmHWM``, the high-water mark of the
    program it now runs.

    Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux carries the high-water mark of the
    process image an ``exec`` replaced into it, so a subprocess started from a large parent
    (pytest, a benchmark that already holds its data) reports at least the parent's size at
    the fork. A hostile-input test run under the full test suite read pytest's 516 MB that
    way for a parse that peaks at 39 MB."""
    for line in status.read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB
    raise RuntimeError(f"no VmHWM line in {status}")
