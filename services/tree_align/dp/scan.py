"""The semiring, the range layout of the span tables, and the scan of two sibling ranges.

Speed note: a compiled call that receives arrays updates their reference counts, even for
helpers marked ``inline="always"``; inner loops therefore index the arrays directly instead
of calling helpers that take arrays. The scans read and write their cells through ``Xf``, a
flat view of X made once by each caller (a view made inside every scan call was slower),
with unsigned indices: numba compiles a test for negative indices into every signed access.
Part of the speed is LLVM inlining ``scan`` into ``forward`` (the tables' reference counts
then mostly vanish): small edits to ``scan`` flipped that decision in both directions, so time
every edit of the scan (``benchmarks/tree_align/speed.py``; measured figures in
benchmarks/results/tuning_history.md).
"""

# mypy: disable-error-code="no-untyped-def,untyped-decorator,misc"
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.misc.special import literally

VITERBI = 0
INSIDE = 1

ST_SB = 0
ST_F = 1
ST_GSB = 2
ST_GF = 3
ST_TOT = 4

INF = math.inf
U = np.uint64  # index type without the negative-index wraparound test


@njit(cache=True)
def plus(a: float, b: float, mode: int) -> float:
    # semiring sum on costs: min for Viterbi, -log(e^-a + e^-b) for inside
    if mode == VITERBI:
        return min(a, b)
    if a > b:
        a, b = b, a
    if b == INF:
        return a
    return a - math.log1p(math.exp(a - b))


@njit(cache=True, inline="always")
def rbase(v, k):
    # position of range [0..v] in a block of the ranges of at most k siblings, by end then
    # start (range [w..v] is at rbase(v, k) + w): ends v < k have v + 1 ranges (a triangle),
    # later ends k (starts v - k + 1 .. v). k >= the sibling count: all d (d + 1) / 2 ranges.
    if v < k:
        return (v * (v + 1)) // 2
    return (k * (k + 1)) // 2 + (v - k) * k - v + k - 1


@njit(cache=True, inline="always")
def rindex(w, v, k, wide):
    # position of range [w..v] in a node pair's block: the ranges of at most k (the span
    # limit, ``max_span``) siblings, or for a node whose spans cover one sibling only
    # (``wide`` 0), the single-sibling ranges [v..v]
    return rbase(v, k) + w if wide else v


@njit(cache=True)
def fill_pair_units(fp, gp, c, PU):
    """PU[k, l] = cost of Pair(k-th child of fp, l-th child of gp); out-of-band pairs are INF.

    The unit costs are written out here rather than computed by a helper taking the arrays
    (see the speed note in the module docstring).
    """
    ptr1, idx1, ptr2, idx2, int1, int2 = c.ptr1, c.idx1, c.ptr2, c.idx2, c.int1, c.int2
    kind1, kind2, lab1, lab2, tag_cost = c.kind1, c.kind2, c.lab1, c.lab2, c.tag_cost
    tix1, tix2, text_cost, AF = c.tix1, c.tix2, c.text_cost, c.af
    below1, below2 = c.below1, c.below2
    band, pos1, pos2 = c.band, c.pos1, c.pos2
    for k in range(ptr1[fp + 1] - ptr1[fp]):
        f = idx1[ptr1[fp] + k]
        for j in range(ptr2[gp + 1] - ptr2[gp]):
            g = idx2[ptr2[gp] + j]
            cost = INF
            # -log Pr(Nf, Ne) = -log Pr_tag - log Pr_text; text against element is forbidden
            # (written out here: a call passing the arrays costs reference-count updates)
            if abs(pos1[f] - pos2[g]) <= band and (kind1[f] != 0) == (kind2[g] != 0):
                cost = tag_cost[lab1[f], lab2[g]]
                if kind1[f] != 0:
                    cost += text_cost[tix1[f], tix2[g]]
            if cost < INF:  # config (1): Pr(f, g) * P(f.CF, g.CF)
                if int1[f] >= 0 and int2[g] >= 0:
                    cost += AF[int1[f], int2[g]]
                else:  # a leaf against a subtree: the subtree's children are all deleted
                    cost += below1[f] + below2[g]
            PU[k, j] = cost


@njit(cache=True, inline="always")
def pairable(fp, gp, c):
    # some node pair in the two subtrees lies inside the band (always true without a band)
    band, pos1, pos2, end1, end2 = c.band, c.pos1, c.pos2, c.end1, c.end2
    return pos1[fp] - end2[gp] <= band and pos2[gp] - end1[fp] <= band


@njit(cache=True, inline="always")
def span_f_unit(f, gp, w, v, c):
    # configs (2)/(5): f deleted, f.CF aligned with gp.CF[w..v] (tight)
    int1, del1, SG, sg_row, sg_off = c.int1, c.del1, c.sg, c.sg_row, c.sg_off
    if int1[f] < 0:
        return INF
    wide = 1 if c.wide1[f] > 1 else 0
    return del1[f] + SG[sg_row[f] + sg_off[wide, gp] + rindex(w, v, c.span_limit, wide)]


@njit(cache=True, inline="always")
def span_g_unit(g, fp, w, t, c):
    # configs (3)/(6): g deleted, g.CF aligned with fp.CF[w..t] (tight)
    int2, del2, SF, sf_row, sf_off = c.int2, c.del2, c.sf, c.sf_row, c.sf_off
    if int2[g] < 0:
        return INF
    wide = 1 if c.wide2[g] > 1 else 0
    return del2[g] + SF[sf_row[g] + sf_off[wide, fp] + rindex(w, t, c.span_limit, wide)]


@njit(cache=True)
def scan(mode, fp, gp, f_lo, f_hi, g_lo, g_hi, tight_f, tight_g, no_span_first, c, X, PU, Xf):
    """Fill X[state, a, b] for the forest fp.CF[f_lo:f_hi] against gp.CF[g_lo:g_hi].

    ``mode`` must be a constant at the call site: numba compiles one version of the scan per
    mode (``literally``) and drops the other semiring's branches, so the Viterbi scans carry no
    test of the mode per term.
    Plane ST_TOT holds the semiring sum of the four states of each finished cell. Every state
    of every cell is written (no separate INF fill); the states of the cell to the left are
    kept in registers along a row. The span sums run over interleaved accumulators (four for
    SpanF, two for SpanG), which breaks the loop-carried dependency of one running sum: these
    loops are most of the decoder's time. A minimum of the same floats does not depend on the
    order it is taken in (costs are finite or +inf and only added, so no NaN arises): Viterbi
    tables are the same to the bit as with one running minimum. ``Xf`` is ``X.reshape(X.size)``.
    """
    literally(mode)
    ptr1, idx1, ptr2, idx2, int1, int2 = c.ptr1, c.idx1, c.ptr2, c.idx2, c.int1, c.int2
    del1, del2, sub1, sub2 = c.del1, c.del2, c.sub1, c.sub2
    SG, SF, sg_row, sg_off, sf_row, sf_off = c.sg, c.sf, c.sg_row, c.sg_off, c.sf_row, c.sf_off
    wide1, wide2, span_limit = c.wide1, c.wide2, c.span_limit
    M = f_hi - f_lo
    N = g_hi - g_lo
    # Xf is X as one flat vector (a view made by the caller), cell (state, a, b) at
    # state * P + a * C + b; indices are unsigned (U): no negative-index test per access
    C = X.shape[2]
    P = X.shape[1] * C
    xF, xGSB, xGF, xTOT = P, 2 * P, 3 * P, 4 * P
    g_first = ptr2[gp] + g_lo
    Xf[0] = 0.0
    Xf[U(xF)] = INF
    Xf[U(xGSB)] = INF
    Xf[U(xGF)] = INF
    Xf[U(xTOT)] = 0.0
    for b in range(1, N + 1):  # row 0: only DelG units
        g = idx2[U(g_first + b - 1)]
        Xf[U(b)] = INF
        Xf[U(xF + b)] = INF
        gsb = INF
        gf = INF
        if not (tight_g and b == 1):
            gsb = sub2[U(g)] + plus(Xf[U(b - 1)], Xf[U(xGSB + b - 1)], mode)
            gf = sub2[U(g)] + plus(Xf[U(xF + b - 1)], Xf[U(xGF + b - 1)], mode)
        Xf[U(xGSB + b)] = gsb
        Xf[U(xGF + b)] = gf
        Xf[U(xTOT + b)] = plus(gsb, gf, mode)
    for a in range(1, M + 1):
        t = f_lo + a - 1  # index of the F-tree among fp's children
        f = idx1[U(ptr1[fp] + t)]
        f_sub = sub1[U(f)]
        f_del = del1[U(f)]
        f_wide = wide1[U(f)]
        del_f = not (tight_f and a == 1)
        span_f = int1[U(f)] >= 0 and not (no_span_first and a == 1)
        # G-tight scans: row 0 is +inf past (0, 0), so in row 1 a span can only start at b0 = 1
        first_row = tight_g and a == 1
        f_base = sg_row[U(f)] + sg_off[1 if f_wide > 1 else 0, gp] + g_lo - 1
        g_wide_base = sf_off[1, fp] + rbase(t, span_limit) + f_lo - 1
        g_single_base = sf_off[0, fp] + t
        here = a * C  # cell (a, 0) within a plane
        up = here - C  # cell (a - 1, 0)
        Xf[U(here)] = INF
        Xf[U(xGSB + here)] = INF
        Xf[U(xGF + here)] = INF
        f0 = INF
        if del_f:  # DelF after SB or DelF only (rule b)
            f0 = f_sub + plus(Xf[U(up)], Xf[U(xF + up)], mode)
        Xf[U(xF + here)] = f0
        Xf[U(xTOT + here)] = f0
        sb_left = INF  # states of cell (a, b - 1), kept in registers along the row
        f_left = f0
        gsb_left = INF
        gf_left = INF
        tot_up = xTOT + up - 1  # Xf[tot_up + b0] is the total of cell (a - 1, b0 - 1)
        for b in range(1, N + 1):
            g = idx2[U(g_first + b - 1)]
            f_here = INF
            # F-tight scans: column 0 is +inf past (0, 0): a span in column 1 starts at a0 = 1
            first_column = tight_f and b == 1
            gsb = INF
            gf = INF
            if del_f:
                f_here = f_sub + plus(Xf[U(up + b)], Xf[U(xF + up + b)], mode)
            if not (tight_g and b == 1):
                g_sub = sub2[U(g)]
                gsb = g_sub + plus(sb_left, gsb_left, mode)
                gf = g_sub + plus(f_left, gf_left, mode)
            diagonal = Xf[U(tot_up + b)]
            best = diagonal + PU[t, g_lo + b - 1]  # (4) with (1)
            if span_f:  # (5): SpanF(f, G[b0..b])
                if f_wide > 1:
                    v = g_lo + b - 1
                    row = f_base + rbase(v, span_limit)
                    b0 = max(1, b - f_wide + 1)
                    b_top = 1 if first_row else b
                    acc0 = INF
                    acc1 = INF
                    acc2 = INF
                    acc3 = INF
                    while b0 + 3 <= b_top:
                        acc0 = plus(acc0, Xf[U(tot_up + b0)] + SG[U(row + b0)], mode)
                        acc1 = plus(acc1, Xf[U(tot_up + b0 + 1)] + SG[U(row + b0 + 1)], mode)
                        acc2 = plus(acc2, Xf[U(tot_up + b0 + 2)] + SG[U(row + b0 + 2)], mode)
                        acc3 = plus(acc3, Xf[U(tot_up + b0 + 3)] + SG[U(row + b0 + 3)], mode)
                        b0 += 4
                    while b0 <= b_top:
                        acc0 = plus(acc0, Xf[U(tot_up + b0)] + SG[U(row + b0)], mode)
                        b0 += 1
                    acc = plus(plus(acc0, acc1, mode), plus(acc2, acc3, mode), mode)
                else:
                    acc = diagonal + SG[U(f_base + b)]
                best = plus(best, f_del + acc, mode)
            if int2[U(g)] >= 0:  # (6): SpanG(g, F[a0..a])
                g_wide = wide2[U(g)]
                if g_wide > 1:
                    row = sf_row[U(g)] + g_wide_base
                    a0 = max(1, a - g_wide + 1)
                    acc0 = INF
                    acc1 = INF
                    a_top = 1 if first_column else a
                    # Xf[col + a0 * C] is the total of cell (a0 - 1, b - 1)
                    col = xTOT - C + b - 1
                    while a0 + 1 <= a_top:
                        acc0 = plus(acc0, Xf[U(col + a0 * C)] + SF[U(row + a0)], mode)
                        acc1 = plus(acc1, Xf[U(col + (a0 + 1) * C)] + SF[U(row + a0 + 1)], mode)
                        a0 += 2
                    if a0 == a_top:
                        acc0 = plus(acc0, Xf[U(col + a0 * C)] + SF[U(row + a0)], mode)
                    acc = plus(acc0, acc1, mode)
                else:
                    acc = diagonal + SF[U(sf_row[U(g)] + g_single_base)]
                best = plus(best, del2[U(g)] + acc, mode)
            cell = here + b
            Xf[U(cell)] = best
            Xf[U(xF + cell)] = f_here
            Xf[U(xGSB + cell)] = gsb
            Xf[U(xGF + cell)] = gf
            Xf[U(xTOT + cell)] = plus(plus(best, f_here, mode), plus(gsb, gf, mode), mode)
            sb_left = best
            f_left = f_here
            gsb_left = gsb
            gf_left = gf
    return M, N


@njit(cache=True, inline="always")
def runtime_constants():
    # Constants passed as literals would compile one specialisation of scan per distinct
    # literal argument tuple (nine before this); typed values compile one per caller.
    return np.int64(0), np.bool_(False), np.bool_(True)
