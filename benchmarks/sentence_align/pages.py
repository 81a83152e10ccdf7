"""Per-page-pair cost of the sentence_align handler on generated news page pairs.

The page pairs come from ``benchmarks.common.generate_pair`` (news-size articles and
a pseudo-translation, seeded), cut into aligned text chunks by the tree_align handler (not
timed). Timed: ``handler.sentence_pairs`` (sentence splitting, alignment, pair building),
and for comparison the alignment done one chunk at a time with ``align_sentences`` (the
handler before one model per page pair) and the length-only method. CPU time of this
process and wall time, best of ``REPEATS`` runs.
Run as part of ``.venv/bin/python -m benchmarks.sentence_align.aligners``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmarks.common import best_of, generate_pair
from services.sentence_align.aligners.align import align_sentences
from services.sentence_align.aligners.splitter import split_sentences
from services.sentence_align.mining.records import sentence_pairs
from shared.schemas import ChunkPairs, PagePair

PAGE_PAIRS = 40
REPEATS = 3
SEED = 20240607


@dataclass(frozen=True)
class PageRow:
    name: str
    cpu_ms: float  # per page pair
    wall_ms: float
    sentence_pairs: int


def generated_messages(count: int = PAGE_PAIRS, seed: int = SEED) -> list[ChunkPairs]:
    """``count`` generated page pairs as tree_align's output messages."""
    from services.tree_align.handler import chunk_pairs

    rng = random.Random(seed)
    messages = []
    for serial in range(count):
        data = generate_pair(rng, serial)
        page_pair = PagePair(job_id="bench", kind=data["kind"], src=data["src"], tgt=data["tgt"])
        messages.append(chunk_pairs(page_pair))
    return messages


def per_chunk(method: str) -> Callable[[ChunkPairs], int]:
    """Align every chunk on its own with ``align_sentences`` (one model set-up per chunk)."""

    def run(message: ChunkPairs) -> int:
        context, pairs = message.context, 0
        for chunk in message.chunks:
            src = split_sentences(chunk.src_text, context.src_lang)
            tgt = split_sentences(chunk.tgt_text, context.tgt_lang)
            if src and tgt:
                beads = align_sentences(
                    src, tgt, method=method, src_lang=context.src_lang, tgt_lang=context.tgt_lang
                )
                pairs += sum(1 for bead in beads if bead.src and bead.tgt)
        return pairs

    return run


def measure(name: str, run: Callable[[ChunkPairs], int], messages: Sequence[ChunkPairs]) -> PageRow:
    run(messages[0])  # warm-up (JIT, imports)
    produced, best_wall, best_cpu = best_of(REPEATS, lambda: sum(map(run, messages)))
    count = len(messages)
    return PageRow(name, 1000 * best_cpu / count, 1000 * best_wall / count, produced)


def page_rows() -> tuple[list[PageRow], str]:
    """Rows of the page-pair table and a one-line description of the input."""
    messages = generated_messages()
    chunks = sum(len(message.chunks) for message in messages)
    rows = [
        measure("handler (hybrid, one model per page pair)", lambda m: len(sentence_pairs(m)),
                messages),
        measure("hybrid, one align_sentences call per chunk", per_chunk("hybrid"), messages),
        measure("length only, one call per chunk", per_chunk("length"), messages),
    ]  # fmt: skip
    note = (
        f"{len(messages)} generated page pairs (benchmarks.common.generate_pair, seed "
        f"{SEED}), {chunks / len(messages):.0f} text chunks per pair on average"
    )
    return rows, note


def page_table(rows: Sequence[PageRow]) -> list[str]:
    lines = [
        "| sentence_align per page pair | CPU ms | wall ms | sentence pairs |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r.name} | {r.cpu_ms:.1f} | {r.wall_ms:.1f} | {r.sentence_pairs:,} |" for r in rows
    ]
    return lines
