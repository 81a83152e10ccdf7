"""Pr_text calibrated on the page pair: the two languages' length ratio read off the pages.

The length Pr_text (:class:`~services.tree_align.model.LengthTextModel`) expects ``ratio``
target characters per source character. One constant cannot serve every language pair: a
Chinese text has about a third of the characters of its English translation, a Japanese one
about half, German and French about as many. :func:`calibrated` sets the ratio to the one of
the two pages' whole texts (non-space characters), and scales the variance and the
background mean of target lengths with it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from services.html.tag_tree import TagTree
from services.tree_align.model import LengthTextModel, TreeModel

# Bounds of a length ratio estimated from a page pair (bounds of sanity, not tuned).
MIN_RATIO = 0.1
MAX_RATIO = 10.0


def length_ratio(src_texts: Sequence[str], tgt_texts: Sequence[str]) -> float | None:
    """Target characters per source character of two text collections (non-space characters,
    as Pr_text counts them), kept within [MIN_RATIO, MAX_RATIO]; None without text."""
    src_chars, tgt_chars = _characters(src_texts), _characters(tgt_texts)
    if not src_chars or not tgt_chars:
        return None
    return min(MAX_RATIO, max(MIN_RATIO, tgt_chars / src_chars))


def _characters(texts: Sequence[str]) -> int:
    """Characters of the texts other than spaces, tabs and line breaks (one pass in C)."""
    joined = "".join(texts)
    return len(joined) - sum(joined.count(space) for space in " \t\n\r\xa0")


def with_ratio(model: TreeModel, ratio: float | None) -> TreeModel:
    """``model`` whose length Pr_text expects ``ratio`` target characters per source one.

    The variance and the background mean of target lengths are scaled with it: they were
    set for a European pair of ratio ``LengthTextModel.ratio`` (a Chinese text has a third
    of the characters of its English translation, its lengths a third of the spread)."""
    text = model.text_model
    if ratio is None or not isinstance(text, LengthTextModel):
        return model
    scale = ratio / text.ratio
    background = None if text.background_mean is None else text.background_mean * scale
    calibrated_text = dataclasses.replace(
        text, ratio=ratio, variance=text.variance * scale, background_mean=background
    )
    return dataclasses.replace(model, text_model=calibrated_text)


def calibrated(model: TreeModel, src: TagTree, tgt: TagTree) -> TreeModel:
    """``model`` with the length ratio of the two pages' whole texts (:func:`length_ratio`)."""
    return with_ratio(
        model,
        length_ratio(
            [src.texts[i] for i in src.text_leaves()], [tgt.texts[i] for i in tgt.text_leaves()]
        ),
    )
