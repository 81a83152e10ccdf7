"""EM training of Pr_tag and Pr_del from page pairs (docs/methods.md §1 "Training").

E step: inside-outside on every page pair gives expected counts
    c(l, l')   = sum over node pairs with labels (l, l') of alpha * beta / P(Tf, Te)
    c(l, NULL) = expected deletions of source nodes labelled l (and c(NULL, l') for targets).
M step (exact maximiser of the EM auxiliary function for the model of ``model.py``):
    Pr_tag(l'|l)  = c(l, l') / sum_l'' c(l, l'')
    Pr_del_src(l) = c(l, NULL) / (c(l, NULL) + sum_l' c(l, l'))      (targets symmetric)
Rows without counts keep their previous values. Deletion probabilities are kept within
[1e-12, 1 - 1e-12] (``model.clamp_deletion``): the auxiliary function is concave in each, so
the clamped value is the maximiser on that interval. The corpus log-likelihood
sum log P(Tf, Te) therefore never decreases; training stops when it gains less than ``tol``.
Counts are plain sums, so per-pair statistics from many workers merge by addition.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from services.html.tag_tree import TagTree
from services.tree_align.decoder import posteriors
from services.tree_align.model import TreeModel, clamp_deletion, initial_model
from shared.errors import InvalidInput

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ExpectedCounts:
    """Sufficient statistics of one E step; merge partial results with ``+``."""

    pair: FloatArray  # [l, l']
    deleted_src: FloatArray  # [l]
    deleted_tgt: FloatArray  # [l']
    log_likelihood: float

    def __add__(self, other: ExpectedCounts) -> ExpectedCounts:
        return ExpectedCounts(
            self.pair + other.pair,
            self.deleted_src + other.deleted_src,
            self.deleted_tgt + other.deleted_tgt,
            self.log_likelihood + other.log_likelihood,
        )


def expected_counts(src: TagTree, tgt: TagTree, model: TreeModel) -> ExpectedCounts:
    """E step for one page pair: label-level expected counts and log P(Tf, Te)."""
    post = posteriors(src, tgt, model)
    size = len(model.labels)
    labels1 = model.label_ids(src.label_names)[src.labels]
    labels2 = model.label_ids(tgt.label_names)[tgt.labels]
    pair = np.zeros((size, size))
    # sum of alpha*beta/P over node pairs, grouped by label pair
    np.add.at(pair, (labels1[:, None], labels2[None, :]), post.pair)
    return ExpectedCounts(
        pair,
        np.bincount(labels1, weights=post.deleted_src, minlength=size).astype(np.float64),
        np.bincount(labels2, weights=post.deleted_tgt, minlength=size).astype(np.float64),
        post.log_likelihood,
    )


def maximise(model: TreeModel, counts: ExpectedCounts) -> TreeModel:
    """M step of §1; labels without counts keep their parameters."""
    log_tag = model.log_tag.copy()
    rows = counts.pair.sum(axis=1)
    seen = rows > 0
    with np.errstate(divide="ignore"):
        log_tag[seen] = np.log(counts.pair[seen] / rows[seen, None])
        log_del_src = _deletion(model.log_del_src, counts.deleted_src, rows)
        log_del_tgt = _deletion(model.log_del_tgt, counts.deleted_tgt, counts.pair.sum(axis=0))
    return replace(
        model,
        log_tag=log_tag,
        log_del_src=log_del_src,
        log_del_tgt=log_del_tgt,
        iterations=model.iterations + 1,
    )


def _deletion(previous: FloatArray, deleted: FloatArray, aligned: FloatArray) -> FloatArray:
    total = deleted + aligned
    result = previous.copy()
    seen = total > 0
    result[seen] = np.log(deleted[seen] / total[seen])
    # EM drives Pr_del of always-aligned tags (html, body) to 0 geometrically, and at 0 the
    # next E step is NaN; at 1 "kept" is impossible: kept within [1e-12, 1 - 1e-12]
    return clamp_deletion(result)


@dataclass(frozen=True)
class TrainingResult:
    """The trained model and the corpus log-likelihood before each M step."""

    model: TreeModel
    log_likelihoods: list[float]


def train(
    page_pairs: Sequence[tuple[TagTree, TagTree]],
    *,
    model: TreeModel | None = None,
    max_iterations: int = 20,
    tol: float = 1e-3,
    progress: Callable[[int, float], None] | None = None,
) -> TrainingResult:
    """Run EM from ``model`` (default: the uniform initial model with an identical-tag bonus).

    A corpus log-likelihood that is not finite raises ``InvalidInput`` (a starting model that
    makes a page pair impossible; EM cannot recover from it). ``progress`` is called after
    every E step with the iteration (0-based) and the corpus log-likelihood of the model of
    that iteration.
    """
    if model is None:
        labels = sorted({name for pair in page_pairs for tree in pair for name in tree.label_names})
        model = initial_model(labels)
    history: list[float] = []
    for iteration in range(max_iterations):
        total = None
        for src, tgt in page_pairs:
            counts = expected_counts(src, tgt, model)
            total = counts if total is None else total + counts
        if total is None:
            break
        if not math.isfinite(total.log_likelihood):
            # NaN - x < tol is False: EM would run on, and return, a model of NaN statistics
            raise InvalidInput(
                f"EM log-likelihood is not finite ({total.log_likelihood}) at iteration "
                f"{iteration}: the model gives a page pair no probability"
            )
        history.append(total.log_likelihood)
        if progress is not None:
            progress(iteration, total.log_likelihood)
        if len(history) > 1 and history[-1] - history[-2] < tol:
            break
        model = maximise(model, total)
    return TrainingResult(model, history)


def smooth(model: TreeModel, prior: TreeModel, weight: float) -> TreeModel:
    """Mix a trained model with ``prior`` so tag pairs unseen in training stay possible."""
    if not 0.0 <= weight <= 1.0:  # outside, the mix went negative: NaN in the model file
        raise InvalidInput(f"smoothing weight must lie in [0, 1], not {weight}")
    index = prior.label_index
    ids = np.array([index.get(label, index["<unk>"]) for label in model.labels])
    tag = (1 - weight) * np.exp(model.log_tag) + weight * np.exp(prior.log_tag[np.ix_(ids, ids)])
    tag /= tag.sum(axis=1, keepdims=True)
    del_src = (1 - weight) * np.exp(model.log_del_src) + weight * np.exp(prior.log_del_src[ids])
    del_tgt = (1 - weight) * np.exp(model.log_del_tgt) + weight * np.exp(prior.log_del_tgt[ids])
    with np.errstate(divide="ignore"):  # weight 0: tag pairs unseen in training stay at 0
        log_tag = np.log(tag)
    return replace(
        model,
        log_tag=log_tag,
        log_del_src=clamp_deletion(np.log(del_src)),
        log_del_tgt=clamp_deletion(np.log(del_tgt)),
    )
