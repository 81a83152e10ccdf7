"""Phrase pairs consistent with a word alignment, atomic vs composite, and a PPDB-like table.

Seed: paraphrase-corpus-alignment-evaluation.txt §3 "Phrase-Based Measures" (Cohn et al. 2008),
after Och, Tillmann & Ney (1999): a phrase pair (source span, target span) is *consistent* when
no link leaves its box; we keep only pairs whose four boundary words are aligned (the seed's
"maximally conservative" variant). Our reading of *atomic* ("the smallest possible phrase
pairs"): the smallest consistent box containing a given link (the closure of that link under
"a row or column in the box drags in all its links"); every other extracted pair is *composite*
and is covered by the atomic pairs inside it (tests check this). Aggregation (docs/methods.md
§3b): counts per (phrase, paraphrase) and relative frequencies p(e|f), p(f|e), like PPDB, and
the word links inside the pair (PPDB's ALIGNMENT field).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from shared.errors import InvalidInput

Link = tuple[int, int]


@dataclass(frozen=True, order=True)
class PhrasePair:
    """Half-open spans source[src_start:src_end] <-> target[tgt_start:tgt_end]."""

    src_start: int
    src_end: int
    tgt_start: int
    tgt_end: int
    atomic: bool = False

    @property
    def box(self) -> tuple[int, int, int, int]:
        return (self.src_start, self.src_end, self.tgt_start, self.tgt_end)

    def words(self, source: Sequence[str], target: Sequence[str]) -> tuple[str, str]:
        """The phrase and its paraphrase as space-joined tokens."""
        return (
            " ".join(source[self.src_start : self.src_end]),
            " ".join(target[self.tgt_start : self.tgt_end]),
        )

    def alignment(self, links: Iterable[Link]) -> str:
        """The links inside the pair, as PPDB writes its ALIGNMENT field: ``"0-0 1-1 1-2"``,
        "i-j" linking the phrase's word i to the paraphrase's word j (counted from the pair's
        first words), sorted. A consistent pair's box holds every link of its words."""
        inside = sorted(
            (i - self.src_start, j - self.tgt_start)
            for i, j in links
            if self.src_start <= i < self.src_end and self.tgt_start <= j < self.tgt_end
        )
        return " ".join(f"{i}-{j}" for i, j in inside)


def _check_links(links: Iterable[Link], source_len: int, target_len: int) -> set[Link]:
    checked = set()
    for i, j in links:
        if not (0 <= i < source_len and 0 <= j < target_len):
            raise InvalidInput(f"link {i}-{j} is outside a {source_len}x{target_len} sentence pair")
        checked.add((i, j))
    return checked


def is_consistent(links: set[Link], box: tuple[int, int, int, int]) -> bool:
    """No link connects a word inside the box to a word outside it (Och et al. 1999)."""
    src_start, src_end, tgt_start, tgt_end = box
    inside = 0
    for i, j in links:
        in_source = src_start <= i < src_end
        in_target = tgt_start <= j < tgt_end
        if in_source != in_target:
            return False
        inside += in_source
    return inside > 0


def link_closure(links: set[Link], link: Link) -> tuple[int, int, int, int]:
    """The smallest consistent box containing ``link``: grow until no link leaves it."""
    src_start, src_end, tgt_start, tgt_end = link[0], link[0] + 1, link[1], link[1] + 1
    changed = True
    while changed:
        changed = False
        for i, j in links:
            if (src_start <= i < src_end) or (tgt_start <= j < tgt_end):
                box = (
                    min(src_start, i),
                    max(src_end, i + 1),
                    min(tgt_start, j),
                    max(tgt_end, j + 1),
                )
                if box != (src_start, src_end, tgt_start, tgt_end):
                    src_start, src_end, tgt_start, tgt_end = box
                    changed = True
    return (src_start, src_end, tgt_start, tgt_end)


def extract_phrase_pairs(
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    links: Iterable[Link],
    *,
    max_len: int = 7,
) -> list[PhrasePair]:
    """Every consistent phrase pair with aligned boundary words and spans <= max_len, sorted."""
    if max_len < 1:
        raise InvalidInput("max_len must be positive")
    link_set = _check_links(links, len(src_tokens), len(tgt_tokens))
    targets_of: dict[int, list[int]] = {}
    for i, j in link_set:
        targets_of.setdefault(i, []).append(j)
    atomic_boxes = {link_closure(link_set, link) for link in link_set}
    pairs = []
    for src_start in sorted(targets_of):
        for src_last in sorted(targets_of):
            if not src_start <= src_last < src_start + max_len:
                continue
            # The target span is fixed by the links (its boundary words must be aligned).
            covered = [j for i in range(src_start, src_last + 1) for j in targets_of.get(i, [])]
            box = (src_start, src_last + 1, min(covered), max(covered) + 1)
            if box[3] - box[2] > max_len or not is_consistent(link_set, box):
                continue
            pairs.append(PhrasePair(*box, atomic=box in atomic_boxes))
    return sorted(pairs)


def atomic_phrase_pairs(
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    links: Iterable[Link],
    *,
    max_len: int = 7,
) -> list[PhrasePair]:
    """The atomic subset of :func:`extract_phrase_pairs`."""
    return [
        p for p in extract_phrase_pairs(src_tokens, tgt_tokens, links, max_len=max_len) if p.atomic
    ]


@dataclass(frozen=True)
class PhraseTableEntry:
    """One non-identical paraphrase pair with its corpus count, relative frequencies and word
    alignment (:meth:`PhrasePair.alignment`: the most frequent one among the pair's
    occurrences; "" in a table stored before alignments were kept)."""

    phrase: str
    paraphrase: str
    count: int
    p_e_given_f: float
    p_f_given_e: float
    lang: str = ""  # the language of the pairs the table was built from ("" when unknown)
    alignment: str = ""


def search_entries(entries: Iterable[PhraseTableEntry], text: str) -> list[PhraseTableEntry]:
    """The entries whose phrase or paraphrase contains ``text``, case ignored: "bank" finds
    "the bank of" and "Bank"."""
    needle = text.casefold()
    return [
        entry
        for entry in entries
        if needle in entry.phrase.casefold() or needle in entry.paraphrase.casefold()
    ]


def phrase_table(
    aligned_pairs: Iterable[tuple[Sequence[str], Sequence[str], Iterable[Link]]],
    *,
    max_len: int = 7,
) -> list[PhraseTableEntry]:
    """PPDB-like table over the distinct aligned pairs; only non-identical pairs are listed.

    Identity ignores case: "The" -> "the" or "US" -> "us" is capitalisation (sentence-initial,
    headline style), not a paraphrase, and the evaluation's "non-identical" (§3c,
    ``evaluate``) is case-insensitive as well.

    p(e|f) = c(f, e) / c(f) and p(f|e) = c(f, e) / c(e), with the marginals counted over all
    extracted pairs (identical ones too), so probabilities are honest relative frequencies.
    An entry's alignment is the one its occurrences show most often (ties: the first in
    string order), as PPDB keeps one alignment per rule.
    """
    distinct = {(tuple(s), tuple(t), frozenset(links)) for s, t, links in aligned_pairs}
    joint: Counter[tuple[str, str]] = Counter()
    alignments: dict[tuple[str, str], Counter[str]] = {}
    for source, target, links in sorted(distinct, key=lambda x: (x[0], x[1], sorted(x[2]))):
        for pair in extract_phrase_pairs(source, target, links, max_len=max_len):
            words = pair.words(source, target)
            joint[words] += 1
            alignments.setdefault(words, Counter())[pair.alignment(links)] += 1
    phrase_count: Counter[str] = Counter()
    paraphrase_count: Counter[str] = Counter()
    for (phrase, paraphrase), count in joint.items():
        phrase_count[phrase] += count
        paraphrase_count[paraphrase] += count
    entries = [
        PhraseTableEntry(
            phrase,
            paraphrase,
            count,
            count / phrase_count[phrase],
            count / paraphrase_count[paraphrase],
            alignment=most_frequent(alignments[phrase, paraphrase]),
        )
        for (phrase, paraphrase), count in joint.items()
        if phrase.lower() != paraphrase.lower()
    ]
    return sorted(entries, key=lambda e: (e.phrase, -e.count, e.paraphrase))


def most_frequent(counts: Counter[str]) -> str:
    """The most frequent key of ``counts``; of equally frequent ones, the first in order."""
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def format_ppdb(entries: Iterable[PhraseTableEntry]) -> Iterator[str]:
    """PPDB-style lines, as PPDB writes its LHS ||| PHRASE ||| PARAPHRASE ||| FEATURES |||
    ALIGNMENT fields: ``[X] ||| phrase ||| paraphrase ||| p(e|f)=… p(f|e)=… count=N lang=xx
    ||| 0-0 1-1``. The features hold the corpus count (``count=``) and end with ``lang=xx``
    when the entry's language is known (one file may hold several languages' tables); the
    alignment links word i of the phrase to word j of the paraphrase. PPDB 2.0's sixth
    field, the entailment relation, is not given: nothing here classifies it."""
    for entry in entries:
        features = (
            f"p(e|f)={entry.p_e_given_f:.6g} p(f|e)={entry.p_f_given_e:.6g} count={entry.count}"
        )
        if entry.lang:
            features += f" lang={entry.lang}"
        fields = ("[X]", entry.phrase, entry.paraphrase, features, entry.alignment)
        yield " ||| ".join(fields)
