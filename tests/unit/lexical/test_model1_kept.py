"""Model 1 with a corpus's counts kept (incremental EM): checked against a plain dictionary
EM over token strings (the oracle), and the kept background against the joint encoding."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.lexical.model1 import (
    EncodedSide,
    KeptSide,
    encode,
    expected_counts,
    train_model1,
)

Counts = dict[tuple[str, str], float]


def oracle_em(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    prior: Counts,
    iterations: int,
) -> tuple[Counts, Counts]:
    """Model 1 EM over token strings, ``prior`` added at every M-step: (t(e|f), the last
    E-step's expected counts). Cells are those of the pairs and of the prior."""
    cells = set(prior) | {(f, e) for src, tgt in pairs for f in src for e in tgt}
    numerator = {cell: 1.0 + prior.get(cell, 0.0) for cell in cells}
    table = _normalised(numerator)
    counts: Counts = {}
    for _ in range(iterations):
        counts = defaultdict(float)
        for src, tgt in pairs:
            for e in tgt:
                denominator = sum(table[(f, e)] for f in src)
                for f in src:
                    counts[(f, e)] += table[(f, e)] / denominator
        table = _normalised({cell: counts.get(cell, 0.0) + prior.get(cell, 0.0) for cell in cells})
    return table, dict(counts)


def _normalised(values: Counts) -> Counts:
    totals: dict[str, float] = defaultdict(float)
    for (f, _), value in values.items():
        totals[f] += value
    return {(f, e): value / max(totals[f], 1e-300) for (f, e), value in values.items()}


def _words(side: EncodedSide, k: int) -> list[str]:
    return [side.vocabulary[i] for i in side.sentence(k)]


def _string_cues(src: EncodedSide, tgt: EncodedSide, cues: dict[tuple[int, int], float]) -> Counts:
    return {(src.vocabulary[f], tgt.vocabulary[e]): value for (f, e), value in cues.items()}


WORDS = st.sampled_from(["haus", "maison", "berg", "mont", "see", "lac", "1956", "."])
SENTENCE = st.lists(WORDS, min_size=1, max_size=4).map(" ".join)
CORPUS = st.lists(st.tuples(SENTENCE, SENTENCE), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(site=CORPUS, page=CORPUS, iterations=st.integers(1, 4))
def test_kept_counts_train_as_the_oracle_with_the_counts_added(
    site: list[tuple[str, str]], page: list[tuple[str, str]], iterations: int
) -> None:
    src = encode([s for s, _ in site], "de")
    tgt = encode([t for _, t in site], "fr")
    cues = {(0, 0): 0.5} if src.vocabulary and tgt.vocabulary else {}
    kept = expected_counts(
        src, tgt, [(k, k) for k in range(len(site))], cues, iterations=iterations
    )
    site_pairs = [(_words(src, k), _words(tgt, k)) for k in range(len(site))]
    _, oracle_counts = oracle_em(site_pairs, _string_cues(src, tgt, cues), iterations)
    got = {
        (kept.src_vocabulary[f], kept.tgt_vocabulary[kept.target[p]]): kept.count[p]
        for f in range(len(kept.src_vocabulary))
        for p in range(kept.row_start[f], kept.row_start[f + 1])
    }
    assert got.keys() == {cell for cell, value in oracle_counts.items() if value > 0}
    for cell, value in got.items():
        assert value == pytest.approx(oracle_counts[cell], rel=1e-9)

    # The page trained with the site's counts kept: the oracle's M-step adds the same
    # counts over the string cells, the mass on target words the page lacks included.
    page_src = encode([s for s, _ in page], "de")
    page_tgt = encode([t for _, t in page], "fr")
    table = train_model1(
        page_src, page_tgt, [(k, k) for k in range(len(page))], {},
        iterations=iterations, keep_per_word=10_000, kept=kept,
    )  # fmt: skip
    page_pairs = [(_words(page_src, k), _words(page_tgt, k)) for k in range(len(page))]
    page_words = set(page_src.vocabulary)
    prior = {cell: value for cell, value in got.items() if cell[0] in page_words}
    expected, _ = oracle_em(page_pairs, prior, iterations)
    for f, word in enumerate(page_src.vocabulary):
        row = {
            page_tgt.vocabulary[table.target[p]]: table.probability[p]
            for p in range(table.row_start[f], table.row_start[f + 1])
        }
        want = {
            e: value
            for (g, e), value in expected.items()
            if g == word and e in page_tgt.vocabulary and value > 1e-4
        }
        # (a value within rounding of the pruning floor may fall either side of it)
        near_floor = {
            e for (g, e), value in expected.items() if g == word and abs(value - 1e-4) < 1e-12
        }
        assert row.keys() - near_floor == want.keys() - near_floor
        for e, value in row.items():
            if e not in near_floor:
                assert value == pytest.approx(want[e], rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(site=st.lists(SENTENCE, max_size=6), page=st.lists(SENTENCE, min_size=1, max_size=6))
def test_the_kept_background_is_the_joint_encodings(site: list[str], page: list[str]) -> None:
    joint = encode([*page, *site], "de")
    alone = encode(page, "de", kept=KeptSide.of(encode(site, "de")))
    assert alone.vocabulary == joint.vocabulary[: len(alone.vocabulary)]
    assert np.array_equal(alone.ids, joint.ids[: len(alone.ids)])
    assert np.array_equal(alone.background, joint.background[: len(alone.vocabulary)])


def test_without_kept_counts_the_table_is_unchanged() -> None:
    src = encode(["das haus", "der berg"], "de")
    tgt = encode(["la maison", "le mont"], "fr")
    site = expected_counts(encode(["ein see"], "de"), encode(["un lac"], "fr"), [(0, 0)], {})
    plain = train_model1(src, tgt, [(0, 0), (1, 1)], {(0, 0): 1.0})
    with_unrelated = train_model1(src, tgt, [(0, 0), (1, 1)], {(0, 0): 1.0}, kept=site)
    # the site shares no source word with the page: nothing it keeps reaches the page's rows
    for name in ("row_start", "target", "probability"):
        assert np.array_equal(getattr(plain, name), getattr(with_unrelated, name))
