"""Features of a candidate sentence pair for the pair classifier (:mod:`pair_model`): evidence
that two texts translate each other that does not need the pair's own alignment to be right.

The features follow the pair classifiers of ParaCrawl-style pipelines (bicleaner, Sánchez-
Cartagena et al. 2018; Ramírez-Sánchez et al. 2020): the length ratio against the language
pair's ratio on the page (the median of its pairs), dictionary and IBM Model 1 coverage in
both directions, agreement of numbers, URLs, punctuation and capitalised tokens, the script
and language-id verdict of each side, signs of an untranslated copy (a side copied from the
other, a side that repeats one phrase), how often each side's text recurs on the page (menus
and captions come back), the bead's shape and the DP posterior as one feature among them.

Model 1 is trained on the pairs being scored (a page pair's beads: Moore 2002 trains it on
the corpus being aligned), seeded with the cues the aligner uses (identical tokens, numbers,
cognates) and the installed bilingual dictionary; coverage of a token is its best t(e|f) in
the other side, counting only word pairs with evidence from outside the pair itself (a cue,
or both words met in other pairs too): two menu items whose words occur nowhere else on the
page explain each other perfectly in Model 1, whatever they mean. A monolingual pair (a page
and its mobile version) has no copy features (identical sides are what it should have) and
the identity as its dictionary, so a rewrite reads as a well-covered translation and two
unrelated texts as an uncovered one.

Pure: no store, queue or web imports.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import regex

from services.lexical import model1
from services.lexical.dictionary import stem
from shared import langid
from shared.corpus_clean import normalise
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
    "copy_ratio",  # difflib ratio of the normalised sides (0 for a monolingual pair)
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

COVERED = 0.1  # a token whose best t(e|f) reaches this counts as covered
DICTIONARY_STRENGTH = 0.25  # Model 1 cue strength of dictionary pairs (as the aligner's)
DICTIONARY_MIN_LENGTH = 4
COPY_CHARS = 300  # the copy ratio reads this many characters of each normalised side
MIN_PAGE_PAIRS = 5  # fewer pairs on a page: its length ratio is the prior's (0), not theirs
_NO_SPACE_LANGS = frozenset({"ja", "zh", "th"})
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_URL = re.compile(r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+\.[\w.-]+", re.IGNORECASE)
_CAPITALISED = regex.compile(r"\b\p{Lu}[\p{L}\p{M}'-]+")
_FINAL = {".": ".", "。": ".", "!": "!", "！": "!", "?": "?", "？": "?", ":": ":", "：": ":"}
# The script of a language's letters, where it is not Latin (ja: kana and kanji, zh: han).
_SCRIPTS = {
    "ja": regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}ー]"),
    "zh": regex.compile(r"\p{Han}"),
    "ko": regex.compile(r"[\p{Hangul}\p{Han}]"),
    "ru": regex.compile(r"\p{Cyrillic}"),
    "uk": regex.compile(r"\p{Cyrillic}"),
    "bg": regex.compile(r"\p{Cyrillic}"),
    "el": regex.compile(r"\p{Greek}"),
    "ar": regex.compile(r"\p{Arabic}"),
    "he": regex.compile(r"\p{Hebrew}"),
    "th": regex.compile(r"\p{Thai}"),
}
_LATIN = regex.compile(r"\p{Latin}")


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
    monolingual pair, whose dictionary is the identity)."""
    rows = np.zeros((len(candidates), len(FEATURE_NAMES)))
    if not candidates:
        return rows
    pairs = list(page) if page else [(c.src, c.tgt) for c in candidates]
    monolingual = langid.language_group(src_lang) == langid.language_group(tgt_lang)
    lexicon = _Lexicon.train(pairs, src_lang, tgt_lang, None if monolingual else dictionary)
    ratios = [_log_ratio(src, tgt) for src, tgt in pairs]
    centre = float(np.median(ratios)) if len(pairs) >= MIN_PAGE_PAIRS else 0.0
    src_counts = Counter(normalise(src) for src, _ in pairs)
    tgt_counts = Counter(normalise(tgt) for _, tgt in pairs)
    for k, candidate in enumerate(candidates):
        rows[k] = _row(
            candidate,
            src_lang,
            tgt_lang,
            lexicon,
            monolingual=monolingual,
            deviation=_log_ratio(candidate.src, candidate.tgt) - centre,
            repeated=(
                max(src_counts[normalise(candidate.src)] - 1, 0),
                max(tgt_counts[normalise(candidate.tgt)] - 1, 0),
            ),
            dictionary=None if monolingual else dictionary,
        )
    return rows


def _row(
    candidate: Candidate,
    src_lang: str,
    tgt_lang: str,
    lexicon: _Lexicon,
    *,
    monolingual: bool,
    deviation: float,
    repeated: tuple[int, int],
    dictionary: BilingualDictionary | None,
) -> list[float]:
    src, tgt = candidate.src, candidate.tgt
    src_tokens, tgt_tokens = model1.tokenize(src, src_lang), model1.tokenize(tgt, tgt_lang)
    src_words = [t for t in src_tokens if is_word(t)]
    tgt_words = [t for t in tgt_tokens if is_word(t)]
    m1 = lexicon.coverage(src_tokens, tgt_tokens)
    if monolingual:
        identity = _identity_coverage(src_words, tgt_words)
        lexical = (*identity, 1.0, 1.0)
    else:
        lexical = _dictionary_coverage(src_words, tgt_words, src_lang, tgt_lang, dictionary)
    posterior = math.nan if candidate.posterior is None else candidate.posterior
    return [
        math.log1p(len(src)),
        math.log1p(len(tgt)),
        deviation,
        abs(deviation),
        math.log1p(len(src_words)),
        math.log1p(len(tgt_words)),
        float(candidate.bead_src),
        float(candidate.bead_tgt),
        posterior,
        *m1,
        *lexical,
        0.0 if monolingual else _dice(src_words, tgt_words),
        0.0 if monolingual else _copy_ratio(src, tgt),
        *_agreement(_DIGITS.findall(src), _DIGITS.findall(tgt)),
        _agreement(_URL.findall(src), _URL.findall(tgt))[0],
        float(_final(src) == _final(tgt)),
        _punctuation_difference(src, tgt),
        _capitalised_agreement(src, tgt),
        _expected_script(src, src_lang),
        _expected_script(tgt, tgt_lang),
        langid.declared_probability(src, src_lang),
        langid.declared_probability(tgt, tgt_lang),
        _letters_share(src),
        _letters_share(tgt),
        math.log1p(repeated[0]),
        math.log1p(repeated[1]),
        max(_self_repetition(src_words), _self_repetition(tgt_words)),
        *_context_coverage(candidate, src_tokens, tgt_tokens, src_lang, tgt_lang, lexicon),
    ]


def _context_coverage(
    candidate: Candidate,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    src_lang: str,
    tgt_lang: str,
    lexicon: _Lexicon,
) -> list[float]:
    """Coverage of each neighbouring sentence by the other side of the pair (-1: none)."""
    found = []
    for text in (candidate.src_before, candidate.src_after):
        tokens = model1.tokenize(text, src_lang) if text else []
        found.append(lexicon.coverage(tokens, tgt_tokens)[1] if tokens else -1.0)
    for text in (candidate.tgt_before, candidate.tgt_after):
        tokens = model1.tokenize(text, tgt_lang) if text else []
        found.append(lexicon.coverage(src_tokens, tokens)[0] if tokens else -1.0)
    return found


@dataclass(frozen=True)
class _Lexicon:
    """A Model 1 table t(e|f) of one page as dictionaries, over its vocabularies."""

    src_index: dict[str, int]
    tgt_index: dict[str, int]
    rows: tuple[dict[int, float], ...]  # source word -> {target word: t(e|f)}
    # Cells with evidence from outside one pair: a cue (identical, number, cognate, the
    # dictionary) or both words in two pairs or more. Elsewhere t(e|f) is the pair fitting
    # itself (words met in one pair only explain each other whatever they mean).
    cues: frozenset[tuple[int, int]]
    src_pairs: tuple[int, ...]  # pairs each source word occurs in
    tgt_pairs: tuple[int, ...]

    @classmethod
    def train(
        cls,
        pairs: Sequence[tuple[str, str]],
        src_lang: str,
        tgt_lang: str,
        dictionary: BilingualDictionary | None,
    ) -> _Lexicon:
        src_side = model1.encode([s for s, _ in pairs], src_lang)
        tgt_side = model1.encode([t for _, t in pairs], tgt_lang)
        cues = model1.cue_similarity(src_side.vocabulary, tgt_side.vocabulary)
        if dictionary is not None:
            for cell, strength in dictionary.cues(
                src_side.vocabulary, tgt_side.vocabulary, DICTIONARY_STRENGTH, DICTIONARY_MIN_LENGTH
            ).items():
                cues.setdefault(cell, strength)
        table = model1.train_model1(src_side, tgt_side, [(k, k) for k in range(len(pairs))], cues)
        rows = tuple(
            dict(
                zip(
                    table.target[table.row_start[f] : table.row_start[f + 1]].tolist(),
                    table.probability[table.row_start[f] : table.row_start[f + 1]].tolist(),
                    strict=True,
                )
            )
            for f in range(len(src_side.vocabulary))
        )
        return cls(
            {token: k for k, token in enumerate(src_side.vocabulary)},
            {token: k for k, token in enumerate(tgt_side.vocabulary)},
            rows,
            frozenset(cues),
            _pair_counts(src_side),
            _pair_counts(tgt_side),
        )

    def _evidenced(self, f: int, e: int) -> bool:
        return (f, e) in self.cues or (self.src_pairs[f] > 1 and self.tgt_pairs[e] > 1)

    def coverage(self, src_tokens: Sequence[str], tgt_tokens: Sequence[str]) -> list[float]:
        """(target mean best t, source mean best t, target covered share, source covered
        share) over the word tokens of the two sides (0 for a side without words)."""
        src_ids = {self.src_index[t] for t in src_tokens if is_word(t) and t in self.src_index}
        tgt_words = [t for t in tgt_tokens if is_word(t)]
        src_words = [t for t in src_tokens if is_word(t)]
        tgt_ids = {self.tgt_index[t] for t in tgt_words if t in self.tgt_index}
        best_e: dict[int, float] = {}
        best_f: dict[int, float] = {}
        for f in src_ids:
            row = self.rows[f]
            for e in tgt_ids.intersection(row):
                if not self._evidenced(f, e):
                    continue
                p = row[e]
                best_e[e] = max(best_e.get(e, 0.0), p)
                best_f[f] = max(best_f.get(f, 0.0), p)
        tgt_best = [best_e.get(self.tgt_index.get(t, -1), 0.0) for t in tgt_words]
        src_best = [best_f.get(self.src_index.get(t, -1), 0.0) for t in src_words]
        return [
            _mean(tgt_best),
            _mean(src_best),
            _mean([float(p >= COVERED) for p in tgt_best]),
            _mean([float(p >= COVERED) for p in src_best]),
        ]


def _pair_counts(side: model1.EncodedSide) -> tuple[int, ...]:
    """How many of the side's sentences each vocabulary word occurs in."""
    counts = np.zeros(len(side.vocabulary), dtype=np.int64)
    for k in range(side.n_sentences):
        counts[np.unique(side.sentence(k))] += 1
    return tuple(counts.tolist())


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


@functools.lru_cache(maxsize=100_000)
def _stem(word: str, lang: str) -> str:
    return stem(word, langid.language_group(lang))


@functools.lru_cache(maxsize=16)
def _translations(dictionary: BilingualDictionary) -> tuple[dict[str, frozenset[str]], ...]:
    """The dictionary's translations both ways, as sets (source -> target, target -> source)."""
    forward: dict[str, set[str]] = {}
    backward: dict[str, set[str]] = {}
    for f_stem, e_stem in dictionary.pairs:
        forward.setdefault(f_stem, set()).add(e_stem)
        backward.setdefault(e_stem, set()).add(f_stem)
    return (
        {key: frozenset(value) for key, value in forward.items()},
        {key: frozenset(value) for key, value in backward.items()},
    )


def _dictionary_coverage(
    src_words: Sequence[str],
    tgt_words: Sequence[str],
    src_lang: str,
    tgt_lang: str,
    dictionary: BilingualDictionary | None,
) -> tuple[float, float, float, float]:
    """(source covered, target covered, source known, target known) shares; NaN without a
    dictionary (the trees learn a way for that too)."""
    if dictionary is None:
        return (math.nan, math.nan, math.nan, math.nan)
    forward, backward = _translations(dictionary)
    src_stems = [_stem(w, src_lang) for w in src_words]
    tgt_stems = [_stem(w, tgt_lang) for w in tgt_words]
    src_set, tgt_set = frozenset(src_stems), frozenset(tgt_stems)
    empty: frozenset[str] = frozenset()
    return (
        _mean([float(bool(forward.get(s, empty) & tgt_set)) for s in src_stems]),
        _mean([float(bool(backward.get(s, empty) & src_set)) for s in tgt_stems]),
        _mean([float(s in forward) for s in src_stems]),
        _mean([float(s in backward) for s in tgt_stems]),
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


def _copy_ratio(src: str, tgt: str) -> float:
    a, b = normalise(src)[:COPY_CHARS], normalise(tgt)[:COPY_CHARS]
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _agreement(src: Sequence[str], tgt: Sequence[str]) -> tuple[float, float]:
    """(Jaccard of the two sets, log1p of the larger count); Jaccard -1 when both are empty."""
    a, b = set(src), set(tgt)
    if not a and not b:
        return -1.0, 0.0
    return len(a & b) / len(a | b), math.log1p(max(len(src), len(tgt)))


def _final(text: str) -> str:
    stripped = text.rstrip(" \t\"'»”」』)）")
    return _FINAL.get(stripped[-1:], "") if stripped else ""


def _punctuation_count(text: str) -> int:
    return sum(1 for char in text if unicodedata.category(char).startswith("P"))


def _punctuation_difference(src: str, tgt: str) -> float:
    a, b = _punctuation_count(src), _punctuation_count(tgt)
    return abs(a - b) / (a + b + 1)


def _capitalised(text: str) -> set[str]:
    """Capitalised Latin-script tokens other than the text's first word, case-folded."""
    found = _CAPITALISED.findall(text)
    first = _CAPITALISED.match(text.lstrip())
    if first is not None and found and found[0] == first.group():
        found = found[1:]
    return {token.casefold() for token in found if _LATIN.match(token)}


def _capitalised_agreement(src: str, tgt: str) -> float:
    """Share of the capitalised tokens of both sides found (case-folded) in the other side's
    text; -1 when neither side has one."""
    a, b = _capitalised(src), _capitalised(tgt)
    if not a and not b:
        return -1.0
    src_folded, tgt_folded = src.casefold(), tgt.casefold()
    found = sum(token in tgt_folded for token in a) + sum(token in src_folded for token in b)
    return found / (len(a) + len(b))


def _expected_script(text: str, lang: str) -> float:
    """Share of the text's letters in the script of ``lang`` (Latin unless listed); 1 for a
    text without letters."""
    letters = langid.letters(text)
    if not letters:
        return 1.0
    pattern = _SCRIPTS.get(langid.language_group(lang), _LATIN)
    return min(1.0, len(pattern.findall(text)) / letters)


def _letters_share(text: str) -> float:
    visible = sum(1 for char in text if not char.isspace())
    return langid.letters(text) / visible if visible else 0.0


def _self_repetition(words: Sequence[str]) -> float:
    return 1.0 - len(set(words)) / len(words) if words else 0.0
