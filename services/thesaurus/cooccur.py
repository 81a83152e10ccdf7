"""Noun–を–verb cooccurrences from Japanese sentences and the seed's frequency filter.

docs/methods.md §4 step 1 (Shinnou, section 2.1): every noun N followed by the case particle を
and then a verb V in the same clause gives the cooccurrence (N, を, V), keyed by V's lemma.

Extraction rules (fugashi + unidic-lite morphemes, ``shared.text.analyse_japanese``). The
rules were developed on the first half of UD Japanese GSD dev (no train split is in the kit)
and on livedoor sentences read by hand; benchmarks/results/thesaurus_extraction.md reports the
held-out second half separately.

* **Object noun.** The morpheme right before を (skipping closing brackets and quotes, so
  「本」を counts, restrictive particles, so 小説などを counts, and a round parenthetical
  aside, so 『本』（学研）を gives 本) must be noun-like: a common
  or proper noun (``Morpheme.is_noun``) or a nominal suffix (接尾辞-名詞的, as in 研究者). The
  noun reported is that last morpheme by its surface form: in a compound noun (経済成長を) it
  is the compound's head (成長), which is what a thesaurus lists and what the UD treebanks mark
  as the object (by its form, as the gold takes it). Pronouns, numerals and nominalised verbs
  before を give nothing, nor does a suffix that nominalises an adjective (恐ろしさ, 便利さ,
  重み): its surface alone (さ) is no noun.
* **Coordination.** "AとBを食べる" and "AやBを食べる" give (A, 食べる) and (B, 食べる): from the
  object noun the extractor walks back over its noun phrase (nouns, prefixes, の, Xへの) to a
  と/や whose left neighbour is a noun, and repeats from that conjunct (at most 4 conjuncts,
  8 morphemes apart). AとのB is a modifier, not a coordination; 「A」とBを (closing quote
  before と) is a quotation; across an の the left noun is a conjunct only when it is itself
  modified by an の (販売網の強化と顧客へのサービスの充実を → 強化 and 充実), otherwise both
  modify the object (企業や政府の管理を → 管理 only).
* **Verb.** Scanning forward from を, the first verb (動詞, any subtype) is the predicate; its
  UniDic lemma (語彙素, e.g. 読ん → 読む, し → 為る) is reported, without UniDic's
  homograph tag (差す-他動詞 → 差す). Intervening adverbs, adjectives,
  other argument phrases (彼に) and nouns are skipped, and so is the する of the postposition
  として (人を人として思う → 思う), so relative clauses work naturally
  (本を読んだ人 → 読む, the verb of the clause that holds を). Auxiliary chains after the verb
  (読んでいた, 読ませられる) do not matter: the first verb's lemma is taken. But Xを目的として
  いる (として followed by いる/おる) is the light verb する itself: (X, 為る).
* **サ変 verbs (light verb する).** A サ変-capable noun (or a plain common noun UniDic does not
  tag サ変可能, as おさらい, タップ) directly followed by する (lemma 為る),
  by the passive/causative stems させる/される tagged as 為る, or by できる (its potential,
  保護できる) is one verb whose lemma is the noun's lemma + "する" (データを分析した → 分析する).
  A サ変 noun closing a clause without する (営業所を開設。, …を使用、…) is the clause's
  nominal predicate: the object is its own and no later verb is reported.
* **Compound particles (複合辞) beginning with を** are not objects of a verb: Xをめぐって,
  Xをめぐり/巡り, Xを以て, Xを通じ(て)/通して, Xをはじめ(とする), Xを問わず give nothing,
  and so does the adverbial Xを N に not followed by a verb (Xをテーマに, Xを中心に, Xをきっかけに,
  Xをピークに); Xを手に入れる and Xを元に戻す keep their verb.
* **Clause boundary.** The scan stops (no cooccurrence) at a sentence-final mark (。！？),
  at another を (a new object began before any verb) or after ``max_gap`` morphemes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from shared.text import Morpheme, analyse_japanese, normalise_japanese

_SURU_LEMMA = "為る"
_DEKIRU_LEMMA = "出来る"  # 保護できる: the potential of the サ変 verb 保護する
_CONTINUATIVE = frozenset({"居る", "おる", "御座る"})
_SENTENCE_END = frozenset({"。", "！", "？", "!", "?", "．"})
_ADJECTIVE_NOMINALISERS = frozenset({"さ", "み"})  # 便利さ, 重み
_COMMAS = frozenset({"、", ",", "，"})
_CLOSING = frozenset({"」", "』", "）", ")", "”", "’", "】", "〕", "］"})
_ROUND_CLOSING = frozenset({"）", ")"})
_ROUND_OPENING = frozenset({"（", "("})
_MAX_PARENTHETICAL = 30  # morphemes: a longer "parenthetical" is more likely unbalanced text
# Restrictive particles that may sit between the noun and を (小説などを訳す, 水だけを飲む).
_RESTRICTIVE = frozenset({"など", "なんか", "だけ", "ばかり", "のみ", "まで"})
# Coordinating particles between conjoined nouns (AとBを, AやBを).
_COORDINATORS = frozenset({"と", "や"})
_MAX_NP_SPAN = 8  # morphemes between a conjunct and the next one (AとCのDのBを)
_MAX_CONJUNCTS = 4
# Compound particles (複合辞) that begin with を: the noun is not the object of a verb
# (Xをめぐって "concerning X", Xをはじめとする "including X", Xをピークに "peaking at X").
_WO_COMPOUNDS = (
    ("めぐっ",),
    ("めぐり",),
    ("めぐる",),
    ("巡っ",),
    ("巡り",),
    ("巡る",),
    ("以", "て"),
    ("通じ",),
    ("通し", "て"),
    ("はじめ",),
    ("始め", "と"),
    ("問わ", "ず"),
)
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


def _skip_back(morphemes: list[Morpheme], index: int) -> int:
    # Closing brackets and restrictive particles between a noun and its particle; a round
    # parenthetical right before the particle is an aside (a reading, a publisher), and the
    # object is what it follows: 『…BOOK』（学習研究社）を見せる → BOOK.
    while index >= 0:
        surface = morphemes[index].surface
        if surface in _ROUND_CLOSING:
            opening = _opening_parenthesis(morphemes, index)
            if opening is not None:
                index = opening - 1
                continue
        if not (
            surface in _CLOSING or (morphemes[index].pos[1] == "副助詞" and surface in _RESTRICTIVE)
        ):
            break
        index -= 1
    return index


def _opening_parenthesis(morphemes: list[Morpheme], closing: int) -> int | None:
    """Index of the round parenthesis that the one at ``closing`` closes (None if unmatched)."""
    depth = 0
    for index in range(closing, max(-1, closing - _MAX_PARENTHETICAL), -1):
        surface = morphemes[index].surface
        if surface in _ROUND_CLOSING:
            depth += 1
        elif surface in _ROUND_OPENING:
            depth -= 1
            if depth == 0:
                return index if index > 0 else None
    return None


def _noun_at(morphemes: list[Morpheme], index: int) -> bool:
    if index < 0 or not _is_object_noun(morphemes[index]):
        return False
    # A nominal suffix after an adjective or adjectival stem (恐ろしさ, 重み) nominalises the
    # adjective: not a noun a thesaurus lists, and its surface alone (さ) means nothing.
    previous = morphemes[index - 1] if index > 0 else None
    suffix = morphemes[index].pos[0] == "接尾辞"
    return not (
        suffix
        and (
            morphemes[index].surface in _ADJECTIVE_NOMINALISERS
            or (previous is not None and previous.pos[0] in {"形容詞", "形状詞"})
        )
    )


def _conjunct_before(morphemes: list[Morpheme], noun_index: int) -> int | None:
    """Index of the noun coordinated with this one by と/や (AとBを, AとCのBを), if any."""
    index = noun_index - 1
    steps = 0
    crossed_no = False
    while index > 0 and steps < _MAX_NP_SPAN:
        morpheme = morphemes[index]
        following = morphemes[index + 1]
        if morpheme.surface in _COORDINATORS and morpheme.pos[0] == "助詞":
            if following.surface == "の":
                index -= 1  # AとのB: a modifier, not a coordination
                steps += 1
                continue
            # 「A」とBを: a closing quote before と marks a quotation (と = "as"), not a conjunct.
            conjunct = index - 1
            while conjunct >= 0 and morphemes[conjunct].surface in _RESTRICTIVE:
                conjunct -= 1
            if not _noun_at(morphemes, conjunct):
                return None
            # Across an の (AとXのBを) A coordinates with B only if it is modified in parallel
            # (YのAとXのBを); otherwise A and X both modify B (企業や政府の管理を).
            if crossed_no and not _modified_by_no(morphemes, conjunct):
                return None
            return conjunct
        inside_np = (
            _is_object_noun(morpheme)
            or morpheme.pos[0] in {"接頭辞", "名詞"}
            or morpheme.surface == "の"
            or (morpheme.pos[1] == "格助詞" and following.surface == "の")  # 顧客への
        )
        if not inside_np:
            return None
        crossed_no = crossed_no or morpheme.surface == "の"
        index -= 1
        steps += 1
    return None


def _modified_by_no(morphemes: list[Morpheme], noun_index: int) -> bool:
    index = noun_index - 1
    while index >= 0 and _is_object_noun(morphemes[index]):
        index -= 1  # the rest of a compound noun (販売網)
    return index >= 0 and morphemes[index].surface == "の"


def _object_nouns(morphemes: list[Morpheme], wo_index: int) -> list[str]:
    """The object noun before を, with the nouns coordinated with it (first conjunct first)."""
    index = _skip_back(morphemes, wo_index - 1)
    if not _noun_at(morphemes, index):
        return []
    nouns = [morphemes[index].surface]
    conjunct = _conjunct_before(morphemes, index)
    while conjunct is not None and len(nouns) < _MAX_CONJUNCTS:
        nouns.append(morphemes[conjunct].surface)
        conjunct = _conjunct_before(morphemes, conjunct)
    return nouns[::-1]


def verb_lemma(morpheme: Morpheme) -> str:
    """UniDic lemma without its homograph or origin tag (差す-他動詞 → 差す, レポート-report)."""
    lemma = morpheme.lemma
    cut = lemma.find("-", 1)
    return lemma[:cut] if cut > 0 else lemma


def _is_verbal_noun(morpheme: Morpheme) -> bool:
    # A サ変 noun, or a plain common noun that UniDic does not tag サ変可能 but that is used
    # as one right before する (データをおさらいする, 画面をタップする): after the object's を a
    # bare common noun + する can only be that verb. Adverbial nouns (全部, 半分) are not.
    plain = morpheme.pos[:3] == ("名詞", "普通名詞", "一般")
    return morpheme.is_sahen_noun or plain


def _in_toshite(morphemes: list[Morpheme], index: int) -> bool:
    # として ("as") is a postposition, not the predicate: 人を人として思う → 思う. But
    # Xを目的としている ("has X as its aim") is the verb する itself, continued by いる/おる.
    if not (
        morphemes[index].lemma == _SURU_LEMMA
        and index > 0
        and morphemes[index - 1].surface == "と"
        and index + 1 < len(morphemes)
        and morphemes[index + 1].surface == "て"
    ):
        return False
    after = morphemes[index + 2] if index + 2 < len(morphemes) else None
    return after is None or after.lemma not in _CONTINUATIVE


def _wo_compound(morphemes: list[Morpheme], wo_index: int) -> bool:
    following = tuple(m.surface for m in morphemes[wo_index + 1 : wo_index + 3])
    if any(following[: len(words)] == words for words in _WO_COMPOUNDS):
        return True
    # Xを N に not followed by a verb is adverbial, "with X as N" (Xをテーマに, Xを中心に,
    # Xをピークに); Xを手に入れる and Xを元に戻す keep their verb.
    after = morphemes[wo_index + 3] if wo_index + 3 < len(morphemes) else None
    return (
        len(following) == 2
        and morphemes[wo_index + 1].is_noun
        and following[1] == "に"
        and (after is None or not after.is_verb)
    )


def _predicate(morphemes: list[Morpheme], wo_index: int, max_gap: int) -> str | None:
    if _wo_compound(morphemes, wo_index):
        return None
    end = min(len(morphemes), wo_index + 1 + max_gap)
    for index in range(wo_index + 1, end):
        morpheme = morphemes[index]
        if morpheme.surface in _SENTENCE_END or _is_wo(morpheme):
            return None
        if morpheme.is_verb and not _in_toshite(morphemes, index):
            return verb_lemma(morpheme)
        following = morphemes[index + 1] if index + 1 < len(morphemes) else None
        if (
            _is_verbal_noun(morpheme)
            and following is not None
            and following.lemma in {_SURU_LEMMA, _DEKIRU_LEMMA}
        ):
            return verb_lemma(morpheme) + "する"
        if morpheme.is_sahen_noun and (
            following is None or following.is_punctuation or following.surface in _COMMAS
        ):
            # A サ変 noun closing a clause without する (…を使用、… / …を開設。) is the
            # clause's nominal predicate: the object belongs to it, not to a later verb.
            return None
    return None


def extract_cooccurrences(sentence: str, *, max_gap: int = DEFAULT_MAX_GAP) -> list[Cooccurrence]:
    """All (noun, を, verb-lemma) cooccurrences of one sentence, in order of their を.

    The sentence is read in ``normalise_japanese`` form (a decomposed を or half-width kana
    hid the particle or gave nouns no thesaurus lists)."""
    morphemes = analyse_japanese(normalise_japanese(sentence))
    found: list[Cooccurrence] = []
    for index, morpheme in enumerate(morphemes):
        if not _is_wo(morpheme):
            continue
        nouns = _object_nouns(morphemes, index)
        if not nouns:
            continue
        verb = _predicate(morphemes, index, max_gap)
        if verb is not None:
            found.extend(Cooccurrence(noun, verb) for noun in nouns)
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
