"""Tests of a page pair's sentence pairs (``mining.records.sentence_pairs``): each chunk
aligned inside itself, with one model per page pair."""

from __future__ import annotations

import pytest

from services.sentence_align.aligners.align import align_segments
from services.sentence_align.aligners.beads import parse_bead
from services.sentence_align.mining.records import sentence_pairs
from shared.schemas import ChunkPairs, TextChunkPair
from tests.unit.sentence_align.test_handler import CONTEXT

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
    assert [(p.chunk, p.src_text, p.tgt_text) for p in pairs if p.chunk == 0] == [
        (0, "Der Gipfel ist hoch.", "Le sommet est haut.")
    ]


def test_chunk_lines_end_sentences() -> None:
    # a tree-aligned chunk's lines are <br> lines or blocks (a heading over its paragraph):
    # a line without final punctuation ran into the next one as one sentence
    chunk = TextChunkPair(
        src_text="Hotel Adler\nHauptstrasse 3\nWir haben 20 Zimmer.",
        tgt_text="Hôtel Adler\nHauptstrasse 3\nNous avons 20 chambres.",
    )
    pairs = sentence_pairs(ChunkPairs(context=CONTEXT, chunks=[chunk], method="length"))
    assert [(p.src_text, p.tgt_text) for p in pairs] == [
        ("Hotel Adler", "Hôtel Adler"),
        ("Hauptstrasse 3", "Hauptstrasse 3"),
        ("Wir haben 20 Zimmer.", "Nous avons 20 chambres."),
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
