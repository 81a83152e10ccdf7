"""Split paragraphs: an unpaired text next to a chunk pair joins it when Pr_text says so.

A translator's paragraph is often two ``<p>`` on the other side, side by side with no
wrapper of their own. The one-to-one leaf alignment pairs one half; the other half lies
unpaired right next to the pair, with nothing unpaired across from it, so it is neither in
a gap (two consecutive pairs with unpaired text on both sides between them) nor in a wrapper
of the pair. Here each pair takes the unpaired chunk right before or after it on either
side when the joined texts are a likelier pair (a lower Pr_text cost) than the pair alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.tree_align.lexical import word_count
from services.tree_align.model import TextModel

# The joined pair must cost this much less than the pair alone (a one-sided box of about
# the missing length lowers the cost a little, a paragraph's other half by much more).
MARGIN = 2.0
# A neighbour needs this many words (ideographs counted one each) to join a pair.
MIN_WORDS = 6

Pair = tuple[tuple[int, ...], tuple[int, ...]]


def attach_adjacent(
    texts: tuple[Sequence[str], Sequence[str]],
    pairs: Sequence[Pair],
    model: TextModel,
    min_words: int = MIN_WORDS,
) -> list[Pair]:
    """``pairs`` (chunk indices per side, each side a run in document order) with unpaired
    neighbours of ``min_words`` words or more joined (module docstring); at most one
    neighbour a side and direction, and a pair of two chunks on both sides stays as it is."""
    paired = (
        {x for pair in pairs for x in pair[0]},
        {y for pair in pairs for y in pair[1]},
    )
    result: list[Pair] = []
    for src, tgt in pairs:
        for side in (0, 1):
            for step in (-1, 1):
                run = (src, tgt)[side]
                if len(src) > 1 and len(tgt) > 1:
                    break
                neighbour = run[-1] + 1 if step > 0 else run[0] - 1
                if not 0 <= neighbour < len(texts[side]) or neighbour in paired[side]:
                    continue
                if word_count(texts[side][neighbour]) < min_words:
                    continue  # a label or a button: not half of a paragraph
                if run != tuple(range(run[0], run[-1] + 1)):
                    continue  # not a run: no "next to it"
                grown = (*run, neighbour) if step > 0 else (neighbour, *run)
                before = (_joined(texts[0], src), _joined(texts[1], tgt))
                after = list(before)
                after[side] = _joined(texts[side], grown)
                costs = model.pair_costs([before[0], after[0]], [before[1], after[1]])
                if costs[1, 1] < costs[0, 0] - MARGIN:
                    paired[side].add(neighbour)
                    if side == 0:
                        src = grown
                    else:
                        tgt = grown
        result.append((src, tgt))
    return result


def _joined(texts: Sequence[str], run: Sequence[int]) -> str:
    return " ".join(texts[k] for k in run)
