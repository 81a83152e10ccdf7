"""English WordNet relations for monolingual word alignment: lemmas, synonyms, related words.

Reads Princeton WordNet 3.0 in place from Debian's ``wordnet-base`` (``/usr/share/wordnet``:
``data.{noun,verb,adj,adv}`` and the ``*.exc`` inflection exceptions). Sultan, Bethard &
Sumner (2014, §3.1) align two words when they are identical, share a lemma, or are WordNet
synonyms or derivationally related; this module answers those questions:

- :meth:`WordNet.lemmas` is WordNet's ``morphy``: the exception lists, then the detachment
  rules (``-ies -> -y``, ``-ed -> -e`` ...), keeping only bases that are WordNet lemmas, plus
  the word itself.
- :meth:`WordNet.relation` grades a pair: 3 = share a synset (synonyms), 2 = synsets one
  lexical pointer apart (derivational ``+``, similar-to ``&``, pertainym ``\\``, participle
  ``<``, also-see ``^``, attribute ``=``), 1 = one hypernym/hyponym step (``@``/``~``,
  instances included), 0 = unrelated.
Multi-word lemmas keep WordNet's underscores (``pass_away``), so a caller can look up a
two-token phrase as ``"passed_away"``.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from pathlib import Path

DEFAULT_DIR = Path("/usr/share/wordnet")
_POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_LEXICAL_POINTERS = frozenset({"+", "&", "\\", "<", "^", "="})
_TAXONOMY_POINTERS = frozenset({"@", "~", "@i", "~i"})
_DETACHMENT = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh")),
    "v": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
_NOUN_EXTRA = (("men", "man"), ("ies", "y"))


class WordNet:
    """Lemma -> synsets and synset -> related synsets of one WordNet 3.0 directory."""

    def __init__(self, directory: Path = DEFAULT_DIR) -> None:
        self.directory = directory
        self._synsets: dict[str, set[str]] = defaultdict(set)  # lemma -> "offset-pos" ids
        self._lexical: dict[str, set[str]] = defaultdict(set)  # synset -> +, &, \\ ... targets
        self._taxonomy: dict[str, set[str]] = defaultdict(set)  # synset -> hypernyms, hyponyms
        self._lemmas_by_pos: dict[str, set[str]] = defaultdict(set)
        self._exceptions: dict[str, set[str]] = defaultdict(set)  # inflected -> bases
        for pos, name in _POS_FILES.items():
            data = directory / f"data.{name}"
            if not data.exists():
                raise FileNotFoundError(
                    f"{data} not found: install Debian's wordnet-base (/usr/share/wordnet)"
                )
            self._read_data(data, pos)
            exceptions = directory / f"{name}.exc"
            if exceptions.exists():
                for line in exceptions.read_text(encoding="utf-8").splitlines():
                    fields = line.split()
                    if len(fields) >= 2:
                        self._exceptions[fields[0]].update(fields[1:])

    def _read_data(self, path: Path, pos: str) -> None:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("  "):
                    continue  # licence header
                fields = line.split(" | ", 1)[0].split()
                offset, synset_type = fields[0], fields[2]
                synset = f"{offset}-{pos}"
                n_words = int(fields[3], 16)
                for k in range(n_words):
                    word = fields[4 + 2 * k].lower()
                    if synset_type == "s" or pos == "a":
                        word = word.split("(", 1)[0]  # adjective markers: galore(ip)
                    self._synsets[word].add(synset)
                    self._lemmas_by_pos[pos].add(word)
                at = 4 + 2 * n_words
                n_pointers = int(fields[at])
                for k in range(n_pointers):
                    symbol, target, target_pos = fields[at + 1 + 4 * k : at + 4 + 4 * k]
                    target_id = f"{target}-{'a' if target_pos == 's' else target_pos}"
                    if symbol in _LEXICAL_POINTERS:
                        self._lexical[synset].add(target_id)
                    elif symbol in _TAXONOMY_POINTERS:
                        self._taxonomy[synset].add(target_id)

    @lru_cache(maxsize=65536)  # noqa: B019 - one long-lived instance per process
    def lemmas(self, word: str) -> frozenset[str]:
        """The word (lowercased) and its WordNet base forms (morphy)."""
        word = word.lower()
        head, separator, rest = word.partition("_")
        tail = separator + rest  # multi-word lemma: the first word carries the inflection
        found = {word}
        found.update(base + tail for base in self._exceptions.get(head, ()))
        for pos, rules in _DETACHMENT.items():
            for suffix, ending in rules + (_NOUN_EXTRA if pos == "n" else ()):
                if head.endswith(suffix) and len(head) > len(suffix) + 1:
                    base = head[: len(head) - len(suffix)] + ending + tail
                    if base in self._lemmas_by_pos[pos]:
                        found.add(base)
        return frozenset(found)

    @lru_cache(maxsize=65536)  # noqa: B019
    def synsets(self, word: str) -> frozenset[str]:
        """Synsets of every lemma of the word."""
        result: set[str] = set()
        for lemma in self.lemmas(word):
            result.update(self._synsets.get(lemma, ()))
        return frozenset(result)

    def known(self, word: str) -> bool:
        return bool(self.synsets(word))

    @lru_cache(maxsize=262144)  # noqa: B019
    def relation(self, left: str, right: str) -> int:
        """3 synonyms, 2 lexically related, 1 hypernym/hyponym, 0 unrelated (module docstring)."""
        a, b = self.synsets(left), self.synsets(right)
        if not a or not b:
            return 0
        if not a.isdisjoint(b):
            return 3
        for grade in (2, 1):
            if not self._pointed(left, grade).isdisjoint(b) or not self._pointed(
                right, grade
            ).isdisjoint(a):
                return grade
        return 0

    @lru_cache(maxsize=65536)  # noqa: B019
    def _pointed(self, word: str, grade: int) -> frozenset[str]:
        # synsets the word's synsets point to: lexical pointers (grade 2) or taxonomy (grade 1)
        pointers = self._lexical if grade == 2 else self._taxonomy
        result: set[str] = set()
        for synset in self.synsets(word):
            result.update(pointers.get(synset, ()))
        return frozenset(result)

    @classmethod
    def clear_caches(cls) -> None:
        """Forget every cached look-up (for timing a cold start)."""
        for cached in (cls.lemmas, cls.synsets, cls.relation, cls._pointed):
            cached.cache_clear()


@lru_cache(maxsize=1)
def default_wordnet() -> WordNet | None:
    """The system WordNet, or None when ``wordnet-base`` is not installed."""
    try:
        return WordNet(DEFAULT_DIR)
    except FileNotFoundError:
        return None
