"""Noun–を–verb cooccurrences from Japanese sentences and the seed's frequency filter.

ALGORITHMS.md §4 step 1 (Shinnou, section 2.1): every noun N followed by the case particle を
and then a verb V in the same clause gives the cooccurrence (N, を, V), keyed by V's lemma.

Extraction rules (fugashi + unidic-lite morphemes, ``shared.text.analyse_japanese``):

* **Object noun.** The morpheme right before を (skipping closing brackets and quotes, so
  「本」を counts, and restrictive particles, so 小説などを counts) must be noun-like: a common
  or proper noun (``Morpheme.is_noun``) or a
  nominal suffix (接尾辞-名詞的, as in 研究者). The noun reported is that last morpheme by its
  surface form: in a compound noun (経済成長を) it is the compound's head (成長), which is what a
  thesaurus lists and what the UD treebanks mark as the object. Pronouns, numerals and
  nominalised verbs before を give nothing.
* **Verb.** Scanning forward from を, the first verb (動詞, any subtype) is the predicate; its
  UniDic lemma (語彙素, e.g. 読ん → 読む, し → 為る) is reported, without UniDic's
  homograph tag (差す-他動詞 → 差す). Intervening adverbs, adjectives,
  other argument phrases (彼に) and nouns are skipped, and so is the する of the postposition
  として (人を人として思う → 思う), so relative clauses work naturally
  (本を読んだ人 → 読む, the verb of the clause that holds を).
* **サ変 verbs.** A サ変-capable noun directly followed by する (lemma 為る), or by the
  passive/causative stems させる/される tagged as 為る, is one verb whose lemma is the noun's
  lemma + "する" (データを分析した → 分析する). A bare サ変 noun is not a verb.
* **Clause boundary.** The scan stops (no cooccurrence) at a sentence-final mark (。！？),
  at another を (a new object began before any verb) or after ``max_gap`` morphemes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from shared.text import Morpheme, analyse_japanese

_SURU_LEMMA = "為る"
_SENTENCE_END = frozenset({"。", "！", "？", "!", "?", "．"})
_CLOSING = frozenset({"」", "』", "）", ")", "”", "’", "】", "〕", "］"})
# Restrictive particles that may sit between the noun and を (小説などを訳す, 水だけを飲む).
_RESTRICTIVE = frozenset({"など", "なんか", "だけ", "ばかり", "のみ", "まで"})
# Object noun and verb are rarely this far apart inside one clause; past it the pair is noise.
DEFAULT_MAX_GAP = 12


@dataclass(frozen=True, slots=True, order=True)
class Cooccurrence:
    """One (noun, を, verb) observation; ``verb`` is the verb's lemma."""

    noun: str
    verb: str


def _is_wo(morpheme: Morpheme) -> bool:
    return morpheme.surface == "を" and morpheme.pos[0] == "助詞" and morpheme.pos[1] == "格助詞"


def _is_object_noun(morpheme: Morpheme) -> bool:
    nominal_suffix = morpheme.pos[0] == "接尾辞" and morpheme.pos[1] == "名詞的"
    return morpheme.is_noun or nominal_suffix


def _object_noun(morphemes: list[Morpheme], wo_index: int) -> str | None:
    index = wo_index - 1
    while index >= 0 and (
        morphemes[index].surface in _CLOSING
        or (morphemes[index].pos[1] == "副助詞" and morphemes[index].surface in _RESTRICTIVE)
    ):
        index -= 1
    if index < 0 or not _is_object_noun(morphemes[index]):
        return None
    return morphemes[index].surface


def verb_lemma(morpheme: Morpheme) -> str:
    """UniDic lemma without its homograph or origin tag (差す-他動詞 → 差す, レポート-report)."""
    lemma = morpheme.lemma
    cut = lemma.find("-", 1)
    return lemma[:cut] if cut > 0 else lemma


def _in_toshite(morphemes: list[Morpheme], index: int) -> bool:
    # として ("as") is a postposition, not the predicate: 人を人として思う → 思う.
    return (
        morphemes[index].lemma == _SURU_LEMMA
        and index > 0
        and morphemes[index - 1].surface == "と"
        and index + 1 < len(morphemes)
        and morphemes[index + 1].surface == "て"
    )


def _predicate(morphemes: list[Morpheme], wo_index: int, max_gap: int) -> str | None:
    end = min(len(morphemes), wo_index + 1 + max_gap)
    for index in range(wo_index + 1, end):
        morpheme = morphemes[index]
        if morpheme.surface in _SENTENCE_END or _is_wo(morpheme):
            return None
        if morpheme.is_verb and not _in_toshite(morphemes, index):
            return verb_lemma(morpheme)
        following = morphemes[index + 1] if index + 1 < len(morphemes) else None
        if morpheme.is_sahen_noun and following is not None and following.lemma == _SURU_LEMMA:
            return verb_lemma(morpheme) + "する"
    return None


def extract_cooccurrences(sentence: str, *, max_gap: int = DEFAULT_MAX_GAP) -> list[Cooccurrence]:
    """All (noun, を, verb-lemma) cooccurrences of one sentence, in order of their を."""
    morphemes = analyse_japanese(sentence)
    found: list[Cooccurrence] = []
    for index, morpheme in enumerate(morphemes):
        if not _is_wo(morpheme):
            continue
        noun = _object_noun(morphemes, index)
        if noun is None:
            continue
        verb = _predicate(morphemes, index, max_gap)
        if verb is not None:
            found.append(Cooccurrence(noun, verb))
    return found


def count_cooccurrences(observations: Iterable[Cooccurrence]) -> dict[Cooccurrence, int]:
    """Frequency of each distinct cooccurrence."""
    counts: dict[Cooccurrence, int] = {}
    for observation in observations:
        counts[observation] = counts.get(observation, 0) + 1
    return counts


def filter_counts(
    counts: Mapping[Cooccurrence, int], *, min_pair: int = 2, min_verb: int = 21
) -> dict[Cooccurrence, int]:
    """Keep cooccurrences seen ``min_pair`` times or more whose verb is seen ``min_verb`` or more.

    Shinnou section 2.1: "we removed the cooccurrence data whose frequency was 1, or whose verb
    does not appear more than 20 times". The verb's frequency counts every observation of the
    verb before the pair filter, as the paper applies both rules to the gathered data.
    """
    verb_totals: dict[str, int] = {}
    for pair, count in counts.items():
        verb_totals[pair.verb] = verb_totals.get(pair.verb, 0) + count
    return {
        pair: count
        for pair, count in counts.items()
        if count >= min_pair and verb_totals[pair.verb] >= min_verb
    }
