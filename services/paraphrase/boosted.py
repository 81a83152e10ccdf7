"""One stage of the link classifier: gradient-boosted decision trees (LightGBM).

Each stage of :mod:`services.paraphrase.link_classifier` scores candidate cells from their
features with p(link | x) = 1 / (1 + exp(-F(x))), F a sum of regression trees
(:mod:`shared.boosted`, which the sentence pair classifier uses too). A logistic stage is one
weight per feature; the features here (posteriors, string and WordNet evidence, their
products with "identical" and "function word") interact in ways a weighted sum cannot
follow, and the trees found more of the links between different words in cross-validation
on the training gold (benchmarks/results/word_align.md). The settings are LightGBM's usual
ones, not tuned (``PARAMETERS``); one thread and a fixed seed make a fit repeatable.

The fitted trees are kept as LightGBM's own model text (its documented, line-based format,
no pickle) inside the JSON model file, and read back with LightGBM.
"""

from __future__ import annotations

from shared.boosted import KIND, PARAMETERS, ROUNDS, BoostedTrees

BoostedStage = BoostedTrees  # a stage is one ensemble; refusals name it "classifier stage"

__all__ = ["KIND", "PARAMETERS", "ROUNDS", "BoostedStage"]
