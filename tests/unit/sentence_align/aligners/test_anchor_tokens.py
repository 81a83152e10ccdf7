"""Tests of the anchor-token model of the hybrid aligner (``two_pass.anchor_tokens`` and the
separation cost ``two_pass.anchor_extra``)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from services.sentence_align.aligners.anchor_tokens import anchor_chain, anchor_extra, anchor_tokens
from services.sentence_align.aligners.beads import bead_shapes
from services.sentence_align.dp import banded as dp


def test_anchor_tokens_pair_rare_names_and_numbers() -> None:
    src = [
        "Am 7. Juli erreichten Larch und Reinagl den Grat .",
        "Das Wetter war schlecht , und das Wetter blieb schlecht .",
        "Die Mannschaft ( 1956 ) führte Morawec .",
        "1956 kam sie zurück .",
    ]
    tgt = [
        "Le 7 juillet , Larch et Reinagl atteignent l' arête .",
        "Le temps était mauvais .",
        "L' équipe était conduite par « Morawec » en 1956 .",
        "Elle revint en 1956 .",
    ]
    pairs = anchor_tokens(src, tgt).tolist()
    # Larch, Reinagl, Morawec: once a side (quotes stripped). "1956" twice a side, "7." /
    # "7" written differently, "Das", "Le": not on both sides; "Wetter": not in the other.
    assert pairs == [[0, 0], [0, 0], [2, 2]]


def test_anchor_tokens_ignore_lowercase_and_short_words() -> None:
    src = ["station Rom", "Paris 5"]
    tgt = ["station Rom", "Paris 5"]
    # "station" is lowercase, "Rom" has 3 letters, "5" one digit: only Paris is an anchor.
    assert anchor_tokens(src, tgt).tolist() == [[1, 1]]
    assert anchor_tokens([], []).shape == (0, 2)


def _band(n: int, m: int, margin: int) -> tuple[tuple[dp.IntArray, dp.IntArray], dp.IntArray]:
    band = dp.band_around_path(np.array([[0, 0], [n, m]]), n, m, margin)
    low, high = band
    row_first = np.concatenate([[0], np.cumsum(high - low + 1)])[: n + 1]
    return band, row_first


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 12),
    m=st.integers(1, 12),
    margin=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(1, 8),
    weight=st.sampled_from([0.5, 1.0, 3.0]),
)
def test_anchor_extra_counts_separated_anchor_sentences(
    n: int, m: int, margin: int, seed: int, count: int, weight: float
) -> None:
    # Brute-force oracle: for every band cell and bead shape, count the anchor pairs with
    # exactly one sentence inside the bead.
    rng = np.random.default_rng(seed)
    anchors = np.stack([rng.integers(0, n, count), rng.integers(0, m, count)], axis=1)
    band, row_first = _band(n, m, margin)
    low, high = band
    shapes = bead_shapes(6)
    extra = anchor_extra(band, row_first, shapes, anchors, weight)
    for i in range(n + 1):
        for j, (s, (a, b)) in itertools.product(range(low[i], high[i] + 1), enumerate(shapes)):
            if a > i or b > j:
                continue
            separated = sum((i - a <= p < i) != (j - b <= q < j) for p, q in anchors.tolist())
            assert np.isclose(extra[row_first[i] + j - low[i], s], weight * separated)


def test_anchor_model_keeps_crossing_content_in_one_bead() -> None:
    # Two German sentences whose content crosses the French sentence boundary ("250"
    # metres, "zwei Tage" in the first German sentence, "deux jours pour gravir 250 m" in
    # the second French one; the dev document's gold has them as one 2-2 bead), between
    # real dev 1-1 pairs (tuning data).
    from dataclasses import replace

    from services.sentence_align.aligners.beads import parse_beads
    from services.sentence_align.aligners.hybrid import align_hybrid
    from services.sentence_align.aligners.presets import TEXTBERG_DEV_SETTINGS
    from tests.conftest import kit_path

    def lines(name: str) -> list[str]:
        path = kit_path(f"textberg-bleualign-de-fr/{name}")
        return path.read_text(encoding="utf-8").splitlines()

    gold = parse_beads(lines("dev.defr"))
    de, fr = lines("dev.de"), lines("dev.fr")
    crossing = next(bead for bead in gold if bead.src == (242, 243))
    assert crossing.tgt == (283, 284)
    context = [bead for bead in gold if bead.shape == (1, 1)][:40]
    beads = [*context[:20], crossing, *context[20:]]
    src = [de[i] for bead in beads for i in bead.src]
    tgt = [fr[j] for bead in beads for j in bead.tgt]
    crossing_at = (tuple(range(20, 22)), tuple(range(20, 22)))

    def found(anchor_weight: float) -> bool:
        run = replace(TEXTBERG_DEV_SETTINGS, anchor_weight=anchor_weight)
        aligned = align_hybrid(src, tgt, src_lang="de", tgt_lang="fr", settings=run)
        return crossing_at in {(bead.src, bead.tgt) for bead in aligned}

    # The preset's weight was chosen with Gale-Church's 2-2 prior (0.011); with the project's
    # 0.001 (length.PROBABILITY_2_2) a 2-2 bead costs log 11 more, and the anchors must
    # weigh twice as much to keep the crossing content together.
    assert found(2 * TEXTBERG_DEV_SETTINGS.anchor_weight)
    assert not found(0.0)


def _longest_chains(points: list[tuple[int, int]]) -> list[set[tuple[int, int]]]:
    """Every longest subset of the points whose members are pairwise non-decreasing in both
    coordinates, by enumeration."""
    for size in range(len(points), 0, -1):
        chains = [
            set(subset)
            for subset in itertools.combinations(points, size)
            if all(
                (a[0] <= b[0] and a[1] <= b[1]) or (b[0] <= a[0] and b[1] <= a[1])
                for a, b in itertools.combinations(subset, 2)
            )
        ]
        if chains:
            return chains
    return []


pair_lists = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=9)


@given(pair_lists)
def test_anchor_chain_is_the_pairs_on_every_longest_chain(pairs: list[tuple[int, int]]) -> None:
    points = sorted(set(pairs))
    chains = _longest_chains(points)
    expected = sorted(set.intersection(*chains)) if chains else []
    found = anchor_chain(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))
    assert [tuple(pair) for pair in found.tolist()] == expected


@given(pair_lists)
def test_anchor_chain_of_swapped_sides_is_swapped(pairs: list[tuple[int, int]]) -> None:
    forward = anchor_chain(np.asarray(pairs, dtype=np.int64).reshape(-1, 2))
    backward = anchor_chain(np.asarray([(j, i) for i, j in pairs], dtype=np.int64).reshape(-1, 2))
    assert sorted(map(tuple, backward[:, ::-1].tolist())) == sorted(map(tuple, forward.tolist()))


def test_anchor_tokens_found_inside_chinese_and_japanese_text() -> None:
    # No spaces in CJK text: the numbers and Latin-script names between its characters count
    # (full-width digits read as ASCII), as they do between spaces in German or English.
    src = ["宇宙背景探测器COBE于1989年发射。", "他们在２００６年获奖。", "没有数字。"]
    src.append("東京で1964年に。")
    tgt = ["The COBE satellite was launched in 1989.", "Nothing.", "They won in 2006.", "Tokyo."]
    assert sorted(set(map(tuple, anchor_tokens(src, tgt).tolist()))) == [(0, 0), (1, 2)]
    # a German token with an umlaut is read as before (one piece)
    assert anchor_tokens(["Die Höhenmeter 1956."], ["Les 1956 mètres."]).tolist() == [[0, 0]]
