"""Compiled dynamic programs of the tree alignment (docs/methods.md §1): Viterbi, inside, outside.

``tables`` names the arrays the programs read and write; ``scan`` holds the semiring and the
scan of two sibling ranges; ``forward`` fills the tables (Viterbi or inside), ``backtrace``
reads the optimal node pairs back and ``outside`` the expected counts.

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
"""
