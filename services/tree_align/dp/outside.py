"""The outside pass: d log Z / d log(value) from AF[V1, V2] down to every unit, by reverse
mode through each inside scan (the expected counts of every event)."""

# mypy: disable-error-code="no-untyped-def,untyped-decorator,misc"
from __future__ import annotations

import math

from numba import njit

from services.tree_align.dp.scan import (
    INF,
    INSIDE,
    ST_F,
    ST_GF,
    ST_GSB,
    ST_SB,
    ST_TOT,
    fill_pair_units,
    pairable,
    rindex,
    runtime_constants,
    scan,
    span_f_unit,
    span_g_unit,
)


@njit(cache=True)
def _backward_scan(
    fp, gp, f_lo, f_hi, g_lo, g_hi, tight_f, tight_g, no_span_first, c, X, PU, GX, grads
):
    """Reverse-mode pass of one inside scan: GX holds d logZ / d log X for the output cells."""
    ptr1, idx1, ptr2, idx2, int1, int2 = c.ptr1, c.idx1, c.ptr2, c.idx2, c.int1, c.int2
    sub1, sub2, sg_row, sg_off = c.sub1, c.sub2, c.sg_row, c.sg_off
    sf_row, sf_off = c.sf_row, c.sf_off
    g_AF, g_pair, g_sub1, g_sub2 = grads.af, grads.pair, grads.sub1, grads.sub2
    g_SG, g_SF, g_del1, g_del2 = grads.sg, grads.sf, grads.del1, grads.del2
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
                for b0 in range(max(1, b - c.wide1[f] + 1), b + 1):
                    term = X[ST_TOT, a - 1, b0 - 1] + span_f_unit(
                        f, gp, g_lo + b0 - 1, g_lo + b - 1, c
                    )
                    if term < INF:
                        share = gs * math.exp(cell - term)
                        GX[4, a - 1, b0 - 1] += share
                        g_del1[f] += share
                        g_SG[
                            sg_row[f]
                            + sg_off[1 if c.wide1[f] > 1 else 0, gp]
                            + rindex(
                                g_lo + b0 - 1,
                                g_lo + b - 1,
                                c.span_limit,
                                1 if c.wide1[f] > 1 else 0,
                            )
                        ] += share
            if int2[g] >= 0:
                for a0 in range(max(1, a - c.wide2[g] + 1), a + 1):
                    term = X[ST_TOT, a0 - 1, b - 1] + span_g_unit(
                        g, fp, f_lo + a0 - 1, f_lo + a - 1, c
                    )
                    if term < INF:
                        share = gs * math.exp(cell - term)
                        GX[4, a0 - 1, b - 1] += share
                        g_del2[g] += share
                        g_SF[
                            sf_row[g]
                            + sf_off[1 if c.wide2[g] > 1 else 0, fp]
                            + rindex(
                                f_lo + a0 - 1,
                                f_lo + a - 1,
                                c.span_limit,
                                1 if c.wide2[g] > 1 else 0,
                            )
                        ] += share


@njit(cache=True)
def outside(order1, order2, c, X, PU, GX, grads):
    """Propagate d logZ / d log(value) from AF[V1, V2] down to every unit (outside pass)."""
    limit = c.span_limit  # the span limit (max_span) of the range blocks
    ptr1, ptr2, int1, int2 = c.ptr1, c.ptr2, c.int1, c.int2
    SG, SF, sg_row, sg_off, sf_row, sf_off = c.sg, c.sf, c.sg_row, c.sg_off, c.sf_row, c.sf_off
    g_AF, g_SG, g_SF = grads.af, grads.sg, grads.sf
    zero, no, yes = runtime_constants()
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
            if not pairable(fp, gp, c):
                continue
            fill_pair_units(fp, gp, c, PU)
            if (fp == virtual1) == (gp == virtual2) and g_AF[int1[fp], int2[gp]] != 0.0:
                scan(INSIDE, fp, gp, zero, m, zero, n, no, no, no, c, X, PU, Xf)
                GX[:, : m + 1, : n + 1] = 0.0
                GX[4, m, n] = g_AF[int1[fp], int2[gp]]
                _backward_scan(fp, gp, zero, m, zero, n, no, no, no, c, X, PU, GX, grads)
            if fp != virtual1:
                wide = 1 if c.wide1[fp] > 1 else 0
                base = sg_row[fp] + sg_off[wide, gp]
                for w in range(n):
                    g_hi = min(n, w + c.wide1[fp])
                    any_grad = False
                    for b in range(1, g_hi - w + 1):
                        at = base + rindex(w, w + b - 1, limit, wide)
                        any_grad = any_grad or g_SG[at] != 0.0
                    if not any_grad:
                        continue
                    scan(INSIDE, fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, Xf)
                    GX[:, : m + 1, : g_hi - w + 1] = 0.0
                    for b in range(1, g_hi - w + 1):
                        gv = g_SG[base + rindex(w, w + b - 1, limit, wide)]
                        out = SG[base + rindex(w, w + b - 1, limit, wide)]
                        if gv != 0.0 and out < INF:
                            for s in (ST_SB, ST_F):
                                if X[s, m, b] < INF:
                                    GX[s, m, b] += gv * math.exp(out - X[s, m, b])
                    _backward_scan(fp, gp, zero, m, w, g_hi, no, yes, no, c, X, PU, GX, grads)
            if gp != virtual2:
                wide = 1 if c.wide2[gp] > 1 else 0
                base = sf_row[gp] + sf_off[wide, fp]
                for w in range(m):
                    f_hi = min(m, w + c.wide2[gp])
                    any_grad = False
                    for a in range(2, f_hi - w + 1):
                        at = base + rindex(w, w + a - 1, limit, wide)
                        any_grad = any_grad or g_SF[at] != 0.0
                    if any_grad:
                        scan(INSIDE, fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, Xf)
                        GX[:, : f_hi - w + 1, : n + 1] = 0.0
                        for a in range(2, f_hi - w + 1):
                            gv = g_SF[base + rindex(w, w + a - 1, limit, wide)]
                            out = SF[base + rindex(w, w + a - 1, limit, wide)]
                            if gv != 0.0 and out < INF:
                                for s in (ST_SB, ST_GSB):
                                    if X[s, a, n] < INF:
                                        GX[s, a, n] += gv * math.exp(out - X[s, a, n])
                        _backward_scan(fp, gp, w, f_hi, zero, n, yes, no, no, c, X, PU, GX, grads)
                    gv = g_SF[base + rindex(w, w, limit, wide)]
                    out = SF[base + rindex(w, w, limit, wide)]
                    if gv != 0.0 and out < INF:
                        scan(INSIDE, fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, Xf)
                        GX[:, :2, : n + 1] = 0.0
                        for s in (ST_SB, ST_GSB):
                            if X[s, 1, n] < INF:
                                GX[s, 1, n] += gv * math.exp(out - X[s, 1, n])
                        _backward_scan(fp, gp, w, w + 1, zero, n, yes, no, yes, c, X, PU, GX, grads)
