"""Supervised link decision over the unsupervised aligner's posteriors and lexical evidence.

The HMM aligner (``word_align``) is unsupervised; where gold-aligned pairs exist (the
Edinburgh++ train split) a classifier decides each cell (i, j) from features in the spirit of
Sultan, Bethard & Sumner (2014): identical, lemma and stem matches, WordNet synonyms and
derivational/taxonomic relations (``services.paraphrase.wordnet``, optional), two-word WordNet
phrases ("passed away" ~ "died"), character-trigram similarity, stop-word and punctuation
classes, contextual evidence (lexical matches of the neighbouring words), a lexicon of word
pairs linked in the training gold, and the aligner's directional posteriors with their row and
column competition (Ayan & Dorr 2006 combine aligners the same way), each also multiplied by
"identical pair" and by "function word or punctuation" (:func:`with_interactions`).

Two stages (stacking): stage 1 scores every cell from those features; stage 2 adds the
stage-1 probabilities of the neighbouring cells and of the competing cells in the row and
column, so that blocks grow ("in the direction of" ~ "toward" links all four cells) and
one-to-one choices sharpen. Each stage is a gradient-boosted tree ensemble with the logistic
loss (:mod:`services.paraphrase.boosted`; two logistic regressions before, which it
replaced: benchmarks/results/word_align.md). During fitting, the gold lexicon features and
the stage-1 probabilities that stage 2 learns from are computed out of fold (cross-fitting),
so stage 2 sees stage-1 outputs as noisy as at test time. Only candidate cells
(:func:`candidate_cells`: some posterior, neighbour or lexical evidence) are scored; the
others get p = 0. Decision: link when p >= threshold, with its own threshold for identical
pairs (same word, any case) if one is given (:func:`decide_links`). The model is JSON (the
trees as LightGBM's model text inside it, no pickle).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from services.paraphrase.boosted import BoostedStage
from services.paraphrase.link_features import (
    CONTEXT_FEATURES,
    STATIC_FEATURES,
    Example,
    FloatArray,
    GoldLexicon,
    candidate_cells,
    context_features,
    static_features,
    with_interactions,
)
from services.paraphrase.word_align import Link, WordAligner
from services.paraphrase.wordnet import WordNet, default_wordnet
from shared.errors import InvalidInput

_FOLDS = 3


@dataclass(frozen=True)
class LinkClassifier:
    """Two boosted stages, the gold lexicon they read, and the decision thresholds.

    ``threshold`` decides every cell unless ``identical_threshold`` is given, which then
    decides the cells of identical words (case-insensitive).
    """

    stage1: BoostedStage
    stage2: BoostedStage
    lexicon: GoldLexicon
    threshold: float = 0.5
    uses_wordnet: bool = True
    identical_threshold: float | None = None

    @classmethod
    def fit(
        cls,
        aligner: WordAligner,
        examples: Iterable[Example],
        *,
        threshold: float = 0.5,
        use_wordnet: bool = True,
    ) -> LinkClassifier:
        """Fit both stages on gold-linked pairs (source, target, links), cross-fitted.

        ``use_wordnet`` needs Debian's ``wordnet-base``; without it the WordNet features are 0.
        """
        wordnet = _wordnet(use_wordnet)
        rows = [(list(s), list(t), set(links)) for s, t, links in examples if s and t]
        if not rows:
            raise InvalidInput("no gold-linked pairs to fit the link classifier on")
        folds = [k % _FOLDS for k in range(len(rows))]
        n_folds = min(_FOLDS, len(rows))
        # Static features with the gold lexicon of the other folds (out of fold).
        *lexicons, full_lexicon = GoldLexicon.cross_fitted(rows, folds, n_folds)
        if n_folds == 1:
            lexicons = [full_lexicon]
        static = [
            static_features(aligner, source, target, lexicons[fold], wordnet)
            for (source, target, _), fold in zip(rows, folds, strict=True)
        ]
        labels = [_gold_matrix(s, t, links) for s, t, links in rows]
        masks = [candidate_cells(x) for x in static]
        static = [with_interactions(x) for x in static]
        flat_x = [x[m] for x, m in zip(static, masks, strict=True)]
        flat_y = [y[m] for y, m in zip(labels, masks, strict=True)]
        stage1 = BoostedStage.fit(np.concatenate(flat_x), np.concatenate(flat_y))
        # Stage-1 probabilities out of fold, for stage 2 to learn from.
        stacked: list[FloatArray] = [np.zeros(0)] * len(rows)
        for fold in range(n_folds):
            inside = [k for k in range(len(rows)) if folds[k] != fold] or list(range(len(rows)))
            model = BoostedStage.fit(
                np.concatenate([flat_x[k] for k in inside]),
                np.concatenate([flat_y[k] for k in inside]),
            )
            for k in range(len(rows)):
                if folds[k] == fold:
                    probabilities = _predict_cells(model, static[k], masks[k])
                    combined = np.concatenate([static[k], context_features(probabilities)], axis=2)
                    stacked[k] = combined[masks[k]]
        stage2 = BoostedStage.fit(np.concatenate(stacked), np.concatenate(flat_y))
        return cls(stage1, stage2, full_lexicon, threshold, use_wordnet)

    def probabilities(
        self,
        aligner: WordAligner,
        source: Sequence[str],
        target: Sequence[str],
    ) -> FloatArray:
        """p(link) per cell, shape (len(source), len(target)); all zeros (an empty array)
        when a side is empty, which has no cells to score (the features' max over a row or
        column of nothing raised ValueError)."""
        return self.probabilities_of_pairs(aligner, [(source, target)])[0]

    def probabilities_of_pairs(
        self, aligner: WordAligner, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]
    ) -> list[FloatArray]:
        """:meth:`probabilities` of every pair; each stage scores the candidate cells of all
        pairs in one call (the trees' per-call cost is paid twice, not twice a pair)."""
        result = [np.zeros((len(s), len(t))) for s, t in pairs]
        scored = [k for k, (s, t) in enumerate(pairs) if s and t]
        if not scored:
            return result
        wordnet = _wordnet(self.uses_wordnet)
        static, masks = [], []
        for k in scored:
            features = static_features(aligner, pairs[k][0], pairs[k][1], self.lexicon, wordnet)
            masks.append(candidate_cells(features))
            static.append(with_interactions(features))
        first = _predict_many(self.stage1, static, masks)
        combined = [
            np.concatenate([x, context_features(p)], axis=2)
            for x, p in zip(static, first, strict=True)
        ]
        for k, probabilities in zip(
            scored, _predict_many(self.stage2, combined, masks), strict=True
        ):
            result[k] = probabilities
        return result

    def align(
        self, aligner: WordAligner, source: Sequence[str], target: Sequence[str]
    ) -> set[Link]:
        """Links whose stage-2 probability reaches the threshold of their cell."""
        return self.align_pairs(aligner, [(source, target)])[0]

    def align_pairs(
        self, aligner: WordAligner, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]
    ) -> list[set[Link]]:
        """:meth:`align` of every pair, their cells scored together
        (:meth:`probabilities_of_pairs`)."""
        return [
            decide_links(p, s, t, self.threshold, self.identical_threshold)
            for p, (s, t) in zip(self.probabilities_of_pairs(aligner, pairs), pairs, strict=True)
        ]

    def with_threshold(
        self, threshold: float, identical_threshold: float | None = None
    ) -> LinkClassifier:
        return replace(self, threshold=threshold, identical_threshold=identical_threshold)

    def to_json(self) -> str:
        """Both stages' trees, gold lexicon and thresholds as JSON (no pickle)."""
        return json.dumps(
            {
                "static_features": STATIC_FEATURES,
                "context_features": CONTEXT_FEATURES,
                "stage1": self.stage1.state(),
                "stage2": self.stage2.state(),
                "lexicon": [[a, b, n, m] for (a, b), (n, m) in sorted(self.lexicon.counts.items())],
                "threshold": self.threshold,
                "identical_threshold": self.identical_threshold,
                "uses_wordnet": self.uses_wordnet,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> LinkClassifier:
        try:
            state = json.loads(text)
            if (
                tuple(state["static_features"]) != STATIC_FEATURES
                or tuple(state["context_features"]) != CONTEXT_FEATURES
            ):
                raise InvalidInput("link classifier was fitted on other features")
            lexicon = GoldLexicon(
                {(str(a), str(b)): (int(n), int(m)) for a, b, n, m in state["lexicon"]}
            )
            return cls(
                BoostedStage.from_state(state["stage1"]),
                BoostedStage.from_state(state["stage2"]),
                lexicon,
                float(state["threshold"]),
                bool(state["uses_wordnet"]),
                _optional_float(state.get("identical_threshold")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed link classifier: {error}") from None


def decide_links(
    probabilities: FloatArray,
    source: Sequence[str],
    target: Sequence[str],
    threshold: float,
    identical_threshold: float | None = None,
) -> set[Link]:
    """Cells with p >= threshold; identical words (any case) use ``identical_threshold`` if set."""
    cutoff = np.full(probabilities.shape, threshold)
    if identical_threshold is not None:
        lower_t = [w.lower() for w in target]
        identical = np.array([[a.lower() == b for b in lower_t] for a in source], dtype=bool)
        cutoff[identical.reshape(probabilities.shape)] = identical_threshold
    rows, cols = np.nonzero(probabilities >= cutoff)
    return {(int(i), int(j)) for i, j in zip(rows, cols, strict=True)}


def _predict_cells(
    model: BoostedStage, features: FloatArray, mask: NDArray[np.bool_]
) -> FloatArray:
    # p(link) on the candidate cells, 0 elsewhere; shape (I, J)
    return _predict_many(model, [features], [mask])[0]


def _predict_many(
    model: BoostedStage, features: Sequence[FloatArray], masks: Sequence[NDArray[np.bool_]]
) -> list[FloatArray]:
    # _predict_cells of every pair, the candidate cells of all pairs in one call
    rows = [x[m] for x, m in zip(features, masks, strict=True)]
    scores = model.predict(np.concatenate(rows)) if sum(len(r) for r in rows) else np.zeros(0)
    result = []
    start = 0
    for mask, row in zip(masks, rows, strict=True):
        probabilities = np.zeros(mask.shape)
        probabilities[mask] = scores[start : start + len(row)]
        start += len(row)
        result.append(probabilities)
    return result


def _wordnet(use: bool) -> WordNet | None:
    if not use:
        return None
    found = default_wordnet()
    if found is None:
        raise InvalidInput(
            "the link classifier uses WordNet 3.0: install Debian's wordnet-base "
            "(/usr/share/wordnet) or fit it with use_wordnet=False"
        )
    return found


def _gold_matrix(source: Sequence[str], target: Sequence[str], links: Iterable[Link]) -> FloatArray:
    gold = np.zeros((len(source), len(target)))
    for i, j in links:
        if i < len(source) and j < len(target):
            gold[i, j] = 1.0
    return gold


def _optional_float(value: object) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float):
        raise InvalidInput("malformed identical threshold")
    return float(value)
