"""Scoring cooccurrence extraction against gold (noun, verb) pairs from UD dependency parses.

Gold pairs (docs/methods.md §4 step 1, evaluated as issue 6 asks): in a CoNLL-U treebank, every
``obj`` relation whose dependent is a NOUN or PROPN and has a ``case`` child を gives
(dependent form, head lemma) when the head is a VERB, or (dependent form, head lemma + "する")
when the head is a サ変 noun used as a verb (GSD: UPOS VERB with XPOS 名詞-…-サ変可能, or a
NOUN with an auxiliary する, lemma 為る). Objects of other heads
(nominal sentence endings such as 記述を削除。, adjectival predicates such as 収容可能) and
pronoun objects are not verb cooccurrences and are left out; they are counted in
``GoldSentence.skipped`` so a report can say how many.

Coordination (``coordination=True``, the default): in UD a coordinated object "AとBを食べる" is
``obj`` on the first conjunct A, with B attached to A as ``conj``, and GSD puts the case
marker を on the last conjunct B. UD's ``conj`` shares its head's relation, so every conjunct
of an ``obj`` whose coordination carries を (on the ``obj`` itself or on one of its ``conj``
descendants) is an object of the head verb: (A, 食べる) and (B, 食べる). With
``coordination=False`` only the literal reading is taken (an ``obj`` with its own を child),
which leaves such objects out.

Tokenisations (``score_extraction(..., aligned=True)``): GSD's tokens and unidic-lite's
morphemes do not always cut a word the same way (GSD エル・ドラード and 下野尻 are one token,
unidic-lite ends them with ドラード and 尻). Both sides name the object by the unit that ends
right before を, so after exact matching a left-over predicted pair and a left-over gold pair of
the same sentence and verb are aligned when one noun ends the other (the same surface span end):
the extractor found the right object, cut differently. Nothing else is relaxed (the verb lemma
must be equal), and the strict score is reported beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from services.thesaurus.cooccur import Cooccurrence

_SURU_LEMMA = "為る"


@dataclass(frozen=True)
class GoldSentence:
    """A treebank sentence's raw text and its gold cooccurrences."""

    text: str
    pairs: tuple[Cooccurrence, ...]
    skipped: int = 0


@dataclass
class ExtractionScore:
    """Micro-averaged precision and recall over multisets of pairs per sentence."""

    true_positives: int = 0
    predicted: int = 0
    gold: int = 0
    errors: list[tuple[str, tuple[Cooccurrence, ...], tuple[Cooccurrence, ...]]] = field(
        default_factory=list
    )

    @property
    def precision(self) -> float:
        return self.true_positives / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.true_positives / self.gold if self.gold else 1.0


def _conllu_sentences(path: Path) -> Iterator[tuple[str, list[list[str]]]]:
    text = ""
    tokens: list[list[str]] = []
    with path.open(encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if line.startswith("# text ="):
                text = line[len("# text =") :].strip()
            elif not line:
                if tokens:
                    yield text, tokens
                tokens = []
            elif not line.startswith("#"):
                columns = line.split("\t")
                # Multiword-token ranges (1-2) and empty nodes (1.1) are not syntactic words.
                if "-" not in columns[0] and "." not in columns[0]:
                    tokens.append(columns)
    if tokens:
        yield text, tokens


def _conjuncts(token: list[str], children: dict[str, list[list[str]]]) -> list[list[str]]:
    """The token and its ``conj`` descendants, in order."""
    found = [token]
    for child in children.get(token[0], []):
        if child[7] == "conj":
            found.extend(_conjuncts(child, children))
    return found


def _has_wo(token: list[str], children: dict[str, list[list[str]]]) -> bool:
    return any(c[7] == "case" and c[1] == "を" for c in children.get(token[0], []))


def _gold_pairs(
    tokens: list[list[str]], *, coordination: bool = True
) -> tuple[list[Cooccurrence], int]:
    by_id = {token[0]: token for token in tokens}
    children: dict[str, list[list[str]]] = {}
    for token in tokens:
        children.setdefault(token[6], []).append(token)
    pairs: list[Cooccurrence] = []
    skipped = 0
    for token in tokens:
        if token[7] != "obj":
            continue
        conjuncts = _conjuncts(token, children) if coordination else [token]
        if not any(_has_wo(conjunct, children) for conjunct in conjuncts):
            continue
        head = by_id[token[6]]
        suru = any(c[2] == _SURU_LEMMA for c in children.get(head[0], []))
        # GSD tags a サ変 noun used as a verb VERB with XPOS 名詞-普通名詞-サ変可能.
        sahen = head[4].startswith("名詞") and (head[3] == "VERB" or suru)
        for conjunct in conjuncts:
            if conjunct[3] not in {"NOUN", "PROPN"}:
                skipped += 1
            elif sahen:
                pairs.append(Cooccurrence(conjunct[1], head[2] + "する"))
            elif head[3] == "VERB":
                pairs.append(Cooccurrence(conjunct[1], head[2]))
            else:
                skipped += 1
    return pairs, skipped


def load_ud_gold(path: Path, *, coordination: bool = True) -> list[GoldSentence]:
    """Gold cooccurrences of every sentence of a CoNLL-U file (see the module docstring)."""
    gold: list[GoldSentence] = []
    for text, tokens in _conllu_sentences(path):
        pairs, skipped = _gold_pairs(tokens, coordination=coordination)
        gold.append(GoldSentence(text, tuple(pairs), skipped))
    return gold


def _same_span_end(first: Cooccurrence, second: Cooccurrence) -> bool:
    return first.verb == second.verb and (
        first.noun.endswith(second.noun) or second.noun.endswith(first.noun)
    )


def _aligned_matches(gold_left: Counter[Cooccurrence], found_left: Counter[Cooccurrence]) -> int:
    """Left-over pairs matched one to one when their nouns end the same span (same verb)."""
    gold_items = list(gold_left.elements())
    matched = 0
    for pair in found_left.elements():
        partner = next((g for g in gold_items if _same_span_end(pair, g)), None)
        if partner is not None:
            gold_items.remove(partner)
            matched += 1
    return matched


def score_extraction(
    gold: Iterable[GoldSentence],
    predicted: Iterable[Iterable[Cooccurrence]],
    *,
    aligned: bool = False,
) -> ExtractionScore:
    """Compare predicted pairs with gold, sentence by sentence (multiset intersection).

    ``aligned``: also match left-over pairs whose nouns are cut differently by the two
    tokenisations (one noun ends the other, same verb; see the module docstring).
    """
    score = ExtractionScore()
    for sentence, found in zip(gold, predicted, strict=True):
        found_pairs = tuple(found)
        gold_counts = Counter(sentence.pairs)
        found_counts = Counter(found_pairs)
        exact = gold_counts & found_counts
        matched = sum(exact.values())
        if aligned:
            matched += _aligned_matches(gold_counts - exact, found_counts - exact)
        score.true_positives += matched
        score.predicted += len(found_pairs)
        score.gold += len(sentence.pairs)
        if matched < max(len(found_pairs), len(sentence.pairs)):
            score.errors.append((sentence.text, sentence.pairs, found_pairs))
    return score
