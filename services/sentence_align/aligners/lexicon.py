"""The lexicon method (Moore 2002): a length pass, IBM Model 1 trained on its confident 1-1
beads, then a realignment with length and lexical costs together (``two_pass``; the model
is :mod:`services.lexical.model1`, the bead scores
:mod:`services.sentence_align.aligners.bead_llr`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from services.sentence_align.aligners.bead_llr import MOORE_EPSILON
from services.sentence_align.aligners.lexical_settings import LexicalSettings
from services.sentence_align.dp.two_pass import align_two_pass

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary
    from services.sentence_align.aligners.beads import Bead


def align_by_lexicon(
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
) -> list[Bead]:
    """Moore 2002: length pass, Model 1 on confident 1-1 beads, realign with
    -log P_length - log P_Model1 (relative to the unigram model, NULL word eps = 1/(|S|+1)).

    Model 1 is scored in both directions and averaged, 1/2 (LLR(T|S) + LLR(S|T)), rather than
    Moore's T|S alone: swapping the sides then mirrors the beads, and it scored higher on the
    Text+Berg dev document (benchmarks/results/tuning_history.md, lexicon).
    """
    return align_two_pass(src, tgt, src_lang, tgt_lang, lexicon_settings(), dictionary=dictionary)


def lexicon_settings() -> LexicalSettings:
    """Settings of the lexicon method: Moore's NULL-word epsilon, both directions averaged."""
    return LexicalSettings(epsilon=MOORE_EPSILON, both_directions=True, lexical_weight=0.5)
