"""Bilingual dictionaries as seeds of the lexical model (Hunalign's dictionary, Chen 1993).

Model 1 trained on one document pair knows only the words its confident beads repeat; a word
seen once stays unknown, and short documents have few confident beads. A bilingual
dictionary adds what the document cannot teach: each dictionary pair (f, e) whose stems occur
in the two vocabularies becomes a cue, a pseudo-count in Model 1's M-step beside the identity
and cognate cues (``lexicon.cue_similarity``):

    t(e|f) = (c(f, e) + cue_weight * cue(f, e)) / sum over e' of (...)

Words are matched by their Snowball stem (PyStemmer, Snowball's C stemmers), since
dictionaries list lemmas and texts inflect them ("Gletschern" -> "gletsch" <- "Gletscher").

Dictionaries are read in the dictd format of the FreeDict project (Debian packages
``dict-freedict-<src>-<tgt>``, installed under ``/usr/share/dictd``): ``NAME.index`` lines
``headword<TAB>offset<TAB>length`` (offsets in dictd's base-64 digits) into ``NAME.dict.dz``
(gzip-compatible dictzip). A FreeDict entry is a headword line and then, per sense, a line of
comma-separated translations followed by a definition in the headword's language; lines with
a part of more than ``MAX_ITEM_WORDS`` words are definitions and are skipped, and only
one-word headwords and translations make pairs. Both directions' files are read when present
(deu-fra and fra-deu), so aligning French to German uses the same pairs mirrored.

Two other packaged formats are read (``load_edict``, ``load_cedict``): EDICT (Japanese-English,
Debian's ``edict``: ``headword [reading] /(pos) gloss/gloss/``, EUC-JP) and CC-CEDICT
(Chinese-English: ``traditional simplified [pinyin] /gloss/gloss/``, UTF-8). Their glosses are
English phrases: parenthesised notes and "to " / "a " / "the " are removed, a gloss of one
word makes one pair, a gloss of up to ``MAX_ITEM_WORDS`` words pairs the headword with each of
its content words, longer glosses (definitions) none. A CC-CEDICT entry gives both its
traditional and its simplified headword, so texts in either script find it.

Any other bilingual lexicon can come as a word-pair file (``load_word_pairs``): one pair per
line, source word then target word, separated by a tab or by spaces (the format of MUSE's
ground-truth dictionaries, Conneau et al. 2018, and of most lexicon exports); columns after
the second (a score, a part of speech) are ignored, '#' starts a comment line, and entries
of several words are skipped, as in FreeDict.
"""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import Stemmer

from shared.errors import InvalidInput
from shared.text import is_word

# ISO 639-1 -> (FreeDict's ISO 639-3 code, Snowball stemmer name or None).
LANGUAGES: dict[str, tuple[str, str | None]] = {
    "de": ("deu", "german"),
    "fr": ("fra", "french"),
    "en": ("eng", "english"),
    "it": ("ita", "italian"),
    "es": ("spa", "spanish"),
    "nl": ("nld", "dutch"),
    "pt": ("por", "portuguese"),
    "sv": ("swe", "swedish"),
    "da": ("dan", "danish"),
    "fi": ("fin", "finnish"),
    "ru": ("rus", "russian"),
    "cs": ("ces", "czech"),
    "pl": ("pol", "polish"),
    "tr": ("tur", "turkish"),
    "ja": ("jpn", None),
    "zh": ("zho", None),
    "is": ("isl", None),
}
# Languages written without spaces: their words are matched whole (no stemming), whatever
# their length (``BilingualDictionary.cues``).
UNSEGMENTED = frozenset({"ja", "zh"})
MAX_ITEM_WORDS = 3
# dictd's base-64 digits (offsets and lengths in .index files).
_DIGITS = {char: value for value, char in enumerate(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
)}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
_SENSE_NUMBER = re.compile(r"^\d+\.\s*")


def _base64(text: str) -> int:
    value = 0
    for char in text:
        value = value * 64 + _DIGITS[char]
    return value


def read_dictd(index: Path, data: Path) -> Iterator[tuple[str, list[str]]]:
    """(headword, translation items) of every entry of a dictd dictionary, in index order.

    Items are the comma- or semicolon-separated parts of the lines after the headword line,
    sense numbers removed; a line with a part of more than ``MAX_ITEM_WORDS`` words is a
    definition and gives none. dictd's own entries
    (headwords starting with "00-database" or "00database") are skipped. Raises
    ``InvalidInput`` for an offset or length that is not in dictd's base-64 digits, or for a
    data file that is not gzip (a cut or corrupt download) or an index that is not UTF-8."""
    try:
        with gzip.open(data) as stream:
            body = stream.read()
        index_lines = index.read_text(encoding="utf-8").splitlines()
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{data.parent}: not a readable dictd dictionary ({error})") from None
    for number, line in enumerate(index_lines, 1):
        fields = line.split("\t")
        if len(fields) != 3 or fields[0].startswith(("00-database", "00database")):
            continue
        try:
            start, length = _base64(fields[1]), _base64(fields[2])
        except KeyError:
            raise InvalidInput(f"{index}, line {number}: not a dictd index line") from None
        lines = body[start : start + length].decode("utf-8", errors="replace").splitlines()
        items = []
        for sense in lines[1:]:
            parts = [part.strip() for part in re.split(r"[,;]", _SENSE_NUMBER.sub("", sense))]
            # A definition has a longer part somewhere ("Eismasse, die bis zu ... kann").
            if all(len(part.split()) <= MAX_ITEM_WORDS for part in parts):
                items += [part for part in parts if part]
        yield fields[0], items


@functools.lru_cache(maxsize=32)
def _stemmer(lang: str) -> Stemmer.Stemmer | None:
    name = LANGUAGES.get(lang, ("", None))[1]
    return Stemmer.Stemmer(name) if name else None


def stem(word: str, lang: str) -> str:
    """The Snowball stem of a lower-cased word (the word itself for languages without one)."""
    stemmer = _stemmer(lang)
    return str(stemmer.stemWord(word)) if stemmer is not None else word


class BilingualDictionary:
    """Word pairs of two languages, as (source stem, target stem).

    Made from its pairs (the readers) or from its translations, the target stems of each
    source stem (the merged-dictionary cache, ``registry``, keeps them so: a process then
    reads the index it uses instead of building the pairs and then the index from them).
    Whichever it is not made from is derived on first use."""

    def __init__(
        self,
        src_lang: str,
        tgt_lang: str,
        pairs: frozenset[tuple[str, str]] | None = None,
        *,
        translations: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        if (pairs is None) == (translations is None):
            raise ValueError("a dictionary is made from its pairs or its translations")
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        if pairs is not None:
            self.__dict__["pairs"] = pairs
        else:
            self.__dict__["translations"] = translations

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BilingualDictionary):
            return NotImplemented
        return (self.src_lang, self.tgt_lang, self.translations) == (
            other.src_lang,
            other.tgt_lang,
            other.translations,
        )

    def __hash__(self) -> int:
        return hash((self.src_lang, self.tgt_lang, len(self.translations)))

    def __repr__(self) -> str:
        return (
            f"BilingualDictionary({self.src_lang}-{self.tgt_lang}, {len(self.translations)} stems)"
        )

    @functools.cached_property
    def pairs(self) -> frozenset[tuple[str, str]]:
        """Every (source stem, target stem) pair."""
        return frozenset((f, e) for f, targets in self.translations.items() for e in targets)

    @functools.cached_property
    def translations(self) -> dict[str, tuple[str, ...]]:
        """Target stems of each source stem (sorted)."""
        table: dict[str, list[str]] = {}
        for f_stem, e_stem in self.pairs:
            table.setdefault(f_stem, []).append(e_stem)
        return {f_stem: tuple(sorted(e_stems)) for f_stem, e_stems in table.items()}

    def reversed(self) -> BilingualDictionary:
        """The same pairs read from the target language to the source language (made once
        per dictionary)."""
        return self._reversed

    @functools.cached_property
    def _reversed(self) -> BilingualDictionary:
        table: dict[str, list[str]] = {}
        for f_stem, e_stems in self.translations.items():
            for e_stem in e_stems:
                table.setdefault(e_stem, []).append(f_stem)
        translations = {e_stem: tuple(sorted(f_stems)) for e_stem, f_stems in table.items()}
        turned = BilingualDictionary(self.tgt_lang, self.src_lang, translations=translations)
        turned.__dict__["_reversed"] = self
        return turned

    def cues(
        self,
        src_vocabulary: Sequence[str],
        tgt_vocabulary: Sequence[str],
        strength: float,
        min_length: int,
    ) -> dict[tuple[int, int], float]:
        """Cue pairs (f, e) -> ``strength`` for vocabulary words of at least ``min_length``
        letters (any length in ``UNSEGMENTED`` languages) whose stems the dictionary pairs
        (indices into the two vocabularies)."""
        src_min = 1 if self.src_lang in UNSEGMENTED else min_length
        tgt_min = 1 if self.tgt_lang in UNSEGMENTED else min_length
        by_stem: dict[str, list[int]] = {}
        for e, token in enumerate(tgt_vocabulary):
            e_stem = _cue_stem(token, self.tgt_lang, tgt_min)
            if e_stem is not None:
                by_stem.setdefault(e_stem, []).append(e)
        translations = self.translations
        present = frozenset(by_stem)
        cues: dict[tuple[int, int], float] = {}
        for f, token in enumerate(src_vocabulary):
            f_stem = _cue_stem(token, self.src_lang, src_min)
            if f_stem is None or f_stem not in translations:
                continue
            # (intersected first: a Chinese character has dozens of English translations)
            for e_stem in sorted(present.intersection(translations[f_stem])):
                for e in by_stem[e_stem]:
                    cues[(f, e)] = strength
        return cues


# The same words come back with every page pair of a site (sentence_align adds the site's
# earlier sentence pairs to each page pair's text): their stems are remembered.
@functools.lru_cache(maxsize=100_000)
def _cue_stem(token: str, lang: str, min_length: int) -> str | None:
    """The stem a vocabulary word is looked up by; None for a token that takes no cue (shorter
    than ``min_length`` or not a word)."""
    if len(token) < min_length or not is_word(token):
        return None
    return stem(token, lang)


def _one_word(text: str) -> str | None:
    words = _WORD.findall(text.lower())
    return words[0] if len(words) == 1 else None


def _file_pairs(
    directory: Path, name: str, swap: bool, langs: tuple[str, str]
) -> set[tuple[str, str]]:
    index, data = directory / f"{name}.index", directory / f"{name}.dict.dz"
    if not (index.is_file() and data.is_file()):
        return set()
    head_lang, item_lang = (langs[1], langs[0]) if swap else langs
    pairs: set[tuple[str, str]] = set()
    for headword, items in read_dictd(index, data):
        head = _one_word(headword)
        if head is None:
            continue
        head_stem = stem(head, head_lang)
        for item in items:
            word = _one_word(item)
            if word is not None:
                item_stem = stem(word, item_lang)
                pairs.add((item_stem, head_stem) if swap else (head_stem, item_stem))
    return pairs


@functools.lru_cache(maxsize=8)
def load_freedict(directory: Path, src_lang: str, tgt_lang: str) -> BilingualDictionary | None:
    """The FreeDict pairs of two languages (ISO 639-1) from ``directory``: both
    ``freedict-<src>-<tgt>`` and ``freedict-<tgt>-<src>`` when present; None when neither is."""
    if src_lang not in LANGUAGES or tgt_lang not in LANGUAGES:
        return None
    src_code, tgt_code = LANGUAGES[src_lang][0], LANGUAGES[tgt_lang][0]
    langs = (src_lang, tgt_lang)
    pairs = _file_pairs(directory, f"freedict-{src_code}-{tgt_code}", False, langs)
    pairs |= _file_pairs(directory, f"freedict-{tgt_code}-{src_code}", True, langs)
    if not pairs:
        return None
    return BilingualDictionary(src_lang, tgt_lang, frozenset(pairs))


def load_word_pairs(path: Path, src_lang: str, tgt_lang: str) -> BilingualDictionary:
    """The one-word pairs of a word-pair file (source word, target word per line; see the
    module docstring). Raises ``InvalidInput`` for a line with a single field, a file that
    is not UTF-8, or a file without any one-word pair."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        raise InvalidInput(f"{path}: not UTF-8 text ({error.reason})") from None
    pairs: set[tuple[str, str]] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) < 2:
            raise InvalidInput(f"{path}, line {number}: expected a source and a target word")
        src_word, tgt_word = _one_word(fields[0]), _one_word(fields[1])
        if src_word is not None and tgt_word is not None:
            pairs.add((stem(src_word, src_lang), stem(tgt_word, tgt_lang)))
    if not pairs:
        raise InvalidInput(f"{path}: no one-word pairs")
    return BilingualDictionary(src_lang, tgt_lang, frozenset(pairs))


# Gloss clean-up for EDICT and CC-CEDICT (English glosses of a headword).
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^][]*\]|\{[^{}]*\}")
_GLOSS_PREFIX = re.compile(r"^(?:to|a|an|the|lit\.|fig\.|esp\.|abbr\.)\s+", re.IGNORECASE)
# Glosses that point to another entry or name a measure word: no translation.
_NOT_A_GLOSS = re.compile(r"^(?:see |see also |variant of |old variant of |CL:|surname |used in )")
_STOPWORDS = frozenset({
    "a", "an", "the", "to", "of", "in", "on", "at", "by", "for", "from", "with", "and", "or",
    "as", "be", "is", "are", "sth", "sb", "one's", "oneself", "etc", "it", "its", "this", "that",
})  # fmt: skip


def gloss_words(gloss: str) -> list[str]:
    """The content words of an English gloss (lower-cased), or none when the gloss is a
    reference, a definition (more than ``MAX_ITEM_WORDS`` words) or empty."""
    if _NOT_A_GLOSS.match(gloss.strip()):
        return []
    text = gloss
    while True:  # nested parentheses, innermost first
        stripped = _PARENTHESES.sub(" ", text)
        if stripped == text:
            break
        text = stripped
    text = text.strip()
    previous = None
    while previous != text:
        previous, text = text, _GLOSS_PREFIX.sub("", text).strip()
    words = _WORD.findall(text.lower())
    if not words or len(words) > MAX_ITEM_WORDS:
        return []
    return [word for word in words if word not in _STOPWORDS]


def _gloss_pairs(headwords: Sequence[str], glosses: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(headword, English stem) pairs of one entry (headwords of unsegmented languages are
    matched whole, not stemmed)."""
    for gloss in glosses:
        for word in gloss_words(gloss):
            for head in headwords:
                yield head, stem(word, "en")


def _entry_glosses(body: str) -> list[str]:
    return [part for part in body.strip().strip("/").split("/") if part.strip()]


def _read_lines(path: Path, encoding: str) -> list[str]:
    try:
        return path.read_text(encoding=encoding).splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{path}: not a readable {encoding} dictionary ({error})") from None


@functools.lru_cache(maxsize=4)
def load_edict(path: Path) -> BilingualDictionary:
    """The pairs of an EDICT file (Japanese-English, EUC-JP, or UTF-8 for EDICT2u):
    ``headword [reading] /(pos) gloss/.../(P)/``; the headword and the reading (kana) both
    pair with each gloss's content words. Raises ``InvalidInput`` for a file without any
    entry in that form."""
    raw = path.read_bytes() if path.is_file() else b""
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        lines = _read_lines(path, "euc-jp")
    pairs: set[tuple[str, str]] = set()
    for line in lines:
        head, slash, body = line.partition(" /")
        if not slash or head.startswith("\u3000"):
            continue
        name, _, reading = head.partition(" [")
        headwords = [name.strip()] + ([reading.rstrip("]").strip()] if reading else [])
        glosses = [re.sub(r"^\(\d+\)\s*", "", g) for g in _entry_glosses(body) if g != "(P)"]
        pairs.update(_gloss_pairs([h for h in headwords if h], glosses))
    if not pairs:
        raise InvalidInput(f"{path}: no EDICT entries")
    return BilingualDictionary("ja", "en", frozenset(pairs))


@functools.lru_cache(maxsize=4)
def load_cedict(path: Path) -> BilingualDictionary:
    """The pairs of a CC-CEDICT file (Chinese-English, UTF-8):
    ``traditional simplified [pinyin] /gloss/.../``; both headwords pair with each gloss's
    content words. Raises ``InvalidInput`` for a file without any entry in that form."""
    pairs: set[tuple[str, str]] = set()
    for line in _read_lines(path, "utf-8"):
        if line.startswith("#"):
            continue
        head, slash, body = line.partition(" /")
        fields = head.split(" ", 2)
        if not slash or len(fields) < 3:
            continue
        headwords = sorted({fields[0].lower(), fields[1].lower()})
        pairs.update(_gloss_pairs(headwords, _entry_glosses(body)))
    if not pairs:
        raise InvalidInput(f"{path}: no CC-CEDICT entries")
    return BilingualDictionary("zh", "en", frozenset(pairs))
