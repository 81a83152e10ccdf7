"""Accuracy of noun–を–verb extraction against UD Japanese GSD dev dependency parses.

Gold (services.thesaurus.evaluation): every ``obj`` with a ``case`` を child whose dependent
is a NOUN/PROPN and whose head is a verb (or a サ変 noun used as a verb) gives (noun form,
verb lemma). The extractor runs on the raw ``# text =`` sentences. The extraction rules were
developed looking at errors on the first half of the file only; the second half is reported
separately as held-out. A simple peer runs side by side: the noun right before を paired
with a verb immediately after it (no skipping, no サ変 verbs).
Writes benchmarks/results/thesaurus_extraction.md.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from services.thesaurus.cooccur import Cooccurrence, extract_cooccurrences, verb_lemma
from services.thesaurus.evaluation import (
    ExtractionScore,
    GoldSentence,
    load_ud_gold,
    score_extraction,
)
from shared.text import analyse_japanese

REPO = Path(__file__).resolve().parents[1]
KIT = Path(os.environ.get("PARAMINE_KIT_DATA", REPO.parent / "shared" / "data"))
GOLD = KIT / "ud-japanese-gsd" / "ja_gsd-ud-dev.conllu"
RESULT = REPO / "benchmarks" / "results" / "thesaurus_extraction.md"


def adjacent_peer(sentence: str) -> list[Cooccurrence]:
    """Baseline: noun immediately before を and a verb immediately after it."""
    morphemes = analyse_japanese(sentence)
    found = []
    for k in range(1, len(morphemes) - 1):
        if morphemes[k].surface == "を" and morphemes[k - 1].is_noun and morphemes[k + 1].is_verb:
            found.append(Cooccurrence(morphemes[k - 1].surface, verb_lemma(morphemes[k + 1])))
    return found


def _row(name: str, part: str, score: ExtractionScore, seconds: float) -> str:
    return (
        f"| {name} | {part} | {score.gold} | {score.predicted} | {score.true_positives} "
        f"| {score.precision:.3f} | {score.recall:.3f} | {seconds:.2f} |"
    )


def main() -> None:
    gold = load_ud_gold(GOLD)
    half = len(gold) // 2
    parts: dict[str, list[GoldSentence]] = {
        "all": gold,
        "first half (rules developed here)": gold[:half],
        "second half (held out)": gold[half:],
    }
    lines = [
        "# Cooccurrence extraction accuracy (UD Japanese GSD dev)",
        "",
        f"Data: `ja_gsd-ud-dev.conllu`, {len(gold)} sentences, "
        f"{sum(len(g.pairs) for g in gold)} gold (noun, verb) pairs; "
        f"{sum(g.skipped for g in gold)} `obj`+を relations left out of the gold",
        "because the object is a pronoun/adjective or the head is not a verb",
        "(e.g. nominal endings 記述を削除。).",
        "Scores are micro-averaged over per-sentence multisets of (noun form, verb lemma).",
        "Run: `.venv/bin/python -m benchmarks.thesaurus_extraction`.",
        "",
        "| extractor | sentences | gold | predicted | correct | precision | recall | seconds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, extractor in (
        ("paramine rules", extract_cooccurrences),
        ("adjacent peer", adjacent_peer),
    ):
        for part, sentences in parts.items():
            started = time.perf_counter()
            predicted = [extractor(g.text) for g in sentences]
            seconds = time.perf_counter() - started
            lines.append(_row(name, part, score_extraction(sentences, predicted), seconds))
    ours = score_extraction(gold, [extract_cooccurrences(g.text) for g in gold])
    met = ours.precision >= 0.95 and ours.recall >= 0.95
    lines += [
        "",
        f"Goal (precision and recall ≥ 0.95): **{'met' if met else 'not met'}** "
        f"(precision {ours.precision:.3f}, recall {ours.recall:.3f}).",
        "",
        "Where the remaining disagreements come from (read on the first half only):",
        "- coordination: in 燃料と物資を補給, UD puts `obj` on the first conjunct and を on the",
        "  last, so the gold has no pair while the extractor reports (物資, 補給する) — counted",
        "  as a false positive although the pair is a true object;",
        "- fixed expressions (〜をはじめとする, 〜を手に入れる, 〜をピークに) and nominal endings",
        "  whose head is not a verb in UD;",
        "- tokenisation differences between unidic-lite and the treebank (エル・ドラード →",
        "  ドラード, 下野尻 → 尻) and a few attachment ambiguities (こと を 確認 する … 公表).",
        "",
        "Machine: 2 cores shared with other engineers' jobs; timings are noisy.",
        "",
    ]
    report = "\n".join(lines)
    RESULT.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
