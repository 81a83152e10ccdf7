"""Small windows aligned in one compiled call (batched) give the per-window programs' beads."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from services.lexical import model1
from services.sentence_align.aligners import length, length_passes
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.hybrid import SEGMENT_SETTINGS
from services.sentence_align.aligners.lexical_settings import LexicalSettings
from services.sentence_align.dp import banded as dp
from services.sentence_align.dp import batched, two_pass


def chunked_document(seed: int) -> tuple[list[str], list[str], list[tuple[int, int, int, int]]]:
    """Sentences of made-up words in chunks of 1-7 sentences a side; the target chunk
    keeps most source sentences (some merged, dropped or new) with a few words changed."""
    rng = random.Random(seed)
    src: list[str] = []
    tgt: list[str] = []
    windows = []
    for chunk in range(12):
        x0, y0 = len(src), len(tgt)
        for k in range(rng.randrange(1, 8)):
            words = [f"w{chunk}x{k}x{rng.randrange(30)}" for _ in range(rng.randrange(2, 14))]
            src.append(" ".join(words))
            roll = rng.random()
            changed = [f"v{word}" if rng.random() < 0.3 else word for word in words]
            if roll < 0.1 and tgt[y0:]:
                tgt[-1] += " " + " ".join(changed)  # merged with the previous sentence
            elif roll < 0.8:
                tgt.append(" ".join(changed))
            elif roll < 0.9:
                tgt += [" ".join(changed[:3]), " ".join(changed[3:]) or "x"]
            if roll > 0.95:
                tgt.append(f"new{chunk} sentence {k}")
        if len(tgt) == y0:
            tgt.append("lone target")
        windows.append((x0, len(src), y0, len(tgt)))
    return src, tgt, windows


def same(batched: list[Bead], reference: list[Bead]) -> bool:
    return [(b.src, b.tgt) for b in batched] == [(b.src, b.tgt) for b in reference] and all(
        b.cost == pytest.approx(r.cost, rel=1e-9, abs=1e-12)
        and (b.confidence is None) == (r.confidence is None)
        and (b.confidence is None or b.confidence == pytest.approx(r.confidence, abs=1e-9))
        for b, r in zip(batched, reference, strict=True)
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_length_windows_match_the_per_window_program(seed: int) -> None:
    src, tgt, windows = chunked_document(seed)
    src_cum, tgt_cum = length.cumulative_lengths(src), length.cumulative_lengths(tgt)
    model = length.initial_model(src_cum, tgt_cum).with_shapes(6, 2.3, cheap_deletions=True)
    in_one_call = batched.length_windows(src_cum, tgt_cum, model, windows)
    assert len(in_one_call) == len(windows)
    for (x0, x1, y0, y1), beads in zip(windows, in_one_call, strict=True):
        reference = length.run_dp(
            src_cum[x0 : x1 + 1] - src_cum[x0],
            tgt_cum[y0 : y1 + 1] - tgt_cum[y0],
            model,
            dp.full_band(x1 - x0, y1 - y0),
        )
        assert same(beads, length.shift_beads(reference, x0, y0))


@pytest.mark.parametrize(
    "settings",
    [
        SEGMENT_SETTINGS,
        replace(SEGMENT_SETTINGS, diagonal=10.0),
        replace(SEGMENT_SETTINGS, both_directions=False, max_bead_size=0),
    ],
)
@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("confidence", [False, True])
def test_lexical_windows_match_the_per_window_program(
    settings: LexicalSettings, seed: int, confidence: bool
) -> None:
    src, tgt, windows = chunked_document(seed)
    src_cum, tgt_cum = length.cumulative_lengths(src), length.cumulative_lengths(tgt)
    cuts = [(0, 0)] + [(x1, y1) for _, x1, _, y1 in windows]
    first, model = length_passes.segmented_length_pass(src_cum, tgt_cum, cuts)
    sides = (model1.encode(src, None), model1.encode(tgt, None))
    cues = model1.cue_similarity(sides[0].vocabulary, sides[1].vocabulary)
    training = two_pass.confident_pairs(
        first, settings.confident_share, settings.max_training_beads
    )
    tables = two_pass.train_tables(*sides, training, cues, settings)
    if settings.max_bead_size:
        model = model.with_shapes(settings.max_bead_size, settings.sentence_cost)
    scoring = (settings.epsilon, settings.diagonal, settings.lexical_weight)
    weights = two_pass.length_weights(settings, model)
    in_one_call = batched.lexical_windows(
        sides, tables, model, scoring, weights, (src_cum, tgt_cum), windows, confidence
    )
    for (x0, x1, y0, y1), beads in zip(windows, in_one_call, strict=True):
        reference = two_pass.lexical_dp(
            (model1.slice_side(sides[0], x0, x1), model1.slice_side(sides[1], y0, y1)),
            tables,
            model,
            settings,
            (src_cum[x0 : x1 + 1] - src_cum[x0], tgt_cum[y0 : y1 + 1] - tgt_cum[y0]),
            dp.full_band(x1 - x0, y1 - y0),
            confidence=confidence,
        )
        assert same(beads, length.shift_beads(reference, x0, y0))
    # Some window has a bead other than 1-1, so the comparison covers more than the diagonal.
    assert any(bead.shape != (1, 1) for beads in in_one_call for bead in beads)


def test_no_windows() -> None:
    src_cum = length.cumulative_lengths(["a b"])
    model = length.initial_model(src_cum, src_cum)
    assert batched.length_windows(src_cum, src_cum, model, []) == []
