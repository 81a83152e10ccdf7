"""Compiled dynamic programs of the tree alignment (ALGORITHMS.md §1): Viterbi, inside, outside.

Canonical derivations (each alignment counted once)
---------------------------------------------------
An alignment of two sibling forests F = f_1..f_p and G = g_1..g_q is read left to right as a
sequence of *units* (Jiang, Wang & Zhang 1995, on sibling ranges):

    DelF(f)          tree f deleted entirely                      Pr = prod Pr_del over T_f
    DelG(g)          tree g deleted entirely
    Pair(f, g)       f ~ g, children forests aligned               config (1): Pr(f,g) P(f.CF, g.CF)
    SpanF(f, G[w..v]) f deleted, its children aligned with the
                     sibling range g_w..g_v                      configs (2)/(5): Pr(f|NULL) ...
    SpanG(g, F[w..t]) symmetric                                  configs (3)/(6)
and the forest recursion (4) concatenates units. The recursion as written in the paper reaches
one alignment (one set of node pairs) by several derivations; we fix a canonical one:

    a. spans are *tight*: the first and last tree of a span's range contain an aligned node
       (a wholly deleted tree at a span boundary is a DelF/DelG unit outside the span);
    b. in a run of consecutive DelF/DelG units, all DelF come before all DelG;
    c. when a deleted f and a deleted g cover exactly the same aligned pairs, f is the outer
       one: SpanG(g, F[w..w]) requires the root of the single tree f_w not to be deleted.

Every alignment with the ancestry and sibling-order constraints of JWZ tree alignment has
exactly one such derivation; the brute-force tests enumerate alignment trees and compare.

Scans
-----
A *scan* aligns a range of P's children with a range of Q's children, cell (a, b) meaning the
first a F-trees and b G-trees of the ranges are consumed, with four states by the last unit:
SB (super-block unit Pair/SpanF/SpanG, or the start), F (DelF), GSB and GF (DelG after SB or
after DelF: rule b). Per node pair (P, Q) we run

    FULL        all of P.CF with all of Q.CF             -> AF[P, Q]   (used by Pair(P, Q))
    GT(w)       all of P.CF with Q.CF[w..], G-tight      -> SG[P, Q, w, v]  (SpanF(P, ...))
    FT(w)       P.CF[w..] with all of Q.CF, F-tight      -> SF[P, Q, w, t]  (SpanG(Q, ...))
    FT1(w)      P.CF[w..w] alone, F-tight, no SpanF(f_w) -> SF[P, Q, w, w]  (rule c)

Both trees get a virtual super-root so the whole-tree alignment is AF[V1, V2]. Costs are
negative natural logs; the semiring "plus" is min (Viterbi) or -logaddexp (inside).
Time is O(|T1||T2|(deg T1 + deg T2)^2); memory is AF over internal node pairs plus SG/SF
over internal node pairs times the sibling ranges a span may cover: all d (d + 1) / 2 of a
node with d children, or with ``max_span`` k about d k (wide pages: ``decoder.affordable_span``).

Speed note: a compiled call that receives arrays updates their reference counts (atomic
operations, ~20 ns per array), even for helpers marked ``inline="always"``; inner loops
therefore index the arrays directly instead of calling helpers that take arrays (measured:
one pair unit 327 -> 8 ns, the ~1,000-element folded pair 0.44 -> 0.37 s). The scans read and
write their cells through ``Xf``, a flat view of X made once by each caller (a view made inside
every scan call was measured slower than none), with unsigned indices: numba compiles a test for
negative indices into every signed access. Full ~1,000-element pair: forward 0.44 -> 0.31 s.
Part of that is LLVM inlining ``_scan`` into ``forward`` (the per-call tuple of arrays and its
reference counts then mostly vanish): small edits to ``_scan`` flipped that decision in both
directions (0.30 vs 0.34 s on the same pair), so time every edit of the scan.
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

SCAN_FULL = 0
SCAN_GT = 1
SCAN_FT = 2
SCAN_FT1 = 3

INF = math.inf
_U = np.uint64  # index type without the negative-index wraparound test


@njit(cache=True)
def _plus(a: float, b: float, mode: int) -> float:
    # semiring sum on costs: min for Viterbi, -log(e^-a + e^-b) for inside
    if mode == VITERBI:
        return min(a, b)
    if a > b:
        a, b = b, a
    if b == INF:
        return a
    return a - math.log1p(math.exp(a - b))


@njit(cache=True, inline="always")
def _rbase(v, k):
    # position of range [0..v] in a block of the ranges of at most k siblings, by end then
    # start (range [w..v] is at _rbase(v, k) + w): ends v < k have v + 1 ranges (a triangle),
    # later ends k (starts v - k + 1 .. v). k >= the sibling count: all d (d + 1) / 2 ranges.
    if v < k:
        return (v * (v + 1)) // 2
    return (k * (k + 1)) // 2 + (v - k) * k - v + k - 1


@njit(cache=True, inline="always")
def _rindex(w, v, k, wide):
    # position of range [w..v] in a node pair's block: the ranges of at most k (the span
    # limit, ``max_span``) siblings, or for a node whose spans cover one sibling only
    # (``wide`` 0), the single-sibling ranges [v..v]
    return _rbase(v, k) + w if wide else v


@njit(cache=True)
def _fill_pair_units(fp, gp, c, PU):
    """PU[k, l] = cost of Pair(k-th child of fp, l-th child of gp); out-of-band pairs are INF.

    The unit costs are written out here rather than computed by a helper taking the arrays
    (see the speed note in the module docstring).
    """
    ptr1, idx1, ptr2, idx2, int1, int2 = c[0], c[1], c[2], c[3], c[4], c[5]
    kind1, kind2, lab1, lab2, tag_cost = c[6], c[7], c[8], c[9], c[10]
    tix1, tix2, text_cost, below1, below2, AF = c[11], c[12], c[13], c[33], c[34], c[18]
    band, pos1, pos2 = c[26], c[27], c[28]
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
def _pairable(fp, gp, c):
    # some node pair in the two subtrees lies inside the band (always true without a band)
    band, pos1, pos2, end1, end2 = c[26], c[27], c[28], c[29], c[30]
    return pos1[fp] - end2[gp] <= band and pos2[gp] - end1[fp] <= band


@njit(cache=True, inline="always")
def _span_f_unit(f, gp, w, v, c):
    # configs (2)/(5): f deleted, f.CF aligned with gp.CF[w..v] (tight)
    int1, del1, SG, sg_row, sg_off = c[4], c[14], c[19], c[21], c[22]
    if int1[f] < 0:
        return INF
    wide = 1 if c[31][f] > 1 else 0
    return del1[f] + SG[sg_row[f] + sg_off[wide, gp] + _rindex(w, v, c[25], wide)]


@njit(cache=True, inline="always")
def _span_g_unit(g, fp, w, t, c):
    # configs (3)/(6): g deleted, g.CF aligned with fp.CF[w..t] (tight)
    int2, del2, SF, sf_row, sf_off = c[5], c[15], c[20], c[23], c[24]
    if int2[g] < 0:
        return INF
    wide = 1 if c[32][g] > 1 else 0
    return del2[g] + SF[sf_row[g] + sf_off[wide, fp] + _rindex(w, t, c[25], wide)]


@njit(cache=True)
def _scan(mode, fp, gp, f_lo, f_hi, g_lo, g_hi, tight_f, tight_g, no_span_first, c, X, PU, Xf):
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
    ptr1, idx1, ptr2, idx2, int1, int2 = c[0], c[1], c[2], c[3], c[4], c[5]
    del1, del2, sub1, sub2 = c[14], c[15], c[16], c[17]
    SG, SF, sg_row, sg_off, sf_row, sf_off = c[19], c[20], c[21], c[22], c[23], c[24]
    wide1, wide2, span_limit = c[31], c[32], c[25]
    M = f_hi - f_lo
    N = g_hi - g_lo
    # Xf is X as one flat vector (a view made by the caller), cell (state, a, b) at
    # state * P + a * C + b; indices are unsigned (_U): no negative-index test per access
    C = X.shape[2]
    P = X.shape[1] * C
    xF, xGSB, xGF, xTOT = P, 2 * P, 3 * P, 4 * P
    g_first = ptr2[gp] + g_lo
    Xf[0] = 0.0
    Xf[_U(xF)] = INF
    Xf[_U(xGSB)] = INF
    Xf[_U(xGF)] = INF
    Xf[_U(xTOT)] = 0.0
    for b in range(1, N + 1):  # row 0: only DelG units
        g = idx2[_U(g_first + b - 1)]
        Xf[_U(b)] = INF
        Xf[_U(xF + b)] = INF
        gsb = INF
        gf = INF
        if not (tight_g and b == 1):
            gsb = sub2[_U(g)] + _plus(Xf[_U(b - 1)], Xf[_U(xGSB + b - 1)], mode)
            gf = sub2[_U(g)] + _plus(Xf[_U(xF + b - 1)], Xf[_U(xGF + b - 1)], mode)
        Xf[_U(xGSB + b)] = gsb
        Xf[_U(xGF + b)] = gf
        Xf[_U(xTOT + b)] = _plus(gsb, gf, mode)
    for a in range(1, M + 1):
        t = f_lo + a - 1  # index of the F-tree among fp's children
        f = idx1[_U(ptr1[fp] + t)]
        f_sub = sub1[_U(f)]
        f_del = del1[_U(f)]
        f_wide = wide1[_U(f)]
        del_f = not (tight_f and a == 1)
        span_f = int1[_U(f)] >= 0 and not (no_span_first and a == 1)
        # G-tight scans: row 0 is +inf past (0, 0), so in row 1 a span can only start at b0 = 1
        first_row = tight_g and a == 1
        f_base = sg_row[_U(f)] + sg_off[1 if f_wide > 1 else 0, gp] + g_lo - 1
        g_wide_base = sf_off[1, fp] + _rbase(t, span_limit) + f_lo - 1
        g_single_base = sf_off[0, fp] + t
        here = a * C  # cell (a, 0) within a plane
        up = here - C  # cell (a - 1, 0)
        Xf[_U(here)] = INF
        Xf[_U(xGSB + here)] = INF
        Xf[_U(xGF + here)] = INF
        f0 = INF
        if del_f:  # DelF after SB or DelF only (rule b)
            f0 = f_sub + _plus(Xf[_U(up)], Xf[_U(xF + up)], mode)
        Xf[_U(xF + here)] = f0
        Xf[_U(xTOT + here)] = f0
        sb_left = INF  # states of cell (a, b - 1), kept in registers along the row
        f_left = f0
        gsb_left = INF
        gf_left = INF
        tot_up = xTOT + up - 1  # Xf[tot_up + b0] is the total of cell (a - 1, b0 - 1)
        for b in range(1, N + 1):
            g = idx2[_U(g_first + b - 1)]
            f_here = INF
            # F-tight scans: column 0 is +inf past (0, 0): a span in column 1 starts at a0 = 1
            first_column = tight_f and b == 1
            gsb = INF
            gf = INF
            if del_f:
                f_here = f_sub + _plus(Xf[_U(up + b)], Xf[_U(xF + up + b)], mode)
            if not (tight_g and b == 1):
                g_sub = sub2[_U(g)]
                gsb = g_sub + _plus(sb_left, gsb_left, mode)
                gf = g_sub + _plus(f_left, gf_left, mode)
            diagonal = Xf[_U(tot_up + b)]
            best = diagonal + PU[t, g_lo + b - 1]  # (4) with (1)
            if span_f:  # (5): SpanF(f, G[b0..b])
                if f_wide > 1:
                    v = g_lo + b - 1
                    row = f_base + _rbase(v, span_limit)
                    b0 = max(1, b - f_wide + 1)
                    b_top = 1 if first_row else b
                    acc0 = INF
                    acc1 = INF
                    acc2 = INF
                    acc3 = INF
                    while b0 + 3 <= b_top:
                        acc0 = _plus(acc0, Xf[_U(tot_up + b0)] + SG[_U(row + b0)], mode)
                        acc1 = _plus(acc1, Xf[_U(tot_up + b0 + 1)] + SG[_U(row + b0 + 1)], mode)
                        acc2 = _plus(acc2, Xf[_U(tot_up + b0 + 2)] + SG[_U(row + b0 + 2)], mode)
                        acc3 = _plus(acc3, Xf[_U(tot_up + b0 + 3)] + SG[_U(row + b0 + 3)], mode)
                        b0 += 4
                    while b0 <= b_top:
                        acc0 = _plus(acc0, Xf[_U(tot_up + b0)] + SG[_U(row + b0)], mode)
                        b0 += 1
                    acc = _plus(_plus(acc0, acc1, mode), _plus(acc2, acc3, mode), mode)
                else:
                    acc = diagonal + SG[_U(f_base + b)]
                best = _plus(best, f_del + acc, mode)
            if int2[_U(g)] >= 0:  # (6): SpanG(g, F[a0..a])
                g_wide = wide2[_U(g)]
                if g_wide > 1:
                    row = sf_row[_U(g)] + g_wide_base
                    a0 = max(1, a - g_wide + 1)
                    acc0 = INF
                    acc1 = INF
                    a_top = 1 if first_column else a
                    # Xf[col + a0 * C] is the total of cell (a0 - 1, b - 1)
                    col = xTOT - C + b - 1
                    while a0 + 1 <= a_top:
                        acc0 = _plus(acc0, Xf[_U(col + a0 * C)] + SF[_U(row + a0)], mode)
                        acc1 = _plus(acc1, Xf[_U(col + (a0 + 1) * C)] + SF[_U(row + a0 + 1)], mode)
                        a0 += 2
                    if a0 == a_top:
                        acc0 = _plus(acc0, Xf[_U(col + a0 * C)] + SF[_U(row + a0)], mode)
                    acc = _plus(acc0, acc1, mode)
                else:
                    acc = diagonal + SF[_U(sf_row[_U(g)] + g_single_base)]
                best = _plus(best, del2[_U(g)] + acc, mode)
            cell = here + b
            Xf[_U(cell)] = best
            Xf[_U(xF + cell)] = f_here
            Xf[_U(xGSB + cell)] = gsb
            Xf[_U(xGF + cell)] = gf
            Xf[_U(xTOT + cell)] = _plus(_plus(best, f_here, mode), _plus(gsb, gf, mode), mode)
            sb_left = best
            f_left = f_here
            gsb_left = gsb
            gf_left = gf
    return M, N


@njit(cache=True, inline="always")
def _runtime_constants():
    # Constants passed as literals would compile one specialisation of _scan per distinct
    # literal argument tuple (nine before this); typed values compile one per caller.
    return np.int64(0), np.bool_(False), np.bool_(True)


@njit(cache=True)
def _gt_single_f(fp, gp, n, mode, c, PU):
    """SG of fp against gp when fp has one child f: the G-tight scans GT(w) in closed form.

    The F forest of each scan is the single tree f, so its row 0 is +inf past (0, 0) and
    row 1 is all: range [w..w] holds Pair(f, g_w), SpanF(f, G[w..w]) or SpanG(g_w, f); a
    longer tight range [w..v] only SpanF(f, G[w..v]) (DelF of f leaves the G-trees to DelG:
    not tight). The terms are ``_scan``'s, summed in its order: the same values.
    ``_ft_single_g`` is the mirror image. One function for both sides, choosing the arrays
    by a side argument, measured ~15% slower on the ~1,000-element pair (0.56 vs 0.46 s,
    median of 7 alternating runs): the selected arrays' reference counts.
    """
    ptr1, idx1, ptr2, idx2, int1, int2 = c[0], c[1], c[2], c[3], c[4], c[5]
    del1, del2, SG, SF, sg_row, sg_off, sf_row, sf_off = (
        c[14], c[15], c[19], c[20], c[21], c[22], c[23], c[24]
    )  # fmt: skip
    wide1, wide2 = c[31], c[32]
    f = idx1[ptr1[fp]]
    f_wide = 1 if wide1[f] > 1 else 0
    f_row = sg_row[f] + sg_off[f_wide, gp]
    wide = 1 if wide1[fp] > 1 else 0
    base = sg_row[fp] + sg_off[wide, gp]
    for w in range(n):
        g = idx2[ptr2[gp] + w]
        best = 0.0 + PU[0, w]
        if int1[f] >= 0:  # SpanF(f, G[w..w])
            best = _plus(best, del1[f] + (0.0 + SG[f_row + _rindex(w, w, c[25], f_wide)]), mode)
        if int2[g] >= 0:  # SpanG(g_w, F[0..0])
            span = SF[sf_row[g] + sf_off[1 if wide2[g] > 1 else 0, fp]]
            best = _plus(best, del2[g] + (0.0 + span), mode)
        SG[base + _rindex(w, w, c[25], wide)] = best
        for v in range(w + 1, min(n, w + wide1[fp])):
            value = INF
            if int1[f] >= 0 and f_wide and v - w < wide1[f]:  # SpanF(f, G[w..v])
                value = del1[f] + (0.0 + SG[f_row + _rindex(w, v, c[25], 1)])
            SG[base + _rindex(w, v, c[25], wide)] = value


@njit(cache=True)
def _ft_single_g(fp, gp, m, mode, c, PU):
    """SF of gp against fp when gp has one child g: the scans FT(w) and FT1(w) in closed form.

    Mirror of ``_gt_single_f``: [w..w] holds Pair(f_w, g) or SpanG(g, F[w..w]) (FT1 has no
    SpanF(f_w), rule c); a longer F-tight range [w..t] only SpanG(g, F[w..t]).
    """
    ptr2, idx2, int2, del2, SF, sf_row, sf_off, wide2 = (
        c[2], c[3], c[5], c[15], c[20], c[23], c[24], c[32]
    )  # fmt: skip
    g = idx2[ptr2[gp]]
    g_wide = 1 if wide2[g] > 1 else 0
    g_row = sf_row[g] + sf_off[g_wide, fp]
    wide = 1 if wide2[gp] > 1 else 0
    base = sf_row[gp] + sf_off[wide, fp]
    for w in range(m):
        best = 0.0 + PU[w, 0]
        if int2[g] >= 0:  # SpanG(g, F[w..w])
            best = _plus(best, del2[g] + (0.0 + SF[g_row + _rindex(w, w, c[25], g_wide)]), mode)
        SF[base + _rindex(w, w, c[25], wide)] = best
        for t in range(w + 1, min(m, w + wide2[gp])):
            value = INF
            if int2[g] >= 0 and g_wide and t - w < wide2[g]:  # SpanG(g, F[w..t])
                value = del2[g] + (0.0 + SF[g_row + _rindex(w, t, c[25], 1)])
            SF[base + _rindex(w, t, c[25], wide)] = value


@njit(cache=True)
def forward(order1, order2, mode, c, X, PU):
    """Fill AF, SG and SF for every internal node pair, children before parents."""
    limit = c[25]  # the span limit (max_span) of the range blocks
    ptr1, ptr2, int1, int2 = c[0], c[2], c[4], c[5]
    AF, SG, SF, sg_row, sg_off, sf_row, sf_off = c[18], c[19], c[20], c[21], c[22], c[23], c[24]
    wide1, wide2, banded = c[31], c[32], c[26] < INF
    zero, no, yes = _runtime_constants()
    viterbi = mode == VITERBI
    Xf = X.reshape(X.size)
    virtual1 = order1[-1]
    virtual2 = order2[-1]
    for fp in order1:
        if int1[fp] < 0:
            continue
        m = ptr1[fp + 1] - ptr1[fp]
        for gp in order2:
            if int2[gp] < 0:
                continue
            n = ptr2[gp + 1] - ptr2[gp]
            if banded and not _pairable(fp, gp, c):
                continue  # AF, SG and SF stay INF: nothing in these subtrees may pair
            if m == 1 and n == 1 and fp != virtual1 and gp != virtual2:
                # One child each (most pairs: chains such as li > a > span): the four scans'
                # single cells written out (same terms, same order, so the same values).
                f = c[1][c[0][fp]]
                g = c[3][c[2][gp]]
                unit = INF  # Pair(f, g), as _fill_pair_units
                if abs(c[27][f] - c[28][g]) <= c[26] and (c[6][f] != 0) == (c[7][g] != 0):
                    unit = c[10][c[8][f], c[9][g]]
                    if c[6][f] != 0:
                        unit += c[13][c[11][f], c[12][g]]
                if unit < INF:
                    if int1[f] >= 0 and int2[g] >= 0:
                        unit += AF[int1[f], int2[g]]
                    else:
                        unit += c[33][f] + c[34][g]
                best = 0.0 + unit
                span_g = INF  # SpanG(g, F[0..0])
                if int2[g] >= 0:
                    span_g = c[15][g] + (0.0 + SF[sf_row[g] + sf_off[1 if wide2[g] > 1 else 0, fp]])
                with_f = best
                if int1[f] >= 0:  # SpanF(f, G[0..0])
                    with_f = _plus(
                        best,
                        c[14][f] + (0.0 + SG[sg_row[f] + sg_off[1 if wide1[f] > 1 else 0, gp]]),
                        mode,
                    )
                sb = _plus(with_f, span_g, mode)
                # FULL: SB or DelF then DelG; GT: SB; FT1: SB without SpanF(f) (rule c)
                AF[int1[fp], int2[gp]] = _plus(sb, c[17][g] + (c[16][f] + 0.0), mode)
                SG[sg_row[fp] + sg_off[1 if wide1[fp] > 1 else 0, gp]] = sb
                SF[sf_row[gp] + sf_off[1 if wide2[gp] > 1 else 0, fp]] = _plus(best, span_g, mode)
                continue
            _fill_pair_units(fp, gp, c, PU)
            if (fp == virtual1) == (gp == virtual2):
                if viterbi:
                    _scan(VITERBI, fp, gp, zero, m, zero, n, no, no, no, c, X, PU, Xf)
                else:
                    _scan(INSIDE, fp, gp, zero, m, zero, n, no, no, no, c, X, PU, Xf)
                AF[int1[fp], int2[gp]] = X[ST_TOT, m, n]
            if fp != virtual1 and m == 1:
                _gt_single_f(fp, gp, n, mode, c, PU)
            elif fp != virtual1:
                wide = 1 if wide1[fp] > 1 else 0
                base = sg_row[fp] + sg_off[wide, gp]
                for w in range(n):
                    g_hi = min(n, w + wide1[fp])
                    if viterbi:
                        _scan(VITERBI, fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, Xf)
                    else:
                        _scan(INSIDE, fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, Xf)
                    for b in range(1, g_hi - w + 1):
                        SG[base + _rindex(w, w + b - 1, limit, wide)] = _plus(
                            X[ST_SB, m, b], X[ST_F, m, b], mode
                        )
            if gp != virtual2 and n == 1:
                _ft_single_g(fp, gp, m, mode, c, PU)
            elif gp != virtual2:
                wide = 1 if wide2[gp] > 1 else 0
                base = sf_row[gp] + sf_off[wide, fp]
                for w in range(m):
                    f_hi = min(m, w + wide2[gp])
                    if f_hi - w >= 2:  # ranges of two or more F-trees (one: FT1 below)
                        if viterbi:
                            _scan(VITERBI, fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, Xf)
                        else:
                            _scan(INSIDE, fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, Xf)
                    for a in range(2, f_hi - w + 1):
                        SF[base + _rindex(w, w + a - 1, limit, wide)] = _plus(
                            X[ST_SB, a, n], X[ST_GSB, a, n], mode
                        )
                    if viterbi:
                        _scan(VITERBI, fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, Xf)
                    else:
                        _scan(INSIDE, fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, Xf)
                    at = base + _rindex(w, w, limit, wide)
                    SF[at] = _plus(X[ST_SB, 1, n], X[ST_GSB, 1, n], mode)


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
    ptr1, idx1, ptr2, idx2, int1, int2, max_span = c[0], c[1], c[2], c[3], c[4], c[5], c[25]
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
        _fill_pair_units(fp, gp, c, PU)
        _scan(VITERBI, fp, gp, f_lo, f_hi, g_lo, g_hi, tf == 1, tg == 1, nsf == 1, c, X, PU, Xf)
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
                for b0 in range(max(1, b - c[31][f] + 1), b + 1):
                    term = X[ST_TOT, a - 1, b0 - 1] + _span_f_unit(
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
                for a0 in range(max(1, a - c[32][g] + 1), a + 1):
                    term = X[ST_TOT, a0 - 1, b - 1] + _span_g_unit(
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


@njit(cache=True)
def _backward_scan(
    fp, gp, f_lo, f_hi, g_lo, g_hi, tight_f, tight_g, no_span_first, c, X, PU, GX, grads
):
    """Reverse-mode pass of one inside scan: GX holds d logZ / d log X for the output cells."""
    ptr1, idx1, ptr2, idx2, int1, int2 = c[0], c[1], c[2], c[3], c[4], c[5]
    sub1, sub2, sg_row, sg_off, sf_row, sf_off = c[16], c[17], c[21], c[22], c[23], c[24]
    g_AF, g_SG, g_SF, g_pair, g_sub1, g_sub2, g_del1, g_del2 = grads
    M = f_hi - f_lo
    N = g_hi - g_lo
    for a in range(M, -1, -1):
        f = idx1[ptr1[fp] + f_lo + a - 1] if a > 0 else -1
        for b in range(N, -1, -1):
            g = idx2[ptr2[gp] + g_lo + b - 1] if b > 0 else -1
            # GX[4] holds the adjoint of the cell total; spread it over the four states
            tot = X[ST_TOT, a, b]
            if GX[4, a, b] != 0.0 and tot < INF:
                for s in range(4):
                    if X[s, a, b] < INF:
                        GX[s, a, b] += GX[4, a, b] * math.exp(tot - X[s, a, b])
            gs = GX[ST_F, a, b]
            if gs != 0.0 and X[ST_F, a, b] < INF:
                inner = X[ST_F, a, b] - sub1[f]
                g_sub1[f] += gs
                for s in (ST_SB, ST_F):
                    if X[s, a - 1, b] < INF:
                        GX[s, a - 1, b] += gs * math.exp(inner - X[s, a - 1, b])
            for s_here, s_a, s_b in ((ST_GSB, ST_SB, ST_GSB), (ST_GF, ST_F, ST_GF)):
                gs = GX[s_here, a, b]
                if gs != 0.0 and X[s_here, a, b] < INF:
                    inner = X[s_here, a, b] - sub2[g]
                    g_sub2[g] += gs
                    for s in (s_a, s_b):
                        if X[s, a, b - 1] < INF:
                            GX[s, a, b - 1] += gs * math.exp(inner - X[s, a, b - 1])
            gs = GX[ST_SB, a, b]
            if a == 0 or b == 0 or gs == 0.0 or X[ST_SB, a, b] == INF:
                continue
            cell = X[ST_SB, a, b]
            unit = PU[f_lo + a - 1, g_lo + b - 1]
            term = X[ST_TOT, a - 1, b - 1] + unit
            if term < INF:
                share = gs * math.exp(cell - term)
                GX[4, a - 1, b - 1] += share
                g_pair[f, g] += share
                if int1[f] >= 0 and int2[g] >= 0:
                    g_AF[int1[f], int2[g]] += share
                else:
                    for k in range(ptr1[f], ptr1[f + 1]):
                        g_sub1[idx1[k]] += share
                    for k in range(ptr2[g], ptr2[g + 1]):
                        g_sub2[idx2[k]] += share
            if not (no_span_first and a == 1) and int1[f] >= 0:
                for b0 in range(max(1, b - c[31][f] + 1), b + 1):
                    term = X[ST_TOT, a - 1, b0 - 1] + _span_f_unit(
                        f, gp, g_lo + b0 - 1, g_lo + b - 1, c
                    )
                    if term < INF:
                        share = gs * math.exp(cell - term)
                        GX[4, a - 1, b0 - 1] += share
                        g_del1[f] += share
                        g_SG[
                            sg_row[f]
                            + sg_off[1 if c[31][f] > 1 else 0, gp]
                            + _rindex(g_lo + b0 - 1, g_lo + b - 1, c[25], 1 if c[31][f] > 1 else 0)
                        ] += share
            if int2[g] >= 0:
                for a0 in range(max(1, a - c[32][g] + 1), a + 1):
                    term = X[ST_TOT, a0 - 1, b - 1] + _span_g_unit(
                        g, fp, f_lo + a0 - 1, f_lo + a - 1, c
                    )
                    if term < INF:
                        share = gs * math.exp(cell - term)
                        GX[4, a0 - 1, b - 1] += share
                        g_del2[g] += share
                        g_SF[
                            sf_row[g]
                            + sf_off[1 if c[32][g] > 1 else 0, fp]
                            + _rindex(f_lo + a0 - 1, f_lo + a - 1, c[25], 1 if c[32][g] > 1 else 0)
                        ] += share


@njit(cache=True)
def outside(order1, order2, c, X, PU, GX, grads):
    """Propagate d logZ / d log(value) from AF[V1, V2] down to every unit (outside pass)."""
    limit = c[25]  # the span limit (max_span) of the range blocks
    ptr1, ptr2, int1, int2 = c[0], c[2], c[4], c[5]
    SG, SF, sg_row, sg_off, sf_row, sf_off = c[19], c[20], c[21], c[22], c[23], c[24]
    g_AF, g_SG, g_SF = grads[0], grads[1], grads[2]
    zero, no, yes = _runtime_constants()
    Xf = X.reshape(X.size)
    virtual1 = order1[-1]
    virtual2 = order2[-1]
    g_AF[int1[virtual1], int2[virtual2]] = 1.0
    for i in range(order1.shape[0] - 1, -1, -1):
        fp = order1[i]
        if int1[fp] < 0:
            continue
        m = ptr1[fp + 1] - ptr1[fp]
        for j in range(order2.shape[0] - 1, -1, -1):
            gp = order2[j]
            if int2[gp] < 0:
                continue
            n = ptr2[gp + 1] - ptr2[gp]
            if not _pairable(fp, gp, c):
                continue
            _fill_pair_units(fp, gp, c, PU)
            if (fp == virtual1) == (gp == virtual2) and g_AF[int1[fp], int2[gp]] != 0.0:
                _scan(INSIDE, fp, gp, zero, m, zero, n, no, no, no, c, X, PU, Xf)
                GX[:, : m + 1, : n + 1] = 0.0
                GX[4, m, n] = g_AF[int1[fp], int2[gp]]
                _backward_scan(fp, gp, zero, m, zero, n, no, no, no, c, X, PU, GX, grads)
            if fp != virtual1:
                wide = 1 if c[31][fp] > 1 else 0
                base = sg_row[fp] + sg_off[wide, gp]
                for w in range(n):
                    g_hi = min(n, w + c[31][fp])
                    any_grad = False
                    for b in range(1, g_hi - w + 1):
                        at = base + _rindex(w, w + b - 1, limit, wide)
                        any_grad = any_grad or g_SG[at] != 0.0
                    if not any_grad:
                        continue
                    _scan(INSIDE, fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, Xf)
                    GX[:, : m + 1, : g_hi - w + 1] = 0.0
                    for b in range(1, g_hi - w + 1):
                        gv = g_SG[base + _rindex(w, w + b - 1, limit, wide)]
                        out = SG[base + _rindex(w, w + b - 1, limit, wide)]
                        if gv != 0.0 and out < INF:
                            for s in (ST_SB, ST_F):
                                if X[s, m, b] < INF:
                                    GX[s, m, b] += gv * math.exp(out - X[s, m, b])
                    _backward_scan(fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, GX, grads)
            if gp != virtual2:
                wide = 1 if c[32][gp] > 1 else 0
                base = sf_row[gp] + sf_off[wide, fp]
                for w in range(m):
                    f_hi = min(m, w + c[32][gp])
                    any_grad = False
                    for a in range(2, f_hi - w + 1):
                        at = base + _rindex(w, w + a - 1, limit, wide)
                        any_grad = any_grad or g_SF[at] != 0.0
                    if any_grad:
                        _scan(INSIDE, fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, Xf)
                        GX[:, : f_hi - w + 1, : n + 1] = 0.0
                        for a in range(2, f_hi - w + 1):
                            gv = g_SF[base + _rindex(w, w + a - 1, limit, wide)]
                            out = SF[base + _rindex(w, w + a - 1, limit, wide)]
                            if gv != 0.0 and out < INF:
                                for s in (ST_SB, ST_GSB):
                                    if X[s, a, n] < INF:
                                        GX[s, a, n] += gv * math.exp(out - X[s, a, n])
                        _backward_scan(fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, GX, grads)
                    gv = g_SF[base + _rindex(w, w, limit, wide)]
                    out = SF[base + _rindex(w, w, limit, wide)]
                    if gv != 0.0 and out < INF:
                        _scan(INSIDE, fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, Xf)
                        GX[:, :2, : n + 1] = 0.0
                        for s in (ST_SB, ST_GSB):
                            if X[s, 1, n] < INF:
                                GX[s, 1, n] += gv * math.exp(out - X[s, 1, n])
                        _backward_scan(fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, GX, grads)
