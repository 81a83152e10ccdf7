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
import unicodedata
from importlib.metadata import version

import regex

from shared.langid_model import scorer

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
def model_version() -> str:
    """The language identifier and its version (the model ships with the package)."""
    return f"py3langid-{version('py3langid')}"


def known(code: str) -> bool:
    """Whether the model knows the language (group) of ``code``."""
    return language_group(code) in _known_groups()


@functools.cache
def _known_groups() -> frozenset[str]:
    return frozenset(language_group(label) for label in scorer().labels)


def guess(text: str) -> tuple[str, float]:
    """The most probable language of ``text`` and its probability (py3langid's
    ``classify``, computed by :class:`shared.langid_model.Scorer`)."""
    return scorer().best(text)


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
    its order (best first), computed from the same model (:mod:`shared.langid_model`)."""
    return scorer().summed(text, _group_columns(group))


@functools.lru_cache(maxsize=256)
def _group_columns(group: str) -> tuple[int, ...]:
    """The model's columns of the group's labels (each label's first), in column order."""
    return tuple(c for label, c in scorer().first_columns.items() if language_group(label) == group)


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
