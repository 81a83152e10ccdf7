"""The byte walk of langid.py's feature extractor, compiled (numba).

py3langid reads a text's features by walking a finite automaton over its UTF-8 bytes: each
byte moves the state (``tk_nextmove[rowbase[state] + byte]``), and a state that ends a byte
n-gram of the model emits that feature (``tk_output[state]``, -1: none). Its Python loop is
the costliest part of identifying a short text. :func:`feature_counts` is the same walk over
the same tables, returning the features in the order of their first occurrence with their
counts, as py3langid's ``Counter`` holds them, so the scores that follow are the library's
to the bit (``tests/unit/shared/test_langid.py`` holds it against py3langid itself).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

IntArray = npt.NDArray[np.int64]


@njit(cache=True, nogil=True)
def feature_counts(
    data: npt.NDArray[np.uint8], nextmove: IntArray, rowbase: IntArray, output: IntArray
) -> tuple[IntArray, IntArray]:
    """(features, counts) the automaton emits over ``data``, features in first-occurrence
    order (no scratch table: the walk's features are sorted stably and grouped)."""
    emitted = np.empty(len(data), np.int64)
    m = 0
    state = 0
    for byte in data:
        state = nextmove[rowbase[state] + byte]
        feature = output[state]
        if feature >= 0:
            emitted[m] = feature
            m += 1
    emitted = emitted[:m]
    order = np.argsort(emitted, kind="mergesort")  # stable: a run starts at its first place
    firsts = np.empty(m, np.int64)
    runs = np.empty(m, np.int64)
    n = 0
    start = 0
    while start < m:
        end = start + 1
        while end < m and emitted[order[end]] == emitted[order[start]]:
            end += 1
        firsts[n] = order[start]
        runs[n] = end - start
        n += 1
        start = end
    by_first = np.argsort(firsts[:n])
    features = np.empty(n, np.int64)
    counts = np.empty(n, np.int64)
    for k in range(n):
        features[k] = emitted[firsts[by_first[k]]]
        counts[k] = runs[by_first[k]]
    return features, counts
