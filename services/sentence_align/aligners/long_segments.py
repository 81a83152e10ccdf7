"""Long segments cut at confident anchor pairs before the dynamic program, so that a wrong
length decision cannot drift over thousands of sentences (issue 50, item 4).

A segment of more than LONG_SEGMENT sentences on one side (one huge paragraph of a page
pair) is cut into pieces that the length and lexical passes then align one by one, as they
align the chunks of a page pair. The cuts come from anchor tokens (names and numbers
written the same on both sides, ``anchor_tokens``), as BAM cuts a text at its anchors
(``anchors``), but only where a cut is safe:

- a token pairs two sentences only where it occurs once within ISOLATION sentences on
  either side (repetitive text repeats its names: unique in the whole segment is too strict,
  so unique is taken near each occurrence), and only sentences at relative positions
  (i / n, j / m) at most REACH apart (fewer pairs for tokens that recur all along);
- of those pairs only the ones on every longest chain non-decreasing on both sides are kept
  (``anchor_tokens.anchor_chain``: monotone), and of those only the pairs whose source and
  target sentence are in no other kept pair (mutually unique);
- a cut (i + 1, j + 1) needs two such pairs (i, j) and (i + 1, j + 1): two neighbouring 1-1
  links, so the cut falls between two beads unless one bead holds both pairs (a 2-2 bead,
  the rarest shape: Pr 0.001 in the hybrid settings);
- cuts are at least MIN_PIECE sentences apart (both sides together: 2 * MIN_PIECE), and
  as far from the segment's ends.

Everything is symmetric in the two sides, so swapping them swaps the cuts.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from services.sentence_align.aligners.anchor_tokens import anchor_chain, token_occurrences
from services.sentence_align.dp import banded as dp

# A segment is cut only with more sentences than this on one side: page chunks are far
# shorter and stay as they were (their beads are unchanged).
LONG_SEGMENT = 1000
# Sentences either side of an occurrence of a token within which it must not occur again.
ISOLATION = 100
# Largest difference of relative positions i / n and j / m of a pair: a block missing on one
# side shifts the pairs after it by its share of the segment.
REACH = 0.3
# Fewest sentences a side (on average over both) between two cuts.
MIN_PIECE = 200


def _isolated(where: Sequence[int], radius: int) -> list[int]:
    """The sentence numbers (sorted, distinct) with no other one within ``radius``."""
    return [
        index
        for k, index in enumerate(where)
        if (k == 0 or index - where[k - 1] > radius)
        and (k == len(where) - 1 or where[k + 1] - index > radius)
    ]


def isolated_token_pairs(
    src: Sequence[str], tgt: Sequence[str], radius: int = ISOLATION
) -> dp.IntArray:
    """Sentence pairs (i, j) sharing an anchor token (``anchor_tokens.token_occurrences``)
    that occurs on no other sentence within ``radius`` of i in the source and of j in the
    target, with |i / n - j / m| <= REACH; sorted, each pair once."""
    n, m = max(len(src), 1), max(len(tgt), 1)
    src_found, tgt_found = token_occurrences(src), token_occurrences(tgt)
    pairs: set[tuple[int, int]] = set()
    for token, src_where in src_found.items():
        tgt_where = tgt_found.get(token)
        if tgt_where is None:
            continue
        tgt_rows = _isolated(sorted(set(tgt_where)), radius)
        for i in _isolated(sorted(set(src_where)), radius):
            first = bisect.bisect_left(tgt_rows, (i / n - REACH) * m)
            last = bisect.bisect_right(tgt_rows, (i / n + REACH) * m)
            pairs.update((i, j) for j in tgt_rows[first:last])
    return np.asarray(sorted(pairs), dtype=np.int64).reshape(-1, 2)


def _mutually_unique(chain: dp.IntArray) -> dp.IntArray:
    """The pairs whose source sentence and target sentence are in no other pair."""
    rows, row_counts = np.unique(chain[:, 0], return_counts=True)
    columns, column_counts = np.unique(chain[:, 1], return_counts=True)
    single_row = np.isin(chain[:, 0], rows[row_counts == 1])
    single_column = np.isin(chain[:, 1], columns[column_counts == 1])
    result: dp.IntArray = chain[single_row & single_column]
    return result


def segment_cuts(
    src: Sequence[str], tgt: Sequence[str], min_piece: int = MIN_PIECE
) -> list[tuple[int, int]]:
    """Cut points (i, j) inside one segment, in order, without (0, 0) and (n, m): none for
    a segment of at most LONG_SEGMENT sentences a side (see the module docstring)."""
    n, m = len(src), len(tgt)
    if max(n, m) <= LONG_SEGMENT:
        return []
    pairs = _mutually_unique(anchor_chain(isolated_token_pairs(src, tgt)))
    # Two neighbouring links (i, j), (i + 1, j + 1): a cut between them at (i + 1, j + 1).
    following = {(int(i), int(j)) for i, j in pairs.tolist()}
    points = [(i + 1, j + 1) for i, j in sorted(following) if (i + 1, j + 1) in following]
    cuts: list[tuple[int, int]] = []
    last_i = last_j = 0
    for i, j in points:
        if (i - last_i) + (j - last_j) >= 2 * min_piece and (n - i) + (m - j) >= 2 * min_piece:
            cuts.append((i, j))
            last_i, last_j = i, j
    return cuts


def refine_cuts(
    segments: Sequence[tuple[Sequence[str], Sequence[str]]],
) -> list[tuple[int, int]]:
    """The cut points (i, j) of the concatenated segments, from (0, 0) to (n, m), with the
    cuts of every long segment (``segment_cuts``) between its own two."""
    cuts = [(0, 0)]
    for src, tgt in segments:
        x0, y0 = cuts[-1]
        cuts += [(x0 + i, y0 + j) for i, j in segment_cuts(src, tgt)]
        cuts.append((x0 + len(src), y0 + len(tgt)))
    return cuts
