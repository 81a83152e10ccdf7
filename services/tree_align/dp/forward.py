"""The forward pass: AF, SG and SF of every internal node pair, children before parents
(Viterbi: min; inside: -logaddexp), with closed forms for one-child node pairs."""

# mypy: disable-error-code="no-untyped-def,untyped-decorator,misc"
from __future__ import annotations

from numba import njit

from services.tree_align.dp.scan import (
    INF,
    INSIDE,
    ST_F,
    ST_GSB,
    ST_SB,
    ST_TOT,
    VITERBI,
    fill_pair_units,
    pairable,
    plus,
    rindex,
    runtime_constants,
    scan,
)


@njit(cache=True)
def _gt_single_f(fp, gp, n, mode, c, PU):
    """SG of fp against gp when fp has one child f: the G-tight scans GT(w) in closed form.

    The F forest of each scan is the single tree f, so its row 0 is +inf past (0, 0) and
    row 1 is all: range [w..w] holds Pair(f, g_w), SpanF(f, G[w..w]) or SpanG(g_w, f); a
    longer tight range [w..v] only SpanF(f, G[w..v]) (DelF of f leaves the G-trees to DelG:
    not tight). The terms are ``scan``'s, summed in its order: the same values.
    ``_ft_single_g`` is the mirror image. One function for both sides, choosing the arrays
    by a side argument, was slower (the selected arrays' reference counts; figures in
    benchmarks/results/tuning_history.md).
    """
    ptr1, idx1, ptr2, idx2, int1, int2 = c.ptr1, c.idx1, c.ptr2, c.idx2, c.int1, c.int2
    del1, del2, SG, SF, sg_row, sg_off, sf_row, sf_off = (
        c.del1, c.del2, c.sg, c.sf, c.sg_row, c.sg_off, c.sf_row, c.sf_off
    )  # fmt: skip
    wide1, wide2 = c.wide1, c.wide2
    f = idx1[ptr1[fp]]
    f_wide = 1 if wide1[f] > 1 else 0
    f_row = sg_row[f] + sg_off[f_wide, gp]
    wide = 1 if wide1[fp] > 1 else 0
    base = sg_row[fp] + sg_off[wide, gp]
    for w in range(n):
        g = idx2[ptr2[gp] + w]
        best = 0.0 + PU[0, w]
        if int1[f] >= 0:  # SpanF(f, G[w..w])
            best = plus(
                best, del1[f] + (0.0 + SG[f_row + rindex(w, w, c.span_limit, f_wide)]), mode
            )
        if int2[g] >= 0:  # SpanG(g_w, F[0..0])
            span = SF[sf_row[g] + sf_off[1 if wide2[g] > 1 else 0, fp]]
            best = plus(best, del2[g] + (0.0 + span), mode)
        SG[base + rindex(w, w, c.span_limit, wide)] = best
        for v in range(w + 1, min(n, w + wide1[fp])):
            value = INF
            if int1[f] >= 0 and f_wide and v - w < wide1[f]:  # SpanF(f, G[w..v])
                value = del1[f] + (0.0 + SG[f_row + rindex(w, v, c.span_limit, 1)])
            SG[base + rindex(w, v, c.span_limit, wide)] = value


@njit(cache=True)
def _ft_single_g(fp, gp, m, mode, c, PU):
    """SF of gp against fp when gp has one child g: the scans FT(w) and FT1(w) in closed form.

    Mirror of ``_gt_single_f``: [w..w] holds Pair(f_w, g) or SpanG(g, F[w..w]) (FT1 has no
    SpanF(f_w), rule c); a longer F-tight range [w..t] only SpanG(g, F[w..t]).
    """
    ptr2, idx2, int2, del2, SF, sf_row, sf_off, wide2 = (
        c.ptr2, c.idx2, c.int2, c.del2, c.sf, c.sf_row, c.sf_off, c.wide2
    )  # fmt: skip
    g = idx2[ptr2[gp]]
    g_wide = 1 if wide2[g] > 1 else 0
    g_row = sf_row[g] + sf_off[g_wide, fp]
    wide = 1 if wide2[gp] > 1 else 0
    base = sf_row[gp] + sf_off[wide, fp]
    for w in range(m):
        best = 0.0 + PU[w, 0]
        if int2[g] >= 0:  # SpanG(g, F[w..w])
            best = plus(
                best, del2[g] + (0.0 + SF[g_row + rindex(w, w, c.span_limit, g_wide)]), mode
            )
        SF[base + rindex(w, w, c.span_limit, wide)] = best
        for t in range(w + 1, min(m, w + wide2[gp])):
            value = INF
            if int2[g] >= 0 and g_wide and t - w < wide2[g]:  # SpanG(g, F[w..t])
                value = del2[g] + (0.0 + SF[g_row + rindex(w, t, c.span_limit, 1)])
            SF[base + rindex(w, t, c.span_limit, wide)] = value


@njit(cache=True)
def forward(order1, order2, mode, c, X, PU):
    """Fill AF, SG and SF for every internal node pair, children before parents."""
    limit = c.span_limit  # the span limit (max_span) of the range blocks
    ptr1, ptr2, int1, int2 = c.ptr1, c.ptr2, c.int1, c.int2
    AF, SG, SF = c.af, c.sg, c.sf
    sg_row, sg_off, sf_row, sf_off = c.sg_row, c.sg_off, c.sf_row, c.sf_off
    wide1, wide2, banded = c.wide1, c.wide2, c.band < INF
    zero, no, yes = runtime_constants()
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
            if banded and not pairable(fp, gp, c):
                continue  # AF, SG and SF stay INF: nothing in these subtrees may pair
            if m == 1 and n == 1 and fp != virtual1 and gp != virtual2:
                # One child each (most pairs: chains such as li > a > span): the four scans'
                # single cells written out (same terms, same order, so the same values).
                f = c.idx1[c.ptr1[fp]]
                g = c.idx2[c.ptr2[gp]]
                unit = INF  # Pair(f, g), as fill_pair_units
                if abs(c.pos1[f] - c.pos2[g]) <= c.band and (c.kind1[f] != 0) == (c.kind2[g] != 0):
                    unit = c.tag_cost[c.lab1[f], c.lab2[g]]
                    if c.kind1[f] != 0:
                        unit += c.text_cost[c.tix1[f], c.tix2[g]]
                if unit < INF:
                    if int1[f] >= 0 and int2[g] >= 0:
                        unit += AF[int1[f], int2[g]]
                    else:
                        unit += c.below1[f] + c.below2[g]
                best = 0.0 + unit
                span_g = INF  # SpanG(g, F[0..0])
                if int2[g] >= 0:
                    span_g = c.del2[g] + (
                        0.0 + SF[sf_row[g] + sf_off[1 if wide2[g] > 1 else 0, fp]]
                    )
                with_f = best
                if int1[f] >= 0:  # SpanF(f, G[0..0])
                    with_f = plus(
                        best,
                        c.del1[f] + (0.0 + SG[sg_row[f] + sg_off[1 if wide1[f] > 1 else 0, gp]]),
                        mode,
                    )
                sb = plus(with_f, span_g, mode)
                # FULL: SB or DelF then DelG; GT: SB; FT1: SB without SpanF(f) (rule c)
                AF[int1[fp], int2[gp]] = plus(sb, c.sub2[g] + (c.sub1[f] + 0.0), mode)
                SG[sg_row[fp] + sg_off[1 if wide1[fp] > 1 else 0, gp]] = sb
                SF[sf_row[gp] + sf_off[1 if wide2[gp] > 1 else 0, fp]] = plus(best, span_g, mode)
                continue
            fill_pair_units(fp, gp, c, PU)
            if (fp == virtual1) == (gp == virtual2):
                if viterbi:
                    scan(VITERBI, fp, gp, zero, m, zero, n, no, no, no, c, X, PU, Xf)
                else:
                    scan(INSIDE, fp, gp, zero, m, zero, n, no, no, no, c, X, PU, Xf)
                AF[int1[fp], int2[gp]] = X[ST_TOT, m, n]
            if fp != virtual1 and m == 1:
                _gt_single_f(fp, gp, n, mode, c, PU)
            elif fp != virtual1:
                wide = 1 if wide1[fp] > 1 else 0
                base = sg_row[fp] + sg_off[wide, gp]
                for w in range(n):
                    g_hi = min(n, w + wide1[fp])
                    if viterbi:
                        scan(VITERBI, fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, Xf)
                    else:
                        scan(INSIDE, fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, Xf)
                    for b in range(1, g_hi - w + 1):
                        SG[base + rindex(w, w + b - 1, limit, wide)] = plus(
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
                            scan(VITERBI, fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, Xf)
                        else:
                            scan(INSIDE, fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, Xf)
                    for a in range(2, f_hi - w + 1):
                        SF[base + rindex(w, w + a - 1, limit, wide)] = plus(
                            X[ST_SB, a, n], X[ST_GSB, a, n], mode
                        )
                    if viterbi:
                        scan(VITERBI, fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, Xf)
                    else:
                        scan(INSIDE, fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, Xf)
                    at = base + rindex(w, w, limit, wide)
                    SF[at] = plus(X[ST_SB, 1, n], X[ST_GSB, 1, n], mode)
