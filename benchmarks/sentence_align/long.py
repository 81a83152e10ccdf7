"""One paragraph of 20,000 sentences a side through align_segments, without and with the cuts
of long segments at anchor pairs (``services/sentence_align/aligners/long_segments.py``, issue 50
item 4).

Paragraphs built at run time from real Text+Berg de-fr gold beads (dev and test), repeated
in text order until 20,000 source sentences, so names and numbers recur every ~1,400
sentences, as in a long repetitive page. Cases: every gold bead (merges included); the gold
1-1 pairs with 2% of them missing one side (seeded); the same with a block of 700 source
sentences missing on the target side at 40%. 'before' is the segment as one window (the
path of ``align_segments`` before the cuts: ``align_two_pass`` with the segment's two ends
as its only cut points); 'after' is ``align_segments``. Both with the installed de-fr
dictionary, as the sentence_align stage runs. A pair is an output bead with both sides;
correct when it is a gold bead. Nothing derived from the data is written to disk.
Run: ``.venv/bin/python -m benchmarks.sentence_align.long`` from the repository root.
"""

from __future__ import annotations

import itertools
import platform
import time
from collections.abc import Callable, Sequence

import numpy as np

from benchmarks.common import RESULTS, publish
from benchmarks.sentence_align.textberg import TEST, load
from services.lexical.registry import dictionary_for
from services.sentence_align.aligners.align import align_segments
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.evaluate import score_documents
from services.sentence_align.aligners.gold import bead_pool, concatenate_beads
from services.sentence_align.aligners.long_segments import segment_cuts

RESULT = RESULTS / "sentence_align_long.md"
SENTENCES = 20_000
SEED = 20240607
DROP = 0.02
BLOCK = (int(0.4 * SENTENCES), 700)  # (first source sentence, sentences) missing in the target

Paragraph = tuple[list[str], list[str], list[Bead]]


def one_to_one_paragraph(n_src: int, block: tuple[int, int] | None) -> Paragraph:
    """The gold 1-1 pairs repeated in order until ``n_src`` source sentences; DROP of the
    pairs (seeded) and the source sentences of ``block`` lose their target."""
    pool = [(src, tgt) for src, tgt in bead_pool(load(["dev", *TEST])) if len(src) == len(tgt) == 1]
    rng = np.random.default_rng(SEED)
    start, length = block if block is not None else (0, 0)
    src: list[str] = []
    tgt: list[str] = []
    gold: list[Bead] = []
    for (src_sentence,), (tgt_sentence,) in itertools.cycle(pool):
        if len(src) >= n_src:
            break
        draw = rng.random()
        if start <= len(src) < start + length or draw < DROP / 2:
            gold.append(Bead((len(src),), ()))
            src.append(src_sentence)
        elif draw < DROP:
            gold.append(Bead((), (len(tgt),)))
            tgt.append(tgt_sentence)
        else:
            gold.append(Bead((len(src),), (len(tgt),)))
            src.append(src_sentence)
            tgt.append(tgt_sentence)
    return src, tgt, gold


def every_bead_paragraph(n_src: int) -> Paragraph:
    """Every gold bead (1-1, merges, deletions) repeated in text order."""
    document = concatenate_beads("long", itertools.cycle(bead_pool(load(["dev", *TEST]))), n_src)
    return document.src, document.tgt, document.gold


def _row(name: str, beads: list[Bead], gold: list[Bead], seconds: float) -> str:
    expected = {(bead.src, bead.tgt) for bead in gold}
    pairs = [bead for bead in beads if bead.src and bead.tgt]
    correct = sum((bead.src, bead.tgt) in expected for bead in pairs)
    f1 = score_documents([gold], [beads]).f1_strict
    return (
        f"| {name} | {len(pairs):,} | {correct:,} | {len(pairs) - correct:,} | "
        f"{correct / len(pairs):.3f} | {f1:.3f} | {seconds:.1f} |"
    )


def _timed(align: Callable[[], list[Bead]]) -> tuple[list[Bead], float]:
    start = time.perf_counter()
    beads = align()
    return beads, time.perf_counter() - start


def case_rows(name: str, paragraph: Paragraph) -> list[str]:
    """Rows 'before' and 'after' of one paragraph, and a line on its cuts."""
    src, tgt, gold = paragraph
    dictionary = dictionary_for("de", "fr")

    def one_window() -> list[Bead]:
        return align_segments(
            [(src, tgt)], src_lang="de", tgt_lang="fr", dictionary=dictionary, cut_long=False
        )[0]

    before, before_seconds = _timed(one_window)
    after, after_seconds = _timed(
        lambda: align_segments([(src, tgt)], src_lang="de", tgt_lang="fr", dictionary=dictionary)[0]
    )
    cuts = segment_cuts(src, tgt)
    boundaries = {(0, 0)}
    i = j = 0
    for bead in gold:
        i, j = i + len(bead.src), j + len(bead.tgt)
        boundaries.add((i, j))
    on_boundary = sum(cut in boundaries for cut in cuts)
    return [
        f"| **{name}** ({len(src):,} x {len(tgt):,} sentences) | | | | | | |",
        _row("before: one window", before, gold, before_seconds),
        _row("after: cut at anchor pairs", after, gold, after_seconds),
        f"| cuts: {len(cuts)}, {on_boundary} between two gold beads | | | | | | |",
    ]


def main(cases: Sequence[str] = ("every", "one-to-one", "block")) -> None:
    align_segments([(["Ein Satz ."], ["Une phrase ."])], src_lang="de", tgt_lang="fr")  # JIT
    builders: dict[str, tuple[str, Callable[[], Paragraph]]] = {
        "every": ("every gold bead, in order", lambda: every_bead_paragraph(SENTENCES)),
        "one-to-one": (
            "1-1 pairs, 2% missing one side",
            lambda: one_to_one_paragraph(SENTENCES, None),
        ),
        "block": (
            f"1-1 pairs, 2% missing one side, {BLOCK[1]} missing in the target at 40%",
            lambda: one_to_one_paragraph(SENTENCES, BLOCK),
        ),
    }
    rows: list[str] = []
    for case in cases:
        title, build = builders[case]
        rows += case_rows(title, build())
    publish(
        RESULT,
        [
            "# A long paragraph through align_segments: cut at anchor pairs or not",
            "",
            "Rerun: `.venv/bin/python -m benchmarks.sentence_align.long`",
            "",
            (__doc__ or "").split("\n\n")[1].replace("\n", " "),
            "",
            "| case | pairs | correct | wrong | correct share | F1 strict | seconds (wall) |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Machine: {platform.machine()}, 2 logical CPUs shared with other engineers' jobs "
            f"(timings are noisy; one run each), Python {platform.python_version()}.",
        ],
    )


if __name__ == "__main__":
    main()
