"""The pair classifier: a calibrated probability that two aligned texts translate each other.

The sentence aligner's posterior says how sure its DP is of its path, not whether a bead's
two sides are a translation; ParaCrawl-style pipelines end with a pair classifier
(bicleaner) whose probability is what users filter on. :class:`PairModel` scores the
features of :mod:`pair_features` with gradient-boosted trees (:mod:`shared.boosted`), then
maps the trees' output through an isotonic calibration (pool-adjacent-violators, Ayer et
al. 1955; Zadrozny & Elkan 2002) fitted on held-out aligner output, so that a score of 0.8
means about 8 pairs in 10 correct. It carries the default export threshold: fitting chooses
it on the training documents' held-out scores (every language pair's together) for
precision ``TARGET_PRECISION``; the shipped file's was set on the page_match training crawls
(``paramine train-pair-model --threshold``; benchmarks/results/tuning_history.md).

:func:`fit_pair_model` fits it on labelled rows (gold pairs, aligner output labelled by the
gold, synthetic wrong pairs: :mod:`pair_training`): trees for each fold of documents on the
others, their held-out scores on the aligner output give the calibration and the
threshold, and the shipped trees are fitted on every row.

The model file is JSON (no pickle; the trees as LightGBM model text) with a format name and
version; another version or a malformed file is refused with one line (InvalidInput).
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from services.sentence_align.classifier.pair_features import FEATURE_NAMES, Candidate, page_features
from services.sentence_align.classifier.pair_threshold import DEFAULT_MODEL_PATH
from shared.boosted import BoostedTrees, model_file_state
from shared.errors import InvalidInput

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

FloatArray = npt.NDArray[np.float64]
FORMAT = "paramine-pair-model"
VERSION = 1
WHAT = "pair model"
TARGET_PRECISION = 0.95  # of the kept pairs, on the held-out training scores
MIN_THRESHOLD_ROWS = 100  # a language pair with fewer held-out aligner rows is not recorded
ROUNDS = 300
PARAMETERS: dict[str, Any] = {"learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 40}
# Weight of an aligner row against a gold or made one: the aligner's mistakes (a bead one
# sentence short of its translation) are what the score must tell apart in use.
ALIGNER_WEIGHT = 20.0
THRESHOLD_GRID = tuple(round(0.01 * k, 2) for k in range(1, 100))

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Calibration:
    """A non-decreasing piecewise-linear map of raw tree probabilities onto [0, 1]."""

    knots: tuple[float, ...]  # raw probabilities, increasing
    values: tuple[float, ...]  # calibrated probability at each knot, non-decreasing

    @classmethod
    def fit(cls, raw: FloatArray, labels: FloatArray) -> Calibration:
        """Isotonic regression of ``labels`` on ``raw`` (pool adjacent violators); each
        pooled block becomes one knot at its mean raw score."""
        if not len(raw):
            return cls((0.0, 1.0), (0.0, 1.0))
        order = np.argsort(raw, kind="stable")
        blocks: list[list[float]] = []  # [sum of raw, sum of labels, count]
        for x, y in zip(raw[order].tolist(), labels[order].tolist(), strict=True):
            blocks.append([x, y, 1.0])
            # pool while the last block's mean is below the one before it
            while (
                len(blocks) > 1 and blocks[-2][1] * blocks[-1][2] >= blocks[-1][1] * blocks[-2][2]
            ):
                last = blocks.pop()
                blocks[-1] = [blocks[-1][k] + last[k] for k in range(3)]
        knots = [block[0] / block[2] for block in blocks]
        values = [block[1] / block[2] for block in blocks]
        return cls(tuple(knots), tuple(values))

    def __call__(self, raw: FloatArray) -> FloatArray:
        return np.interp(raw, self.knots, self.values)

    def state(self) -> dict[str, object]:
        return {"knots": list(self.knots), "values": list(self.values)}

    @classmethod
    def from_state(cls, state: object) -> Calibration:
        if not isinstance(state, dict):
            raise InvalidInput(f"malformed {WHAT}: no calibration")
        knots = tuple(float(x) for x in state["knots"])
        values = tuple(float(x) for x in state["values"])
        if (
            len(knots) != len(values)
            or not knots
            or any(b < a for a, b in itertools.pairwise(knots))
            or any(b < a for a, b in itertools.pairwise(values))
            or not all(0.0 <= v <= 1.0 for v in values)
        ):
            raise InvalidInput(f"malformed {WHAT}: its calibration is not a non-decreasing map")
        return cls(knots, values)


@dataclass(frozen=True)
class PairModel:
    """Fitted trees, their calibration, the default export threshold and the training record."""

    trees: BoostedTrees
    calibration: Calibration
    threshold: float
    trained_on: tuple[str, ...] = ()
    record: tuple[tuple[str, float], ...] = ()

    def probabilities(self, rows: FloatArray) -> FloatArray:
        """The calibrated probability of each feature row (:data:`FEATURE_NAMES` columns)."""
        return np.clip(self.calibration(self.trees.predict(rows, what=WHAT)), 0.0, 1.0)

    def score_page(
        self,
        candidates: Sequence[Candidate],
        src_lang: str,
        tgt_lang: str,
        dictionary: BilingualDictionary | None = None,
        *,
        page: Sequence[tuple[str, str]] | None = None,
    ) -> FloatArray:
        """The probability of each candidate pair of one page pair (``page_features``)."""
        if not candidates:
            return np.zeros(0)
        rows = page_features(candidates, src_lang, tgt_lang, dictionary, page=page)
        return self.probabilities(rows)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "features": list(FEATURE_NAMES),
                "threshold": self.threshold,
                "trained_on": list(self.trained_on),
                "record": [list(item) for item in self.record],
                "calibration": self.calibration.state(),
                "trees": self.trees.state(),
            },
            ensure_ascii=False,
            indent=0,
            allow_nan=False,
        )

    @classmethod
    def from_json(cls, text: str) -> PairModel:
        state = model_file_state(
            text, file_format=FORMAT, version=VERSION, what=WHAT,
            command="paramine train-pair-model",
        )  # fmt: skip
        if state.get("features") != list(FEATURE_NAMES):
            raise InvalidInput(f"malformed {WHAT}: its features are not this paramine's")
        try:
            threshold = float(state["threshold"])
            if not 0.0 <= threshold <= 1.0:
                raise ValueError(f"threshold {threshold} outside [0, 1]")
            return cls(
                BoostedTrees.from_state(state["trees"], what=WHAT),
                Calibration.from_state(state["calibration"]),
                threshold,
                tuple(str(name) for name in state["trained_on"]),
                tuple((str(name), float(value)) for name, value in state["record"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed {WHAT}: {error}") from None


def load_pair_model(path: Path | None = None) -> PairModel:
    """The model at ``path``, or the one shipped with paramine (:data:`DEFAULT_MODEL_PATH`,
    read once)."""
    if path is None:
        return _default_model()
    return _read(Path(path))


@functools.cache
def _default_model() -> PairModel:
    return _read(DEFAULT_MODEL_PATH)


def _read(where: Path) -> PairModel:
    try:
        text = where.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"cannot read pair model {where}: {error}") from None
    return PairModel.from_json(text)


@dataclass(frozen=True)
class LabelledRows:
    """Feature rows of one document with their labels, ready to fit on.

    ``aligner``: which rows are the aligner's own output (the pairs a user is given: the
    calibration and the threshold are read off these alone); ``fold``: the document's
    cross-fitting fold; ``pair``: its language pair ("de-fr")."""

    name: str
    pair: str
    fold: int
    rows: FloatArray
    labels: FloatArray
    aligner: npt.NDArray[np.bool_]


def fit_pair_model(
    documents: Sequence[LabelledRows],
    *,
    trained_on: Sequence[str] = (),
    progress: Progress | None = None,
) -> PairModel:
    """Trees fitted on every row; calibration and threshold from the held-out scores of
    each fold's trees on that fold's aligner rows (cross-fitting by document)."""
    if not documents or not any(len(d.rows) for d in documents):
        raise InvalidInput("no labelled rows to train the pair model on")
    say = progress or (lambda _: None)
    folds = sorted({d.fold for d in documents})
    held_out: list[tuple[str, FloatArray, FloatArray]] = []  # (pair, raw, labels)
    for fold in folds:
        inside = [d for d in documents if d.fold != fold and len(d.rows)]
        outside = [d for d in documents if d.fold == fold and d.aligner.any()]
        if not inside or not outside:
            continue
        say(f"cross-fitting fold {fold + 1} of {len(folds)}")
        trees = _fit(inside)
        for d in outside:
            raw = trees.predict(d.rows[d.aligner], what=WHAT)
            held_out.append((d.pair, raw, d.labels[d.aligner]))
    if not held_out:
        raise InvalidInput("the pair model needs documents in at least two folds")
    raw = np.concatenate([r for _, r, _ in held_out])
    labels = np.concatenate([y for _, _, y in held_out])
    calibration = Calibration.fit(raw, labels)
    threshold = precision_threshold(calibration(raw), labels, TARGET_PRECISION)
    record = [("held-out threshold", threshold)]
    for pair in sorted({p for p, _, _ in held_out}):
        scores = np.concatenate([calibration(r) for p, r, _ in held_out if p == pair])
        truth = np.concatenate([y for p, _, y in held_out if p == pair])
        if len(scores) < MIN_THRESHOLD_ROWS:
            continue
        kept = scores >= threshold
        record += [
            (f"held-out precision {pair}", _share(truth[kept])),
            (f"held-out recall {pair}", _share(kept[truth == 1])),
            (f"held-out ECE {pair}", expected_calibration_error(scores, truth)),
        ]
    say("fitting the trees on every row")
    trees = _fit([d for d in documents if len(d.rows)])
    return PairModel(trees, calibration, threshold, tuple(trained_on), tuple(record))


def _fit(documents: Sequence[LabelledRows]) -> BoostedTrees:
    rows = np.concatenate([d.rows for d in documents])
    labels = np.concatenate([d.labels for d in documents])
    weights = np.concatenate([np.where(d.aligner, ALIGNER_WEIGHT, 1.0) for d in documents])
    return BoostedTrees.fit(
        rows, labels, rounds=ROUNDS, parameters=PARAMETERS, weights=weights, what=WHAT
    )


def _share(values: npt.NDArray[Any]) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def precision_threshold(scores: FloatArray, labels: FloatArray, target: float) -> float:
    """The lowest grid threshold whose kept pairs (score at least it) reach precision
    ``target``, going up the grid (the highest grid point when none does)."""
    for threshold in THRESHOLD_GRID:
        kept = labels[scores >= threshold]
        if len(kept) and float(np.mean(kept)) >= target:
            return threshold
    return THRESHOLD_GRID[-1]


def reliability(
    scores: FloatArray, labels: FloatArray, bins: int = 10
) -> list[tuple[float, float, float, int]]:
    """(bin low, mean predicted, observed share correct, pairs) per equal-width score bin
    (empty bins left out)."""
    table = []
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.searchsorted(edges, scores, side="right") - 1, 0, bins - 1)
    for k in range(bins):
        inside = index == k
        if inside.any():
            table.append(
                (float(edges[k]), float(scores[inside].mean()), float(labels[inside].mean()),
                 int(inside.sum()))
            )  # fmt: skip
    return table


def expected_calibration_error(scores: FloatArray, labels: FloatArray, bins: int = 10) -> float:
    """ECE: the pair-weighted mean |mean predicted - observed| over :func:`reliability` bins."""
    if not len(scores):
        return 0.0
    table = reliability(scores, labels, bins)
    return sum(count * abs(p - o) for _, p, o, count in table) / len(scores)
