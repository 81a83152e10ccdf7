"""The Viterbi traceback: the optimal alignment's node pairs, read back from AF[V1, V2] by
rescanning each node pair and matching every cell to the term that produced it."""

# mypy: disable-error-code="no-untyped-def,untyped-decorator,misc"
from __future__ import annotations

import numpy as np
from numba import njit

from services.tree_align.dp.scan import (
    INF,
    ST_F,
    ST_GF,
    ST_GSB,
    ST_SB,
    ST_TOT,
    VITERBI,
    fill_pair_units,
    scan,
    span_f_unit,
    span_g_unit,
)


@njit(cache=True, inline="always")
def _close(term: float, target: float) -> bool:
    # the traceback recomputes each candidate term exactly as the forward pass did
    return term < INF and abs(term - target) <= 1e-9 * (1.0 + abs(target))


@njit(cache=True, inline="always")
def _best_state(X, a, b, mask):
    best = -1
    for s in range(4):
        if (mask >> s) & 1 and (best < 0 or X[s, a, b] < X[best, a, b]):
            best = s
    return best


@njit(cache=True, inline="always")
def _push(tasks, row, fp, gp, f_lo, f_hi, g_lo, g_hi, tight_f, tight_g, no_span_first, a, b, mask):
    tasks[row, 0] = fp
    tasks[row, 1] = gp
    tasks[row, 2] = f_lo
    tasks[row, 3] = f_hi
    tasks[row, 4] = g_lo
    tasks[row, 5] = g_hi
    tasks[row, 6] = tight_f
    tasks[row, 7] = tight_g
    tasks[row, 8] = no_span_first
    tasks[row, 9] = a
    tasks[row, 10] = b
    tasks[row, 11] = mask


@njit(cache=True)
def viterbi_pairs(V1, V2, c, X, PU, pairs):
    """Trace the optimal alignment back from AF[V1, V2]; returns the number of node pairs."""
    ptr1, idx1, ptr2, idx2, int1, int2 = c.ptr1, c.idx1, c.ptr2, c.idx2, c.int1, c.int2
    max_span = c.span_limit
    # task: fp, gp, f_lo, f_hi, g_lo, g_hi, tight_f, tight_g, no_span_first, end_a, end_b, mask
    tasks = np.empty((pairs.shape[0] * 2 + 16, 12), dtype=np.int64)
    Xf = X.reshape(X.size)
    n_tasks = 1
    m0 = ptr1[V1 + 1] - ptr1[V1]
    n0 = ptr2[V2 + 1] - ptr2[V2]
    _push(tasks, 0, V1, V2, 0, m0, 0, n0, 0, 0, 0, m0, n0, 15)
    n_pairs = 0
    while n_tasks > 0:
        n_tasks -= 1
        fp, gp, f_lo, f_hi, g_lo, g_hi = (
            tasks[n_tasks, 0],
            tasks[n_tasks, 1],
            tasks[n_tasks, 2],
            tasks[n_tasks, 3],
            tasks[n_tasks, 4],
            tasks[n_tasks, 5],
        )
        tf, tg, nsf, a, b, mask = (
            tasks[n_tasks, 6],
            tasks[n_tasks, 7],
            tasks[n_tasks, 8],
            tasks[n_tasks, 9],
            tasks[n_tasks, 10],
            tasks[n_tasks, 11],
        )
        fill_pair_units(fp, gp, c, PU)
        scan(VITERBI, fp, gp, f_lo, f_hi, g_lo, g_hi, tf == 1, tg == 1, nsf == 1, c, X, PU, Xf)
        s = _best_state(X, a, b, mask)
        while a > 0 or b > 0:
            f = idx1[ptr1[fp] + f_lo + a - 1] if a > 0 else -1
            g = idx2[ptr2[gp] + g_lo + b - 1] if b > 0 else -1
            if s == ST_F:
                a -= 1
                s = _best_state(X, a, b, 3)
                continue
            if s in (ST_GSB, ST_GF):
                b -= 1
                s = _best_state(X, a, b, 5 if s == ST_GSB else 10)
                continue
            target = X[ST_SB, a, b]
            found = False
            if _close(X[ST_TOT, a - 1, b - 1] + PU[f_lo + a - 1, g_lo + b - 1], target):
                pairs[n_pairs, 0] = f
                pairs[n_pairs, 1] = g
                n_pairs += 1
                m = ptr1[f + 1] - ptr1[f]
                n = ptr2[g + 1] - ptr2[g]
                if m > 0 and n > 0:
                    _push(tasks, n_tasks, f, g, 0, m, 0, n, 0, 0, 0, m, n, 15)
                    n_tasks += 1
                a -= 1
                b -= 1
                found = True
            if not found and int1[f] >= 0 and not (nsf == 1 and a == 1):
                for b0 in range(max(1, b - c.wide1[f] + 1), b + 1):
                    term = X[ST_TOT, a - 1, b0 - 1] + span_f_unit(
                        f, gp, g_lo + b0 - 1, g_lo + b - 1, c
                    )
                    if _close(term, target):
                        m = ptr1[f + 1] - ptr1[f]
                        w = g_lo + b0 - 1
                        g_hi = min(ptr2[gp + 1] - ptr2[gp], w + max_span)
                        _push(tasks, n_tasks, f, gp, 0, m, w, g_hi, 0, 1, 0, m, b - b0 + 1, 3)
                        n_tasks += 1
                        a -= 1
                        b = b0 - 1
                        found = True
                        break
            if not found and int2[g] >= 0:
                for a0 in range(max(1, a - c.wide2[g] + 1), a + 1):
                    term = X[ST_TOT, a0 - 1, b - 1] + span_g_unit(
                        g, fp, f_lo + a0 - 1, f_lo + a - 1, c
                    )
                    if _close(term, target):
                        m = ptr1[fp + 1] - ptr1[fp]
                        w = f_lo + a0 - 1
                        if a0 == a:
                            _push(
                                tasks,
                                n_tasks,
                                fp,
                                g,
                                w,
                                w + 1,
                                0,
                                ptr2[g + 1] - ptr2[g],
                                1,
                                0,
                                1,
                                1,
                                ptr2[g + 1] - ptr2[g],
                                5,
                            )
                        else:
                            _push(
                                tasks,
                                n_tasks,
                                fp,
                                g,
                                w,
                                min(m, w + max_span),
                                0,
                                ptr2[g + 1] - ptr2[g],
                                1,
                                0,
                                0,
                                a - a0 + 1,
                                ptr2[g + 1] - ptr2[g],
                                5,
                            )
                        n_tasks += 1
                        a = a0 - 1
                        b -= 1
                        found = True
                        break
            if not found:
                raise RuntimeError("tree alignment traceback found no matching derivation")
            s = _best_state(X, a, b, 15)
    return n_pairs
