"""Benchmark of the pair classifier (issue 50): is the exported ``score`` a calibrated
probability that a sentence pair is correct?

Data: the validation parts of the kit's gold, which nothing was chosen on (Text+Berg
test3-6 de-fr, MAC-Dev 004-006 zh-en; ``services/sentence_align/classifier/pair_training.py``),
read in place. Each document is cut at gold bead boundaries into pages of about ``PAGE`` source
sentences, as the pipeline meets text one page pair at a time; each page is aligned with
the default aligner (hybrid, the installed dictionary) and its pairs scored by the shipped
model. A pair is correct when the gold has the same bead (strict). Reported per language
pair, with the dictionary and without one: precision and recall (of the correct pairs the
aligner output) at the default threshold, the share of wrong pairs among those scoring 0.9
or more, the reliability table (ten bins) and the expected calibration error, against the
DP posterior's.

Cost: the same pages go through the sentence_align stage as the pipeline runs it
(``handler.handle``: splitting, aligning, scoring, flags, storing into a scratch SQLite
store), each page as one flat chunk of its own site (no earlier site pairs), and the CPU
time inside ``pair_scores`` is read off against the stage's; the stage is run again with
scoring left out, and the difference is what scoring adds (language identification is
shared: the stage's wrong-language flag reads the probabilities scoring kept). Caches of
tokens and language probabilities are emptied before each run.

Run: ``.venv/bin/python -m benchmarks.sentence_align.pair_score`` (writes
``benchmarks/results/pair_score.md``).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

from benchmarks.common import KIT, RESULTS, notes, publish
from services.lexical import model1
from services.lexical.registry import dictionary_for
from services.sentence_align import handler
from services.sentence_align.aligners.align import align_sentences
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.classifier.pair_model import (
    expected_calibration_error,
    load_pair_model,
    reliability,
)
from services.sentence_align.classifier.pair_training import (
    VALIDATION,
    GoldDocument,
    bead_candidate,
    kit_documents,
)
from services.sentence_align.mining import records
from shared import langid
from shared.schemas import ChunkPairs, PairContext, TextChunkPair
from shared.store import Store

RESULT = RESULTS / "pair_score.md"
PAGE = 40  # source sentences of a page


@dataclass
class Scored:
    scores: list[float] = field(default_factory=list)
    posteriors: list[float] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    pages: int = 0


def pages(document: GoldDocument) -> list[GoldDocument]:
    """The document cut after the first gold bead that reaches each multiple of PAGE source
    sentences (indices made page-relative)."""
    result: list[GoldDocument] = []
    start = (0, 0)
    run: list[Bead] = []
    for bead in document.gold:
        run.append(bead)
        end_src = max([b.src[-1] + 1 for b in run if b.src] or [start[0]])
        end_tgt = max([b.tgt[-1] + 1 for b in run if b.tgt] or [start[1]])
        if end_src - start[0] >= PAGE or bead is document.gold[-1]:
            shifted = [
                Bead(tuple(k - start[0] for k in b.src), tuple(k - start[1] for k in b.tgt))
                for b in run
            ]
            result.append(
                GoldDocument(
                    f"{document.name} page {len(result)}", document.src_lang, document.tgt_lang,
                    document.src[start[0] : end_src], document.tgt[start[1] : end_tgt], shifted,
                )
            )  # fmt: skip
            start, run = (end_src, end_tgt), []
    return result


def score_part(documents: Sequence[GoldDocument], with_dictionary: bool) -> Scored:
    model = load_pair_model()
    scored = Scored()
    for document in documents:
        dictionary = dictionary_for(document.src_lang, document.tgt_lang)
        for page in pages(document):
            beads = align_sentences(
                page.src, page.tgt, src_lang=page.src_lang, tgt_lang=page.tgt_lang,
                dictionary=dictionary,
            )  # fmt: skip
            output = [b for b in beads if b.src and b.tgt]
            candidates = [bead_candidate(page, b, b.confidence) for b in output]
            probabilities = model.score_page(
                candidates, page.src_lang, page.tgt_lang, dictionary if with_dictionary else None
            )
            scored.pages += 1
            gold = {(b.src, b.tgt) for b in page.gold}
            scored.scores += [float(p) for p in probabilities]
            scored.posteriors += [b.confidence if b.confidence is not None else 0.0 for b in output]
            scored.labels += [int((b.src, b.tgt) in gold) for b in output]
    return scored


def section(name: str, scored: Scored, threshold: float) -> list[str]:
    scores, labels = np.asarray(scored.scores), np.asarray(scored.labels, dtype=np.float64)
    posteriors = np.asarray(scored.posteriors)
    kept = scores >= threshold
    high = scores >= 0.9
    precision = labels[kept].mean() if kept.any() else 0.0
    recall = kept[labels == 1].mean() if (labels == 1).any() else 0.0
    wrong_high = 1 - labels[high].mean() if high.any() else 0.0
    lines = [
        f"### {name}",
        "",
        f"- aligner pairs: {len(labels)} on {scored.pages} pages, {labels.mean():.3f} correct "
        "(strict: the gold has the same bead)",
        f"- at the default threshold {threshold:.2f}: precision **{precision:.3f}**, recall of the "
        f"correct pairs **{recall:.3f}** ({int(kept.sum())} pairs kept)",
        f"- wrong among pairs scoring >= 0.9: **{wrong_high:.3f}** ({int(high.sum())} pairs)",
        f"- ECE (10 bins): score **{expected_calibration_error(scores, labels):.3f}**, DP "
        f"posterior {expected_calibration_error(posteriors, labels):.3f}",
        "",
        "| bin | mean predicted | observed correct | pairs |",
        "|---|---|---|---|",
    ]
    for low, predicted, observed, count in reliability(scores, labels):
        lines.append(f"| {low:.1f}-{low + 0.1:.1f} | {predicted:.3f} | {observed:.3f} | {count} |")
    return [*lines, ""]


@dataclass
class Cost:
    """CPU seconds of the sentence_align stage over a language pair's pages."""

    pages: int = 0
    pairs: int = 0
    stage: float = 0.0  # handle(), scoring included
    scoring: float = 0.0  # inside pair_scores
    without_scoring: float = 0.0  # handle() with pair_scores left out


def stage_messages(documents: Sequence[GoldDocument]) -> list[ChunkPairs]:
    """Each page of ``documents`` as the sentence_align stage's input: one flat chunk (the
    page's sentences a line each), a site of its own."""
    messages: list[ChunkPairs] = []
    for document in documents:
        for page in pages(document):
            site = f"https://page{len(messages)}.example"
            context = PairContext(
                pair_id=f"cost-{len(messages)}", job_id="pair-score", kind="translation",
                src_url=f"{site}/{page.src_lang}", tgt_url=f"{site}/{page.tgt_lang}",
                src_lang=page.src_lang, tgt_lang=page.tgt_lang,
            )  # fmt: skip
            chunk = TextChunkPair(src_text="\n".join(page.src), tgt_text="\n".join(page.tgt))
            messages.append(ChunkPairs(context=context, chunks=[chunk]))
    return messages


def _stage_seconds(
    messages: Sequence[ChunkPairs], store: Store, scores: Callable[..., list[float]]
) -> tuple[float, float, int]:
    """(CPU of handle() over the messages, CPU inside ``scores``, pairs) from empty caches."""
    langid.clear_cache()
    model1.clear_token_cache()
    inside = [0.0, 0.0]

    def timed(*args: Any, **kwargs: Any) -> list[float]:
        started = time.process_time()
        result = scores(*args, **kwargs)
        inside[0] += time.process_time() - started
        inside[1] += len(result)
        return result

    with mock.patch.object(records, "pair_scores", timed):
        started = time.process_time()
        for message in messages:
            handler.handle(message, store)
        total = time.process_time() - started
    return total, inside[0], int(inside[1])


def stage_cost(documents: Sequence[GoldDocument], store: Store) -> Cost:
    """The stage's CPU over the documents' pages with scoring and without (module docstring)."""
    messages = stage_messages(documents)
    cost = Cost(pages=len(messages))
    cost.stage, cost.scoring, cost.pairs = _stage_seconds(messages, store, records.pair_scores)
    cost.without_scoring, *_ = _stage_seconds(
        messages, store, lambda candidates, *_: [0.0] * len(candidates)
    )
    return cost


def cost_lines(costs: dict[str, Cost]) -> list[str]:
    """The cost table: per page, the stage's CPU and scoring's share of it."""
    lines = [
        "## Cost in the sentence_align stage",
        "",
        notes("cpu-per-page"),
        "",
        "| pair | pages | pairs a page | stage ms | scoring ms | stage without scoring ms "
        "| scoring / rest of the stage | added by scoring |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for pair, cost in costs.items():
        rest = cost.stage - cost.scoring
        lines.append(
            f"| {pair} | {cost.pages} | {cost.pairs / cost.pages:.0f} "
            f"| {1000 * cost.stage / cost.pages:.1f} | {1000 * cost.scoring / cost.pages:.1f} "
            f"| {1000 * cost.without_scoring / cost.pages:.1f} | {cost.scoring / rest:.0%} "
            f"| {(cost.stage - cost.without_scoring) / cost.without_scoring:.0%} |"
        )
    return [*lines, ""]


def main() -> None:
    model = load_pair_model()
    documents = kit_documents(KIT, VALIDATION)
    lines = [
        "# Pair classifier: the exported score on the validation parts",
        "",
        "Rerun: `.venv/bin/python -m benchmarks.sentence_align.pair_score`. Model: "
        "`services/sentence_align/classifier/pair_model.json` (`paramine train-pair-model`), "
        "default "
        f"threshold {model.threshold:.2f}. Validation: Text+Berg test3-6 (de-fr), MAC-Dev "
        f"004-006 (zh-en), in pages of about {PAGE} source sentences aligned by the default "
        "aligner. Acceptance (issue 50): precision >= 0.95 keeping >= 85% of correct pairs; "
        "wrong pairs <= 2% of those scoring >= 0.9; ECE <= 0.05.",
        "",
        "Training record (held-out cross-fitting on the training documents): "
        + ", ".join(f"{name} {value:.3f}" for name, value in model.record),
        "",
    ]
    costs: dict[str, Cost] = {}
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(f"sqlite:///{Path(scratch) / 'cost.db'}")
        for pair in ("de-fr", "zh-en"):
            part = [d for d in documents if d.pair == pair]
            for with_dictionary in (True, False):
                label = "with its dictionary" if with_dictionary else "without a dictionary"
                scored = score_part(part, with_dictionary)
                lines += section(f"{pair}, {label}", scored, model.threshold)
            costs[pair] = stage_cost(part, store)
    lines += cost_lines(costs)
    lines += ["## The field's own filters (item 5)", "", notes("field-s-own"), ""]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
