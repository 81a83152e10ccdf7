"""The arrays the compiled programs read and write, by name (typed named tuples: numba passes
them to nopython code as one struct, and ``c.af`` compiles to the same access as ``c[18]``).

Side 1 is the source tree, side 2 the target tree; both carry a virtual super-root as their
last node. Nodes are pre-order ids; internal nodes also have a dense index (``int1``/``int2``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Int8Array = npt.NDArray[np.int8]
Int32Array = npt.NDArray[np.int32]
Int64Array = npt.NDArray[np.int64]


class DecoderTables(NamedTuple):
    """The two trees in flat form, the model's costs, and the tables the forward pass fills."""

    ptr1: Int32Array  # children of node x: idx1[ptr1[x]:ptr1[x + 1]]
    idx1: Int32Array
    ptr2: Int32Array
    idx2: Int32Array
    int1: Int32Array  # dense index among internal nodes, -1 for leaves
    int2: Int32Array
    kind1: Int8Array  # 0 element, else a text leaf
    kind2: Int8Array
    lab1: Int32Array  # model label ids
    lab2: Int32Array
    tag_cost: FloatArray  # [label1, label2] = -log Pr_tag
    tix1: Int32Array  # index among text leaves, -1 for elements
    tix2: Int32Array
    text_cost: FloatArray  # [text leaf 1, text leaf 2] = -log Pr_text
    del1: FloatArray  # -log Pr_del of the node
    del2: FloatArray
    sub1: FloatArray  # deletion cost of the whole subtree
    sub2: FloatArray
    af: FloatArray  # [int1, int2] = cost of aligning the two children forests (filled)
    sg: FloatArray  # SpanF tables: a deleted source node against target sibling ranges (filled)
    sf: FloatArray  # SpanG tables: the mirror (filled)
    sg_row: Int64Array  # row offset of each source node's block in sg
    sg_off: Int64Array  # [wide, target node]: offset within the block (single or range layout)
    sf_row: Int64Array
    sf_off: Int64Array
    span_limit: int  # max_span, the widest sibling range of the range layout
    band: float  # the position band (inf: none)
    pos1: FloatArray  # pre-order index / size
    pos2: FloatArray
    end1: FloatArray  # position of the subtree's last node
    end2: FloatArray
    wide1: Int64Array  # siblings a deleted node's children may cover (1 below a chain root)
    wide2: Int64Array
    below1: FloatArray  # deletion cost of the subtree without the node itself
    below2: FloatArray


class Adjoints(NamedTuple):
    """d log Z / d (cost) of the tables and of every event, filled by the outside pass."""

    af: FloatArray
    sg: FloatArray
    sf: FloatArray
    pair: FloatArray  # [x, y]: expected count of the pair x ~ y
    sub1: FloatArray  # [x]: expected count of the whole-subtree deletion of x
    sub2: FloatArray
    del1: FloatArray  # [x]: expected count of x deleted with its children aligned
    del2: FloatArray
