"""Language identification of one text, and whether it is confidently not its declared
language (py3langid: langid.py's naive Bayes model over byte n-grams, 97 languages, the
model shipped inside the package; chosen in ``benchmarks/results/langid.md``).

Pure: no store, queue or web imports, so any stage (sentence_align's flags, page matching)
can use it. A verdict on a short text is unreliable (a menu item, a number, a name): a text
with fewer than MIN_LETTERS letters is never called wrong, nor is a text whose declared
language the model does not know.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np
import numpy.typing as npt
import regex

# Chosen on the dev part of benchmarks/system/langid.py (benchmarks/results/langid.md).
MIN_LETTERS = 10
MAX_DECLARED_PROB = 0.001

# Languages the model confuses among themselves, and whose speakers read one another:
# never a wrong-language verdict inside one group.
_GROUPS = {
    "nb": "no", "nn": "no", "no": "no",
    "hr": "sh", "bs": "sh", "sr": "sh",
    "ms": "ms", "id": "ms",
}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def language_group(code: str) -> str:
    """The base language of a code (``en-GB`` → ``en``, ``zh_Hant`` → ``zh``), or its group."""
    base = code.replace("_", "-").split("-", 1)[0].lower()
    return _GROUPS.get(base, base)


@functools.cache
def _identifier() -> Any:
    # lazy: py3langid (numpy) loads with its model on first use, not at a worker's start
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@functools.cache
def model_version() -> str:
    """The language identifier and its version (the model ships with the package)."""
    return f"py3langid-{version('py3langid')}"


def known(code: str) -> bool:
    """Whether the model knows the language (group) of ``code``."""
    return language_group(code) in _known_groups()


@functools.cache
def _known_groups() -> frozenset[str]:
    return frozenset(language_group(str(label)) for label in _identifier().nb_classes)


def guess(text: str) -> tuple[str, float]:
    """The most probable language of ``text`` and its probability."""
    lang, probability = _identifier().classify(text)
    return str(lang), float(probability)


# A site's boilerplate (menus, footers, cookie notices) stands on each of its pages: texts up
# to CACHED_CHARS long keep their probability, CACHE_SIZE of them (a few MB at most);
# measured once in benchmarks/results/langid_cache.md (a record; its script is retired).
CACHED_CHARS = 400
CACHE_SIZE = 8192


def declared_probability(text: str, declared: str, *, cache: bool = True) -> float:
    """The probability the model gives ``declared``'s language group for ``text`` (kept for
    texts of up to CACHED_CHARS characters unless ``cache`` is false)."""
    group = language_group(declared)
    if cache and len(text) <= CACHED_CHARS:
        return _cached_group_probability(text, group)
    return _group_probability(text, group)


def clear_cache() -> None:
    """Forget the probabilities :func:`declared_probability` kept."""
    _cached_group_probability.cache_clear()


def _group_probability(text: str, group: str) -> float:
    """The probabilities of the group's languages in py3langid's ``rank(text)``, summed in
    its order (best first), computed from the same model by :class:`_Scorer`."""
    return _scorer().group_probability(text, group)


class _Scorer:
    """py3langid's ``rank`` for one group, without ranking every language.

    The identifier's steps (``LanguageIdentifier._decide``): the text encoded as the library
    encodes it, the byte walk's feature counts (compiled: :mod:`shared.langid_walk`), naive
    Bayes scores ``log1p(counts) @ ptc[features] + pc``, tempered by the square root of the
    byte length and normalised (softmax), a duplicated label's column folded into its first.
    The numpy expressions are the library's, so the probabilities are its own to the bit
    (held against py3langid in the tests); only the ranking of all 140 labels and the walk's
    Python loop are left out."""

    def __init__(self, identifier: Any, walk: Callable[..., tuple[Any, Any]]) -> None:
        self.walk = walk
        # float32 once (57 MB) rather than each text's rows from float16: the same values, and
        # numpy's float16 conversion was half of a text's cost
        self.ptc = np.asarray(identifier.nb_ptc, dtype=np.float32)
        self.pc = identifier.nb_pc
        self.nextmove = np.frombuffer(identifier.tk_nextmove, dtype=np.uint32)
        self.rowbase = np.asarray(identifier.tk_row, dtype=np.int64) << 8
        self.output = np.asarray(identifier.tk_output, dtype=np.int64)
        labels = [str(label) for label in identifier.nb_classes]
        first: dict[str, int] = {}
        self.aliases: list[tuple[int, int]] = []
        for column, label in enumerate(labels):
            if label in first:
                self.aliases.append((first[label], column))
            else:
                first[label] = column
        self.columns: dict[str, list[int]] = {}
        for label, column in first.items():
            self.columns.setdefault(language_group(label), []).append(column)

    def probabilities(self, text: str) -> npt.NDArray[np.float32]:
        """The normalised score of every column (a duplicate's folded into its first)."""
        if text.isupper():
            text = text.lower()
        data = unicodedata.normalize("NFC", text).encode("utf8", errors="surrogatepass")
        features, counts = self.walk(
            np.frombuffer(data, dtype=np.uint8), self.nextmove, self.rowbase, self.output
        )
        scores: npt.NDArray[np.float32]
        if len(features):
            scores = np.log1p(counts.astype(np.float32)) @ self.ptc[features] + self.pc
        else:  # no feature: every language alike
            scores = np.full(len(self.pc), 0.0, dtype=np.float32)
        scores *= 1.0 / math.sqrt(len(data) or 1)
        np.exp(scores - scores.max(), out=scores)
        scores /= scores.sum()
        for kept, folded in self.aliases:
            scores[kept] += scores[folded]
            scores[folded] = 0.0
        return scores

    def group_probability(self, text: str, group: str) -> float:
        scores = self.probabilities(text)
        ranked = sorted((float(scores[c]) for c in self.columns.get(group, ())), reverse=True)
        return sum(ranked)


@functools.cache
def _scorer() -> _Scorer:
    # lazy: numba loads (and compiles the walk) on first use, not at a worker's start
    from shared.langid_walk import feature_counts

    return _Scorer(_identifier(), feature_counts)


_cached_group_probability = functools.lru_cache(maxsize=CACHE_SIZE)(_group_probability)


def letters(text: str) -> int:
    """How many letters ``text`` holds (digits, punctuation and spaces are not evidence)."""
    return sum(1 for char in text if unicodedata.category(char).startswith("L"))


_LATIN_LETTER = regex.compile(r"\p{Latin}")


def mostly_latin(text: str) -> bool:
    """Whether most of the text's letters (``letters``) are Latin-script letters: read off
    the text, not its language code (Serbian is written in both scripts); a text without
    letters is."""
    count = letters(text)
    return not count or 2 * len(_LATIN_LETTER.findall(text)) >= count


def has_letters(text: str, count: int) -> bool:
    """Whether ``text`` holds at least ``count`` letters (``letters(text) >= count``), reading
    only as far as the ``count``-th letter."""
    if count <= 0:
        return True
    for char in text:
        if unicodedata.category(char).startswith("L"):
            count -= 1
            if count == 0:
                return True
    return False


def wrong_language(
    text: str,
    declared: str,
    min_letters: int = MIN_LETTERS,
    max_prob: float = MAX_DECLARED_PROB,
    *,
    cache: bool = True,
) -> bool:
    """True only when ``text`` is confidently not in ``declared``: it has ``min_letters``
    letters or more, the model knows ``declared``, and gives it at most ``max_prob``."""
    if not has_letters(text, min_letters) or not known(declared):
        return False
    return declared_probability(text, declared, cache=cache) <= max_prob
