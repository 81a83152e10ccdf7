"""The tree alignment model of docs/methods.md §1: Pr_tag, Pr_del and a pluggable Pr_text.

Node-pair and deletion probabilities are kept as costs (negative natural logs).

Project reading of §1 (so that the M-step formulas of "Training" are exact maximisers of the
EM auxiliary function and the log-likelihood provably never decreases): every source node
with tag l is deleted with probability ``Pr_del_src(l)`` or kept with ``1 - Pr_del_src(l)``;
every target node with tag l' likewise with ``Pr_del_tgt(l')``; a kept pair's tags follow
``Pr_tag(l' | l)``. So

    Pr(Nf, Ne)   = Pr_text(Nf.t, Ne.t) * (1 - Pr_del_src(l)) * Pr_tag(l'|l) * (1 - Pr_del_tgt(l'))
    Pr(Nf|NULL)  = Pr_del_src(l),   Pr(NULL|Ne) = Pr_del_tgt(l')

and the M step is Pr_tag(l'|l) = c(l,l') / sum_l'' c(l,l''),
Pr_del_src(l) = c(l,NULL) / (c(l,NULL) + sum_l' c(l,l')), symmetrically for the target.
Tags never seen in training map to the ``<unk>`` label.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
from scipy.special import log_ndtr

from shared.errors import InvalidInput

FloatArray = npt.NDArray[np.float64]
UNKNOWN_LABEL = "<unk>"
TEXT_LABEL = "#text"
MODEL_FORMAT = "paramine-tree-model/1"
DEFAULT_MODEL_PATH = Path(__file__).with_name("default_model.json")
# Deletion probabilities are kept at least this far from 0 and 1 (:func:`clamp_deletion`).
MIN_PROBABILITY = 1e-12
# Chosen on the dev pages of benchmarks/tree_align/pages.py; higher weights over-aligned the
# real albatec.de pair (runs: benchmarks/results/tuning_history.md).
DEFAULT_ANCHOR_WEIGHT = 4.0
# Cognate anchors (``LengthTextModel.cognates``) on, the Poisson ``anchor_rate`` 0: chosen
# on the same dev pages (runs: benchmarks/results/tuning_history.md).
DEFAULT_COGNATES = True


class TextModel(Protocol):
    """Pr_text of §1 as costs: any sentence-level model (length, lexicon, hybrid) plugs in."""

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        """Matrix ``[i, j] = -log Pr_text(src_texts[i], tgt_texts[j])`` (finite or +inf)."""
        ...


@dataclass(frozen=True)
class LengthTextModel:
    """Gale & Church (1993) on character lengths (docs/methods.md §2), as Pr_text of §1.

    delta = (l_t - l_s * c) / sqrt(l_s * s2). With ``background_mean`` None the cost is the
    paper's tail probability, -log 2 (1 - Phi(|delta|)). Project reading (default): the
    length *likelihood ratio* of the pair against unrelated texts,

        Pr_text = N(l_t; c l_s, s2 l_s) / Geometric(l_t; mean)

    A tail probability is at most 1 whatever the lengths, so two short menu labels look as
    good a pair as two long paragraphs and, with per-tag deletion costs, many short labels
    outvote a few paragraphs; the ratio makes a long pair of matching lengths strong
    evidence and a short one weak (measured on dev pages: benchmarks/tree_align/pages.py).
    Lengths count non-space characters.

    ``anchor_weight`` > 0 adds identical-token evidence (the identity lexicon of §2's
    lexicon model, restricted to tokens that survive translation unchanged: numbers and
    capitalised names): the cost drops by ``anchor_weight`` per distinct shared anchor token.
    ``anchor_rate`` > 0 completes this into a likelihood ratio of two Poisson counts: the
    number k of shared anchors of a pair of mean length l (non-space characters) is
    Poisson(r1 l) for a translation and Poisson(r0 l) for unrelated texts, so

        -log ratio = (r1 - r0) l - k log(r1 / r0),   anchor_rate = r1 - r0,
                                                    anchor_weight = log(r1 / r0)

    and a long pair sharing no name or number pays for the missing evidence (one-sided boxes
    and ads of similar length no longer pair with each other).
    """

    ratio: float = 1.0  # c
    variance: float = 6.8  # s2
    background_mean: float | None = 60.0  # mean text length of unrelated texts
    anchor_weight: float = 0.0
    anchor_rate: float = 0.0
    cognates: bool = False

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        src_len = np.array([text_length(t) for t in src_texts], dtype=np.float64)
        tgt_len = np.array([text_length(t) for t in tgt_texts], dtype=np.float64)
        mean = src_len[:, None] * self.ratio
        variance = np.maximum(src_len[:, None], 1.0) * self.variance
        delta = (tgt_len[None, :] - mean) / np.sqrt(variance)
        if self.background_mean is None:
            # -log(2 * (1 - Phi(|delta|))) = -log 2 - log Phi(-|delta|)
            tail: FloatArray = -math.log(2.0) - log_ndtr(-np.abs(delta))
            return tail
        mu = self.background_mean
        match = 0.5 * np.log(2 * math.pi * variance) + 0.5 * delta**2
        background = math.log(mu) + (tgt_len[None, :] - 1.0) / mu  # -log geometric(l_t)
        costs: FloatArray = match - background
        if self.anchor_weight:
            shared = shared_anchors(src_texts, tgt_texts, cognates=self.cognates)
            costs = costs - self.anchor_weight * shared
        if self.anchor_rate:
            costs = costs + self.anchor_rate * 0.5 * (src_len[:, None] + tgt_len[None, :])
        return costs


_ANCHOR = re.compile(r"\b(?:\w*\d\w*|[A-Z]\w{2,})\b")
_NUMBER = re.compile(r"\b\w*\d\w*\b")
_LONG_WORD = re.compile(r"\b[^\W\d_]{4,}\b")  # alphabetic words of at least 4 letters
_SHORT_WORD = re.compile(r"\b[^\W\d_]{3}\b")
_ASCII_NUMBER_OR_NAME = re.compile(r"\b(?:\w*\d\w*|[A-Z][^\W\d_]{2})\b")  # ASCII text only
_COMBINING = re.compile("[\u0300-\u036f]")  # combining diacritics left by NFKD
COGNATE_PREFIX = 4  # Simard et al. 1992: words sharing their first 4 letters are cognates


def anchor_tokens(text: str, *, cognates: bool = False) -> set[str]:
    """Distinct anchor tokens of a text: numbers and capitalised names; with ``cognates``
    numbers, capitalised 3-letter words and the accent-folded, lower-cased 4-letter prefix of
    every alphabetic word of at least 4 letters (Simard et al. 1992's cognate test, as in the
    sentence aligner's cue lexicon)."""
    return set(_anchor_tokens(text, cognates))


@functools.lru_cache(maxsize=1 << 16)
def _anchor_tokens(text: str, cognates: bool) -> frozenset[str]:
    # cached: a page's texts are asked again by every alignment pass and by the chunk pairs
    if not cognates:
        return frozenset(_ANCHOR.findall(text))
    if not text.isascii():
        return _cognate_anchor_tokens(text)
    # ASCII: no accents to fold, capitalised 3-letter words are [A-Z] + 2 letters, so numbers
    # and names come from one scan; the same tokens as _cognate_anchor_tokens (tested).
    tokens = set(_ASCII_NUMBER_OR_NAME.findall(text))
    tokens.update("~" + word[:COGNATE_PREFIX] for word in _LONG_WORD.findall(text.lower()))
    return frozenset(tokens)


def _cognate_anchor_tokens(text: str) -> frozenset[str]:
    tokens = set(_NUMBER.findall(text))
    tokens.update(word for word in _SHORT_WORD.findall(text) if word[0].isupper())
    folded = _COMBINING.sub("", unicodedata.normalize("NFKD", text.lower()))
    tokens.update("~" + word[:COGNATE_PREFIX] for word in _LONG_WORD.findall(folded))
    return frozenset(tokens)


def shared_anchors(
    src_texts: Sequence[str], tgt_texts: Sequence[str], *, cognates: bool = False
) -> FloatArray:
    """[i, j] = number of distinct anchor tokens (:func:`anchor_tokens`) in both texts.

    Counted by token: every source text holding a token meets the block of target texts
    holding it (target occurrences sorted by token), and the (i, j) meetings are counted.
    """
    shared: FloatArray = np.zeros((len(src_texts), len(tgt_texts)))
    vocabulary: dict[str, int] = {}
    tgt_rows: list[int] = []
    tgt_tokens: list[int] = []
    for row, text in enumerate(tgt_texts):
        for token in _anchor_tokens(text, cognates):
            tgt_rows.append(row)
            tgt_tokens.append(vocabulary.setdefault(token, len(vocabulary)))
    src_rows: list[int] = []
    src_tokens: list[int] = []
    for row, text in enumerate(src_texts):
        for token in _anchor_tokens(text, cognates):
            index = vocabulary.get(token)
            if index is not None:  # a token no target text holds meets nothing
                src_rows.append(row)
                src_tokens.append(index)
    if not src_rows:
        return shared
    by_token = np.argsort(np.array(tgt_tokens, dtype=np.int64), kind="stable")
    tgt_sorted = np.array(tgt_rows, dtype=np.int64)[by_token]
    per_token = np.bincount(np.array(tgt_tokens, dtype=np.int64), minlength=len(vocabulary))
    block_start = np.concatenate(([0], np.cumsum(per_token)[:-1]))
    tokens = np.array(src_tokens, dtype=np.int64)
    meets = per_token[tokens]  # target texts each source occurrence meets
    src_of_meet = np.repeat(np.array(src_rows, dtype=np.int64), meets)
    first = np.repeat(block_start[tokens] - (np.cumsum(meets) - meets), meets)
    tgt_of_meet = tgt_sorted[first + np.arange(int(meets.sum()))]
    counts = np.bincount(
        src_of_meet * len(tgt_texts) + tgt_of_meet, minlength=len(src_texts) * len(tgt_texts)
    )
    shared += counts.reshape(len(src_texts), len(tgt_texts))
    return shared


def text_length(text: str) -> int:
    """Pr_text's length of a text: its non-space characters (at least 1)."""
    return max(1, len("".join(text.split())))


@dataclass(frozen=True)
class TreeModel:
    """Tag-pair and deletion probabilities over a label vocabulary (as log-probabilities)."""

    labels: tuple[str, ...]
    log_tag: FloatArray  # [l, l'] = log Pr_tag(l' | l)
    log_del_src: FloatArray  # [l] = log Pr_del_src(l)
    log_del_tgt: FloatArray  # [l'] = log Pr_del_tgt(l')
    text_model: TextModel = LengthTextModel()
    iterations: int = 0  # EM iterations that produced this model
    trained_on: str = "initial"

    def __post_init__(self) -> None:
        size = len(self.labels)
        if self.log_tag.shape != (size, size) or self.log_del_src.shape != (size,):
            raise InvalidInput("tree model arrays do not match its label vocabulary")
        if self.log_del_tgt.shape != (size,) or UNKNOWN_LABEL not in self.labels:
            raise InvalidInput("tree model lacks target deletions or the <unk> label")

    @property
    def label_index(self) -> dict[str, int]:
        """Map from label to its model id."""
        return {label: index for index, label in enumerate(self.labels)}

    def label_ids(self, names: Sequence[str]) -> npt.NDArray[np.int32]:
        """Model ids of tree label names; unseen tags map to ``<unk>``."""
        index = self.label_index
        unknown = index[UNKNOWN_LABEL]
        return np.array([index.get(name, unknown) for name in names], dtype=np.int32)

    def pair_cost_matrix(self) -> FloatArray:
        """``[l, l'] = -log[(1 - Pr_del_src(l)) Pr_tag(l'|l) (1 - Pr_del_tgt(l'))]``."""
        keep_src = np.log1p(-np.exp(self.log_del_src))
        keep_tgt = np.log1p(-np.exp(self.log_del_tgt))
        cost: FloatArray = -(keep_src[:, None] + self.log_tag + keep_tgt[None, :])
        return cost

    def save(self, path: Path) -> None:
        """Write the model as JSON (probabilities, not logs, for readability)."""
        payload = {
            "format": MODEL_FORMAT,
            "labels": list(self.labels),
            # full precision: rounded, a small trained probability was read back as 0
            "pr_tag": np.exp(self.log_tag).tolist(),
            "pr_del_src": np.exp(self.log_del_src).tolist(),
            "pr_del_tgt": np.exp(self.log_del_tgt).tolist(),
            "text_model": _describe_text_model(self.text_model),
            "iterations": self.iterations,
            "trained_on": self.trained_on,
        }
        # allow_nan=False: NaN is no JSON, and the file could not be loaded again
        path.write_text(json.dumps(payload, indent=1, allow_nan=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> TreeModel:
        """Read a model written by :meth:`save`; a malformed file raises ``InvalidInput``.

        Probabilities must be finite and in [0, 1], each Pr_tag row summing to 1; deletion
        probabilities are then clamped to [``MIN_PROBABILITY``, 1 - ``MIN_PROBABILITY``]
        (:func:`clamp_deletion`), as training leaves them.
        """
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"cannot read tree model {path}: {exc}") from None
        except RecursionError:
            raise InvalidInput(f"cannot read tree model {path}: JSON nested too deeply") from None
        if not isinstance(payload, dict) or payload.get("format") != MODEL_FORMAT:
            raise InvalidInput(f"{path} is not a {MODEL_FORMAT} file")
        try:
            return cls._from_payload(payload)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput(
                f"malformed tree model {path}: {type(exc).__name__}: {exc}"
            ) from None
        except InvalidInput as exc:
            raise InvalidInput(f"malformed tree model {path}: {exc}") from None

    @classmethod
    def _from_payload(cls, payload: dict[str, object]) -> TreeModel:
        labels = payload["labels"]
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            raise InvalidInput("labels must be a list of strings")
        if len(set(labels)) != len(labels):
            raise InvalidInput("labels must be distinct")
        tag = _probabilities(payload["pr_tag"], "pr_tag", 2)
        if tag.shape[1:] != (len(labels),) or not np.allclose(tag.sum(axis=1), 1.0, atol=1e-6):
            raise InvalidInput("each pr_tag row must hold one probability per label, summing to 1")
        text = payload.get("text_model", {})
        iterations = payload.get("iterations", 0)
        if not isinstance(text, dict) or type(iterations) is not int:
            raise InvalidInput("text_model must be an object and iterations an integer")
        background = text.get("background_mean")
        with np.errstate(divide="ignore"):  # a tag probability of 0: an impossible pair
            log_tag = np.log(tag)
        return cls(
            labels=tuple(labels),
            log_tag=log_tag,
            log_del_src=_log_deletion(payload["pr_del_src"], "pr_del_src"),
            log_del_tgt=_log_deletion(payload["pr_del_tgt"], "pr_del_tgt"),
            text_model=LengthTextModel(
                ratio=_number(text, "ratio", 1.0, positive=True),
                variance=_number(text, "variance", 6.8, positive=True),
                background_mean=(
                    None if background is None else _number(text, "background_mean", positive=True)
                ),
                anchor_weight=_number(text, "anchor_weight", 0.0),
                anchor_rate=_number(text, "anchor_rate", 0.0),
                cognates=bool(text.get("cognates", False)),
            ),
            iterations=iterations,
            trained_on=str(payload.get("trained_on", "")),
        )


def _number(
    fields: dict[str, object], name: str, default: float = 0.0, *, positive: bool = False
) -> float:
    """A finite (and, for ``positive``, > 0) number of the text model: a variance of 0 or a
    NaN ratio made every alignment impossible, reported as a probability of 0."""
    value = fields.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"text_model.{name} must be a number, not {value!r}")
    number = float(value)
    if not math.isfinite(number) or (positive and number <= 0.0) or number < 0.0:
        raise InvalidInput(f"text_model.{name} must be finite and {'> 0' if positive else '>= 0'}")
    if not 1e-100 <= number <= 1e100 and number != 0.0:
        # 1e308 as anchor weight or 1e-320 as background mean made a cost of -inf, refused
        # as "probability 0"
        raise InvalidInput(f"text_model.{name} = {number} is outside [1e-100, 1e100]")
    return number


def _log_deletion(value: object, name: str) -> FloatArray:
    with np.errstate(divide="ignore"):  # log 0 = -inf, then clamped
        return clamp_deletion(np.log(_probabilities(value, name, 1)))


def _probabilities(value: object, name: str, dimensions: int) -> FloatArray:
    """A JSON array of probabilities: finite, in [0, 1], of ``dimensions`` dimensions."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim != dimensions:
        raise InvalidInput(f"{name} must be a {dimensions}-dimensional array")
    if not np.all(np.isfinite(array)) or np.any(array < 0.0) or np.any(array > 1.0):
        raise InvalidInput(f"{name} holds a value that is not a probability in [0, 1]")
    return array


def clamp_deletion(log_del: FloatArray) -> FloatArray:
    """Deletion log-probabilities kept within [MIN_PROBABILITY, 1 - MIN_PROBABILITY].

    Pr_del 0 makes a node undeletable (cost +inf), and EM drives the deletion probability of
    always-aligned tags (``html``, ``body``) towards 0 geometrically: at 0 the next E step had
    inf - inf = NaN costs. Pr_del 1 makes "kept" impossible. 1e-12 is far below any learnt
    probability that matters (a cost of 27.6 against costs of 0-20 per node pair).
    """
    return np.clip(log_del, math.log(MIN_PROBABILITY), math.log1p(-MIN_PROBABILITY))


def _describe_text_model(model: TextModel) -> dict[str, object]:
    if isinstance(model, LengthTextModel):
        return {
            "kind": "length",
            "ratio": model.ratio,
            "variance": model.variance,
            "background_mean": model.background_mean,
            "anchor_weight": model.anchor_weight,
            "anchor_rate": model.anchor_rate,
            "cognates": model.cognates,
        }
    return {"kind": type(model).__name__}


def initial_model(
    labels: Sequence[str],
    *,
    same_tag_bonus: float = 10.0,
    deletion: float = 0.3,
    text_model: TextModel | None = None,
) -> TreeModel:
    """The EM starting point of §1: uniform tag pairs with a bonus for identical tags.

    ``deletion`` 0.3 was chosen on the dev pages of benchmarks/tree_align/pages.py and one
    real albatec.de page pair (runs: benchmarks/results/tuning_history.md).
    """
    vocabulary = tuple(dict.fromkeys([*labels, UNKNOWN_LABEL, TEXT_LABEL]))
    size = len(vocabulary)
    weights = np.ones((size, size)) + same_tag_bonus * np.eye(size)
    log_tag = np.log(weights / weights.sum(axis=1, keepdims=True))
    log_del = np.full(size, math.log(deletion))
    return TreeModel(
        labels=vocabulary,
        log_tag=log_tag,
        log_del_src=log_del,
        log_del_tgt=log_del.copy(),
        text_model=text_model
        or LengthTextModel(anchor_weight=DEFAULT_ANCHOR_WEIGHT, cognates=DEFAULT_COGNATES),
    )


@functools.lru_cache(maxsize=1)
def default_model() -> TreeModel:
    """The shipped model trained on generated page pairs; the initial model if it is absent.

    Read once per process (workers align many page pairs with it; nothing mutates it).
    """
    if DEFAULT_MODEL_PATH.exists():
        return TreeModel.load(DEFAULT_MODEL_PATH)
    return initial_model(())
