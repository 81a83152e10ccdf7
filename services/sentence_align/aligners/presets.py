"""Named variants of the hybrid aligner's settings: earlier defaults of
``hybrid.HYBRID_SETTINGS``, which the benchmarks and the tests of the optional cost models run
beside the default; no command uses them unless asked."""

from __future__ import annotations

from dataclasses import replace

from services.sentence_align.aligners.hybrid import HYBRID_SETTINGS

# The Text+Berg dev-chosen settings of earlier sessions, kept for comparison
# (benchmarks/results/sentence_align_ablation.md) and for OCR text like Text+Berg's.
TEXTBERG_DEV_SETTINGS = replace(
    HYBRID_SETTINGS,
    deletion_length_weight=0.8,
    cheap_deletions=True,
    refinement_diagonal=10.0,
    boundary_weight=1.0,
    deletion_weight=1.0,
    anchor_weight=3.0,
    first_anchor_weight=0.0,  # the plain length pass, as when they were chosen
    first_gap_extension=None,
    sentence_cost=2.3,  # as when they were chosen
)
# The default of sessions 14-19: the plain length pass
# (benchmarks/results/sentence_align_ablation.md).
PLAIN_FIRST_PASS_SETTINGS = replace(
    HYBRID_SETTINGS, first_anchor_weight=0.0, first_gap_extension=None, sentence_cost=2.3
)
