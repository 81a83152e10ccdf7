"""Brute-force oracle tests of the tree alignment decoder, inside and outside probabilities.

The oracle enumerates every alignment *tree* (common supertree, Jiang-Wang-Zhang 1995) of two
small trees with no canonical order at all, keeps the distinct sets of node pairs, checks
each is order- and ancestry-preserving, and scores them. The decoder's optimum, the inside
sum and the pair marginals must equal what the enumeration gives.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.html.parse import parse_html
from services.html.tag_tree import TEXT_LABEL, TagTree, tree_from_nodes
from services.tree_align.decoder import (
    NODE_PAIR_WORK,
    Posteriors,
    affordable_span,
    align_trees,
    decoding_work,
    posteriors,
    table_bytes,
)
from services.tree_align.model import TreeModel, initial_model
from shared.errors import InputTooLarge, InvalidInput

Mapping = frozenset[tuple[int, int]]
TAGS = ("div", "p", TEXT_LABEL)
T = TEXT_LABEL


@st.composite
def small_trees(draw: st.DrawFn) -> TagTree:
    size = draw(st.integers(1, 6))
    parents = [-1]
    path = [0]
    for node in range(1, size):
        depth = draw(st.integers(0, len(path) - 1))
        del path[depth + 1 :]
        parents.append(path[-1])
        path.append(node)
    has_children = {p for p in parents if p >= 0}
    labels = [draw(st.sampled_from(TAGS[:2] if n in has_children else TAGS)) for n in range(size)]
    texts = ["x" * draw(st.integers(1, 15)) if label == TEXT_LABEL else "" for label in labels]
    return tree_from_nodes(labels, parents, texts)


@st.composite
def models(draw: st.DrawFn) -> TreeModel:
    seed = draw(st.integers(0, 2**31))
    base = initial_model(
        TAGS,
        same_tag_bonus=draw(st.floats(0.0, 20.0)),
        deletion=draw(st.floats(0.01, 0.9)),
    )
    rng = np.random.default_rng(seed)
    size = len(base.labels)
    tag = rng.dirichlet(np.ones(size), size=size)
    return TreeModel(
        labels=base.labels,
        log_tag=np.log(tag),
        log_del_src=np.log(rng.uniform(0.01, 0.9, size)),
        log_del_tgt=np.log(rng.uniform(0.01, 0.9, size)),
    )


def children(tree: TagTree, node: int) -> tuple[int, ...]:
    return tuple(int(c) for c in tree.children(node))


def enumerate_alignments(src: TagTree, tgt: TagTree, max_span: int | None = None) -> set[Mapping]:
    """All distinct node-pair sets realised by some alignment tree of ``src`` and ``tgt``.

    ``max_span``: the decoder's restricted model, whose deleted node's children cover at most
    that many siblings of the other tree in the canonical derivation (_dp.py: rule a, a span
    is tight, it starts and ends with trees holding aligned nodes; rule c, a deleted g over
    one deleted f is inside f). Only those derivations are generated then; without
    ``max_span`` every derivation is, with no canonical order at all.
    """

    def touches(mapping: Mapping, tree: TagTree, side: int, root: int) -> bool:
        return any(root <= pair[side] < tree.subtree_end[root] for pair in mapping)

    def span(inner: frozenset[Mapping], over: tuple[int, ...], tree: TagTree, side: int,
             single_root_kept: bool) -> frozenset[Mapping]:  # fmt: skip
        if max_span is None or not over:
            return inner
        if len(over) > max_span:
            return frozenset()
        kept = {m for m in inner if touches(m, tree, side, over[0])}  # rule a
        kept = {m for m in kept if touches(m, tree, side, over[-1])}
        if single_root_kept and len(over) == 1:  # rule c
            kept = {m for m in kept if any(a == over[0] for a, _ in m)}
        return frozenset(kept)

    @functools.cache
    def forests(f: tuple[int, ...], g: tuple[int, ...]) -> frozenset[Mapping]:
        if not f and not g:
            return frozenset({frozenset()})
        found: set[Mapping] = set()

        def combine(inner: frozenset[Mapping], rest: frozenset[Mapping], extra: Mapping) -> None:
            for a in inner:
                for b in rest:
                    found.add(a | b | extra)

        if f and g and src.is_text(f[0]) == tgt.is_text(g[0]):  # root (f1, g1)
            combine(forests(children(src, f[0]), children(tgt, g[0])), forests(f[1:], g[1:]),
                    frozenset({(f[0], g[0])}))  # fmt: skip
        if f:  # root (f1, -) over a prefix of g
            for k in range(len(g) + 1):
                inner = span(forests(children(src, f[0]), g[:k]), g[:k], tgt, 1, False)
                combine(inner, forests(f[1:], g[k:]), frozenset())
        if g:  # root (-, g1) over a prefix of f
            for k in range(len(f) + 1):
                inner = span(forests(f[:k], children(tgt, g[0])), f[:k], src, 0, True)
                combine(inner, forests(f[k:], g[1:]), frozenset())
        return frozenset(found)

    return set(forests((0,), (0,)))


def ancestors(tree: TagTree, node: int) -> Iterator[int]:
    node = int(tree.parent[node])
    while node >= 0:
        yield node
        node = int(tree.parent[node])


def preserves_structure(src: TagTree, tgt: TagTree, mapping: Mapping) -> bool:
    for a, b in mapping:
        for c, d in mapping:
            if (a in set(ancestors(src, c))) != (b in set(ancestors(tgt, d))):
                return False
            left_src = a < c and a not in set(ancestors(src, c))
            left_tgt = b < d and b not in set(ancestors(tgt, d))
            if left_src != left_tgt:
                return False
    return True


def alignment_cost(src: TagTree, tgt: TagTree, model: TreeModel, mapping: Mapping) -> float:
    labels1 = model.label_ids(src.label_names)[src.labels]
    labels2 = model.label_ids(tgt.label_names)[tgt.labels]
    pair_cost = model.pair_cost_matrix()
    cost = 0.0
    for a, b in mapping:
        cost += pair_cost[labels1[a], labels2[b]]
        if src.is_text(a):
            text = model.text_model.pair_costs([src.texts[a]], [tgt.texts[b]])
            cost += float(text[0, 0])
    matched1 = {a for a, _ in mapping}
    matched2 = {b for _, b in mapping}
    cost -= sum(model.log_del_src[labels1[x]] for x in range(src.size) if x not in matched1)
    cost -= sum(model.log_del_tgt[labels2[y]] for y in range(tgt.size) if y not in matched2)
    return float(cost)


def assert_posteriors_are_the_enumerations(post: Posteriors, weights: dict[Mapping, float]) -> None:
    """log Z and the pair posteriors of inside-outside equal the sums over the enumeration."""
    total = sum(weights.values())
    assert math.isclose(post.log_likelihood, math.log(total), rel_tol=1e-9, abs_tol=1e-9)
    expected = np.zeros_like(post.pair)
    for mapping, weight in weights.items():
        for a, b in mapping:
            expected[a, b] += weight / total
    np.testing.assert_allclose(post.pair, expected, atol=1e-9)


@given(small_trees(), small_trees(), models())
def test_decoder_and_inside_outside_equal_enumeration(
    src: TagTree, tgt: TagTree, model: TreeModel
) -> None:
    mappings = enumerate_alignments(src, tgt)
    assert all(preserves_structure(src, tgt, m) for m in mappings)
    costs = {m: alignment_cost(src, tgt, model, m) for m in mappings}

    best = align_trees(src, tgt, model)
    assert math.isclose(best.cost, min(costs.values()), rel_tol=1e-9, abs_tol=1e-9)
    decoded = frozenset((int(a), int(b)) for a, b in best.pairs)
    assert decoded in costs
    assert math.isclose(costs[decoded], best.cost, rel_tol=1e-9, abs_tol=1e-9)

    weights = {m: math.exp(-c) for m, c in costs.items()}
    total = sum(weights.values())
    post = posteriors(src, tgt, model)
    assert_posteriors_are_the_enumerations(post, weights)
    expected_pairs = sum(w * len(m) for m, w in weights.items()) / total
    assert math.isclose(post.pair.sum(), expected_pairs, rel_tol=1e-9, abs_tol=1e-9)
    np.testing.assert_allclose(post.pair.sum(axis=1) + post.deleted_src, 1.0, atol=1e-9)
    np.testing.assert_allclose(post.pair.sum(axis=0) + post.deleted_tgt, 1.0, atol=1e-9)


@given(small_trees(), small_trees(), models(), st.sampled_from(TAGS), st.booleans())
def test_a_deletion_probability_of_zero_is_decoded_exactly(
    src: TagTree, tgt: TagTree, model: TreeModel, undeletable: str, both_sides: bool
) -> None:
    # EM drives Pr_del of always-aligned tags to 0; subtree deletion costs taken as prefix-sum
    # differences were then inf - inf = NaN, and the traceback failed
    index = model.label_index[undeletable]
    log_del_src, log_del_tgt = model.log_del_src.copy(), model.log_del_tgt.copy()
    log_del_src[index] = -np.inf
    if both_sides:
        log_del_tgt[index] = -np.inf
    model = dataclasses.replace(model, log_del_src=log_del_src, log_del_tgt=log_del_tgt)
    costs = {m: alignment_cost(src, tgt, model, m) for m in enumerate_alignments(src, tgt)}
    best = min(costs.values())
    if math.isinf(best):  # an undeletable node that nothing can pair with
        with pytest.raises(InvalidInput, match="probability 0"):
            align_trees(src, tgt, model)
        with pytest.raises(InvalidInput, match="probability 0"):
            posteriors(src, tgt, model)
        return
    decoded = align_trees(src, tgt, model)
    assert math.isclose(decoded.cost, best, rel_tol=1e-9, abs_tol=1e-9)
    mapping = frozenset((int(a), int(b)) for a, b in decoded.pairs)
    assert math.isclose(costs[mapping], best, rel_tol=1e-9, abs_tol=1e-9)
    total = sum(math.exp(-c) for c in costs.values())
    post = posteriors(src, tgt, model)
    assert math.isclose(post.log_likelihood, math.log(total), rel_tol=1e-9, abs_tol=1e-9)
    np.testing.assert_allclose(post.pair.sum(axis=1) + post.deleted_src, 1.0, atol=1e-9)


def test_enumeration_counts_a_known_case() -> None:
    # a(b) against c(d): 1 + 4 + (a~c with b,d) ... hand count: pairs possible
    # {}, {a~c}, {a~d}, {b~c}, {b~d}, {a~c, b~d} = 6 distinct alignments
    src = tree_from_nodes(["div", "p"], [-1, 0], ["", ""])
    tgt = tree_from_nodes(["div", "p"], [-1, 0], ["", ""])
    assert len(enumerate_alignments(src, tgt)) == 6


def test_table_memory_is_bounded_with_a_clear_error() -> None:
    tree = tree_from_nodes(["div"] + ["p"] * 50, [-1] + [0] * 50, [""] * 51)
    model = initial_model(TAGS)
    with pytest.raises(InputTooLarge, match="GB"):
        align_trees(tree, tree, model, max_table_bytes=1_000)


def test_deep_page_aligns_within_bounds() -> None:
    depth = 990  # with html and body just under the default max_depth of 1,000
    page = parse_html(b"<div>" * depth + b"deep" + b"</div>" * depth)
    assert page.texts[page.text_leaves()[-1]] == "deep"  # not cut at libxml2's 256 levels
    model = initial_model(["html", "body", *TAGS], deletion=0.01)
    result = align_trees(page, page, model)
    assert len(result.pairs) == page.size  # identical trees: every node aligned to itself
    assert all(a == b for a, b in result.pairs)
    with pytest.raises(InputTooLarge, match="deeper"):
        parse_html(b"<div>" * 100_000 + b"deep" + b"</div>" * 100_000)


@given(small_trees(), small_trees(), models(), st.floats(0.0, 1.0))
def test_band_pruning_is_exact_on_the_restricted_model(
    src: TagTree, tgt: TagTree, model: TreeModel, band: float
) -> None:
    def position(tree: TagTree, node: int) -> float:
        return node / max(tree.size - 1, 1)

    allowed = {
        m
        for m in enumerate_alignments(src, tgt)
        if all(abs(position(src, a) - position(tgt, b)) <= band for a, b in m)
    }
    best = min(alignment_cost(src, tgt, model, m) for m in allowed)
    assert math.isclose(
        align_trees(src, tgt, model, band=band).cost, best, rel_tol=1e-9, abs_tol=1e-9
    )


def test_only_chains_have_single_sibling_spans() -> None:
    from services.tree_align.decoder import _widest_spans

    tree = parse_html("<div><p><b>x</b></p></div><ul><li>a</li><li>b</li></ul>")
    widest = _widest_spans(tree, None)
    by_label = {tree.label(node): int(widest[node]) for node in range(tree.size)}
    assert by_label["div"] == by_label["p"] == by_label["b"] == 1  # div > p > b > #text
    assert by_label["ul"] > 1 and by_label["body"] > 1
    assert by_label["li"] == 1


@st.composite
def wide_trees(draw: st.DrawFn) -> TagTree:
    # bushier and larger than the oracle's trees: long sibling ranges, one-child chains
    size = draw(st.integers(8, 30))
    parents = [-1]
    path = [0]  # pre-order: a new node's parent is on the path from the root to the last node
    for node in range(1, size):
        depth = draw(st.integers(max(0, len(path) - 3), len(path) - 1))
        del path[depth + 1 :]
        parents.append(path[-1])
        path.append(node)
    has_children = set(parents[1:])
    labels = [draw(st.sampled_from(TAGS[:2] if n in has_children else TAGS)) for n in range(size)]
    texts = ["x" * draw(st.integers(1, 15)) if label == TEXT_LABEL else "" for label in labels]
    return tree_from_nodes(labels, parents, texts)


@given(wide_trees(), wide_trees(), models(), st.sampled_from([None, 2, 3]))
def test_decoded_pairs_cost_what_the_decoder_says_on_wider_trees(
    src: TagTree, tgt: TagTree, model: TreeModel, max_span: int | None
) -> None:
    best = align_trees(src, tgt, model, max_span=max_span)
    mapping = frozenset((int(a), int(b)) for a, b in best.pairs)
    assert preserves_structure(src, tgt, mapping)
    assert math.isclose(
        alignment_cost(src, tgt, model, mapping), best.cost, rel_tol=1e-9, abs_tol=1e-9
    )
    unrestricted = align_trees(src, tgt, model).cost if max_span else best.cost
    assert unrestricted <= best.cost + 1e-9  # restricting spans never finds a better alignment


ONE_CHILD_CASES = [
    # a deleted node whose single child is deleted too, its grandchildren over two siblings
    (["div", "div", "p", T, T], [-1, 0, 1, 2, 2], ["", "", "", "xxxx", "yyyyyyy"]),
    (["div", T, T], [-1, 0, 0], ["", "xxxx", "yyyyyyy"]),
    (["div", "p", "div", T, "p", T], [-1, 0, 1, 2, 1, 4], ["", "", "", "xx", "", "yyyyy"]),
]


@pytest.mark.parametrize("first", range(len(ONE_CHILD_CASES)))
@pytest.mark.parametrize("second", range(len(ONE_CHILD_CASES)))
@given(model=models())
def test_one_child_spans_against_enumeration(first: int, second: int, model: TreeModel) -> None:
    # node pairs where one side has a single child take closed forms in the decoder
    src = tree_from_nodes(*ONE_CHILD_CASES[first])
    tgt = tree_from_nodes(*ONE_CHILD_CASES[second])
    costs = [alignment_cost(src, tgt, model, m) for m in enumerate_alignments(src, tgt)]
    assert math.isclose(align_trees(src, tgt, model).cost, min(costs), rel_tol=1e-9, abs_tol=1e-9)
    total = sum(math.exp(-c) for c in costs)
    log_z = posteriors(src, tgt, model).log_likelihood
    assert math.isclose(log_z, math.log(total), rel_tol=1e-9, abs_tol=1e-9)


@given(small_trees(), small_trees(), models(), st.integers(1, 3))
def test_span_restriction_is_exact_on_the_restricted_model(
    src: TagTree, tgt: TagTree, model: TreeModel, max_span: int
) -> None:
    # wide pages are decoded with max_span (affordable_span): it must stay an exact optimum
    allowed = enumerate_alignments(src, tgt, max_span)
    best = min(alignment_cost(src, tgt, model, m) for m in allowed)
    found = align_trees(src, tgt, model, max_span=max_span)
    assert math.isclose(found.cost, best, rel_tol=1e-9, abs_tol=1e-9)
    assert frozenset((int(a), int(b)) for a, b in found.pairs) in allowed
    assert found.max_span == max_span
    # inside-outside over the same restricted model (its range tables hold only short spans)
    weights = {m: math.exp(-alignment_cost(src, tgt, model, m)) for m in allowed}
    post = posteriors(src, tgt, model, max_span=max_span)
    assert_posteriors_are_the_enumerations(post, weights)


def rows_of_two(rows: int) -> TagTree:
    """A ``div`` of ``rows`` children with two children each (wide, and no chains)."""
    labels, parents = ["div"], [-1]
    for _ in range(rows):
        parents += [0, len(parents), len(parents)]
        labels += ["p", "b", "i"]
    return tree_from_nodes(labels, parents, [""] * len(labels))


def test_restricted_spans_shrink_the_range_tables() -> None:
    # an 800-row table needed 4.5 GB of tables exact: ranges of every length under each node
    tree = rows_of_two(60)
    model = initial_model(TAGS)
    with pytest.raises(InputTooLarge, match="tables"):
        align_trees(tree, tree, model, max_table_bytes=1_000_000, max_work=None)
    found = align_trees(tree, tree, model, max_table_bytes=1_000_000, max_span=5)
    assert len(found.pairs) == tree.size  # the identity


def test_span_restriction_excludes_a_wide_span() -> None:
    # a wrapper on one side around three paragraphs: its children span 3 target siblings
    src = tree_from_nodes(["div", "div", T, T, T], [-1, 0, 1, 1, 1], ["", "", "aa", "bbb", "c"])
    tgt = tree_from_nodes(["div", T, T, T], [-1, 0, 0, 0], ["", "aa", "bbb", "c"])
    wrapper_deleted = frozenset({(0, 0), (2, 1), (3, 2), (4, 3)})
    assert wrapper_deleted in enumerate_alignments(src, tgt)
    assert wrapper_deleted in enumerate_alignments(src, tgt, 3)
    assert wrapper_deleted not in enumerate_alignments(src, tgt, 2)


def brute_force_work(src: TagTree, tgt: TagTree, max_span: int | None) -> float:
    """The scan cells of every node pair, counted one scan at a time."""

    def degrees(tree: TagTree) -> list[int]:
        return [len(children(tree, node)) for node in range(tree.size)] + [1]  # virtual root

    k = max_span or 1 << 30
    cells = 0.0
    for d1 in degrees(src):
        for d2 in degrees(tgt):
            if d1 >= 2 and d2 >= 2:
                cells += sum(d1 * min(d2 - w, k) for w in range(d2))  # GT(w): d1 rows
                cells += sum(d2 * min(d1 - w, k) for w in range(d1))  # FT(w): d2 columns
    pairs = sum(d > 0 for d in degrees(src)) * sum(d > 0 for d in degrees(tgt))
    return cells + NODE_PAIR_WORK * pairs


@given(wide_trees(), wide_trees(), st.sampled_from([None, 1, 2, 5]))
def test_decoding_work_counts_every_scan_cell(
    src: TagTree, tgt: TagTree, max_span: int | None
) -> None:
    assert math.isclose(decoding_work(src, tgt, max_span), brute_force_work(src, tgt, max_span))


def list_page(items: int) -> TagTree:
    return parse_html("<ul>" + "".join(f"<li>item {k} text</li>" for k in range(items)) + "</ul>")


def test_a_pair_too_wide_for_exact_decoding_gets_the_widest_affordable_span() -> None:
    # a 2,000-item list needed 225 s exact (its two passes); work grows with the span
    src, tgt = list_page(60), list_page(58)
    model = initial_model(sorted(set(src.label_names)))
    exact = decoding_work(src, tgt)
    assert affordable_span(src, tgt, exact) is None
    assert align_trees(src, tgt, model, max_work=exact).max_span is None
    budget = decoding_work(src, tgt, 7)
    assert affordable_span(src, tgt, budget) == 7
    assert affordable_span(src, tgt, budget - 1) == 6
    restricted = align_trees(src, tgt, model, max_work=budget)
    assert restricted.max_span == 7
    assert restricted.cost == align_trees(src, tgt, model, max_span=7).cost
    assert np.array_equal(restricted.pairs, align_trees(src, tgt, model, max_span=7).pairs)
    assert posteriors(src, tgt, model, max_work=budget).log_likelihood == pytest.approx(
        posteriors(src, tgt, model, max_span=7).log_likelihood
    )
    with pytest.raises(InputTooLarge, match="one sibling"):
        align_trees(src, tgt, model, max_work=decoding_work(src, tgt, 1) - 1)


@given(wide_trees(), wide_trees(), st.sampled_from([None, 1, 2, 5]), st.booleans())
def test_table_bytes_are_the_tables_the_decoder_allocates(
    src: TagTree, tgt: TagTree, max_span: int | None, with_adjoints: bool
) -> None:
    # table_bytes counts from the trees' shape; the decoder allocates from the sides' offsets
    from services.tree_align.decoder import _side, _span_rows, _widest_spans

    model = initial_model(TAGS)
    side1 = _side(src, model.label_ids(src.label_names), model.log_del_src, max_span)
    side2 = _side(tgt, model.label_ids(tgt.label_names), model.log_del_tgt, max_span)
    _, sg_size = _span_rows(side1, _widest_spans(src, max_span), side2)
    _, sf_size = _span_rows(side2, _widest_spans(tgt, max_span), side1)
    af_size = int((side1.internal >= 0).sum()) * int((side2.internal >= 0).sum())
    cells = af_size + sg_size + sf_size
    if with_adjoints:
        cells = 2 * cells + (src.size + 1) * (tgt.size + 1)
    assert table_bytes(src, tgt, max_span, with_adjoints=with_adjoints) == 8 * cells


def test_a_pair_whose_exact_tables_are_too_large_gets_a_span_that_fits() -> None:
    # 450 cards under one node needed 1.6 GB exact at 3.6e8 units of work, under the work
    # bound: refused, aligned as flat text; restricted spans would have fitted
    tree = rows_of_two(60)
    model = initial_model(TAGS)
    limit = int(table_bytes(tree, tree, 5))
    assert table_bytes(tree, tree) > limit and decoding_work(tree, tree) < 1e9
    assert affordable_span(tree, tree, 1e9, limit) == 5
    found = align_trees(tree, tree, model, max_work=1e9, max_table_bytes=limit)
    assert found.max_span == 5 and len(found.pairs) == tree.size
    with pytest.raises(InputTooLarge, match=r"GB of tables .* even with spans of one sibling"):
        affordable_span(tree, tree, 1e9, int(table_bytes(tree, tree, 1)) - 1)
    post = posteriors(tree, tree, model, max_work=1e9, max_table_bytes=limit * 3)
    assert math.isclose(
        post.log_likelihood,
        posteriors(tree, tree, model, max_span=affordable_span(
            tree, tree, 1e9, limit * 3, with_adjoints=True
        )).log_likelihood,
    )  # fmt: skip


def test_a_span_restriction_below_one_sibling_is_refused() -> None:
    tree = tree_from_nodes(["div"] + ["p"] * 5, [-1] + [0] * 5, [""] * 6)
    with pytest.raises(ValueError, match="max_span"):
        align_trees(tree, tree, initial_model(TAGS), max_span=0)
