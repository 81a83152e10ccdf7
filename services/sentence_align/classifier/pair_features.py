"""Features of a candidate sentence pair for the pair classifier (:mod:`pair_model`): evidence
that two texts translate each other that does not need the pair's own alignment to be right.

The features follow the pair classifiers of ParaCrawl-style pipelines (bicleaner, Sánchez-
Cartagena et al. 2018; Ramírez-Sánchez et al. 2020): the length ratio against the language
pair's ratio on the page (the median of its pairs), dictionary and IBM Model 1 coverage in
both directions, agreement of numbers, URLs, punctuation and capitalised tokens, the script
and language-id verdict of each side, signs of an untranslated copy (a side copied from the
other, a side that repeats one phrase), how often each side's text recurs on the page (menus
and captions come back), the bead's shape and the DP posterior as one feature among them.

Model 1 is trained on the pairs being scored (:mod:`pair_lexicon`: the page pair's own table,
coverage counting only word pairs with evidence from outside the pair). A monolingual pair
(a page and its mobile version) has no copy features (identical sides are what it should
have) and the identity as its dictionary, so a rewrite reads as a well-covered translation
and two unrelated texts as an uncovered one.

Each distinct text of a page pair is worked out once (tokens, counts, its language
probability, shared with the stage's wrong-language flag through langid's cache), and the
Model 1 coverage of every candidate and neighbour comes from one compiled call: the
features cost a small part of aligning the page (benchmarks/results/pair_score.md).

Pure: no store, queue or web imports.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import regex

from services.lexical import model1
from services.lexical.dictionary import stem
from services.sentence_align.classifier import copy_trigrams
from services.sentence_align.classifier.pair_lexicon import PageLexicon
from shared import langid
from shared.text import is_word

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

FloatArray = npt.NDArray[np.float64]

# The columns of a feature row, in order (a model file records them; another list is
# another model).
FEATURE_NAMES: tuple[str, ...] = (
    "src_chars_log",
    "tgt_chars_log",
    "length_deviation",  # log(tgt chars / src chars) minus the page's median of it
    "length_deviation_abs",
    "src_words_log",
    "tgt_words_log",
    "bead_src",
    "bead_tgt",
    "posterior",  # the DP's posterior of the bead (NaN: the aligner gives none)
    "model1_tgt_coverage",  # mean over target words of their best t(e|f) in the source
    "model1_src_coverage",  # mean over source words of their best t(e|f) in the target
    "model1_tgt_covered",  # share of target words with a best t(e|f) of COVERED or more
    "model1_src_covered",
    "dictionary_src_coverage",  # share of source words with a translation in the target
    "dictionary_tgt_coverage",
    "dictionary_src_known",  # share of source words the dictionary has (NaN: no dictionary)
    "dictionary_tgt_known",
    "identical_words",  # Dice of the two sides' word types (0 for a monolingual pair)
    # Dice of the character trigram sets of the two normalised sides (their first COPY_CHARS
    # characters; 0 for a monolingual pair): an untranslated copy shares most of them
    "copy_trigrams",
    "numbers_agreement",  # Jaccard of the digit strings; -1: neither side has one
    "numbers_count",
    "urls_agreement",  # Jaccard of URLs and e-mail addresses; -1: none
    "final_punctuation_agrees",
    "punctuation_difference",
    "capitalised_agreement",  # share of capitalised Latin tokens found on the other side
    "src_expected_script",  # share of the side's letters in its language's script
    "tgt_expected_script",
    "src_language_probability",  # py3langid's probability of the declared language
    "tgt_language_probability",
    "src_letters_share",
    "tgt_letters_share",
    "src_repeated_on_page",  # other pairs of the page with the same side (log1p)
    "tgt_repeated_on_page",
    "self_repetition",  # 1 - distinct words / words, the larger of the two sides
    # Model 1 coverage of the sentence before / after the bead on one side by the other side
    # (mean best t; -1 where there is none): high when the bead left out a sentence of its
    # translation
    "src_before_coverage",
    "src_after_coverage",
    "tgt_before_coverage",
    "tgt_after_coverage",
)

COPY_CHARS = 300  # the copy feature reads this many characters of each normalised side
MIN_PAGE_PAIRS = 5  # fewer pairs on a page: its length ratio is the prior's (0), not theirs
_NO_SPACE_LANGS = frozenset({"ja", "zh", "th"})
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_URL = re.compile(r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+\.[\w.-]+", re.IGNORECASE)
_CAPITALISED = regex.compile(r"\b\p{Lu}[\p{L}\p{M}'-]+")
_FINAL = {".": ".", "。": ".", "!": "!", "！": "!", "?": "?", "？": "?", ":": ":", "：": ":"}
# The script of a language's letters, where it is not Latin (ja: kana and kanji, zh: han), as
# runs of it (the features count its characters).
_SCRIPTS = {
    "ja": regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}ー]+"),
    "zh": regex.compile(r"\p{Han}+"),
    "ko": regex.compile(r"[\p{Hangul}\p{Han}]+"),
    "ru": regex.compile(r"\p{Cyrillic}+"),
    "uk": regex.compile(r"\p{Cyrillic}+"),
    "bg": regex.compile(r"\p{Cyrillic}+"),
    "el": regex.compile(r"\p{Greek}+"),
    "ar": regex.compile(r"\p{Arabic}+"),
    "he": regex.compile(r"\p{Hebrew}+"),
    "th": regex.compile(r"\p{Thai}+"),
}
_LATIN = regex.compile(r"\p{Latin}+")
_PUNCTUATION = regex.compile(r"\p{P}")
_NOT_KEPT = regex.compile(r"[^\p{L}\p{M}\p{N}]+")  # what corpus_clean.normalise drops


@dataclass(frozen=True)
class Candidate:
    """A sentence pair to score: its two texts, its bead's shape, the DP's posterior and the
    sentences either side of it ("" where there is none: the chunk's edge)."""

    src: str
    tgt: str
    bead_src: int = 1
    bead_tgt: int = 1
    posterior: float | None = None
    src_before: str = ""
    src_after: str = ""
    tgt_before: str = ""
    tgt_after: str = ""


def separator(lang: str) -> str:
    """What joins the sentences of one side of a bead: nothing in unspaced scripts."""
    return "" if langid.language_group(lang) in _NO_SPACE_LANGS else " "


def page_features(
    candidates: Sequence[Candidate],
    src_lang: str,
    tgt_lang: str,
    dictionary: BilingualDictionary | None = None,
    *,
    page: Sequence[tuple[str, str]] | None = None,
) -> FloatArray:
    """One row of :data:`FEATURE_NAMES` per candidate of one page pair (or document).

    ``page``: the page pair's sentence pairs (default: the candidates themselves), which
    Model 1 is trained on and which give the page's length ratio and how often a text
    recurs; ``dictionary``: word pairs from ``src_lang`` to ``tgt_lang`` (ignored for a
    monolingual pair, whose dictionary is the identity).

    What one text gives (its tokens, counts, language probability) is worked out once per
    distinct text of a side (a sentence is one candidate's side and its neighbours'
    context), and Model 1 coverage for every candidate and neighbour in one call."""
    rows = np.zeros((len(candidates), len(FEATURE_NAMES)))
    if not candidates:
        return rows
    pairs = list(page) if page else [(c.src, c.tgt) for c in candidates]
    monolingual = langid.language_group(src_lang) == langid.language_group(tgt_lang)
    if monolingual:
        dictionary = None
    lexicon = PageLexicon.train(pairs, src_lang, tgt_lang, dictionary)
    src_texts = _Side(
        src_lang, lexicon.src_ids, copies=not monolingual, stems=dictionary is not None
    )
    tgt_texts = _Side(
        tgt_lang, lexicon.tgt_ids, copies=not monolingual, stems=dictionary is not None
    )
    ratios = [_log_ratio(src, tgt) for src, tgt in pairs]
    centre = float(np.median(ratios)) if len(pairs) >= MIN_PAGE_PAIRS else 0.0
    src_counts = Counter(src_texts.key(src) for src, _ in pairs)
    tgt_counts = Counter(tgt_texts.key(tgt) for _, tgt in pairs)
    sides = [(src_texts.text(c.src), tgt_texts.text(c.tgt)) for c in candidates]
    m1 = _coverage_columns(candidates, sides, src_texts, tgt_texts, lexicon)
    for k, (candidate, (src, tgt)) in enumerate(zip(candidates, sides, strict=True)):
        rows[k, :_M1_FIRST] = _head(candidate, src, tgt, centre)
        rows[k, _M1_FIRST : _M1_FIRST + 4] = m1[k, :4]
        rows[k, _M1_FIRST + 4 : _CONTEXT_FIRST] = _tail(
            src,
            tgt,
            monolingual=monolingual,
            repeated=(
                max(src_counts[src.key] - 1, 0),
                max(tgt_counts[tgt.key] - 1, 0),
            ),
            dictionary=dictionary,
        )
        rows[k, _CONTEXT_FIRST:] = m1[k, 4:]
    return rows


_M1_FIRST = FEATURE_NAMES.index("model1_tgt_coverage")
_CONTEXT_FIRST = FEATURE_NAMES.index("src_before_coverage")


@dataclass(frozen=True)
class _Text:
    """What the features read off one text, worked out once per page (``_Side.text``)."""

    text: str
    key: str  # normalised (corpus_clean.normalise): equal texts recur on the page
    words: tuple[str, ...]  # word tokens (model1.tokenize, letters only)
    ids: npt.NDArray[np.int64]  # the words' ids in the page's Model 1 vocabulary (-1: none)
    stems: frozenset[str]  # the words' dictionary stems (none without a dictionary)
    stem_list: tuple[str, ...]
    trigrams: npt.NDArray[np.int64]  # of the normalised text's first COPY_CHARS (copy_trigrams)
    digits: tuple[str, ...]
    urls: frozenset[str]
    final: str
    punctuation: int
    capitalised: frozenset[str]
    folded: str
    expected_script: float
    letters_share: float
    language_probability: float


class _Side:
    """The distinct texts of one side of a page pair, each worked out once."""

    def __init__(
        self,
        lang: str,
        ids: Callable[[Sequence[str]], npt.NDArray[np.int64]],
        *,
        copies: bool,
        stems: bool,
    ) -> None:
        self.lang = lang
        self.group = langid.language_group(lang)
        self._ids = ids
        self._copies = copies  # the copy feature's trigrams (not for a monolingual pair)
        self._stems = stems  # the dictionary's stems (only with a dictionary)
        self._texts: dict[str, _Text] = {}
        self._words: dict[str, tuple[tuple[str, ...], npt.NDArray[np.int64]]] = {}

    def key(self, text: str) -> str:
        return self.text(text).key

    def words(self, text: str) -> tuple[tuple[str, ...], npt.NDArray[np.int64]]:
        """The text's word tokens and their Model 1 ids (a neighbour needs no more)."""
        found = self._words.get(text)
        if found is None:
            words = tuple(t for t in model1.tokenize(text, self.lang) if _is_word(t))
            found = self._words[text] = (words, self._ids(words))
        return found

    def text(self, text: str) -> _Text:
        found = self._texts.get(text)
        if found is None:
            found = self._texts[text] = self._work_out(text)
        return found

    def _work_out(self, text: str) -> _Text:
        words, ids = self.words(text)
        key = _normalised(text)
        stem_list = tuple(_stem(w, self.group) for w in words) if self._stems else ()
        folded = text.casefold()
        letters = sum(map(str.isalpha, text))  # langid.letters: general category L
        visible = sum(map(len, text.split()))
        script = _SCRIPTS.get(self.group, _LATIN)
        in_script = sum(map(len, script.findall(text)))
        return _Text(
            text=text,
            key=key,
            words=words,
            ids=ids,
            stems=frozenset(stem_list),
            stem_list=stem_list,
            trigrams=copy_trigrams.trigrams(key[:COPY_CHARS])
            if self._copies
            else copy_trigrams.EMPTY,
            digits=tuple(_DIGITS.findall(text)),
            # (an address holds "://", "www." or "@": the pattern is not tried elsewhere)
            urls=frozenset(_URL.findall(text))
            if "@" in text or "://" in text or "www." in folded
            else frozenset(),
            final=_final(text),
            punctuation=len(_PUNCTUATION.findall(text)),
            capitalised=_capitalised(text),
            folded=folded,
            expected_script=min(1.0, in_script / letters) if letters else 1.0,
            letters_share=letters / visible if visible else 0.0,
            language_probability=langid.declared_probability(text, self.lang),
        )


def _coverage_columns(
    candidates: Sequence[Candidate],
    sides: Sequence[tuple[_Text, _Text]],
    src_texts: _Side,
    tgt_texts: _Side,
    lexicon: PageLexicon,
) -> FloatArray:
    """Per candidate: the four Model 1 coverage features of its pair, then the coverage of
    each neighbouring sentence by the other side of the pair (-1: none), in one call."""
    src_queries: list[npt.NDArray[np.int64]] = []
    tgt_queries: list[npt.NDArray[np.int64]] = []
    for candidate, (src, tgt) in zip(candidates, sides, strict=True):
        src_queries.append(src.ids)
        tgt_queries.append(tgt.ids)
        for text in (candidate.src_before, candidate.src_after):
            src_queries.append(src_texts.words(text)[1] if text else _NONE)
            tgt_queries.append(tgt.ids)
        for text in (candidate.tgt_before, candidate.tgt_after):
            src_queries.append(src.ids)
            tgt_queries.append(tgt_texts.words(text)[1] if text else _NONE)
    found = lexicon.coverage(src_queries, tgt_queries).reshape(len(candidates), 5, 4)
    result = np.empty((len(candidates), 8))
    result[:, :4] = found[:, 0]
    result[:, 4:6] = found[:, 1:3, 1]  # a source neighbour's words, by the pair's target
    result[:, 6:8] = found[:, 3:5, 0]  # a target neighbour's words, by the pair's source
    # -1 where there is no neighbour (or it has no tokens at all)
    for k, candidate in enumerate(candidates):
        for column, text, side in (
            (4, candidate.src_before, src_texts),
            (5, candidate.src_after, src_texts),
            (6, candidate.tgt_before, tgt_texts),
            (7, candidate.tgt_after, tgt_texts),
        ):
            if not text or not model1.tokenize(text, side.lang):
                result[k, column] = -1.0
    return result


_NONE = np.zeros(0, dtype=np.int64)


def _head(candidate: Candidate, src: _Text, tgt: _Text, centre: float) -> list[float]:
    """The length, shape and posterior columns (before Model 1 coverage)."""
    deviation = _log_ratio(src.text, tgt.text) - centre
    return [
        math.log1p(len(src.text)),
        math.log1p(len(tgt.text)),
        deviation,
        abs(deviation),
        math.log1p(len(src.words)),
        math.log1p(len(tgt.words)),
        float(candidate.bead_src),
        float(candidate.bead_tgt),
        math.nan if candidate.posterior is None else candidate.posterior,
    ]


def _tail(
    src: _Text,
    tgt: _Text,
    *,
    monolingual: bool,
    repeated: tuple[int, int],
    dictionary: BilingualDictionary | None,
) -> list[float]:
    """The columns between Model 1 coverage and the neighbours' coverage."""
    if monolingual:
        lexical = (*_identity_coverage(src.words, tgt.words), 1.0, 1.0)
    else:
        lexical = _dictionary_coverage(src, tgt, dictionary)
    return [
        *lexical,
        0.0 if monolingual else _dice(src.words, tgt.words),
        0.0 if monolingual else copy_trigrams.dice(src.trigrams, tgt.trigrams),
        *_agreement(src.digits, tgt.digits),
        _agreement(tuple(src.urls), tuple(tgt.urls))[0],
        float(src.final == tgt.final),
        abs(src.punctuation - tgt.punctuation) / (src.punctuation + tgt.punctuation + 1),
        _capitalised_agreement(src, tgt),
        src.expected_script,
        tgt.expected_script,
        src.language_probability,
        tgt.language_probability,
        src.letters_share,
        tgt.letters_share,
        math.log1p(repeated[0]),
        math.log1p(repeated[1]),
        max(_self_repetition(src.words), _self_repetition(tgt.words)),
    ]


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


@functools.lru_cache(maxsize=200_000)
def _is_word(token: str) -> bool:
    return is_word(token)


def _normalised(text: str) -> str:
    """:func:`shared.corpus_clean.normalise` (NFKC, case-folded, letters, marks and digits
    only; else the folded text with its whitespace collapsed) by one regular expression
    instead of a category test per character."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NOT_KEPT.sub("", folded) or " ".join(folded.split())


@functools.lru_cache(maxsize=100_000)
def _stem(word: str, lang: str) -> str:
    return stem(word, langid.language_group(lang))


def _dictionary_coverage(
    src: _Text, tgt: _Text, dictionary: BilingualDictionary | None
) -> tuple[float, float, float, float]:
    """(source covered, target covered, source known, target known) shares; NaN without a
    dictionary (the trees learn a way for that too)."""
    if dictionary is None:
        return (math.nan, math.nan, math.nan, math.nan)
    forward, backward = dictionary.translations, dictionary.reversed().translations
    return (
        _mean([float(not tgt.stems.isdisjoint(forward.get(s, ()))) for s in src.stem_list]),
        _mean([float(not src.stems.isdisjoint(backward.get(s, ()))) for s in tgt.stem_list]),
        _mean([float(s in forward) for s in src.stem_list]),
        _mean([float(s in backward) for s in tgt.stem_list]),
    )


def _identity_coverage(src_words: Sequence[str], tgt_words: Sequence[str]) -> tuple[float, float]:
    src_set, tgt_set = frozenset(src_words), frozenset(tgt_words)
    return (
        _mean([float(w in tgt_set) for w in src_words]),
        _mean([float(w in src_set) for w in tgt_words]),
    )


def _log_ratio(src: str, tgt: str) -> float:
    return math.log((len(tgt) + 1) / (len(src) + 1))


def _dice(src_words: Sequence[str], tgt_words: Sequence[str]) -> float:
    a, b = set(src_words), set(tgt_words)
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def _agreement(src: Sequence[str], tgt: Sequence[str]) -> tuple[float, float]:
    """(Jaccard of the two sets, log1p of the larger count); Jaccard -1 when both are empty."""
    a, b = set(src), set(tgt)
    if not a and not b:
        return -1.0, 0.0
    return len(a & b) / len(a | b), math.log1p(max(len(src), len(tgt)))


def _final(text: str) -> str:
    stripped = text.rstrip(" \t\"'»”」』)）")
    return _FINAL.get(stripped[-1:], "") if stripped else ""


def _capitalised(text: str) -> frozenset[str]:
    """Capitalised Latin-script tokens other than the text's first word, case-folded."""
    found = _CAPITALISED.findall(text)
    first = _CAPITALISED.match(text.lstrip())
    if first is not None and found and found[0] == first.group():
        found = found[1:]
    return frozenset(token.casefold() for token in found if _LATIN.match(token))


def _capitalised_agreement(src: _Text, tgt: _Text) -> float:
    """Share of the capitalised tokens of both sides found (case-folded) in the other side's
    text; -1 when neither side has one."""
    a, b = src.capitalised, tgt.capitalised
    if not a and not b:
        return -1.0
    found = sum(token in tgt.folded for token in a) + sum(token in src.folded for token in b)
    return found / (len(a) + len(b))


def _self_repetition(words: Sequence[str]) -> float:
    return 1.0 - len(set(words)) / len(words) if words else 0.0
