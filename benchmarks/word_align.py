"""Word-alignment benchmark on Edinburgh++ test: paramine's aligner vs eflomal vs identity.

Run from the repo root: ``.venv/bin/python -m benchmarks.word_align``. Writes
``benchmarks/results/word_align.md``. Data: ../shared/data/edinburgh-plusplus-jacana, read in
place (train gold only for fitting the link classifier's weights and threshold; test gold only
for the reported scores).
"""

from __future__ import annotations

import os

# One BLAS thread, set before numpy loads: on this shared 2-core machine OpenBLAS's threads
# spin against other jobs and made the link classifier's Newton fit 3-10x slower and erratic.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import platform
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from benchmarks._report import publish
from services.paraphrase.evaluate import (
    AlignmentScores,
    GoldAlignment,
    phrase_scores,
    read_jacana,
    read_pharaoh,
    word_scores,
)
from services.paraphrase.link_classifier import LinkClassifier, decide_links
from services.paraphrase.word_align import AlignerConfig, WordAligner, symmetrize
from services.paraphrase.wordnet import WordNet, default_wordnet

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "edinburgh-plusplus-jacana"
RESULT = REPO / "benchmarks" / "results" / "word_align.md"
Link = tuple[int, int]


def load(split: str) -> list[GoldAlignment]:
    return read_jacana(DATA / f"gold.{split}.sure.json", DATA / f"gold.{split}.sure+poss.json")


def identity_baseline(gold: Sequence[GoldAlignment]) -> list[set[Link]]:
    """One-to-one links between identical tokens (case-insensitive), nearest position first."""
    result = []
    for g in gold:
        candidates = sorted(
            (abs(i / len(g.source) - j / len(g.target)), i, j)
            for i, a in enumerate(g.source)
            for j, b in enumerate(g.target)
            if a.lower() == b.lower()
        )
        used_source: set[int] = set()
        used_target: set[int] = set()
        links = set()
        for _, i, j in candidates:
            if i not in used_source and j not in used_target:
                links.add((i, j))
                used_source.add(i)
                used_target.add(j)
        result.append(links)
    return result


def run_eflomal(
    corpus: Sequence[GoldAlignment], n_test: int
) -> tuple[dict[str, list[set[Link]]], float]:
    """eflomal (default settings) trained on all given sentences, symmetrised here."""
    import eflomal

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        forward_path, backward_path = Path(folder) / "fwd", Path(folder) / "rev"
        aligner = eflomal.Aligner()
        aligner.align(
            [" ".join(g.source) for g in corpus],
            [" ".join(g.target) for g in corpus],
            links_filename_fwd=str(forward_path),
            links_filename_rev=str(backward_path),
            quiet=True,
        )
        forward = read_pharaoh(forward_path)
        backward = read_pharaoh(backward_path)
    seconds = time.perf_counter() - start
    results = {}
    for method in ("intersection", "grow-diag-final-and"):
        results[method] = [
            symmetrize(set(f), set(b), len(g.source), len(g.target), method)
            for f, b, g in zip(forward[-n_test:], backward[-n_test:], corpus[-n_test:], strict=True)
        ]
    return results, seconds


TARGETS = ("sure", "possible")
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
CV_FOLDS = 3
# Choice on train CV: the best F1 among settings whose non-identical F1 reaches the goal (0.60)
# plus a margin of 0.01 for the step from train CV to test.
NON_IDENTICAL_FLOOR = 0.61
Choice = tuple[str, float, float]  # target, threshold (non-identical cells), identical cells


def _gold_links(g: GoldAlignment, target: str) -> frozenset[Link]:
    return g.sure if target == "sure" else g.possible


def cross_validate(
    aligner: WordAligner, train: Sequence[GoldAlignment]
) -> dict[Choice, tuple[AlignmentScores, AlignmentScores]]:
    """3-fold CV on train: every training target (sure / possible gold) and pair of thresholds
    (one for cells of different words, one for identical words)."""
    results = {}
    for target in TARGETS:
        probabilities: list[NDArray[np.float64]] = [np.zeros(0)] * len(train)
        for fold in range(CV_FOLDS):
            inside = [g for k, g in enumerate(train) if k % CV_FOLDS != fold]
            model = LinkClassifier.fit(
                aligner, [(g.source, g.target, _gold_links(g, target)) for g in inside]
            )
            for k, g in enumerate(train):
                if k % CV_FOLDS == fold:
                    probabilities[k] = model.probabilities(aligner, g.source, g.target)
        for threshold in THRESHOLDS:
            for identical in THRESHOLDS:
                links = [
                    decide_links(p, g.source, g.target, threshold, identical)
                    for p, g in zip(probabilities, train, strict=True)
                ]
                results[(target, threshold, identical)] = (
                    word_scores(links, train),
                    word_scores(links, train, only_non_identical=True),
                )
    return results


def choose(cv: dict[Choice, tuple[AlignmentScores, AlignmentScores]]) -> Choice:
    """Best CV F1 with non-identical F1 >= NON_IDENTICAL_FLOOR (else best F1 + non-id F1)."""
    allowed = [key for key, (_, non_id) in cv.items() if non_id.f1 >= NON_IDENTICAL_FLOOR]
    if allowed:
        return max(allowed, key=lambda key: cv[key][0].f1)
    return max(cv, key=lambda key: cv[key][0].f1 + cv[key][1].f1)


def fit_classifier(
    aligner: WordAligner,
    train: Sequence[GoldAlignment],
    choice: Choice,
) -> LinkClassifier:
    """The classifier refitted on all train pairs with the target and thresholds chosen by CV."""
    target, threshold, identical = choice
    model = LinkClassifier.fit(
        aligner, [(g.source, g.target, _gold_links(g, target)) for g in train]
    )
    return model.with_threshold(threshold, identical)


def row(name: str, all_links: AlignmentScores, non_identical: AlignmentScores, extra: str) -> str:
    return (
        f"| {name} | {all_links.precision:.3f} | {all_links.recall:.3f} | {all_links.f1:.3f} "
        f"| {all_links.aer:.3f} | {non_identical.precision:.3f} | {non_identical.recall:.3f} "
        f"| {non_identical.f1:.3f} | {extra} |"
    )


def main() -> None:
    train, test = load("train"), load("test")
    corpus = train + test  # sentences only; no gold is passed to the unsupervised aligners
    systems: dict[str, tuple[list[set[Link]], str]] = {}

    systems["identity baseline"] = (identity_baseline(test), "-")

    eflomal_links, eflomal_seconds = run_eflomal(corpus, len(test))
    for method, links in eflomal_links.items():
        systems[f"eflomal {method}"] = (links, f"{eflomal_seconds:.2f} s")

    start = time.perf_counter()
    aligner = WordAligner(AlignerConfig()).fit([(g.source, g.target) for g in corpus])
    fit_seconds = time.perf_counter() - start
    for method in ("intersection", "grow-diag-final-and"):
        variant = aligner.with_config(symmetrize=method)
        start = time.perf_counter()
        links = [variant.align(g.source, g.target) for g in test]
        seconds = fit_seconds + time.perf_counter() - start
        systems[f"paramine HMM {method}"] = (links, f"{seconds:.2f} s")

    start = time.perf_counter()
    if default_wordnet() is None:
        raise SystemExit("WordNet is absent: apt-get install wordnet-base (/usr/share/wordnet)")
    wordnet_seconds = time.perf_counter() - start
    cv = cross_validate(aligner, train)
    choice = choose(cv)
    # the one-off fit is timed cold: WordNet look-ups cached during CV are forgotten first
    WordNet.clear_caches()
    start = time.perf_counter()
    classifier = fit_classifier(aligner, train, choice)
    classifier_seconds = time.perf_counter() - start
    start = time.perf_counter()
    links = [classifier.align(aligner, g.source, g.target) for g in test]
    seconds = fit_seconds + wordnet_seconds + time.perf_counter() - start
    total = seconds + classifier_seconds
    systems["paramine HMM + link classifier"] = (
        links,
        f"{seconds:.2f} s (+{classifier_seconds:.2f} s fitting it on train gold; "
        f"total {total:.2f} s)",
    )

    lines = [
        "# Word alignment on Edinburgh++ (monolingual English paraphrase pairs)",
        "",
        "Command: `.venv/bin/python -m benchmarks.word_align` (one run, all systems side by side).",
        "",
        "## Data and protocol",
        f"- `../shared/data/edinburgh-plusplus-jacana`: train {len(train)} pairs, "
        f"test {len(test)} pairs; sure links from `gold.*.sure.json`, possible = the "
        "`sureAlign` of `gold.*.sure+poss.json` (its `possibleAlign` is empty, see SOURCE.md).",
        "- Unsupervised aligners (eflomal, paramine's IBM-1 + HMM) are trained on the source and "
        f"target *sentences* of train + test ({len(corpus)} pairs, no links), as eflomal is "
        "normally run; they never see a gold link.",
        "- The link classifier (`services/paraphrase/link_classifier.py`: two stacked logistic "
        "stages over the aligner's posteriors and lexical evidence: identity, lemma, stem, "
        "WordNet 3.0 synonyms / lexical relations / hypernyms / two-word lemmas (Debian "
        "`wordnet-base`), trigram similarity, stop words, punctuation, context matches, and a "
        "lexicon of word pairs linked in train gold) is fitted on **train gold only**. Its "
        "training target (sure or sure+possible links) and its two thresholds (one for cells "
        "of different words, one for identical words) are chosen by 3-fold cross-validation "
        "on train (criterion: the best F1 among settings with non-identical F1 >= "
        f"{NON_IDENTICAL_FLOOR:.2f}, the goal plus a margin; table below; chosen: {choice[0]}, "
        f"{choice[1]:.2f} / identical {choice[2]:.2f}); it is then refitted on all train "
        "pairs. Test gold is used only for the scores below.",
        "- Aligner parameters are the `AlignerConfig` defaults (5 IBM-1 + 5 HMM iterations, "
        "identity prior weight 2, stem weight 0.5, p0 0.1, jump buckets +-7), not tuned on test.",
        "- Scores (seed paraphrase-corpus-alignment-evaluation.txt eq. 2): P = |A & P_gold| / |A|, "
        'R = |A & S_gold| / |S_gold|, F1, AER; "non-identical" restricts predicted and gold '
        "links to pairs of different words (case-insensitive).",
        "- Time: wall clock of training on all sentences plus aligning test (eflomal: its whole "
        "`align` call including file preparation); the link classifier's time adds loading "
        f"WordNet ({wordnet_seconds:.2f} s) and, separately, its one-off fitting on train gold "
        "(timed cold: the WordNet look-up caches filled during CV are cleared first). The "
        "process runs with one BLAS thread (OPENBLAS_NUM_THREADS=1; threaded BLAS made the "
        "Newton fit erratic on this shared machine); eflomal is a separate program.",
        "",
        "## Results (test, 306 pairs)",
        "",
        "| system | P | R | F1 | AER | P non-id | R non-id | F1 non-id | time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, (links, timing) in systems.items():
        lines.append(
            row(
                name,
                word_scores(links, test),
                word_scores(links, test, only_non_identical=True),
                timing,
            )
        )
    lines += [
        "",
        "Cross-validation on train (3 folds, link classifier only; choice made here). One row "
        "per target and threshold for cells of different words, with the identical-word "
        "threshold that gives the best CV F1 there:",
        "",
        "| target | threshold | identical | P | R | F1 | P non-id | R non-id | F1 non-id |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for target in TARGETS:
        for threshold in THRESHOLDS:
            keys = [key for key in cv if key[:2] == (target, threshold)]
            key = max(keys, key=lambda key: cv[key][0].f1)
            (target, threshold, identical), (all_cv, non_id_cv) = key, cv[key]
            mark = " (chosen)" if key == choice else ""
            lines.append(
                f"| {target}{mark} | {threshold:.2f} | {identical:.2f} | {all_cv.precision:.3f} "
                f"| {all_cv.recall:.3f} | {all_cv.f1:.3f} | {non_id_cv.precision:.3f} "
                f"| {non_id_cv.recall:.3f} | {non_id_cv.f1:.3f} |"
            )
    lines += [
        "",
        "Phrase level (atomic non-identical phrase pairs, seed eq. 3, gold from possible links):",
        "",
    ]
    lines += ["| system | P | R | F1 |", "|---|---|---|---|"]
    for name, (links, _) in systems.items():
        scores = phrase_scores(links, test)
        lines.append(f"| {name} | {scores.precision:.3f} | {scores.recall:.3f} | {scores.f1:.3f} |")
    best = word_scores(systems["paramine HMM + link classifier"][0], test)
    best_non_identical = word_scores(
        systems["paramine HMM + link classifier"][0], test, only_non_identical=True
    )
    lines += [
        "",
        "## Goal check",
        f"- F1 >= 0.90: {'met' if best.f1 >= 0.90 else 'NOT met'} (F1 {best.f1:.3f}).",
        f"- non-identical F1 >= 0.60: {'met' if best_non_identical.f1 >= 0.60 else 'NOT met'} "
        f"(F1 {best_non_identical.f1:.3f}).",
        f"- time no more than eflomal's: {'met' if total <= eflomal_seconds else 'NOT met'} "
        f"(paramine HMM + link classifier {total:.2f} s including WordNet loading and its "
        f"fitting on train gold, eflomal {eflomal_seconds:.2f} s; same run, shared machine).",
        "",
        "## Machine",
        f"{platform.platform()}, Python {platform.python_version()}; 2 cores shared with "
        "other engineers' jobs, so timings are noisy. paramine's time includes numba's first "
        "call only when the on-disk cache is cold.",
        "",
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
