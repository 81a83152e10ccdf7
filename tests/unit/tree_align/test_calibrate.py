"""Tests of the length ratio read off the page pair."""

from __future__ import annotations

import pytest

from services.html.parse import parse_html
from services.tree_align.calibrate import (
    MAX_RATIO,
    MIN_RATIO,
    calibrated,
    length_ratio,
    with_ratio,
)
from services.tree_align.model import LengthTextModel, initial_model


def test_length_ratio_is_the_pages_character_ratio_within_bounds() -> None:
    assert length_ratio(["ab cd", "ef"], ["abc"]) == pytest.approx(0.5)
    assert length_ratio(["a" * 1000], ["b"]) == MIN_RATIO
    assert length_ratio(["a"], ["b" * 1000]) == MAX_RATIO
    assert length_ratio([" ", ""], ["abc"]) is None


def test_with_ratio_scales_the_length_model_and_prefers_the_estimated_ratio() -> None:
    model = initial_model(["p"])
    assert isinstance(model.text_model, LengthTextModel)
    scaled = with_ratio(model, 0.25)
    text = scaled.text_model
    assert isinstance(text, LengthTextModel)
    assert text.ratio == 0.25
    assert text.variance == pytest.approx(model.text_model.variance * 0.25)
    assert text.background_mean == pytest.approx(60.0 * 0.25)
    # a target a quarter as long as its source is a likelier pair under the estimated ratio
    src, tgt = ["x" * 120], ["y" * 30]
    assert (
        scaled.text_model.pair_costs(src, tgt)[0, 0] < model.text_model.pair_costs(src, tgt)[0, 0]
    )
    assert with_ratio(model, None) is model


def test_calibrated_reads_the_ratio_off_both_pages() -> None:
    src = parse_html("<html><body><p>" + "word " * 40 + "</p></body></html>")
    tgt = parse_html("<html><body><p>" + "字" * 50 + "</p></body></html>")
    text = calibrated(initial_model(["p"]), src, tgt).text_model
    assert isinstance(text, LengthTextModel)
    assert text.ratio == pytest.approx(50 / 160)
