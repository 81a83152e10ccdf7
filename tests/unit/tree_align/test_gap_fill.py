"""Gap filling (``tree_align.gap_fill``): unpaired chunks between two pairs paired on Pr_text,
against brute force where the search is exact."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.html.parse import TextChunk
from services.tree_align.model import FloatArray, initial_model


class _FixedCost:
    """A Pr_text giving every pair of texts the same cost."""

    def __init__(self, cost: float) -> None:
        self.cost = cost

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        return np.full((len(src_texts), len(tgt_texts)), self.cost)


def test_a_gap_pair_may_cost_more_the_more_words_it_explains() -> None:
    from services.html.parse import TextChunk
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    def gap_pairs(words: int, cost: float, per_word: float) -> int:
        chunks = (
            [TextChunk((0,), 0, " ".join(["wort"] * words))],
            [TextChunk((0,), 0, " ".join(["mot"] * words))],
        )
        model = initial_model(["p"])
        model = dataclasses.replace(model, text_model=_FixedCost(cost))
        return len(_fill_gap(chunks, ChunkUnion(2), model, [0], [0], 20.0, per_word))

    assert gap_pairs(10, 19.0, 0.5) == 1  # below the threshold
    assert gap_pairs(10, 21.0, 0.5) == 0  # 20 words x 0.5 = 10 < 20: the threshold stands
    assert gap_pairs(30, 21.0, 0.5) == 1  # 60 words x 0.5 = 30
    assert gap_pairs(30, 31.0, 0.5) == 0
    assert gap_pairs(30, 21.0, 0.0) == 0


def test_ideographs_count_as_words_of_a_gap_pair() -> None:
    """A Chinese paragraph has no spaces: counted by spaces it would be one word, under the
    minimum of a gap pair and earning no per-word allowance."""
    from services.html.parse import TextChunk
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    def gap_pairs(chinese: str, min_words: int) -> int:
        chunks = (
            [TextChunk((0,), 0, "the old man walked up the hill at dawn")],
            [TextChunk((0,), 0, chinese)],
        )
        model = dataclasses.replace(initial_model(["p"]), text_model=_FixedCost(10.0))
        return len(_fill_gap(chunks, ChunkUnion(2), model, [0], [0], 0.0, 0.7, min_words))

    # 9 + 10 words x 0.7 = 13.3 > 10: accepted; by spaces 9 + 1 words: 7 < 10
    assert gap_pairs("老人黎明时分走上了山。", 6) == 1
    assert gap_pairs("老人。", 6) == 0  # 3 tokens: two ideographs and a stop


def test_without_a_per_word_allowance_a_negative_gap_threshold_stands() -> None:
    from services.html.parse import TextChunk
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    chunks = ([TextChunk((0,), 0, "ein wort")], [TextChunk((0,), 0, "un mot")])
    model = dataclasses.replace(initial_model(["p"]), text_model=_FixedCost(-5.0))
    assert _fill_gap(chunks, ChunkUnion(2), model, [0], [0], -8.0, 0.0) == []
    assert _fill_gap(chunks, ChunkUnion(2), model, [0], [0], -4.0, 0.0) == [(0, -5.0)]


class _ShortIsCheap:
    """A Pr_text of cost -5 + 0.1 per word of the two texts."""

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        src = np.array([len(text.split()) for text in src_texts], dtype=np.float64)
        tgt = np.array([len(text.split()) for text in tgt_texts], dtype=np.float64)
        return np.round(-5.0 + 0.1 * (src[:, None] + tgt[None, :]), 9)


def test_gap_pairs_of_too_few_words_are_not_joined() -> None:
    from services.html.parse import TextChunk
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    chunks = (
        [TextChunk((0,), 0, "kurzer titel"), TextChunk((1,), 1, "ein langer absatz mit worten")],
        [TextChunk((0,), 0, "titre court"), TextChunk((1,), 1, "un long paragraphe de mots")],
    )
    model = dataclasses.replace(initial_model(["p"]), text_model=_ShortIsCheap())
    # every pair is below the threshold: titles and paragraphs both join, in order
    assert _fill_gap(chunks, ChunkUnion(4), model, [0, 1], [0, 1], 0.0, 0.0) == [
        (0, -4.6),
        (1, -4.0),
    ]
    components = ChunkUnion(4)
    assert _fill_gap(chunks, components, model, [0, 1], [0, 1], 0.0, 0.0, 3) == [(1, -4.0)]
    assert components.find(1) == components.find(3) and components.find(0) != components.find(2)


class Translations:
    """A Pr_text of cost -10 for texts with the same keys (words ending in a digit), else 10."""

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        def keys(text: str) -> set[str]:
            return {word for word in text.split() if word[-1].isdigit()}

        return np.array(
            [[-10.0 if keys(a) == keys(b) else 10.0 for b in tgt_texts] for a in src_texts]
        )


def chunks_of(*texts: str) -> list[TextChunk]:
    return [TextChunk((k,), k, text) for k, text in enumerate(texts)]


def test_a_gap_joins_all_its_pairs_in_order_and_skips_one_sided_text() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    chunks = (
        chunks_of("a1 x y z", "box1 x y z", "b1 x y z", "c1 x y z"),
        chunks_of("a1 u v w", "b1 u v w", "box2 u v w", "c1 u v w", "c1 u v w"),
    )
    model = dataclasses.replace(initial_model(["p"]), text_model=Translations())
    components = ChunkUnion(9)
    made = _fill_gap(chunks, components, model, [0, 1, 2, 3], [0, 1, 2, 3, 4], 0.0, 0.1)
    assert [source for source, _ in made] == [0, 2, 3]
    group = {components.find(4 + j) for j in (3, 4)}  # the more words the higher the limit
    assert group == {components.find(3)}  # c1 with both halves of its split translation
    assert components.find(1) not in {components.find(4 + j) for j in range(5)}  # box1 alone
    assert components.find(4 + 2) not in {components.find(x) for x in range(4)}  # box2 alone


def test_a_gap_does_not_join_two_chunks_on_both_sides() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    chunks = (chunks_of("a1 x", "a1 y"), chunks_of("a1 u", "b1 v"))
    model = dataclasses.replace(initial_model(["p"]), text_model=Translations())
    components = ChunkUnion(4)
    assert _fill_gap(chunks, components, model, [0, 1], [0, 1], 0.0, 0.0) == [(0, -10.0)]
    assert components.find(3) != components.find(0)


def test_gap_windows_of_long_and_open_gaps() -> None:
    from services.tree_align.gap_fill import _gap_windows

    run, gap = list(range(10, 20)), list(range(30, 33))
    both = (True, True)
    assert _gap_windows(run[:3], gap, both, 4, False) == [(run[:3], gap)]
    assert _gap_windows(run, gap, both, 4, False) == []  # too long without wide gaps
    assert _gap_windows(run, gap, (True, False), 4, False) == []  # open end
    # a long gap: the chunks next to the following pair, then those after the previous one
    assert _gap_windows(run, gap, both, 4, True) == [(run[-4:], gap)]  # all 3 taken by the tail
    assert _gap_windows(run, list(range(30, 40)), both, 4, True) == [
        (run[-4:], list(range(36, 40))),
        (run[:4], list(range(30, 34))),
    ]
    assert _gap_windows(run, gap, (True, False), 4, True) == [(run[:4], gap)]  # page end
    assert _gap_windows(run, gap, (False, True), 4, True) == [(run[-4:], gap)]  # page start
    assert _gap_windows(run, gap, (False, False), 4, True) == []  # no pair at all
    assert _gap_windows(run, [], both, 4, True) == []


class _TableCosts:
    """A Pr_text read from a table: cost of (source text, target text)."""

    def __init__(self, costs: dict[tuple[str, str], float]) -> None:
        self.costs = costs

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        return np.array([[self.costs[(a, b)] for b in tgt_texts] for a in src_texts])


def _best_chain(candidates: list[tuple[int, int, int, int, float]]) -> float:
    """Brute force: the lowest summed gain over every chain of candidate pairs (a, b, c, d,
    gain) in order on both sides (each starts after the previous one ends), or 0."""

    def extend(after_src: int, after_tgt: int) -> float:
        best = 0.0
        for a, b, c, d, gain in candidates:
            if a > after_src and c > after_tgt:
                best = min(best, gain + extend(b, d))
        return best

    return extend(-1, -1)


_SIZES_AND_COSTS = (
    st.integers(1, 4),
    st.integers(1, 4),
    st.lists(st.floats(-5.0, 5.0, allow_nan=False), min_size=49, max_size=49),
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(*_SIZES_AND_COSTS)
def test_fill_gap_equals_the_brute_force_best_chain(
    n_src: int, n_tgt: int, values: list[float]
) -> None:
    """The gap DP joins the set of pairs that a brute-force search over all in-order
    chains finds best (sum of cost - threshold; sub-runs of up to MAX_GAP_SPAN chunks, not
    two chunks on both sides)."""
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import MAX_GAP_SPAN, _fill_gap, chunk_spans

    chunks = (
        chunks_of(*(f"s{k}" for k in range(n_src))),
        chunks_of(*(f"t{k}" for k in range(n_tgt))),
    )
    src_spans, tgt_spans = chunk_spans(n_src), chunk_spans(n_tgt)
    text = {
        side: {span: " ".join(f"{side}{k}" for k in range(span[0], span[1] + 1)) for span in spans}
        for side, spans in (("s", src_spans), ("t", tgt_spans))
    }
    costs, candidates, index = {}, [], 0
    for a, b in src_spans:
        for c, d in tgt_spans:
            cost = values[index % len(values)] + index * 1e-6  # distinct: no ties
            index += 1
            costs[(text["s"][(a, b)], text["t"][(c, d)])] = cost
            if cost < 0.0 and (b == a or d == c):
                candidates.append((a, b, c, d, cost))
    assert MAX_GAP_SPAN == 2  # the spans above are those _fill_gap scores
    model = dataclasses.replace(initial_model(["p"]), text_model=_TableCosts(costs))
    made = _fill_gap(
        chunks, ChunkUnion(n_src + n_tgt), model, list(range(n_src)), list(range(n_tgt)),
        0.0, 0.0,
    )  # fmt: skip
    assert sum(cost for _, cost in made) == pytest.approx(_best_chain(candidates))


def _chain_covering(
    candidates: list[tuple[int, int, int, int, float]], keep: tuple[list[bool], list[bool]]
) -> float | None:
    """Brute force: the lowest summed gain over every in-order chain of candidate pairs
    (a, b, c, d, gain) that pairs every kept chunk, or None when no chain does."""

    def extend(after_src: int, after_tgt: int) -> float | None:
        # the chain may stop here only if no kept chunk lies after it
        best = (
            0.0 if not any(keep[0][after_src + 1 :]) and not any(keep[1][after_tgt + 1 :]) else None
        )
        for a, b, c, d, gain in candidates:
            if a <= after_src or c <= after_tgt:
                continue
            if any(keep[0][after_src + 1 : a]) or any(keep[1][after_tgt + 1 : c]):
                continue  # a kept chunk skipped
            rest = extend(b, d)
            if rest is not None and (best is None or gain + rest < best):
                best = gain + rest
        return best

    return extend(-1, -1)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    *_SIZES_AND_COSTS,
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.lists(st.booleans(), min_size=49, max_size=49),
)
def test_best_chain_keeping_chunks_equals_the_brute_force_best_chain(
    n_src: int, n_tgt: int, values: list[float], kept: list[bool], barred: list[bool]
) -> None:
    """With chunks that must stay paired, the DP's chain is the best chain pairing all of
    them (every finite gain a candidate, of either sign), or [] when none exists."""
    from services.tree_align.gap_fill import best_chain, chunk_spans

    src_spans, tgt_spans = chunk_spans(n_src), chunk_spans(n_tgt)
    keep = (kept[:n_src], kept[4 : 4 + n_tgt])
    gain = np.full((len(src_spans), len(tgt_spans)), np.inf)
    candidates, index = [], 0
    for x, (a, b) in enumerate(src_spans):
        for y, (c, d) in enumerate(tgt_spans):
            if not barred[index % len(barred)]:
                gain[x, y] = values[index % len(values)] + index * 1e-6
                if b == a or d == c:
                    candidates.append((a, b, c, d, float(gain[x, y])))
            index += 1
    chosen = best_chain(n_src, n_tgt, src_spans, tgt_spans, gain, keep)
    expected = _chain_covering(candidates, keep)
    if expected is None or (not any(keep[0]) and not any(keep[1]) and expected >= 0.0):
        # nothing feasible, or the empty chain (0) is the best when nothing must be kept
        assert chosen == [] or sum(gain[x, y] for x, y in chosen) == pytest.approx(0.0)
        if expected is None:
            assert chosen == []
        return
    assert sum(gain[x, y] for x, y in chosen) == pytest.approx(expected)
    covered = (
        {i for x, _ in chosen for i in range(src_spans[x][0], src_spans[x][1] + 1)},
        {j for _, y in chosen for j in range(tgt_spans[y][0], tgt_spans[y][1] + 1)},
    )
    assert all(i in covered[0] for i in range(n_src) if keep[0][i])
    assert all(j in covered[1] for j in range(n_tgt) if keep[1][j])
