"""One stage of the link classifier: gradient-boosted decision trees (LightGBM).

Each stage of :mod:`services.paraphrase.link_classifier` scores candidate cells from their
features with

    p(link | x) = 1 / (1 + exp(-F(x))),   F = sum over m of f_m(x)

where each f_m is a regression tree fitted to the gradient of the logistic loss of the
trees before it (Friedman 2001; LightGBM's leaf-wise growth, Ke et al. 2017). A logistic
stage is one weight per feature; the features here (posteriors, string and WordNet
evidence, their products with "identical" and "function word") interact in ways a weighted
sum cannot follow, and the trees found more of the links between different words in
cross-validation on the training gold (benchmarks/results/word_align.md). The
settings are LightGBM's usual ones, not tuned (``PARAMETERS``); one thread and a fixed seed
make a fit repeatable.

The fitted trees are kept as LightGBM's own model text (its documented, line-based format,
no pickle) inside the JSON model file, and read back with LightGBM.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import lightgbm
import numpy as np

from services.paraphrase.link_features import FloatArray
from shared.errors import InvalidInput

KIND = "lightgbm"  # the stage's kind in the model file
ROUNDS = 200
PARAMETERS: dict[str, Any] = {
    "objective": "binary",
    "learning_rate": 0.1,
    "num_leaves": 31,
    "min_data_in_leaf": 20,
    "lambda_l2": 1.0,
    "num_threads": 1,
    "deterministic": True,
    "force_col_wise": True,
    "seed": 0,
    "verbose": -1,
}


@dataclass(frozen=True)
class BoostedStage:
    """Fitted trees (LightGBM model text) over ``features`` feature columns."""

    model: str
    features: int

    @classmethod
    def fit(cls, x: FloatArray, y: FloatArray) -> BoostedStage:
        """Fit on rows ``x`` and 0/1 labels ``y`` (at least one row)."""
        if not len(x):
            raise InvalidInput("no rows to fit a link classifier stage on")
        data = lightgbm.Dataset(np.asarray(x, dtype=np.float64), label=y, params=PARAMETERS)
        booster = lightgbm.train(PARAMETERS, data, num_boost_round=ROUNDS)
        return cls(booster.model_to_string(), int(x.shape[1]))

    @classmethod
    def from_state(cls, state: object) -> BoostedStage:
        """The stage of :meth:`state`; InvalidInput when it is not one."""
        if not isinstance(state, dict) or not isinstance(state.get("model"), str):
            raise InvalidInput("malformed classifier stage")
        if state.get("kind") != KIND:
            raise InvalidInput(f"malformed classifier stage: kind {state.get('kind')!r}")
        features = state.get("features")
        if not isinstance(features, int):
            raise InvalidInput("malformed classifier stage")
        stage = cls(state["model"], features)
        if _booster(stage.model).num_feature() != features:
            raise InvalidInput("malformed classifier stage: its trees read another feature count")
        return stage

    def state(self) -> dict[str, object]:
        return {"kind": KIND, "features": self.features, "model": self.model}

    def predict(self, x: FloatArray) -> FloatArray:
        """p(link) of each row of ``x``."""
        if x.shape[1] != self.features:
            raise InvalidInput(f"classifier stage reads {self.features} features, got {x.shape[1]}")
        if not len(x):
            return np.zeros(0)
        result = _booster(self.model).predict(np.asarray(x, dtype=np.float64), num_threads=1)
        return np.asarray(result, dtype=np.float64)


@lru_cache(maxsize=8)
def _booster(model: str) -> lightgbm.Booster:
    """The trees of a model text, parsed once per text."""
    try:
        return lightgbm.Booster(model_str=model)
    except lightgbm.basic.LightGBMError as error:
        raise InvalidInput(f"malformed classifier stage: {error}") from None
