"""The sentence-alignment benchmarks' Text+Berg documents, the peers and the scoring.

Data: Text+Berg German-French (Bleualign's test set, vecalign's gold), the dev document and
the seven test documents test0..6, pre-split (one sentence per line), read in place from the
data kit. The aligners under test (paramine's, galechurch's Rust core, NLTK's gale_church)
run in one process on the same input; scores follow vecalign's strict/lax convention
(``services.sentence_align.aligners.evaluate``); throughput counts source plus target
sentences per second of wall time, after one warm-up call per aligner (numba JIT). Used by
``benchmarks.sentence_align.aligners`` (sentence_align.md) and the other sentence-alignment
benchmarks.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchmarks.common import KIT, best_of
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import BeadScores, score_documents
from services.sentence_align.aligners.gold import DocumentPair, read_documents

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

TEXTBERG = KIT / "textberg-bleualign-de-fr"
REPEATS = 3  # timings: best of REPEATS runs over the whole set

Aligner = Callable[[Sequence[str], Sequence[str]], list[Bead]]


@dataclass(frozen=True)
class Row:
    name: str
    scores: BeadScores
    sentences_per_second: float  # wall time, best of REPEATS
    cpu_sentences_per_second: float = 0.0  # CPU time of this process, best of REPEATS
    beads: list[list[Bead]] = field(default_factory=list, compare=False, repr=False)  # output


def load(names: Sequence[str]) -> list[DocumentPair]:
    """Text+Berg documents ``names`` (e.g. "test0", "dev") with their gold beads."""
    return read_documents(TEXTBERG, names)


TEST = [f"test{k}" for k in range(7)]


def links_to_beads(links: Sequence[tuple[int, int]], n_src: int, n_tgt: int) -> list[Bead]:
    """Beads from sentence links (NLTK's output): linked runs merge, the rest are deletions."""
    groups: list[tuple[set[int], set[int]]] = []
    for i, j in sorted(links):
        if groups and (i in groups[-1][0] or j in groups[-1][1]):
            groups[-1][0].add(i)
            groups[-1][1].add(j)
        else:
            groups.append(({i}, {j}))
    beads: list[Bead] = []
    next_src = next_tgt = 0
    for src, tgt in groups:
        beads += [Bead((k,), ()) for k in range(next_src, min(src))]
        beads += [Bead((), (k,)) for k in range(next_tgt, min(tgt))]
        beads.append(Bead(tuple(sorted(src)), tuple(sorted(tgt))))
        next_src, next_tgt = max(src) + 1, max(tgt) + 1
    beads += [Bead((k,), ()) for k in range(next_src, n_src)]
    beads += [Bead((), (k,)) for k in range(next_tgt, n_tgt)]
    return beads


def galechurch_aligner(src: Sequence[str], tgt: Sequence[str]) -> list[Bead]:
    """The ``galechurch`` PyPI package (Rust port of the original program), defaults."""
    import galechurch

    block = galechurch.align(list(src), list(tgt))
    return [
        Bead(tuple(range(b.source_start, b.source_end)), tuple(range(b.target_start, b.target_end)))
        for b in block.beads
    ]


def nltk_aligner(src: Sequence[str], tgt: Sequence[str]) -> list[Bead]:
    """``nltk.translate.gale_church.align_blocks`` on character lengths (spaces excluded)."""
    from nltk.translate.gale_church import align_blocks

    def lengths(sentences: Sequence[str]) -> list[int]:
        return [max(1, len(s.replace(" ", ""))) for s in sentences]  # NLTK divides by length

    return links_to_beads(align_blocks(lengths(src), lengths(tgt)), len(src), len(tgt))


def paramine_aligner(method: str, dictionary: BilingualDictionary | None = None) -> Aligner:
    """paramine's ``method`` on German-French, seeded with ``dictionary`` when given."""
    from services.sentence_align.aligners.align import align_sentences

    def align(src: Sequence[str], tgt: Sequence[str]) -> list[Bead]:
        return align_sentences(
            src, tgt, method=method, src_lang="de", tgt_lang="fr", dictionary=dictionary
        )

    return align


def evaluate(name: str, aligner: Aligner, documents: Sequence[DocumentPair]) -> Row:
    """Scores and throughput of ``aligner`` run on each document on its own."""
    aligner(documents[0].src[:30], documents[0].tgt[:30])  # warm-up (JIT, imports)
    return evaluate_batch(name, lambda docs: [aligner(doc.src, doc.tgt) for doc in docs], documents)


def evaluate_batch(
    name: str,
    align_all: Callable[[Sequence[DocumentPair]], list[list[Bead]]],
    documents: Sequence[DocumentPair],
) -> Row:
    """Scores and throughput (best of REPEATS) of one call aligning all ``documents``."""
    outputs, best, best_cpu = best_of(REPEATS, lambda: align_all(documents))
    sentences = sum(len(doc.src) + len(doc.tgt) for doc in documents)
    scores = score_documents([doc.gold for doc in documents], outputs)
    return Row(name, scores, sentences / best, sentences / max(best_cpu, 1e-9), outputs)


def table(rows: Sequence[Row], reference: str) -> list[str]:
    """Markdown table; ratios relative to the ``reference`` row."""
    ref = next(row for row in rows if row.name == reference)
    lines = [
        "| aligner | P strict | R strict | F1 strict | P lax | R lax | F1 lax | sentences/s "
        f"| sentences/s (CPU) | F1 strict / {reference} | speed / {reference} |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        s = row.scores
        lines.append(
            f"| {row.name} | {s.precision_strict:.3f} | {s.recall_strict:.3f} | "
            f"{s.f1_strict:.3f} | {s.precision_lax:.3f} | {s.recall_lax:.3f} | {s.f1_lax:.3f} | "
            f"{row.sentences_per_second:,.0f} | {row.cpu_sentences_per_second:,.0f} | "
            f"{s.f1_strict / ref.scores.f1_strict:.2f} | "
            f"{row.sentences_per_second / ref.sentences_per_second:.2f} |"
        )
    return lines


def machine_note() -> str:
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"Machine: {platform.machine()}, {os.cpu_count()} logical CPUs shared with other "
        f"engineers' jobs (load average {load} at the end of the run; timings are noisy; "
        f"best of {REPEATS} runs), Python "
        f"{platform.python_version()}. galechurch uses its Rust core (one document per call)."
    )
