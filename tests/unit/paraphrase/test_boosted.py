"""Tests of one boosted stage of the link classifier: fit, predict, its JSON state."""

from __future__ import annotations

import json

import numpy as np
import pytest

from services.paraphrase.boosted import BoostedStage
from shared.errors import InvalidInput


@pytest.fixture(scope="module")
def xor_rows() -> tuple[np.ndarray, np.ndarray]:
    # a label no weighted sum of the two features can give: x0 > 0 xor x1 > 0
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 2))
    y = ((x[:, 0] > 0) != (x[:, 1] > 0)).astype(np.float64)
    return x, y


def test_fit_learns_an_interaction(xor_rows: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = xor_rows
    stage = BoostedStage.fit(x, y)
    p = stage.predict(x)
    assert p.shape == (len(x),) and ((p >= 0) & (p <= 1)).all()
    assert ((p >= 0.5) == (y == 1)).mean() > 0.95
    rng = np.random.default_rng(1)
    fresh = rng.normal(size=(400, 2))
    truth = (fresh[:, 0] > 0) != (fresh[:, 1] > 0)
    assert ((stage.predict(fresh) >= 0.5) == truth).mean() > 0.9


def test_fit_is_repeatable_and_the_state_round_trips(
    xor_rows: tuple[np.ndarray, np.ndarray],
) -> None:
    x, y = xor_rows
    stage = BoostedStage.fit(x, y)
    assert BoostedStage.fit(x, y) == stage
    restored = BoostedStage.from_state(json.loads(json.dumps(stage.state())))
    assert restored == stage
    assert np.array_equal(restored.predict(x), stage.predict(x))
    assert stage.predict(np.zeros((0, 2))).shape == (0,)


@pytest.mark.parametrize(
    "state",
    [
        None,
        {"kind": "lightgbm", "features": 2},
        {"kind": "lightgbm", "model": "tree\nnot really", "features": 2},
        {"kind": "lightgbm", "model": 3, "features": 2},
        {"kind": "lightgbm", "model": "", "features": "2"},
        {"kind": "logistic", "model": "", "features": 2},
        {"model": "", "features": 2},
    ],
)
def test_malformed_states_are_refused(state: object) -> None:
    with pytest.raises(InvalidInput, match="malformed classifier stage"):
        BoostedStage.from_state(state)


def test_a_state_with_another_feature_count_or_rows_of_another_width_are_refused(
    xor_rows: tuple[np.ndarray, np.ndarray],
) -> None:
    x, y = xor_rows
    stage = BoostedStage.fit(x, y)
    with pytest.raises(InvalidInput, match="another feature count"):
        BoostedStage.from_state({**stage.state(), "features": 3})
    with pytest.raises(InvalidInput, match="reads 2 features"):
        stage.predict(np.zeros((4, 3)))
    with pytest.raises(InvalidInput, match="no rows"):
        BoostedStage.fit(np.zeros((0, 2)), np.zeros(0))
