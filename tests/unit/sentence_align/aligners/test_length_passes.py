"""The hybrid aligner's length passes take their bead-shape priors from its settings."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.sentence_align.aligners import length
from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS, SEGMENT_SETTINGS
from services.sentence_align.aligners.length_passes import (
    corpus_length_pass,
    document_length_pass,
    segmented_length_pass,
    settings_shape_costs,
)
from services.sentence_align.aligners.lexical_settings import LexicalSettings

SRC = [f"Sentence {k} has some words in it, {k * 7} of them." for k in range(30)]
TGT = [f"Satz {k} hat einige Wörter darin, {k * 7} davon, sagt man." for k in range(30)]


@pytest.mark.parametrize("settings", [HYBRID_SETTINGS, SEGMENT_SETTINGS])
def test_every_length_pass_uses_the_settings_two_two_prior(settings: LexicalSettings) -> None:
    cums = length.cumulative_lengths(SRC), length.cumulative_lengths(TGT)
    cuts = [(0, 0), (15, 15), (30, 30)]
    for two_two, expected in (
        (0.001, length.shape_costs(0.001)),
        (None, length.GALE_CHURCH_SHAPE_COST),
    ):
        run = replace(settings, two_two_probability=two_two)
        assert settings_shape_costs(run) == expected
        models = [
            document_length_pass(SRC, TGT, *cums, run)[1],
            corpus_length_pass(SRC, TGT, *cums, cuts, run)[1],
            segmented_length_pass(*cums, cuts, settings_shape_costs(run))[1],
        ]
        assert all(model.shape_cost == expected for model in models)


def test_shape_costs_change_only_the_two_two_prior() -> None:
    shapes = dict(zip(length.BEAD_SHAPES, length.shape_costs(0.001), strict=True))
    gale_church = dict(zip(length.BEAD_SHAPES, length.GALE_CHURCH_SHAPE_COST, strict=True))
    assert shapes[(2, 2)] > gale_church[(2, 2)]
    assert {k: v for k, v in shapes.items() if k != (2, 2)} == {
        k: v for k, v in gale_church.items() if k != (2, 2)
    }
