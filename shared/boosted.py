"""Gradient-boosted decision trees (LightGBM) kept as model text: the fitted classifiers that
paramine ships inside its versioned JSON model files (the word model's link classifier
stages, the sentence pair classifier).

A fitted ensemble scores rows of features with

    p(y = 1 | x) = 1 / (1 + exp(-F(x))),   F = sum over m of f_m(x)

where each f_m is a regression tree fitted to the gradient of the logistic loss of the
trees before it (Friedman 2001; LightGBM's leaf-wise growth, Ke et al. 2017). The default
settings are LightGBM's usual ones (``PARAMETERS``); one thread and a fixed seed make a fit
repeatable. The trees are kept as LightGBM's own model text (its documented, line-based
format, no pickle) and read back with LightGBM.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import lightgbm
import numpy as np
import numpy.typing as npt

from shared.errors import InvalidInput

FloatArray = npt.NDArray[np.float64]

KIND = "lightgbm"  # the ensemble's kind in a model file
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
WHAT = "classifier stage"  # how refusals name the ensemble unless told otherwise


@dataclass(frozen=True)
class BoostedTrees:
    """Fitted trees (LightGBM model text) over ``features`` feature columns."""

    model: str
    features: int

    @classmethod
    def fit(
        cls,
        x: FloatArray,
        y: FloatArray,
        *,
        rounds: int = ROUNDS,
        parameters: Mapping[str, Any] | None = None,
        weights: FloatArray | None = None,
        what: str = WHAT,
    ) -> BoostedTrees:
        """Fit on rows ``x`` and 0/1 labels ``y`` (at least one row); ``parameters`` update
        :data:`PARAMETERS` (threads and seed stay as given there unless overridden)."""
        if not len(x):
            raise InvalidInput(f"no rows to fit a {what} on")
        settings = {**PARAMETERS, **(parameters or {})}
        data = lightgbm.Dataset(
            np.asarray(x, dtype=np.float64), label=y, weight=weights, params=settings
        )
        booster = lightgbm.train(settings, data, num_boost_round=rounds)
        return cls(booster.model_to_string(), int(x.shape[1]))

    @classmethod
    def from_state(cls, state: object, *, what: str = WHAT) -> BoostedTrees:
        """The trees of :meth:`state`; InvalidInput ("malformed <what>") when it is not one."""
        if not isinstance(state, dict) or not isinstance(state.get("model"), str):
            raise InvalidInput(f"malformed {what}")
        if state.get("kind") != KIND:
            raise InvalidInput(f"malformed {what}: kind {state.get('kind')!r}")
        features = state.get("features")
        if not isinstance(features, int):
            raise InvalidInput(f"malformed {what}")
        trees = cls(state["model"], features)
        if _booster(trees.model, what).num_feature() != features:
            raise InvalidInput(f"malformed {what}: its trees read another feature count")
        return trees

    def state(self) -> dict[str, object]:
        return {"kind": KIND, "features": self.features, "model": self.model}

    def predict(self, x: FloatArray, *, what: str = WHAT) -> FloatArray:
        """p(y = 1) of each row of ``x``."""
        if x.ndim != 2 or x.shape[1] != self.features:
            width = x.shape[1] if x.ndim == 2 else x.shape
            raise InvalidInput(f"{what} reads {self.features} features, got {width}")
        if not len(x):
            return np.zeros(0)
        booster = _booster(self.model, what)
        result = booster.predict(np.asarray(x, dtype=np.float64), num_threads=1)
        return np.asarray(result, dtype=np.float64)


@lru_cache(maxsize=8)
def _booster(model: str, what: str) -> lightgbm.Booster:
    """The trees of a model text, parsed once per text."""
    try:
        return lightgbm.Booster(model_str=model)
    except lightgbm.basic.LightGBMError as error:
        raise InvalidInput(f"malformed {what}: {error}") from None


def model_file_state(
    text: str, *, file_format: str, version: int, what: str, command: str
) -> dict[str, Any]:
    """The JSON object of a versioned model file (``{"format", "version", ...}``), or one
    line (InvalidInput) for text that is not JSON, a file of another format, or another
    version (with the ``command`` that retrains it). ``what``: "word model", "pair model"."""
    try:
        state = json.loads(text)
    except ValueError as error:
        raise InvalidInput(f"malformed {what} (not JSON): {error}") from None
    if not isinstance(state, dict) or state.get("format") != file_format:
        raise InvalidInput(f"not a paramine {what} (no format {file_format!r})")
    if state.get("version") != version:
        raise InvalidInput(
            f"{what} version {state.get('version')!r} is not supported (this paramine "
            f"reads version {version}): retrain it with {command}"
        )
    return state
