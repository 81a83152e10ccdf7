"""Tests of the document-trained IBM Model 1, the cues and the band lexical scores."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest

from services.lexical.model1 import (
    TranslationTable,
    cue_similarity,
    encode,
    slice_side,
    tokenize,
    train_model1,
)
from services.sentence_align.aligners.bead_llr import MOORE_EPSILON, band_llr
from services.sentence_align.aligners.beads import BEAD_SHAPES, bead_shapes
from services.sentence_align.dp import banded as dp


def test_tokenize_lowercases_and_unifies_quotes() -> None:
    assert tokenize("Der «Berg» (1956)!", "de") == ["der", '"', "berg", '"', "(", "1956", ")", "!"]
    assert tokenize("山の頂上", "ja") == ["山", "の", "頂上"]
    assert tokenize("他说：“好。”", "zh") == ["他", "说", ":", '"', "好", ".", '"']


def test_encode_offsets_and_background() -> None:
    side = encode(["a b a", "", "c"], "en")
    assert side.vocabulary == ("a", "b", "c")
    assert side.start.tolist() == [0, 3, 3, 4]
    assert side.sentence(0).tolist() == [0, 1, 0]
    # add-one smoothed unigram: counts 2, 1, 1 -> (3, 2, 2) / 7
    assert side.background.tolist() == pytest.approx([3 / 7, 2 / 7, 2 / 7])


def test_cues_identical_numbers_and_cognates() -> None:
    cues = cue_similarity(
        ["1956", "montagne", "expédition", ",", "haus"],
        ["1956", "montagna", "expedition", ",", "maison"],
    )
    assert cues[(0, 0)] == 1.0
    assert cues[(1, 1)] == 0.5  # same first four letters
    assert cues[(2, 2)] == 0.5  # accents removed before comparing
    assert cues[(3, 3)] == 1.0
    assert not any(f == 4 for f, _ in cues)


def _probability(table: TranslationTable, f: int, e: int) -> float:
    for entry in range(table.row_start[f], table.row_start[f + 1]):
        if table.target[entry] == e:
            return float(table.probability[entry])
    return 0.0


def test_model1_learns_translations_from_cooccurrence() -> None:
    src = encode(["das haus", "das buch", "ein buch"], "de")
    tgt = encode(["la maison", "le livre", "un livre"], "fr")
    table = train_model1(src, tgt, [(0, 0), (1, 1), (2, 2)], {}, iterations=20)
    f_buch, e_livre, e_le = (
        src.vocabulary.index("buch"),
        tgt.vocabulary.index("livre"),
        tgt.vocabulary.index("le"),
    )
    assert _probability(table, f_buch, e_livre) > 0.5
    assert _probability(table, f_buch, e_livre) > _probability(table, f_buch, e_le)
    # rows are distributions
    for f in range(len(src.vocabulary)):
        row = table.probability[table.row_start[f] : table.row_start[f + 1]]
        assert row.sum() == pytest.approx(1.0, abs=1e-3)


def test_cue_prior_steers_a_single_pair() -> None:
    src = encode(["zürich berg"], "de")
    tgt = encode(["montagne zürich"], "fr")
    cues = cue_similarity(src.vocabulary, tgt.vocabulary)
    table = train_model1(src, tgt, [(0, 0)], cues, cue_weight=5.0)
    f, e = src.vocabulary.index("zürich"), tgt.vocabulary.index("zürich")
    assert _probability(table, f, e) > 0.8


def _reference_llr(
    src_ids: npt.NDArray[np.int64],
    tgt_ids: npt.NDArray[np.int64],
    table: TranslationTable,
    background: npt.NDArray[np.float64],
    epsilon: float,
) -> float:
    # log( p(e|S) / p_bg(e) ) summed over target words, written out directly.
    total = 0.0
    eps = epsilon if epsilon >= 0 else 1 / (len(src_ids) + 1)
    for e in tgt_ids:
        mass = sum(_probability(table, f, e) for f in src_ids)
        total += math.log(eps + (1 - eps) * mass / max(len(src_ids), 1) / background[e])
    return total


@pytest.mark.parametrize("diagonal", [0.0, 1e-12])
@pytest.mark.parametrize("shapes", [BEAD_SHAPES, bead_shapes(6)])
@pytest.mark.parametrize("epsilon", [0.2, MOORE_EPSILON])
def test_band_llr_equals_direct_computation(
    epsilon: float, shapes: tuple[tuple[int, int], ...], diagonal: float
) -> None:
    # A vanishing diagonal prior (the diagonal kernel for beads with 2+ sentences a side)
    # is Model 1 again.
    src = encode(["das haus", "das buch ist rot", "ein buch", "zürich 1956"], "de")
    tgt = encode(["la maison", "le livre", "est rouge", "un livre", "zürich 1956"], "fr")
    cues = cue_similarity(src.vocabulary, tgt.vocabulary)
    table = train_model1(src, tgt, [(0, 0), (1, 1), (2, 3), (3, 4)], cues)
    low, high = dp.diagonal_band(4, 5, 5)
    llr, row_first = band_llr(src, tgt, (table, None), (low, high), epsilon, shapes, diagonal)
    for i in range(5):
        for j in range(low[i], high[i] + 1):
            for shape, (a, b) in enumerate(shapes):
                if a == 0 or b == 0 or a > i or b > j:
                    assert llr[row_first[i] + j - low[i], shape] == 0.0
                    continue
                src_ids = np.concatenate([src.sentence(x) for x in range(i - a, i)])
                tgt_ids = np.concatenate([tgt.sentence(y) for y in range(j - b, j)])
                expected = _reference_llr(src_ids, tgt_ids, table, tgt.background, epsilon)
                assert llr[row_first[i] + j - low[i], shape] == pytest.approx(expected)


def test_slice_side_keeps_vocabulary() -> None:
    side = encode(["a b", "c", "d e f"], "en")
    part = slice_side(side, 1, 3)
    assert part.n_sentences == 2
    assert [side.vocabulary[k] for k in part.sentence(1)] == ["d", "e", "f"]


def test_steep_diagonal_scores_a_two_two_bead_as_its_two_one_one_beads() -> None:
    # Sentences of equal length on both sides: with a steep diagonal prior each target
    # sentence is explained by the source sentence at its position only, so the 2-2 bead
    # scores LLR(1-1) + LLR(1-1) in both directions; Model 1 mixes in the other sentence.
    src = encode(["das haus", "ein buch"], "de")
    tgt = encode(["la maison", "un livre"], "fr")
    cues = cue_similarity(src.vocabulary, tgt.vocabulary)
    forward = train_model1(src, tgt, [(0, 0), (1, 1)], cues, iterations=10)
    backward = train_model1(tgt, src, [(0, 0), (1, 1)], {}, iterations=10)
    band = dp.full_band(2, 2)
    shapes = bead_shapes(4)
    two_two, one_one = shapes.index((2, 2)), shapes.index((1, 1))
    steep, _ = band_llr(src, tgt, (forward, backward), band, 0.1, shapes, 200.0)
    flat, row_first = band_llr(src, tgt, (forward, backward), band, 0.1, shapes)
    corner = row_first[2] + 2
    ones = flat[row_first[1] + 1, one_one] + flat[corner, one_one]
    assert steep[corner, two_two] == pytest.approx(ones)
    assert steep[corner, two_two] > flat[corner, two_two]
    # Mirror: swapping the sides swaps the directions and gives the same score.
    mirrored, _ = band_llr(tgt, src, (backward, forward), band, 0.1, shapes, 200.0)
    assert mirrored[corner, two_two] == pytest.approx(steep[corner, two_two])


def test_model1_reads_a_bounded_share_of_very_long_sentences(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Model 1's work on a pair is the product of the sentence lengths: a sentence is read up
    # to MAX_SENTENCE_TOKENS, and training pairs are thinned evenly past the entry budget
    from services.lexical import model1 as lexicon

    side = lexicon.encode(["a " * 1_000, "b c"], "en")
    assert np.diff(side.start).tolist() == [lexicon.MAX_SENTENCE_TOKENS, 2]
    monkeypatch.setattr(lexicon, "MAX_TRAINING_ENTRIES", 5 * 4)
    src = lexicon.encode(["w x"] * 10, "en")
    tgt = lexicon.encode(["y z"] * 10, "en")
    pairs = np.array([(k, k) for k in range(10)], dtype=np.int64)
    kept = lexicon._within_entry_budget(src, tgt, pairs)
    assert kept.tolist() == [[0, 0], [2, 2], [4, 4], [6, 6], [8, 8]]  # every second, 20 entries
