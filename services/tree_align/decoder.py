"""Exact tree alignment of two tag trees (docs/methods.md §1): Viterbi decoding and posteriors.

The dynamic programs themselves (canonical derivations, scans over sibling ranges) live in
the package ``dp`` and are compiled with numba; this module builds their flat inputs
(:class:`~services.tree_align.dp.tables.DecoderTables`) from two :class:`TagTree` objects
and a :class:`TreeModel`, bounds memory, and wraps the results.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from services.html.tag_tree import TagTree
from services.tree_align.dp import backtrace, forward, outside, scan
from services.tree_align.dp.tables import Adjoints, DecoderTables
from services.tree_align.model import TreeModel
from shared.errors import InputTooLarge, InvalidInput

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
# Tables of one alignment (AF, SG, SF and, for posteriors, their adjoints) may not exceed this.
DEFAULT_MAX_TABLE_BYTES = 1_500_000_000
# Work of one decoding pass the exact program may take, in scan cells plus NODE_PAIR_WORK per
# pair of internal nodes (:func:`decoding_work`): a pass within the task's time limit; a wider
# pair is decoded with deleted nodes' spans restricted to the widest sibling count that fits
# (``max_span``), and one too wide even for that raises InputTooLarge (the handler aligns flat
# text). Sizing measurements: benchmarks/results/tuning_history.md (decoder work bound).
DEFAULT_MAX_WORK = 4e8
NODE_PAIR_WORK = 25

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TreeAlignment:
    """The optimal alignment: node pairs (source id, target id) in document order, and its cost."""

    pairs: IntArray  # shape (k, 2)
    cost: float  # -log of the alignment's probability
    src_size: int
    tgt_size: int
    seconds: float
    pair_costs: FloatArray  # [k] = -log Pr(Nf, Ne) of pairs[k] (Pr_text * Pr_tag), as decoded
    max_span: int | None = None  # the span restriction decoded with (None: unrestricted)

    def deleted_src(self) -> IntArray:
        """Source nodes aligned to NULL."""
        keep = np.ones(self.src_size, dtype=bool)
        keep[self.pairs[:, 0]] = False
        return np.flatnonzero(keep)

    def deleted_tgt(self) -> IntArray:
        """Target nodes aligned to NULL."""
        keep = np.ones(self.tgt_size, dtype=bool)
        keep[self.pairs[:, 1]] = False
        return np.flatnonzero(keep)


@dataclass(frozen=True)
class Posteriors:
    """Inside-outside results: log P(Tf, Te) and expected counts of every event."""

    log_likelihood: float  # log of the inside probability of the two whole trees
    pair: FloatArray  # [x, y] = E[x ~ y] = alpha * beta / P(Tf, Te)
    deleted_src: FloatArray  # [x] = E[x ~ NULL]
    deleted_tgt: FloatArray  # [y] = E[NULL ~ y]


@dataclass
class _Side:
    """One tree with a virtual super-root appended, in the flat form the kernels read."""

    ptr: npt.NDArray[np.int32]
    idx: npt.NDArray[np.int32]
    order: npt.NDArray[np.int32]
    internal: npt.NDArray[np.int32]  # dense index among internal nodes, -1 for leaves
    kinds: npt.NDArray[np.int8]
    labels: npt.NDArray[np.int32]  # model label ids
    text_index: npt.NDArray[np.int32]  # index among text leaves, -1 for elements
    deletion: FloatArray  # -log Pr_del of the node
    subtree_deletion: FloatArray  # sum of deletion over the subtree
    below_deletion: FloatArray  # sum of deletion over the subtree without the node itself
    range_offset: npt.NDArray[np.int64]  # offset of the node's sibling-range block
    single_offset: npt.NDArray[np.int64]  # offset of its single-sibling ranges block
    position: FloatArray  # pre-order index / size (the virtual root spans [0, 1])
    end: FloatArray  # position of the last node of the subtree
    ranges: int  # total number of sibling ranges (of at most max_span) over internal nodes
    singles: int  # total number of single-sibling ranges (child links) over internal nodes
    size: int  # real nodes (without the virtual root)


def _side(
    tree: TagTree, label_ids: npt.NDArray[np.int32], log_del: FloatArray, max_span: int | None
) -> _Side:
    size = tree.size
    virtual = size
    ptr = np.append(tree.child_ptr, tree.child_ptr[-1] + 1).astype(np.int32)
    idx = np.append(tree.child_idx, 0).astype(np.int32)
    order = np.append(tree.postorder, virtual).astype(np.int32)
    degree = np.diff(ptr)
    is_internal = degree > 0
    internal = np.where(is_internal, np.cumsum(is_internal) - 1, -1).astype(np.int32)
    kinds = np.append(tree.kinds, 0).astype(np.int8)
    labels = np.append(label_ids[tree.labels], 0).astype(np.int32)
    is_text = kinds != 0
    text_index = np.where(is_text, np.cumsum(is_text) - 1, -1).astype(np.int32)
    deletion = np.append(-log_del[label_ids[tree.labels]], 0.0)
    subtree, below = _subtree_sums(deletion[:size], tree.subtree_end)
    ranges_per_node = np.where(is_internal, _span_ranges(degree.astype(np.int64), max_span), 0)
    range_offset = np.concatenate(([0], np.cumsum(ranges_per_node)[:-1])).astype(np.int64)
    single_per_node = np.where(is_internal, degree, 0).astype(np.int64)
    single_offset = np.concatenate(([0], np.cumsum(single_per_node)[:-1])).astype(np.int64)
    position = np.append(np.arange(size) / max(size - 1, 1), 0.0)
    end = np.append((tree.subtree_end - 1) / max(size - 1, 1), 1.0)
    return _Side(
        ptr, idx, order, internal, kinds, labels, text_index, deletion, np.append(subtree, 0.0),
        np.append(below, 0.0), range_offset, single_offset, position, end,
        int(ranges_per_node.sum()),
        int(single_per_node.sum()), size,
    )  # fmt: skip


def _span_ranges(degree: IntArray, max_span: int | None) -> IntArray:
    """Sibling ranges of at most ``max_span`` children per node (layout: ``dp.scan.rbase``)."""
    k = degree if max_span is None else np.minimum(degree, max_span)
    ranges: IntArray = k * (k + 1) // 2 + (degree - k) * k
    return ranges


def _subtree_sums(
    deletion: FloatArray, subtree_end: npt.NDArray[np.int32]
) -> tuple[FloatArray, FloatArray]:
    """Per node, deletion costs summed over its subtree, and over the subtree without it.

    The subtree of x is the pre-order range [x, subtree_end[x]), so a difference of prefix
    sums. A node that cannot be deleted (Pr_del 0, cost +inf) would make that inf - inf =
    NaN, and NaN costs break the decoder: infinite costs are counted apart instead, and a
    range holding one costs +inf. Finite sums are the same prefix-sum differences as before.
    """
    size = deletion.shape[0]
    infinite = np.isinf(deletion)
    finite = np.where(infinite, 0.0, deletion)
    prefix = np.concatenate(([0.0], np.cumsum(finite)))
    blocked = np.concatenate(([0], np.cumsum(infinite)))
    starts = np.arange(size)
    subtree = prefix[subtree_end] - prefix[starts]
    subtree[blocked[subtree_end] > blocked[starts]] = np.inf
    # the descendants alone: (subtree - own cost), as the kernels computed it inline, where
    # finite; counted over the range (x, subtree_end[x]) where the node's own cost is inf
    below = np.where(infinite, prefix[subtree_end] - prefix[starts + 1], subtree - finite)
    below[blocked[subtree_end] > blocked[starts + 1]] = np.inf
    return subtree, below


def _span_rows(
    owner: _Side, widest: npt.NDArray[np.int64], other: _Side
) -> tuple[npt.NDArray[np.int64], int]:
    """Row offsets of each internal node's span table (SG or SF) and the table's size.

    A node whose spans cover one sibling needs one entry per child of each other-side node;
    any other node one per sibling range.
    """
    lengths = np.where(owner.internal >= 0, np.where(widest > 1, other.ranges, other.singles), 0)
    rows = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    return rows, int(lengths.sum())


def _span_cells(degrees: IntArray, max_span: int | None) -> tuple[float, float]:
    """Sum of the degrees >= 2 and of their span-scan widths sum_{w=1..d} min(w, max_span)
    (the count of sibling ranges of at most ``max_span`` children, :func:`_span_ranges`)."""
    d = degrees[degrees >= 2]
    return float(d.sum()), float(_span_ranges(d, max_span).sum())


def decoding_work(src: TagTree, tgt: TagTree, max_span: int | None = None) -> float:
    """Cells the scans of one decoding pass fill, plus NODE_PAIR_WORK per internal node pair.

    For node pairs (P, Q) with d1, d2 >= 2 children the span scans GT(w) fill d1 rows of
    min(d2 - w + 1, max_span) cells for w = 1..d2, and FT(w) the transpose; pairs with a
    one-child side are closed forms. Summed over all pairs this factorises into per-tree sums.
    An estimate of the time, not an exact count: the full-forest and FT1 scans (d1 d2 cells a
    pair), the closed forms and the span sums inside a cell are left out (the scans' cells
    are most of the time; on list pages the cells filled were slightly more than this count:
    benchmarks/results/tuning_history.md, services/tree_align/decoder.py).
    """
    degrees1, _ = _tree_shape(src)  # + the virtual root (counted as a pair)
    degrees2, _ = _tree_shape(tgt)
    d1, s1 = _span_cells(degrees1, max_span)
    d2, s2 = _span_cells(degrees2, max_span)
    pairs = float((degrees1 > 0).sum()) * float((degrees2 > 0).sum())
    return d1 * s2 + s1 * d2 + NODE_PAIR_WORK * pairs


def table_bytes(
    src: TagTree, tgt: TagTree, max_span: int | None = None, *, with_adjoints: bool = False
) -> float:
    """Bytes of the tables one alignment allocates (AF, SG, SF; posteriors: their adjoints).

    AF holds internal node pairs; SG one block per (deleted source node, internal target
    node): the target node's sibling ranges of at most ``max_span`` children, or its single
    children when the source node's subtree is a chain (:func:`_widest_spans`); SF the mirror.
    """
    degree1, chain1 = _tree_shape(src)
    degree2, chain2 = _tree_shape(tgt)
    internal1, internal2 = degree1 > 0, degree2 > 0
    ranges1 = float(_span_ranges(degree1[internal1], max_span).sum())
    ranges2 = float(_span_ranges(degree2[internal2], max_span).sum())
    singles1, singles2 = float(degree1.sum()), float(degree2.sum())
    wide1, wide2 = float((internal1 & ~chain1).sum()), float((internal2 & ~chain2).sum())
    narrow1, narrow2 = float(chain1.sum()), float(chain2.sum())
    cells = float(internal1.sum()) * float(internal2.sum())
    cells += wide1 * ranges2 + narrow1 * singles2 + wide2 * ranges1 + narrow2 * singles1
    if with_adjoints:
        cells = 2 * cells + (src.size + 1) * (tgt.size + 1)
    return 8 * cells


def affordable_span(
    src: TagTree,
    tgt: TagTree,
    max_work: float,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
    *,
    with_adjoints: bool = False,
) -> int | None:
    """None when exact decoding fits ``max_work`` and ``max_table_bytes``, else the widest
    span restriction that does (work and tables both grow with the span).

    Raises :class:`InputTooLarge` when even spans of one sibling exceed either.
    """

    def over(span: int | None) -> str | None:
        work = decoding_work(src, tgt, span)
        if work > max_work:
            return f"{work:.2g} units of work (limit {max_work:.2g})"
        memory = table_bytes(src, tgt, span, with_adjoints=with_adjoints)
        if memory > max_table_bytes:
            return f"{memory / 1e9:.2g} GB of tables (limit {max_table_bytes / 1e9:.2g} GB)"
        return None

    exact = over(None)
    if exact is None:
        return None
    narrowest = over(1)
    if narrowest is not None:
        raise InputTooLarge(
            f"tree alignment of {src.size:,} x {tgt.size:,} nodes needs {narrowest} even with "
            "spans of one sibling"
        )
    low, high = 1, int(max(np.diff(src.child_ptr).max(), np.diff(tgt.child_ptr).max()))
    while low < high:  # the largest span within both limits
        middle = (low + high + 1) // 2
        if over(middle) is None:
            low = middle
        else:
            high = middle - 1
    log.warning(
        "tree alignment of %d x %d nodes: exact decoding needs %s; deleted nodes' spans "
        "restricted to %d siblings",
        src.size, tgt.size, exact, low,
    )  # fmt: skip
    return low


def _context(
    src_tree: TagTree,
    tgt_tree: TagTree,
    model: TreeModel,
    *,
    with_adjoints: bool,
    max_table_bytes: int,
    max_span: int | None,
    band: float | None,
) -> tuple[DecoderTables, _Side, _Side]:
    needed = table_bytes(src_tree, tgt_tree, max_span, with_adjoints=with_adjoints)
    if needed > max_table_bytes:
        raise InputTooLarge(
            f"tree alignment of {src_tree.size:,} x {tgt_tree.size:,} nodes needs "
            f"{needed / 1e9:.1f} GB of tables (limit {max_table_bytes / 1e9:.1f} GB)"
        )
    src = _side(src_tree, model.label_ids(src_tree.label_names), model.log_del_src, max_span)
    tgt = _side(tgt_tree, model.label_ids(tgt_tree.label_names), model.log_del_tgt, max_span)
    widest1 = _widest_spans(src_tree, max_span)
    widest2 = _widest_spans(tgt_tree, max_span)
    sg_row, sg_size = _span_rows(src, widest1, tgt)
    sf_row, sf_size = _span_rows(tgt, widest2, src)
    n_int1 = int((src.internal >= 0).sum())
    n_int2 = int((tgt.internal >= 0).sum())
    src_texts = [" ".join(src_tree.texts[i].split()) for i in src_tree.text_leaves()]
    tgt_texts = [" ".join(tgt_tree.texts[i].split()) for i in tgt_tree.text_leaves()]
    text_cost = np.ascontiguousarray(
        model.text_model.pair_costs(src_texts, tgt_texts), dtype=np.float64
    )
    if text_cost.size == 0:
        text_cost = np.zeros((1, 1))
    context = DecoderTables(
        ptr1=src.ptr, idx1=src.idx, ptr2=tgt.ptr, idx2=tgt.idx,
        int1=src.internal, int2=tgt.internal, kind1=src.kinds, kind2=tgt.kinds,
        lab1=src.labels, lab2=tgt.labels, tag_cost=np.ascontiguousarray(model.pair_cost_matrix()),
        tix1=src.text_index, tix2=tgt.text_index, text_cost=text_cost,
        del1=src.deletion, del2=tgt.deletion,
        sub1=src.subtree_deletion, sub2=tgt.subtree_deletion,
        af=np.full((max(n_int1, 1), max(n_int2, 1)), np.inf),
        sg=np.full(max(sg_size, 1), np.inf), sf=np.full(max(sf_size, 1), np.inf),
        sg_row=sg_row, sg_off=np.stack([tgt.single_offset, tgt.range_offset]),
        sf_row=sf_row, sf_off=np.stack([src.single_offset, src.range_offset]),
        span_limit=max_span or (1 << 30), band=math.inf if band is None else band,
        pos1=src.position, pos2=tgt.position, end1=src.end, end2=tgt.end,
        wide1=widest1, wide2=widest2, below1=src.below_deletion, below2=tgt.below_deletion,
    )  # fmt: skip
    return context, src, tgt


def _tree_shape(tree: TagTree) -> tuple[IntArray, npt.NDArray[np.bool_]]:
    """Child counts of the nodes and the virtual root (last), and which are chain roots.

    A chain root is an internal node whose subtree holds one leaf (every node below has at
    most one child, e.g. ``div > p > #text`` or ``li > a > span > #text``).
    """
    degree = np.append(np.diff(tree.child_ptr), 1).astype(np.int64)
    is_leaf = (degree[: tree.size] == 0).astype(np.int64)
    prefix = np.concatenate(([0], np.cumsum(is_leaf)))
    leaves = np.append(prefix[tree.subtree_end] - prefix[: tree.size], prefix[-1])
    return degree, (degree > 0) & (leaves == 1)


def _widest_spans(tree: TagTree, max_span: int | None) -> npt.NDArray[np.int64]:
    """How many siblings of the other tree a deleted node's children may cover, per node.

    A tight span starts and ends with matched content. Below a chain root
    (:func:`_tree_shape`) all nodes its children can match are ancestors of one another, so
    their partners lie on one root-to-leaf path, inside one sibling of the other tree: the
    span covers one sibling. Others: ``max_span``.
    """
    limit = max_span or (1 << 30)
    _, chain = _tree_shape(tree)
    return np.where(chain, 1, limit).astype(np.int64)


def _scan_buffer(src: _Side, tgt: _Side, planes: int) -> tuple[FloatArray, FloatArray]:
    """Cells of one scan and the pair-unit costs of one node pair's children."""
    max_deg1 = int(np.diff(src.ptr).max())
    max_deg2 = int(np.diff(tgt.ptr).max())
    return np.empty((planes, max_deg1 + 1, max_deg2 + 1)), np.empty((max_deg1, max_deg2))


def align_trees(
    src: TagTree,
    tgt: TagTree,
    model: TreeModel,
    *,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
    max_span: int | None = None,
    band: float | None = None,
    max_work: float | None = DEFAULT_MAX_WORK,
) -> TreeAlignment:
    """The most probable alignment of two tag trees (exact Viterbi over configurations 1-6).

    ``max_span`` (pruning, off by default): a deleted node's children may cover at most this
    many siblings of the other tree. ``band`` (pruning, off by default): nodes pair only if
    their relative document positions (pre-order index / tree size) differ by at most
    ``band``; node pairs of subtrees that cannot meet are skipped. Both are exact decoding of
    a restricted model; their loss against the unrestricted decoder is benchmarked.
    ``max_work`` (None: no limit, exact): with ``max_span`` None, a pair whose exact decoding
    needs more work (:func:`decoding_work`) or more than ``max_table_bytes`` of tables
    (:func:`table_bytes`) gets the widest ``max_span`` that fits both (logged, recorded in the
    result), and one that no span fits raises InputTooLarge.
    """
    started = time.perf_counter()
    _check_span(max_span)
    if max_span is None and max_work is not None:
        max_span = affordable_span(src, tgt, max_work, max_table_bytes)
    context, side1, side2 = _context(
        src,
        tgt,
        model,
        with_adjoints=False,
        max_table_bytes=max_table_bytes,
        max_span=max_span,
        band=band,
    )
    cells, units = _scan_buffer(side1, side2, 5)
    forward.forward(side1.order, side2.order, scan.VITERBI, context, cells, units)
    cost = float(context.af[side1.internal[side1.size], side2.internal[side2.size]])
    _require_possible(cost)
    pairs = np.empty((side1.size + side2.size + 2, 2), dtype=np.int64)
    count = backtrace.viterbi_pairs(side1.size, side2.size, context, cells, units, pairs)
    found = pairs[:count]
    found = found[np.argsort(found[:, 0], kind="stable")]
    tag_cost, text_cost = context.tag_cost, context.text_cost
    text1, text2 = side1.text_index[found[:, 0]], side2.text_index[found[:, 1]]
    pair_costs = tag_cost[side1.labels[found[:, 0]], side2.labels[found[:, 1]]] + np.where(
        text1 >= 0, text_cost[np.maximum(text1, 0), np.maximum(text2, 0)], 0.0
    )
    seconds = time.perf_counter() - started
    return TreeAlignment(found, cost, side1.size, side2.size, seconds, pair_costs, max_span)


def posteriors(
    src: TagTree,
    tgt: TagTree,
    model: TreeModel,
    *,
    max_table_bytes: int = DEFAULT_MAX_TABLE_BYTES,
    max_span: int | None = None,
    band: float | None = None,
    max_work: float | None = DEFAULT_MAX_WORK,
) -> Posteriors:
    """Inside and outside probabilities: log P(Tf, Te) and the expected count of every event.

    ``max_span``, ``band`` and ``max_work`` as in :func:`align_trees`."""
    _check_span(max_span)
    if max_span is None and max_work is not None:
        max_span = affordable_span(src, tgt, max_work, max_table_bytes, with_adjoints=True)
    context, side1, side2 = _context(
        src,
        tgt,
        model,
        with_adjoints=True,
        max_table_bytes=max_table_bytes,
        max_span=max_span,
        band=band,
    )
    cells, units = _scan_buffer(side1, side2, 5)
    forward.forward(side1.order, side2.order, scan.INSIDE, context, cells, units)
    log_z = -float(context.af[side1.internal[side1.size], side2.internal[side2.size]])
    _require_possible(-log_z)
    n1, n2 = side1.size + 1, side2.size + 1
    grads = Adjoints(
        af=np.zeros_like(context.af), sg=np.zeros_like(context.sg), sf=np.zeros_like(context.sf),
        pair=np.zeros((n1, n2)), sub1=np.zeros(n1), sub2=np.zeros(n2),
        del1=np.zeros(n1), del2=np.zeros(n2),
    )  # fmt: skip
    adjoint = np.zeros_like(cells)
    outside.outside(side1.order, side2.order, context, cells, units, adjoint, grads)
    return Posteriors(
        log_likelihood=log_z,
        pair=grads.pair[: side1.size, : side2.size],
        deleted_src=grads.del1[: side1.size] + _down_sum(src, grads.sub1[: side1.size]),
        deleted_tgt=grads.del2[: side2.size] + _down_sum(tgt, grads.sub2[: side2.size]),
    )


def _check_span(max_span: int | None) -> None:
    if max_span is not None and max_span < 1:
        raise ValueError(f"max_span must be None or at least 1, not {max_span}")


def _require_possible(cost: float) -> None:
    """Refuse a whole-tree cost of +inf (or NaN): no alignment, nothing to trace back."""
    if not math.isfinite(cost):
        raise InvalidInput(
            "the tree model gives every alignment of these trees probability 0 (a node that "
            "may be neither deleted nor paired: a tag or deletion probability of 0)"
        )


def _down_sum(tree: TagTree, subtree_counts: FloatArray) -> FloatArray:
    """Node x is deleted once for every used whole-subtree deletion of an ancestor-or-self."""
    total = subtree_counts.copy()
    for node in range(1, tree.size):  # pre-order: parents first
        total[node] += total[tree.parent[node]]
    return total
