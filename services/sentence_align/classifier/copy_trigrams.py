"""The copy feature's character trigrams, compiled (numba).

The pair classifier's ``copy_trigrams`` feature is the Dice coefficient of the two sides'
sets of character trigrams (of each normalised side's first ``COPY_CHARS`` characters): a
pair whose sides share most trigrams is a copy, not a translation. A trigram is kept here as
one integer, its three code points side by side (21 bits each), so a side's set is a sorted
array of distinct integers and two sets meet in one merge, instead of a frozenset of
character tuples built and intersected in Python (the costliest feature of a page).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

IntArray = npt.NDArray[np.int64]
EMPTY: IntArray = np.zeros(0, dtype=np.int64)


def trigrams(text: str) -> IntArray:
    """The distinct character trigrams of ``text``, sorted (a shorter text padded with
    spaces to three characters; none for an empty text)."""
    if not text:
        return EMPTY
    if len(text) < 3:
        text = text.ljust(3)
    return _trigram_ids(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32))


def dice(a: IntArray, b: IntArray) -> float:
    """2 |a ∩ b| / (|a| + |b|) of two trigram sets (0 when both are empty)."""
    if not len(a) and not len(b):
        return 0.0
    return 2 * _shared(a, b) / (len(a) + len(b))


@njit(cache=True, nogil=True)
def _trigram_ids(points: npt.NDArray[np.uint32]) -> IntArray:
    n = len(points) - 2
    ids = np.empty(n, np.int64)
    for k in range(n):
        ids[k] = (np.int64(points[k]) << 42) | (np.int64(points[k + 1]) << 21) | points[k + 2]
    return np.unique(ids)


@njit(cache=True, nogil=True)
def _shared(a: IntArray, b: IntArray) -> int:
    """How many values two sorted arrays of distinct integers share (one merge)."""
    i = j = found = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            found += 1
            i += 1
            j += 1
        elif a[i] < b[j]:
            i += 1
        else:
            j += 1
    return found
