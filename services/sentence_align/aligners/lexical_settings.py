"""The settings of Moore's two passes as the lexicon and hybrid aligners run them: how the
lexical pass combines length and lexical scores, its refinements, and the optional cost
models (sentence ends, deletions, anchor tokens) of ``boundary_model`` and ``anchor_tokens``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LexicalSettings:
    """How the second pass combines the length and lexical scores."""

    epsilon: float  # background share in p(e|S); bead_llr.MOORE_EPSILON for Model 1 with NULL
    both_directions: bool  # LLR(T|S) + LLR(S|T) instead of LLR(T|S) alone
    lexical_weight: float
    length_weight: float = 1.0
    deletion_length_weight: float = 1.0  # weight of the length cost of 1-0 and 0-1 beads
    margin: int = 4  # sentences either side of the first path searched in pass 2
    confident_share: float = 0.8  # cheapest share of 1-1 beads that trains Model 1
    max_training_beads: int = 5000
    window: int = 2000  # sentences between anchors
    cue_weight: float = 1.0
    # Pass 2 bead shapes: 0 = the length model's (beads.BEAD_SHAPES); k = every x-y shape
    # with x + y <= k (beads.bead_shapes), new shapes priced ``sentence_cost`` per sentence
    # beyond a 1-1 bead (LengthModel.with_shapes).
    max_bead_size: int = 0
    sentence_cost: float = 2.3
    # Pr(2-2) of the length model in both passes; None: Gale & Church's 0.011
    # (``length.shape_costs``).
    two_two_probability: float | None = None
    # With max_bead_size: 1-0 and 0-1 priced like one extra sentence of a 1-1 bead
    # (LengthModel.with_shapes) instead of Gale-Church's Pr = 0.0099.
    cheap_deletions: bool = False
    # Diagonal prior inside beads of several sentences on both sides (bead_llr's diagonal kernel,
    # IBM Model 2 style by sentence); 0: Model 1's uniform choice of the explaining word.
    diagonal: float = 0.0
    refinement_diagonal: float = 0.0  # ``diagonal`` of the refinement rounds
    refinements: int = 0  # extra rounds: Model 1 on the lexical pass's beads, realign
    em_iterations: int = 5  # EM iterations of Model 1
    refinement_margin: int = 4  # margin around the lexical pass's path in refinements
    refinement_share: float = 0.8  # confident_share of the refinements' Model 1 training
    # Windows of at most this many DP cells (n x m) also get a coarse exhaustive pass (the
    # COARSE_SHAPES only) and the band covers its path too: the length pass's path can lie
    # far from the lexical optimum, which a band around it alone then misses. 0: off.
    coarse_cells: int = 0
    # Weight of the sentence-end model (``boundary_costs``): a sentence boundary inside a
    # bead costs -log of the odds that a sentence with this final punctuation mark ends
    # inside a bead, relative to the odds of any sentence, both estimated from the previous
    # pass's beads; applied in the lexical passes from ``boundary_from`` on (0 = the
    # lexical pass, estimated on the length pass's beads; 1 = the refinements). 0: off.
    boundary_weight: float = 0.0
    boundary_from: int = 1
    # Weight of the deletion model (``deletion_costs``): a 1-0 or 0-1 bead costs -log of the
    # odds that a sentence of its class (sentence end, or debris) is left out, relative to
    # any sentence, estimated from the previous pass's beads (with the boundary model).
    deletion_weight: float = 0.0
    # With a bilingual dictionary (``dictionary``): its pairs become Model 1 cues of this
    # strength (times ``cue_weight``), for words of at least ``dictionary_min_length`` letters.
    dictionary_strength: float = 0.25
    dictionary_min_length: int = 4
    # Weight of the anchor-token model (``anchor_tokens``): each end of a pair of sentences
    # sharing a rare identical name or number that a bead separates costs this much.
    anchor_weight: float = 0.0
    # Weight of the anchor-token model in the length pass (``anchored_first_run``): the
    # band also covers the longest chain of anchor pairs, and separating a pair costs this.
    first_anchor_weight: float = 0.0
    first_anchor_margin: int = 20
    # Affine deletion runs in the length pass (``length.LengthModel.gap_extension``); None: off.
    first_gap_extension: float | None = None
