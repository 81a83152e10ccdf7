"""Imports inside functions only with a reason (issue 51), read from the source with ``ast``
and ``tokenize`` (nothing imported).

An import inside a function hides what its module depends on; some are deliberate (numba,
LightGBM or SQLAlchemy kept off ``paramine --help``, a worker's or the gateway's start-up;
an import that must follow ``use_metrics_dir()``), and those say so in a comment: on the
import's own line(s), or on the comment-only line directly above it. Consecutive imports of
one body (nothing but blank lines or comments between them, as isort groups them) share the
reason of the first. Imports at module level, ``if TYPE_CHECKING:`` blocks included, are not inside
a function and need no reason.
"""

from __future__ import annotations

import ast
import io
import tokenize

from tests.unit.test_structure import PACKAGES, ROOT

Import = ast.Import | ast.ImportFrom
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def product_files() -> dict[str, str]:
    """The source of every product module, by its path from the repository."""
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def import_runs(tree: ast.Module) -> list[list[Import]]:
    """The imports inside function bodies, as runs of consecutive import statements of one
    body (a run shares one reason)."""
    runs: list[list[Import]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            previous_was_import = False
            for statement in block:
                is_import = isinstance(statement, Import)
                if in_function and is_import:
                    if previous_was_import:
                        runs[-1].append(statement)
                    else:
                        runs.append([statement])
                previous_was_import = is_import
                if isinstance(statement, ast.AST):
                    visit(statement, in_function or isinstance(statement, _FUNCTIONS))

    visit(tree, False)
    return runs


def comment_lines(source: str) -> tuple[set[int], set[int]]:
    """The lines holding a comment, and those holding nothing but a comment."""
    commented: set[int] = set()
    code: set[int] = set()
    ignored = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT}
    ignored |= {tokenize.DEDENT, tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            commented.add(token.start[0])
        elif token.type not in ignored:
            code.update(range(token.start[0], token.end[0] + 1))
    return commented, commented - code


def unreasoned_imports(source: str) -> list[int]:
    """The lines of the imports inside functions that give no reason for being there."""
    commented, comment_only = comment_lines(source)
    found: list[int] = []
    for run in import_runs(ast.parse(source)):
        first = run[0]
        end = first.end_lineno or first.lineno
        reasoned = first.lineno - 1 in comment_only or any(
            line in commented for line in range(first.lineno, end + 1)
        )
        if not reasoned:
            found.append(first.lineno)
    return found


def test_every_import_inside_a_function_gives_its_reason() -> None:
    files = product_files()
    assert len(files) > 100  # the product is read, not skipped
    found = {path: lines for path, source in files.items() if (lines := unreasoned_imports(source))}
    assert found == {}


# The check itself, on sources whose answers are known by construction.

PLANTED = '''\
"""A module."""
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy


def unreasoned():
    import json
    return json


def reasoned_above():
    # lazy: numba stays off the start-up path
    import numba

    from shared.text import base_lang
    return numba, base_lang


def reasoned_on_the_line():
    x = 1
    import lightgbm  # lazy: LightGBM stays off the start-up path
    return x, lightgbm


def unreasoned_on_several_lines():
    from shared import (
        langid,
    )
    return langid


def a_comment_on_code_above():
    x = 1  # a comment on code is not a reason for the import below
    import re
    return x, re


class Holder:
    def method(self):
        if self:
            from shared.config import get_settings
            return get_settings
        # a comment that is not directly above
        x = 1

        import sys
        return x, sys


def outer():
    def inner():
        from shared import (
            ids,
        )  # lazy: on the import's last line
        return ids
    return inner
'''


def test_unreasoned_imports_finds_the_planted_violations_and_only_them() -> None:
    lines = PLANTED.splitlines()
    found = unreasoned_imports(PLANTED)
    assert [lines[n - 1].strip() for n in found] == [
        "import json",
        "from shared import (",
        "import re",
        "from shared.config import get_settings",
        "import sys",
    ]


def test_a_reason_above_a_run_covers_the_run_and_only_it() -> None:
    reasoned = "def f():\n    # lazy: why\n    import a\n\n    import b\n    return a, b\n"
    assert unreasoned_imports(reasoned) == []
    broken = "def f():\n    # lazy: why\n    import a\n    x = 1\n    import b\n    return x\n"
    assert unreasoned_imports(broken) == [5]


def test_every_product_module_is_checked() -> None:
    files = product_files()
    expected = {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }
    assert files.keys() == expected
    assert "services/sentence_align/aligners/align.py" in files
