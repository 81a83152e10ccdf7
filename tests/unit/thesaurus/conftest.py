"""Small thesaurus fixtures for the thesaurus-stage tests."""

from __future__ import annotations

import pytest

from services.thesaurus.thesauri import Thesaurus


def two_branch_tree() -> Thesaurus:
    """root → P (a1, a2, a3), Q (b1, b2); one word per leaf, 銀 in a1 and b1."""
    return Thesaurus.build(
        "fixture",
        [
            ("root", None, "root"),
            ("P", "root", "P"),
            ("Q", "root", "Q"),
            ("a1", "P", "a1"),
            ("a2", "P", "a2"),
            ("a3", "P", "a3"),
            ("b1", "Q", "b1"),
            ("b2", "Q", "b2"),
        ],
        [
            ("犬", "a1"),
            ("猫", "a2"),
            ("馬", "a3"),
            ("車", "b1"),
            ("船", "b2"),
            ("銀", "a1"),
            ("銀", "b1"),
        ],
    )


@pytest.fixture
def tree() -> Thesaurus:
    return two_branch_tree()
