"""Supervised link decision over the unsupervised aligner's posteriors (a few fitted weights).

The HMM aligner (``word_align``) is unsupervised; gold-aligned pairs, where they exist (the
Edinburgh++ train split), can fit how its two directional posteriors and the identity lexicon
combine into a link decision, instead of a fixed heuristic such as intersection. This is a
logistic regression with a dozen features per cell (i, j) (Ayan & Dorr 2006 combine aligners the
same way): directional posteriors, their product, identity and stem identity, the posteriors of
the diagonal neighbours (so blocks and phrases grow), competition within the row and column,
whether either word has an identical partner elsewhere, and relative-position distance.
    p(link | x) = 1 / (1 + exp(-w . x)),  w = argmin logistic loss + l2 ||w||^2 / 2
Decision: link when p >= threshold. Both are plain numbers, JSON-serialisable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from services.paraphrase.word_align import Link, WordAligner, stem_match
from shared.errors import InvalidInput

FEATURES = (
    "bias",
    "forward",
    "backward",
    "product",
    "identical",
    "stem",
    "neighbour_diagonal",
    "neighbour_row_col",
    "row_competition",
    "column_competition",
    "source_has_identical_elsewhere",
    "target_has_identical_elsewhere",
    "position_distance",
    "punctuation",
)


def _shifted(matrix: NDArray[np.float64], di: int, dj: int) -> NDArray[np.float64]:
    padded = np.pad(matrix, 1)
    rows, cols = matrix.shape
    return padded[1 + di : 1 + di + rows, 1 + dj : 1 + dj + cols]


def cell_features(
    aligner: WordAligner, source: Sequence[str], target: Sequence[str]
) -> NDArray[np.float64]:
    """Feature matrix of shape (len(source) * len(target), len(FEATURES)), row-major cells."""
    forward, backward = aligner.directional_posteriors(source, target)
    lower_s = [w.lower() for w in source]
    lower_t = [w.lower() for w in target]
    identical = np.array([[float(a == b) for b in lower_t] for a in lower_s])
    stem = np.array([[float(stem_match(a, b)) for b in lower_t] for a in lower_s])
    mean = 0.5 * (forward + backward)
    diagonal = np.maximum(_shifted(mean, -1, -1), _shifted(mean, 1, 1))
    straight = np.maximum.reduce(
        [_shifted(mean, -1, 0), _shifted(mean, 1, 0), _shifted(mean, 0, -1), _shifted(mean, 0, 1)]
    )
    row_best = mean.max(axis=1, keepdims=True)
    col_best = mean.max(axis=0, keepdims=True)
    source_identical = identical.sum(axis=1, keepdims=True) - identical
    target_identical = identical.sum(axis=0, keepdims=True) - identical
    positions_s = (np.arange(len(source)) + 0.5) / len(source)
    positions_t = (np.arange(len(target)) + 0.5) / len(target)
    distance = np.abs(positions_s[:, None] - positions_t[None, :])
    punctuation = np.array(
        [[float(not a.isalnum() and not b.isalnum()) for b in target] for a in source]
    )
    columns = [
        np.ones_like(mean),
        forward,
        backward,
        forward * backward,
        identical,
        stem,
        diagonal,
        straight,
        mean - row_best,
        mean - col_best,
        (source_identical > 0).astype(np.float64),
        (target_identical > 0).astype(np.float64),
        distance,
        punctuation,
    ]
    return np.stack([c.ravel() for c in columns], axis=1)


@dataclass(frozen=True)
class LinkClassifier:
    """Logistic link decision with its weights (one per feature) and threshold."""

    weights: tuple[float, ...]
    threshold: float = 0.5

    @classmethod
    def fit(
        cls,
        aligner: WordAligner,
        examples: Iterable[tuple[Sequence[str], Sequence[str], Iterable[Link]]],
        *,
        l2: float = 1.0,
    ) -> LinkClassifier:
        """Fit the weights on gold-linked pairs (source, target, links); threshold 0.5."""
        blocks, labels = [], []
        for source, target, links in examples:
            if not source or not target:
                continue
            blocks.append(cell_features(aligner, source, target))
            gold = np.zeros((len(source), len(target)))
            for i, j in links:
                gold[i, j] = 1.0
            labels.append(gold.ravel())
        if not blocks:
            raise InvalidInput("no gold-linked pairs to fit the link classifier on")
        x = np.concatenate(blocks)
        y = np.concatenate(labels)

        def loss(w: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            z = x @ w
            # logistic loss sum log(1 + exp(-s z)), s = 2y - 1, written stably with logaddexp
            value = float(np.logaddexp(0.0, -(2 * y - 1) * z).sum() + 0.5 * l2 * w[1:] @ w[1:])
            p = 1.0 / (1.0 + np.exp(-z))
            grad = x.T @ (p - y)
            grad[1:] += l2 * w[1:]
            return value, grad

        result = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B")
        return cls(tuple(float(v) for v in result.x))

    def probabilities(
        self, aligner: WordAligner, source: Sequence[str], target: Sequence[str]
    ) -> NDArray[np.float64]:
        """p(link) per cell, shape (len(source), len(target))."""
        z = cell_features(aligner, source, target) @ np.array(self.weights)
        result: NDArray[np.float64] = (1.0 / (1.0 + np.exp(-z))).reshape(len(source), len(target))
        return result

    def align(
        self, aligner: WordAligner, source: Sequence[str], target: Sequence[str]
    ) -> set[Link]:
        """Links whose probability reaches the threshold."""
        if not source or not target:
            return set()
        rows, cols = np.nonzero(self.probabilities(aligner, source, target) >= self.threshold)
        return {(int(i), int(j)) for i, j in zip(rows, cols, strict=True)}

    def to_json(self) -> str:
        return json.dumps(
            {"features": FEATURES, "weights": self.weights, "threshold": self.threshold}
        )

    @classmethod
    def from_json(cls, text: str) -> LinkClassifier:
        try:
            state = json.loads(text)
            if tuple(state["features"]) != FEATURES:
                raise InvalidInput("link classifier was fitted on other features")
            return cls(tuple(float(w) for w in state["weights"]), float(state["threshold"]))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed link classifier: {error}") from None
