"""Tests of the sentence_align handler's chunk alignment (one model per page pair)."""

from __future__ import annotations

import pytest

from services.sentence_align.align import align_segments
from services.sentence_align.beads import parse_bead
from services.sentence_align.handler import sentence_pairs
from shared.schemas import ChunkPairs, PairContext, TextChunkPair

URLS = {"src_url": "https://example.org/de/1", "tgt_url": "https://example.org/fr/1"}
CONTEXT = PairContext(
    pair_id="p1", job_id="j1", kind="translation", **URLS, src_lang="de", tgt_lang="fr"
)
CHUNKS = [
    TextChunkPair(src_text="Der Gipfel ist hoch.", tgt_text="Le sommet est haut."),
    TextChunkPair(src_text="", tgt_text="Menu"),
    TextChunkPair(
        src_text="Wir stiegen 1956 auf. Es schneite in Zürich.",
        tgt_text="Nous sommes montés en 1956. Il neigeait à Zürich.",
    ),
]


@pytest.mark.parametrize("method", ["length", "lexicon", "hybrid", "anchors"])
def test_pairs_stay_inside_their_chunk_with_chunk_relative_beads(method: str) -> None:
    message = ChunkPairs(context=CONTEXT, chunks=CHUNKS, method=method)
    pairs = sentence_pairs(message)
    assert {pair.chunk for pair in pairs} <= {0, 2}  # chunk 1 has no source sentence
    for pair in pairs:
        bead = parse_bead(pair.bead)
        assert max(bead.src) < 2 and max(bead.tgt) < 2
    assert [(p.chunk, p.src, p.tgt) for p in pairs if p.chunk == 0] == [
        (0, "Der Gipfel ist hoch.", "Le sommet est haut.")
    ]


def test_handler_beads_equal_align_segments() -> None:
    message = ChunkPairs(context=CONTEXT, chunks=[CHUNKS[0], CHUNKS[2]], method="hybrid")
    segments = [
        (["Der Gipfel ist hoch."], ["Le sommet est haut."]),
        (
            ["Wir stiegen 1956 auf.", "Es schneite in Zürich."],
            ["Nous sommes montés en 1956.", "Il neigeait à Zürich."],
        ),
    ]
    expected = [
        (chunk, bead.src, bead.tgt)
        for chunk, beads in enumerate(align_segments(segments, src_lang="de", tgt_lang="fr"))
        for bead in beads
        if bead.src and bead.tgt
    ]
    got = [
        (pair.chunk, parse_bead(pair.bead).src, parse_bead(pair.bead).tgt)
        for pair in sentence_pairs(message)
    ]
    assert got == expected
