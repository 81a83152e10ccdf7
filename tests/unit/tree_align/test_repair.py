"""Chunk-pair repair (``tree_align.repair``): windows of pairs re-paired on their summed Pr_text."""

from __future__ import annotations

import dataclasses

import pytest

from services.tree_align.model import initial_model
from tests.unit.tree_align.test_gap_fill import Translations, chunks_of

WORDS = " x y z u v w"  # six words and more a side: pairs the repair may touch


def test_pairs_shifted_by_a_split_paragraph_are_repaired() -> None:
    from services.tree_align.chunk_union import ChunkComponent
    from services.tree_align.repair import repair_pairs

    # b1 is split in two on the target side; its first half went to a1's pair
    chunks = (
        chunks_of("a1" + WORDS, "b1" + WORDS),
        chunks_of("a1" + WORDS, "b1 half" + WORDS, "b1" + WORDS),
    )
    model = dataclasses.replace(initial_model(["p"]), text_model=Translations())
    shifted = [ChunkComponent((0,), (0, 1), 0.0), ChunkComponent((1,), (2,), 0.0)]
    repaired = repair_pairs(chunks, shifted, model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [((0,), (0,)), ((1,), (1, 2))]
    assert [c.cost for c in repaired] == [-10.0, -10.0]


def test_repair_keeps_paired_chunks_paired_and_one_sided_text_out() -> None:
    from services.tree_align.chunk_union import ChunkComponent
    from services.tree_align.repair import repair_pairs

    model = dataclasses.replace(initial_model(["p"]), text_model=Translations())
    # b1 has no translation: the pair (b1, c1) would be dropped by a plain best chain, but a
    # paired chunk stays paired; the box between the pairs joins no pair
    chunks = (
        chunks_of("a1" + WORDS, "box9" + WORDS, "b1" + WORDS),
        chunks_of("a1" + WORDS, "c1" + WORDS),
    )
    pairs = [ChunkComponent((0,), (0,), 0.0), ChunkComponent((2,), (1,), 0.0)]
    repaired = repair_pairs(chunks, pairs, model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [((0,), (0,)), ((2,), (1,))]
    # short pairs (titles) are not re-paired even when shifted
    chunks = (chunks_of("a1 t", "b1" + WORDS), chunks_of("a1 t", "b1 t", "b1" + WORDS))
    pairs = [ChunkComponent((0,), (0, 1), 0.0), ChunkComponent((1,), (2,), 0.0)]
    repaired = repair_pairs(chunks, pairs, model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [((0,), (0, 1)), ((1,), (2,))]


def test_repair_reaches_unpaired_chunks_beside_the_window_and_pairs_no_two_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import services.tree_align.repair as repair
    from services.tree_align.chunk_union import ChunkComponent
    from services.tree_align.repair import repair_pairs

    model = dataclasses.replace(initial_model(["p"]), text_model=Translations())
    # a1 went to b1's translation; a1's own lies before the window, b1 after the first pair
    chunks = (
        chunks_of("a1" + WORDS, "b1" + WORDS, "c1" + WORDS),
        chunks_of("a1" + WORDS, "b1" + WORDS, "c1" + WORDS),
    )
    pairs = [ChunkComponent((0,), (1,), 0.0), ChunkComponent((2,), (2,), 0.0)]
    repaired = repair_pairs(chunks, list(pairs), model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [
        ((0,), (0,)),
        ((1,), (1,)),
        ((2,), (2,)),
    ]
    monkeypatch.setattr(repair, "REPAIR_REACH", 0)
    assert repair_pairs(chunks, list(pairs), model, 2) == pairs
    # two chunks unpaired before are left to the gap filling
    pairs = [ChunkComponent((0,), (0,), 0.0), ChunkComponent((2,), (2,), 0.0)]
    assert repair_pairs(chunks, list(pairs), model, 2) == pairs
