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


def two_level_tree() -> Thesaurus:
    """root → X (P: p1 p2, R: r1), Y (Q: q1 q2); 銀 in p1 and q1, 石 in r1, 船 in q2."""
    nodes = {"X": "root", "Y": "root", "P": "X", "R": "X", "Q": "Y"}
    nodes |= {"p1": "P", "p2": "P", "r1": "R", "q1": "Q", "q2": "Q"}
    return Thesaurus.build(
        "two-level",
        [("root", None, ""), *((cid, parent, "") for cid, parent in nodes.items())],
        [("銀", "p1"), ("銀", "q1"), ("石", "r1"), ("船", "q2")],
    )


@pytest.fixture
def tree() -> Thesaurus:
    return two_branch_tree()
