"""Tests of BAM anchor selection and monolingual alignment (docs/methods.md §2 BAM)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.sentence_align.aligners.anchors import (
    AnchorOptions,
    SimilarityCheck,
    align_monolingual,
    alignment_scores,
    char_similarity,
    default_lambda,
    greedy_anchors,
    select_anchors,
)
from services.sentence_align.aligners.beads import Bead, check_coverage
from shared.errors import InvalidInput


def _crosses(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return not ((a[0] < b[0] and a[1] < b[1]) or (a[0] > b[0] and a[1] > b[1]))


def _oracle_greedy(scores, threshold, initial=(), accept=None):
    """Brute force: rescan every pair each round; take the smallest (P, i, j) allowed one."""
    anchors: list[tuple[int, int]] = []
    for pair in initial:
        if all(not _crosses(pair, a) for a in anchors):
            anchors.append(pair)
    while True:
        allowed = [
            (scores[i, j], i, j)
            for i in range(scores.shape[0])
            for j in range(scores.shape[1])
            if scores[i, j] < threshold
            and all(not _crosses((i, j), a) for a in anchors)
            and (accept is None or accept(i, j))
        ]
        if not allowed:
            return sorted(anchors)
        _, i, j = min(allowed)
        anchors.append((i, j))


# Hand computation: src lengths 2, 4; tgt lengths 3, 3; both texts 6 characters.
#   mid_S/len = 1/6, 4/6   mid_T/len = 1.5/6, 4.5/6   ctx_S = 4, 2   ctx_T = 3, 3
#   P[0,0] = 0.5/6 + lam*(1/3 + 1/4)      P[0,1] = 3.5/6 + lam*(1/3 + 1/4)
#   P[1,0] = 2.5/6 + lam*(1/4 + 1/3)      P[1,1] = 0.5/6 + lam*(1/4 + 1/3)
HAND_SRC = ["ab", "abcd"]
HAND_TGT = ["abc", "xyz"]


@pytest.mark.parametrize(
    ("lam", "expected"),
    [
        (1.0, [[8 / 12, 14 / 12], [12 / 12, 8 / 12]]),
        (0.5, [[9 / 24, 21 / 24], [17 / 24, 9 / 24]]),
        (0.0, [[1 / 12, 7 / 12], [5 / 12, 1 / 12]]),
    ],
)
def test_alignment_scores_hand_computed(lam: float, expected: list[list[float]]) -> None:
    scores = alignment_scores(HAND_SRC, HAND_TGT, lam=lam)
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


def test_default_lambda_shrinks_with_text_length() -> None:
    assert default_lambda(10, 20) > default_lambda(100, 20) > default_lambda(100, 400)
    np.testing.assert_allclose(
        alignment_scores(HAND_SRC, HAND_TGT), alignment_scores(HAND_SRC, HAND_TGT, lam=1.0)
    )


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("abca", "aab", 6 / 7),  # multiset overlap a,a,b = 3 of 4 + 3 characters
        ("a b", "ab", 1.0),  # spaces do not count
        ("猫が好き", "犬が好き", 6 / 8),  # no segmentation needed for Japanese
        ("abc", "xyz", 0.0),
        ("", "", 0.0),
    ],
)
def test_char_similarity_hand_computed(a: str, b: str, expected: float) -> None:
    assert char_similarity(a, b) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("abca", "aab", 2 / 5),  # bigrams ab bc ca / aa ab: one shared of 3 + 2
        ("ab c", "abc", 1.0),  # spaces removed before taking bigrams
        ("a", "a", 1.0),  # shorter than a bigram: the whole sentence is one gram
        ("a", "b", 0.0),
    ],
)
def test_char_bigram_similarity_hand_computed(a: str, b: str, expected: float) -> None:
    assert char_similarity(a, b, 2) == pytest.approx(expected)


score_matrices = st.integers(1, 6).flatmap(
    lambda m: st.integers(1, 6).flatmap(
        lambda n: st.lists(st.integers(0, 5), min_size=m * n, max_size=m * n).map(
            lambda values: np.array(values, dtype=np.float64).reshape(m, n)
        )
    )
)


@given(scores=score_matrices, threshold=st.integers(0, 6), with_last=st.booleans())
def test_greedy_anchors_match_brute_force_oracle(scores, threshold, with_last) -> None:
    m, n = scores.shape
    initial = [(m - 1, n - 1)] if with_last else []
    assert greedy_anchors(scores, threshold, initial=initial) == _oracle_greedy(
        scores, threshold, initial
    )


@given(scores=score_matrices, threshold=st.integers(0, 6), vetoed=st.sets(st.integers(0, 35)))
def test_greedy_anchors_with_veto_match_oracle(scores, threshold, vetoed) -> None:
    n = scores.shape[1]

    def accept(i: int, j: int) -> bool:
        return i * n + j not in vetoed

    assert greedy_anchors(scores, threshold, accept=accept) == _oracle_greedy(
        scores, threshold, accept=accept
    )


sentences = st.lists(st.text("abcdefgh ", min_size=1, max_size=12), min_size=1, max_size=12)


@given(
    src=sentences,
    tgt=sentences,
    filter_mode=st.sampled_from(["after", "during"]),
    ngram=st.integers(1, 3),
)
def test_selected_anchors_never_cross(src, tgt, filter_mode, ngram) -> None:
    anchors = select_anchors(
        src,
        tgt,
        threshold_d=0.5,
        similarity_threshold=0.3,
        options=AnchorOptions(similarity_filter=filter_mode, char_ngram=ngram),
    )
    assert anchors == sorted(anchors)
    for k, a in enumerate(anchors):
        for b in anchors[k + 1 :]:
            assert a[0] < b[0] and a[1] < b[1]
        assert char_similarity(src[a[0]], tgt[a[1]], ngram) >= 0.3


def test_filter_during_selection_lets_a_blocked_similar_pair_through() -> None:
    # lam = 0: P[0,0] = |10/24 - 1/2| < P[1,0] = |22/24 - 1/2|, but only (1, 0) is similar.
    src, tgt = ["a" * 20, "wxyz"], ["wxyz"]
    kwargs = {"threshold_d": 1.0, "similarity_threshold": 0.5, "lam": 0.0}
    after = AnchorOptions(last_anchor=False, similarity_filter="after")
    during = AnchorOptions(last_anchor=False, similarity_filter="during")
    assert select_anchors(src, tgt, options=after, **kwargs) == []  # (0,0) blocked it, then went
    assert select_anchors(src, tgt, options=during, **kwargs) == [(1, 0)]


def test_identity_texts_anchor_every_sentence() -> None:
    text = ["One sentence here.", "Another, longer sentence follows it.", "Short.", "The end."]
    assert select_anchors(text, text) == [(i, i) for i in range(len(text))]


def test_last_pair_is_an_anchor_by_default() -> None:
    src = ["Completely different words.", "xyzzy quux", "The final line of text."]
    tgt = ["Nothing alike here at all!", "The final line of the text."]
    assert (2, 1) in select_anchors(src, tgt, threshold_d=-1.0)
    assert (
        select_anchors(src, tgt, threshold_d=-1.0, options=AnchorOptions(last_anchor=False)) == []
    )


def test_similarity_filter_drops_dissimilar_anchor() -> None:
    src = ["aaaa bbbb", "cccc dddd"]
    tgt = ["aaaa bbbb", "wwww zzzz"]
    assert select_anchors(src, tgt, threshold_d=10.0) == [(0, 0)]
    assert select_anchors(src, tgt, threshold_d=10.0, similarity_threshold=0.0) == [(0, 0), (1, 1)]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold_d": float("nan")},
        {"similarity_threshold": 1.5},
        {"lam": -1.0},
    ],
)
def test_invalid_parameters_are_rejected(kwargs) -> None:
    with pytest.raises(InvalidInput):
        select_anchors(["a"], ["a"], **kwargs)


@pytest.mark.parametrize("kwargs", [{"similarity_filter": "never"}, {"char_ngram": 0}])
def test_invalid_options_are_rejected(kwargs) -> None:
    with pytest.raises(InvalidInput):
        AnchorOptions(**kwargs)


@given(src=sentences, tgt=sentences, filter_mode=st.sampled_from(["after", "during"]))
def test_align_monolingual_covers_every_sentence_once_in_order(src, tgt, filter_mode) -> None:
    beads = align_monolingual(
        src,
        tgt,
        threshold_d=0.5,
        similarity_threshold=0.3,
        options=AnchorOptions(similarity_filter=filter_mode),
    )
    check_coverage(beads, len(src), len(tgt))
    anchors = select_anchors(
        src,
        tgt,
        threshold_d=0.5,
        similarity_threshold=0.3,
        options=AnchorOptions(similarity_filter=filter_mode),
    )
    assert set(anchors) <= {(b.src[0], b.tgt[0]) for b in beads if b.shape == (1, 1)}


@given(text=st.lists(st.text("abcdefgh", min_size=1, max_size=12), min_size=1, max_size=12))
def test_align_monolingual_identity_input_gives_identity(text) -> None:
    beads = align_monolingual(text, text)
    assert [(b.src, b.tgt) for b in beads] == [((i,), (i,)) for i in range(len(text))]


def test_align_monolingual_empty_side_is_all_deletions() -> None:
    assert align_monolingual(["a", "b"], []) == [Bead((0,), ()), Bead((1,), ())]
    assert align_monolingual([], []) == []


_sentences = st.lists(st.text(alphabet="aab cdé日本語。 ", max_size=30), min_size=1, max_size=5)


@given(_sentences, _sentences, st.sampled_from([0.0, 0.3, 0.5, 0.8]), st.sampled_from([1, 2]))
def test_the_similarity_check_is_char_similarity_over_the_threshold(
    src: list[str], tgt: list[str], threshold: float, n: int
) -> None:
    # the overlaps of all pairs at once (sparse products, one per count level) must give
    # what counting each pair's n-grams gives
    check = SimilarityCheck(src, tgt, threshold, n)
    for i, a in enumerate(src):
        for j, b in enumerate(tgt):
            assert check(i, j) == (char_similarity(a, b, n) >= threshold), (a, b)
