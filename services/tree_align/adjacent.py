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
    # every candidate (pair, side, neighbour) first, their costs in one Pr_text call
    candidates: list[tuple[int, int, tuple[int, ...]]] = []
    for k, (src, tgt) in enumerate(pairs):
        if len(src) > 1 and len(tgt) > 1:
            continue
        for side in (0, 1):
            run = (src, tgt)[side]
            if run != tuple(range(run[0], run[-1] + 1)):
                continue  # not a run: no "next to it"
            for neighbour in (run[0] - 1, run[-1] + 1):
                if not 0 <= neighbour < len(texts[side]) or neighbour in paired[side]:
                    continue
                if word_count(texts[side][neighbour]) < min_words:
                    continue  # a label or a button: not half of a paragraph
                grown = tuple(sorted((*run, neighbour)))
                candidates.append((k, side, grown))
    if not candidates:
        return list(pairs)
    before = [
        (_joined(texts[0], pairs[k][0]), _joined(texts[1], pairs[k][1])) for k, _, _ in candidates
    ]
    after = [
        (_joined(texts[0], grown), before[c][1])
        if side == 0
        else (before[c][0], _joined(texts[1], grown))
        for c, (_, side, grown) in enumerate(candidates)
    ]
    costs = model.pair_costs(
        [a for a, _ in before] + [a for a, _ in after],
        [b for _, b in before] + [b for _, b in after],
    )
    n = len(candidates)
    result = [list(pair) for pair in pairs]
    for c, (k, side, grown) in enumerate(candidates):
        neighbour = next(x for x in grown if x not in (pairs[k][side]))
        if neighbour in paired[side] or costs[n + c, n + c] >= costs[c, c] - MARGIN:
            continue
        if len(result[k][0]) > 1 and len(result[k][1]) > 1:
            continue  # the pair grew on the other side already
        paired[side].add(neighbour)
        result[k][side] = tuple(sorted((*result[k][side], neighbour)))
    return [(tuple(src), tuple(tgt)) for src, tgt in result]


def _joined(texts: Sequence[str], run: Sequence[int]) -> str:
    return " ".join(texts[k] for k in run)
