"""Tests of the flat chunk alignment the tree result is checked against."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.html.parse import block_tree, parse_html
from services.html.tag_tree import TagTree
from services.tree_align.align import text_pairs
from services.tree_align.decoder import TreeAlignment
from services.tree_align.fallback import (
    UNPAIRED_SHARE,
    evidence,
    flat_is_better,
    flat_pairs,
    measured_pairs,
    needs_check,
)
from services.tree_align.model import FloatArray, LengthTextModel, initial_model


class TableModel:
    """Pr_text costs read off a table keyed by the two texts."""

    def __init__(self, table: dict[tuple[str, str], float]) -> None:
        self.table = table

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        return np.array([[self.table[(a, b)] for b in tgt_texts] for a in src_texts])


def _runs(size: int, texts: list[str]) -> list[tuple[tuple[int, ...], str]]:
    runs: list[tuple[tuple[int, ...], str]] = [((k,), texts[k]) for k in range(size)]
    runs += [((k, k + 1), f"{texts[k]} {texts[k + 1]}") for k in range(size - 1)]
    return runs


def _brute_force(src: list[str], tgt: list[str], table: dict[tuple[str, str], float]) -> float:
    """Lowest summed cost over every in-order set of 1-1, 1-2, 2-1 pairs of cost < 0."""
    candidates = [
        (a, b, table[(x, y)])
        for a, x in _runs(len(src), src)
        for b, y in _runs(len(tgt), tgt)
        if not (len(a) == 2 and len(b) == 2) and table[(x, y)] < 0
    ]
    best = 0.0

    def extend(start: int, last: tuple[int, int], total: float) -> None:
        nonlocal best
        best = min(best, total)
        for k in range(start, len(candidates)):
            a, b, cost = candidates[k]
            if a[0] > last[0] and b[0] > last[1]:
                extend(0, (a[-1], b[-1]), total + cost)

    extend(0, (-1, -1), 0.0)
    return best


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.lists(st.floats(-10, 10, allow_nan=False), min_size=100, max_size=100),
)
def test_flat_pairs_is_the_best_in_order_set(n: int, m: int, values: list[float]) -> None:
    src = [f"s{k}" for k in range(n)]
    tgt = [f"t{k}" for k in range(m)]
    table: dict[tuple[str, str], float] = {}
    k = 0
    for _, x in _runs(n, src):
        for _, y in _runs(m, tgt):
            table[(x, y)] = values[k % len(values)]
            k += 1
    pairs = flat_pairs(src, tgt, TableModel(table))
    assert sum(cost for _, _, cost in pairs) == pytest.approx(_brute_force(src, tgt, table))
    for a, b, cost in pairs:
        assert cost < 0 and len(a) + len(b) <= 3
    for (a, b, _), (c, d, _) in itertools.pairwise(pairs):
        assert a[-1] < c[0] and b[-1] < d[0]


def test_flat_pairs_of_nothing_is_nothing() -> None:
    assert flat_pairs([], ["a"], LengthTextModel()) == []


def test_needs_check_when_both_pages_leave_text_unpaired() -> None:
    sizes = ([100, 100, 0], [100, 100])
    assert needs_check(sizes, (set(), set()))
    assert not needs_check(sizes, ({0, 1}, set()))  # the source side is paired
    assert not needs_check(([0], [0]), (set(), set()))  # no longer text at all
    share = int(100 * UNPAIRED_SHARE)
    assert not needs_check(([100 - share + 1, share - 1], [50, 50]), ({0}, set()))


def test_flat_wins_only_with_clearly_more_evidence() -> None:
    assert evidence([-3.0, 2.0, -1.0]) == -4.0
    assert flat_is_better(0.0, -1.0)
    assert not flat_is_better(-100.0, -110.0)
    assert flat_is_better(-100.0, -200.0)
    assert not flat_is_better(0.0, 0.0)


def test_content_a_tree_alignment_drops_is_aligned_flat() -> None:
    """An alignment that deleted everything (a template the tag model got wrong) loses no
    content with ``keep_content``: the paragraphs are paired flat."""
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    paragraphs = [" ".join(words[(k + i) % 8] for i in range(6 + 5 * k)) for k in range(6)]
    src = block_tree(parse_html("<html><body>" + "".join(f"<p>{p}</p>" for p in paragraphs)))
    tgt = block_tree(
        parse_html("<html><body>" + "".join(f"<li>{p.upper()}</li>" for p in paragraphs))
    )
    model = initial_model(["p", "li"])
    nothing = TreeAlignment(
        np.zeros((0, 2), dtype=np.int64), 0.0, src.size, tgt.size, 0.0, np.zeros(0)
    )
    assert text_pairs(src, tgt, nothing, model) == []
    pairs = text_pairs(src, tgt, nothing, model, keep_content=True)
    assert [(pair.src_text, pair.tgt_text) for pair in pairs] == [
        (p, p.upper()) for p in paragraphs
    ]


def test_measured_pairs_keep_only_the_longer_texts_of_each_run() -> None:
    texts = (["Home", "a b c d", "e f g"], ["Start", "w x y z", "u v"])
    sizes = ([0, 7, 5], [0, 7, 0])
    runs = [((0,), (0,)), ((1, 0), (1,)), ((2,), (2,))]
    # the label pair is left out, the label beside a paragraph too, a run with no longer
    # text on one side as well
    assert measured_pairs(sizes, texts, runs) == [("a b c d", "w x y z")]


def test_paired_menu_labels_do_not_outweigh_unpaired_content() -> None:
    """A tree result that paired sixty one-word menu labels and none of the three paragraphs
    has about the length evidence of the paragraphs' flat pairs; measured over the texts the
    flat pairs hold (no labels), the flat pairs win and the content is kept."""
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    paragraphs = [" ".join(words[(k + i) % 8] for i in range(6 + 5 * k)) for k in range(3)]
    labels = [f"item{k}" for k in range(60)]

    def page(text: Callable[[str], str]) -> TagTree:
        menu = "".join(f"<li><a>{text(label)}</a></li>" for label in labels)
        body = "".join(f"<p>{text(p)}</p>" for p in paragraphs)
        return block_tree(parse_html(f"<html><body><ul>{menu}</ul>{body}</body></html>"))

    src, tgt = page(str), page(str.upper)
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    label_leaves = [
        [i for i in tree.text_leaves() if tree.texts[i].strip().lower() in labels]
        for tree in (src, tgt)
    ]
    pairs = np.array(list(zip(*label_leaves, strict=True)), dtype=np.int64)
    menus_only = TreeAlignment(pairs, 0.0, src.size, tgt.size, 0.0, np.full(len(pairs), -1.0))
    kept = text_pairs(src, tgt, menus_only, model, keep_content=True)
    assert [(pair.src_text, pair.tgt_text) for pair in kept] == [(p, p.upper()) for p in paragraphs]
