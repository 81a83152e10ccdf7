"""docs/methods.md: every "docs/methods.md §N" reference in the repository resolves to one of
its sections (and a quoted subsection name after it to a subsection of that section), and its
sections are numbered as in the kit's method specification, so old references map one to one."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import REPO, kit_path

METHODS = REPO / "docs" / "methods.md"
SEARCHED = ("services", "shared", "benchmarks", "tests", "docs", "README.md")
# "§2", "§3a", optionally followed by a quoted subsection name: §2 "Beads"
REFERENCE = re.compile(r'docs/methods\.md\s+§(\w+)(?:\s+"([^"]+)")?')


def sections(text: str) -> dict[str, list[str]]:
    """Section id ("1", "3a") -> the titles of its ### subsections, from the headings."""
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.splitlines():
        numbered = re.match(r"#{2,3} (\d+[a-z]?)\. ", line)
        if numbered:
            current = numbered.group(1)
            found.setdefault(current, [])
            major = re.match(r"\d+", current)
            if major and major.group() != current:  # 3a: also a subsection of 3
                found.setdefault(major.group(), []).append(line[4:])
        elif line.startswith("### ") and current is not None:
            found[current].append(line[4:])
    return found


def references() -> list[tuple[Path, str, str | None]]:
    found = []
    for name in SEARCHED:
        root = REPO / name
        paths = [root] if root.is_file() else [*root.rglob("*.py"), *root.rglob("*.md")]
        for path in paths:
            if path == Path(__file__):
                continue
            text = path.read_text(encoding="utf-8")
            found += [(path, m.group(1), m.group(2)) for m in REFERENCE.finditer(text)]
    return found


def test_every_reference_resolves_to_a_section() -> None:
    known = sections(METHODS.read_text(encoding="utf-8"))
    unresolved = [
        f"{path.relative_to(REPO)}: §{section} {name or ''}"
        for path, section, name in references()
        if section not in known
        or (name is not None and not any(title.startswith(name) for title in known[section]))
    ]
    assert unresolved == []


def test_sections_are_numbered_as_in_the_kit_specification() -> None:
    kit = sections(kit_path("../spec/ALGORITHMS.md").read_text(encoding="utf-8"))
    ours = sections(METHODS.read_text(encoding="utf-8"))
    assert list(ours) == list(kit)
    for section, titles in kit.items():  # same subsection names, where the kit has them
        assert [title.split(" (")[0] for title in ours[section]] == [
            title.split(" (")[0] for title in titles
        ], section


def test_the_reader_finds_references_and_sections() -> None:
    # the two helpers above on a made-up text: a test that the test can fail
    text = "## 1. A\n### Tree\n## 3. B\n### 3a. C (x)\n"
    assert sections(text) == {"1": ["Tree"], "3": ["3a. C (x)"], "3a": []}
    sample = 'see docs/methods.md §1 "Tree" and docs/methods.md\n§3a'
    assert [m.groups() for m in REFERENCE.finditer(sample)] == [("1", "Tree"), ("3a", None)]
