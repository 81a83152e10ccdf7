"""Scoring word alignments against sure/possible gold: P/R/F1, AER, phrase P/R/F1, kappa_C (§3c).

Seed: paraphrase-corpus-alignment-evaluation.txt §3 (Cohn, Callison-Burch & Lapata 2008).
With A the prediction and B the reference, S sure and P possible links (S within P):
    Precision = |A_S & B_P| / |A_S|       Recall = |A_P & B_S| / |B_S|       (eq. 2)
    F1 = 2PR / (P + R)                    AER = 1 - (|A&S| + |A&P|) / (|A| + |S|)  (Och & Ney)
A flat prediction has A_S = A_P = A. "Non-identical" restricts every set to links between
different words (case-insensitive), as the seed does to avoid inflated monolingual scores.
Phrase level (eq. 3), over non-identical phrase pairs extracted from the possible links:
    Precision = |A_atom & B_all| / |A_atom|      Recall = |B_atom & A_all| / |B_atom|
kappa_C (eq. 7): kappa_C = (theta - theta_0) / (1 - theta_0), theta the mean per-pair set
agreement |A_i & B_i| / max(|A_i|, |B_i|) (Kupper & Hafner's intersection metric) over atomic
phrase pairs, theta_0 its expectation when both coders edit the initial automatic alignment at
random, estimated by seeded Monte Carlo with a per-coder edit rate linear in N + M.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from services.paraphrase.phrases import PhrasePair, extract_phrase_pairs
from shared.errors import InvalidInput

Link = tuple[int, int]


@dataclass(frozen=True)
class GoldAlignment:
    """One sentence pair with sure links and possible links (sure is a subset of possible)."""

    source: tuple[str, ...]
    target: tuple[str, ...]
    sure: frozenset[Link]
    possible: frozenset[Link]
    pair_id: str = ""


@dataclass(frozen=True)
class AlignmentScores:
    """Precision, recall, F1 and AER with the counts they come from."""

    precision: float
    recall: float
    f1: float
    aer: float
    predicted: int
    gold_sure: int


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def parse_links(text: str) -> frozenset[Link]:
    """Pharaoh links ``i-j`` separated by spaces (0-based)."""
    links = set()
    for item in text.split():
        parts = item.split("-")
        if len(parts) != 2 or not parts[0].isdigit() or not parts[1].isdigit():
            raise InvalidInput(f"malformed alignment link {item!r} (expected i-j)")
        links.add((int(parts[0]), int(parts[1])))
    return frozenset(links)


def format_links(links: Iterable[Link]) -> str:
    """Links as one Pharaoh line, sorted."""
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def read_jacana(path: Path, possible_path: Path | None = None) -> list[GoldAlignment]:
    """jacana JSON gold: sure = ``sureAlign``, possible = sure + ``possibleAlign``.

    The Edinburgh++ release keeps ``possibleAlign`` empty and ships sure and sure+possible as two
    files (SOURCE.md): pass ``gold.*.sure.json`` as ``path`` and ``gold.*.sure+poss.json`` as
    ``possible_path``; its ``sureAlign`` and ``possibleAlign`` are then read as the possible set
    (matched by ``id``; MSR RTE2's sure+poss file fills ``possibleAlign``).
    """
    records = _json_list(path)
    extra: dict[str, frozenset[Link]] = {}
    if possible_path is not None:
        extra = {
            str(r.get("id", n)): parse_links(r["sureAlign"])
            | parse_links(r.get("possibleAlign", "") or "")
            for n, r in enumerate(_json_list(possible_path))
        }
    gold = []
    for n, record in enumerate(records):
        try:
            sure = parse_links(record["sureAlign"])
            possible = sure | parse_links(record.get("possibleAlign", "") or "")
            pair_id = str(record.get("id", n))
            if possible_path is not None and pair_id not in extra:
                # the wrong file (train for test) was read as no possible links at all
                raise InvalidInput(
                    f"{possible_path} has no record {pair_id!r} of {path}: not its sure+poss file"
                )
            possible = possible | extra.get(pair_id, frozenset())
            source, target = tuple(record["source"].split()), tuple(record["target"].split())
        except (KeyError, AttributeError) as error:
            raise InvalidInput(f"{path}: record {n} lacks a field: {error}") from None
        # a link past the end of a sentence failed later, in a scorer, as an IndexError
        require_links_within(possible, len(source), len(target), f"{path}: record {n}")
        gold.append(GoldAlignment(source, target, sure, frozenset(possible), pair_id))
    return gold


def require_links_within(links: Iterable[Link], rows: int, columns: int, where: str) -> None:
    """Refuse a link (i, j) outside a ``rows`` x ``columns`` sentence pair (InvalidInput)."""
    outside = sorted((i, j) for i, j in links if not (0 <= i < rows and 0 <= j < columns))
    if outside:
        i, j = outside[0]
        raise InvalidInput(
            f"{where}: link {i}-{j} lies outside the sentence pair ({rows} source and "
            f"{columns} target tokens)"
        )


def _json_list(path: Path) -> list[dict[str, str]]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InvalidInput(f"cannot read jacana JSON {path}: {error}") from None
    if not isinstance(data, list):
        raise InvalidInput(f"{path}: expected a JSON list of sentence pairs")
    return data


def read_pharaoh(path: Path) -> list[frozenset[Link]]:
    """One line of ``i-j`` links per sentence pair."""
    return [parse_links(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def read_pharaoh_gold(
    sure_path: Path, possible_path: Path, source_path: Path, target_path: Path
) -> list[GoldAlignment]:
    """Pharaoh S and P files plus tokenised source/target files (one pair per line)."""
    sure = read_pharaoh(sure_path)
    possible = read_pharaoh(possible_path)
    sources = Path(source_path).read_text(encoding="utf-8").splitlines()
    targets = Path(target_path).read_text(encoding="utf-8").splitlines()
    if not len(sure) == len(possible) == len(sources) == len(targets):
        raise InvalidInput("sure, possible, source and target files differ in line count")
    return [
        GoldAlignment(tuple(s.split()), tuple(t.split()), sl, sl | pl, str(n))
        for n, (s, t, sl, pl) in enumerate(zip(sources, targets, sure, possible, strict=True))
    ]


def non_identical(links: Iterable[Link], source: Sequence[str], target: Sequence[str]) -> set[Link]:
    """Links between different words (case-insensitive)."""
    return {(i, j) for i, j in links if source[i].lower() != target[j].lower()}


def word_scores(
    predictions: Sequence[Iterable[Link]],
    gold: Sequence[GoldAlignment],
    *,
    only_non_identical: bool = False,
    predicted_possible: Sequence[Iterable[Link]] | None = None,
) -> AlignmentScores:
    """Corpus-level word P/R/F1 (eq. 2) and AER; predictions may carry their own possibles."""
    if len(predictions) != len(gold):
        raise InvalidInput(f"{len(predictions)} predicted alignments for {len(gold)} gold pairs")
    possibles = predictions if predicted_possible is None else predicted_possible
    a_s_total = b_s_total = precise = recalled = a_and_s = a_and_p = 0
    for pred, pred_possible, ref in zip(predictions, possibles, gold, strict=True):
        a_s = _in_range(pred, ref)
        a_p = _in_range(pred_possible, ref) | a_s
        b_s, b_p = set(ref.sure), set(ref.possible)
        if only_non_identical:
            a_s, a_p = (
                non_identical(a_s, ref.source, ref.target),
                non_identical(a_p, ref.source, ref.target),
            )
            b_s, b_p = (
                non_identical(b_s, ref.source, ref.target),
                non_identical(b_p, ref.source, ref.target),
            )
        a_s_total += len(a_s)
        b_s_total += len(b_s)
        precise += len(a_s & b_p)
        recalled += len(a_p & b_s)
        a_and_s += len(a_s & b_s)
        a_and_p += len(a_s & b_p)
    precision = _ratio(precise, a_s_total)
    recall = _ratio(recalled, b_s_total)
    aer = 1.0 - _ratio(a_and_s + a_and_p, a_s_total + b_s_total)
    return AlignmentScores(precision, recall, _f1(precision, recall), aer, a_s_total, b_s_total)


def _in_range(links: Iterable[Link], ref: GoldAlignment) -> set[Link]:
    checked = set()
    for i, j in links:
        if not (0 <= i < len(ref.source) and 0 <= j < len(ref.target)):
            raise InvalidInput(f"link {i}-{j} is outside pair {ref.pair_id or '?'}")
        checked.add((i, j))
    return checked


def _non_identical_phrases(
    pairs: Iterable[PhrasePair], source: Sequence[str], target: Sequence[str]
) -> tuple[set[tuple[int, int, int, int]], set[tuple[int, int, int, int]]]:
    atomic, every = set(), set()
    for pair in pairs:
        phrase, paraphrase = pair.words(source, target)
        if phrase.lower() == paraphrase.lower():
            continue
        every.add(pair.box)
        if pair.atomic:
            atomic.add(pair.box)
    return atomic, every


@dataclass(frozen=True)
class PhraseScores:
    """Phrase-level precision, recall and F1 over atomic pairs (eq. 3)."""

    precision: float
    recall: float
    f1: float
    predicted_atomic: int
    gold_atomic: int


def phrase_scores(
    predictions: Sequence[Iterable[Link]],
    gold: Sequence[GoldAlignment],
    *,
    max_len: int = 7,
) -> PhraseScores:
    """Eq. 3 over non-identical phrase pairs, gold pairs extracted from the possible links."""
    if len(predictions) != len(gold):
        raise InvalidInput(f"{len(predictions)} predicted alignments for {len(gold)} gold pairs")
    a_atom_total = b_atom_total = precise = recalled = 0
    for pred, ref in zip(predictions, gold, strict=True):
        a_pairs = extract_phrase_pairs(
            ref.source, ref.target, _in_range(pred, ref), max_len=max_len
        )
        b_pairs = extract_phrase_pairs(ref.source, ref.target, ref.possible, max_len=max_len)
        a_atom, a_all = _non_identical_phrases(a_pairs, ref.source, ref.target)
        b_atom, b_all = _non_identical_phrases(b_pairs, ref.source, ref.target)
        a_atom_total += len(a_atom)
        b_atom_total += len(b_atom)
        precise += len(a_atom & b_all)
        recalled += len(b_atom & a_all)
    precision = _ratio(precise, a_atom_total)
    recall = _ratio(recalled, b_atom_total)
    return PhraseScores(precision, recall, _f1(precision, recall), a_atom_total, b_atom_total)


def set_agreement(
    first: set[tuple[int, int, int, int]], second: set[tuple[int, int, int, int]]
) -> float:
    """Kupper & Hafner's intersection metric |A & B| / max(|A|, |B|); 1 when both are empty."""
    if not first and not second:
        return 1.0
    return len(first & second) / max(len(first), len(second))


@dataclass(frozen=True)
class KappaC:
    """Observed agreement theta, chance agreement theta_0 and kappa_C (eq. 7); ``kappa`` is
    None where eq. 7 is undefined (see ``kappa_c``)."""

    observed: float
    chance: float
    kappa: float | None


@dataclass(frozen=True)
class CodedPair:
    """One doubly coded sentence pair: the initial automatic links and both coders' links."""

    source: tuple[str, ...]
    target: tuple[str, ...]
    initial: frozenset[Link]
    coder_a: frozenset[Link]
    coder_b: frozenset[Link]


def _atomic_boxes(
    source: Sequence[str], target: Sequence[str], links: Iterable[Link], max_len: int
) -> set[tuple[int, int, int, int]]:
    return _non_identical_phrases(
        extract_phrase_pairs(source, target, links, max_len=max_len), source, target
    )[0]


def edit_rate_model(pairs: Sequence[CodedPair], coder: str) -> tuple[float, float]:
    """Pr(edit | coder, N, M) = a + b (N + M), least squares over the coder's edited cells."""
    lengths = np.array([len(p.source) + len(p.target) for p in pairs], dtype=np.float64)
    rates = np.array(
        [
            len((p.coder_a if coder == "a" else p.coder_b) ^ p.initial)
            / (len(p.source) * len(p.target))
            for p in pairs
        ]
    )
    if len(set(lengths.tolist())) < 2:
        return float(rates.mean()), 0.0
    slope, intercept = np.polyfit(lengths, rates, 1)
    return float(intercept), float(slope)


def kappa_c(
    pairs: Sequence[CodedPair],
    *,
    samples: int = 100,
    seed: int = 0,
    max_len: int = 7,
) -> KappaC:
    """kappa_C over atomic non-identical phrase pairs (eq. 7), theta_0 by Monte Carlo (seeded).

    Degenerate case theta_0 = 1 (every sampled edit left both coders' phrase pairs alike,
    e.g. neither coder edited the initial alignment), where eq. 7 divides by zero:
    kappa_C = 1 when theta = 1 too (the coders agree perfectly), None when theta < 1 (no
    value; more ``samples`` give theta_0 < 1). Never inf or NaN, so the result is JSON.
    """
    if not pairs:
        raise InvalidInput("kappa_C needs at least one doubly coded sentence pair")
    if samples < 1:
        raise InvalidInput("samples must be positive")
    for n, pair in enumerate(pairs):
        # an empty side has no cells to edit: the edit rate divided by zero
        if not pair.source or not pair.target:
            raise InvalidInput(f"kappa_C: coded pair {n} has an empty sentence")
        for links in (pair.initial, pair.coder_a, pair.coder_b):
            require_links_within(links, len(pair.source), len(pair.target), f"coded pair {n}")
    observed = float(
        np.mean(
            [
                set_agreement(
                    _atomic_boxes(p.source, p.target, p.coder_a, max_len),
                    _atomic_boxes(p.source, p.target, p.coder_b, max_len),
                )
                for p in pairs
            ]
        )
    )
    rng = np.random.default_rng(seed)
    models = {coder: edit_rate_model(pairs, coder) for coder in ("a", "b")}
    chance_terms = []
    for pair in pairs:
        shape = (len(pair.source), len(pair.target))
        initial = np.zeros(shape, dtype=bool)
        for i, j in pair.initial:
            initial[i, j] = True
        length = shape[0] + shape[1]
        rates = {c: float(np.clip(a + b * length, 0.0, 1.0)) for c, (a, b) in models.items()}
        for _ in range(samples):
            # Each cell flips independently with the coder's edit probability (binomial edits).
            sampled = [initial ^ (rng.random(shape) < rates[c]) for c in ("a", "b")]
            boxes = [
                _atomic_boxes(pair.source, pair.target, _matrix_links(m), max_len) for m in sampled
            ]
            chance_terms.append(set_agreement(boxes[0], boxes[1]))
    chance = float(np.mean(chance_terms))
    return KappaC(observed, chance, _kappa(observed, chance))


def _kappa(observed: float, chance: float) -> float | None:
    """kappa_C = (theta - theta_0) / (1 - theta_0) (eq. 7); 1 or None at theta_0 = 1."""
    if chance < 1.0:
        return (observed - chance) / (1.0 - chance)
    return 1.0 if observed == 1.0 else None


def _matrix_links(matrix: NDArray[np.bool_]) -> set[Link]:
    rows, cols = np.nonzero(matrix)
    return {(int(i), int(j)) for i, j in zip(rows, cols, strict=True)}
