"""Tests of the sentence-end model of the hybrid aligner (``boundary_model``)."""

from __future__ import annotations

import itertools

import numpy as np

from services.sentence_align.aligners.beads import bead_shapes
from services.sentence_align.aligners.boundary_model import (
    END_MARKS,
    boundary_costs,
    boundary_extra,
    deletion_classes,
    deletion_costs,
    end_classes,
)
from services.sentence_align.dp import banded as dp


def test_end_classes_read_the_last_mark() -> None:
    classes = end_classes(["Er kam .", "Sie ging ; ", "Literatur :", "Photo 12", ""])
    other = len(END_MARKS)
    assert classes.tolist() == [
        END_MARKS.index("."),
        END_MARKS.index(";"),
        END_MARKS.index(":"),
        other,
        other,
    ]


def test_marks_that_end_inside_beads_become_cheap_boundaries() -> None:
    # Sentences ending in ";" always continue in the same bead; full stops end their bead.
    sentences = ["a ;", "b .", "c .", "d ;", "e .", "f .", "g .", "h ;", "i ."]
    classes = end_classes(sentences)
    runs = [(0, 1), (2,), (3, 4), (5,), (6,), (7, 8)]
    costs = boundary_costs(classes, runs, 1.0)
    semicolon, stop = costs[0], costs[1]
    assert semicolon < 0 < stop
    assert np.allclose(costs[classes == classes[0]], semicolon)
    assert np.allclose(boundary_costs(classes, runs, 2.0), 2.0 * costs)
    assert np.all(boundary_costs(classes, runs, 0.0) == 0.0)


def test_no_bead_with_several_sentences_gives_equal_costs() -> None:
    classes = end_classes(["a ;", "b .", "c :"])
    costs = boundary_costs(classes, [(0,), (1,), (2,)], 1.0)
    # Every class is pulled to the overall odds by the same smoothing, apart from its count.
    assert np.all(np.isfinite(costs))
    assert np.all(costs > 0)  # ending inside a bead was never seen


def test_boundary_extra_sums_the_inner_boundaries_of_each_bead() -> None:
    rng = np.random.default_rng(3)
    n, m = 7, 6
    src_costs, tgt_costs = rng.normal(size=n), rng.normal(size=m)
    src_deletion, tgt_deletion = rng.normal(size=n), rng.normal(size=m)
    band = dp.band_around_path(np.array([[0, 0], [3, 2], [7, 6]]), n, m, 2)
    low, high = band
    row_first = np.concatenate([[0], np.cumsum(high - low + 1)])[: n + 1]
    shapes = bead_shapes(6)
    extra = boundary_extra(band, row_first, shapes, (src_costs, tgt_costs))
    with_deletions = boundary_extra(
        band, row_first, shapes, (src_costs, tgt_costs, src_deletion, tgt_deletion)
    )
    for i in range(n + 1):
        for j, (s, (a, b)) in itertools.product(range(low[i], high[i] + 1), enumerate(shapes)):
            if a > i or b > j:
                continue
            expected = src_costs[i - a : i - 1].sum() if a >= 2 else 0.0
            expected += tgt_costs[j - b : j - 1].sum() if b >= 2 else 0.0
            cell = row_first[i] + j - low[i]
            assert np.isclose(extra[cell, s], expected)
            if (a, b) == (1, 0):
                expected += src_deletion[i - 1]
            elif (a, b) == (0, 1):
                expected += tgt_deletion[j - 1]
            assert np.isclose(with_deletions[cell, s], expected)


def test_debris_and_captions_become_cheap_deletions() -> None:
    sentences = ["Er kam .", "..... ", "Sie ging .", "Photo Schweiz", "- _-", "Es regnete ."]
    classes = deletion_classes(sentences)
    debris = len(END_MARKS) + 1
    assert classes.tolist()[1] == classes.tolist()[4] == debris
    assert classes[3] == len(END_MARKS)  # no final mark: "other"
    costs = deletion_costs(classes, np.array([1, 3, 4]), 1.0)
    assert costs[1] < 0 and costs[3] < 0
    assert costs[0] > 0 and costs[0] == costs[2] == costs[5]
    assert np.all(deletion_costs(classes, np.array([1, 3, 4]), 0.0) == 0.0)


def test_deletion_model_leaves_ocr_debris_out() -> None:
    # 60 real dev 1-1 pairs (tuning data), ten lines of OCR debris inserted on the French
    # side: the deletion model learns from the lexical pass, which leaves some debris out,
    # that debris is left out, and the refinement leaves more out. (Five lines, one every
    # twelve sentences, served until the 2-2 prior of 0.001: then the lexical pass left none
    # out and the model had nothing to learn from.)
    from dataclasses import replace

    from services.sentence_align.aligners.beads import parse_beads
    from services.sentence_align.aligners.hybrid import align_hybrid
    from services.sentence_align.aligners.presets import TEXTBERG_DEV_SETTINGS
    from tests.conftest import kit_path

    def lines(name: str) -> list[str]:
        path = kit_path(f"textberg-bleualign-de-fr/{name}")
        return path.read_text(encoding="utf-8").splitlines()

    gold = [b for b in parse_beads(lines("dev.defr")) if b.shape == (1, 1)][:60]
    de, fr = lines("dev.de"), lines("dev.fr")
    src = [de[bead.src[0]] for bead in gold]
    debris = [
        "- _- ",
        "..... ",
        'h * " ',
        "â ",
        "* , *^ ",
        "' ; .",
        "~ _ -",
        "= *",
        "| ' |",
        ". : .",
    ]
    tgt: list[str] = []
    for k, bead in enumerate(gold):
        tgt.append(fr[bead.tgt[0]])
        if k % 6 == 5:
            tgt.append(debris[k // 6])

    def left_out(deletion_weight: float) -> int:
        settings = replace(TEXTBERG_DEV_SETTINGS, deletion_weight=deletion_weight)
        beads = align_hybrid(src, tgt, src_lang="de", tgt_lang="fr", settings=settings)
        return sum(1 for bead in beads if not bead.src and tgt[bead.tgt[0]] in debris)

    with_model, without = left_out(TEXTBERG_DEV_SETTINGS.deletion_weight), left_out(0.0)
    assert with_model >= 6
    assert with_model > without
