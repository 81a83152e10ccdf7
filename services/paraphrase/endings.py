"""Sentence-ending paraphrases of action nouns ranked by backward branching factor (§3a).

Seed: paraphrase-web-vs-mobile-news.txt §4 (Web vs mobile news). A mobile sentence often ends
in an action noun (発表, 判明); the Web sentence aligned to it ends in a verb phrase saying the
same thing (発表した, 明らかになった). For each action noun AN we look at the suffixes Cs(n) of the
Web sentences {Ws(AN)} and keep those where the backward branching factor BB increases
(a coherent expression ends there), scored by Para = freq · log(n − 1) (docs/methods.md §3a).

The result depends only on the *set* of distinct (web, mobile) pairs, so re-feeding pairs
(at-least-once delivery) never changes a table.
"""

from __future__ import annotations

import math
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from shared.errors import InvalidInput
from shared.text import analyse_japanese, normalise_japanese

Unit = Literal["char", "word"]

# The sentence start counts as one distinct left neighbour in BB (docs/methods.md §3a step 2).
_SENTENCE_START = "\x02"


@dataclass(frozen=True)
class EndingCandidate:
    """One ranked paraphrase candidate Cs(n) of an action noun."""

    noun: str
    suffix: str
    freq: int
    branching: int
    score: float


def _is_trailing_noise(character: str) -> bool:
    return character.isspace() or unicodedata.category(character).startswith("P")


def strip_final_punctuation(sentence: str) -> str:
    """The sentence without trailing punctuation and spaces (。」！ etc.)."""
    end = len(sentence)
    while end > 0 and _is_trailing_noise(sentence[end - 1]):
        end -= 1
    return sentence[:end]


def action_noun(mobile_sentence: str) -> str | None:
    """The sahen noun ending a mobile sentence (its last content morpheme), else None.

    Read in ``normalise_japanese`` form, as the thesaurus stage reads its sentences: UniDic
    tags half-width ﾘﾘｰｽ as a plain noun, so mobile text in half-width kana had no action
    noun."""
    morphemes = [
        m for m in analyse_japanese(normalise_japanese(mobile_sentence)) if not m.is_punctuation
    ]
    if not morphemes:
        return None
    last = morphemes[-1]
    return last.surface if last.is_sahen_noun else None


def sentence_units(sentence: str, unit: Unit) -> tuple[str, ...]:
    """A Web sentence without final punctuation, as characters or as morpheme surfaces, in
    ``normalise_japanese`` form (a decomposed or half-width spelling is one suffix)."""
    body = strip_final_punctuation(normalise_japanese(sentence))
    if unit == "char":
        return tuple(body)

    return tuple(m.surface for m in analyse_japanese(body) if m.surface.strip())


def para_score(freq: int, length_chars: int) -> float:
    """Para(Cs(n)) = freq(Cs(n)) · log(n − 1), n in characters; 0 when n ≤ 2 (eq. 5–6)."""
    if length_chars <= 2:
        return 0.0
    return freq * math.log(length_chars - 1)


def rank_endings(
    noun: str,
    web_sentences: Sequence[tuple[str, ...]],
    *,
    top: int = 10,
    max_len: int = 29,
) -> list[EndingCandidate]:
    """Rank the suffix candidates of {Ws(AN)} (sentences given as unit tuples) by Para."""
    # Suffix statistics over the set: freq(Cs) and the set of left neighbours for BB(Cs).
    freq: dict[tuple[str, ...], int] = defaultdict(int)
    left: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for units in web_sentences:
        for n in range(0, len(units) + 1):
            suffix = units[len(units) - n :]
            if len("".join(suffix)) > max_len:
                break
            freq[suffix] += 1
            left[suffix].add(units[len(units) - n - 1] if n < len(units) else _SENTENCE_START)

    # Candidates: Cs(n) with BB(Cs(n)) > BB(Cs(n−1)) (docs/methods.md §3a step 3).
    candidates: dict[tuple[str, ...], EndingCandidate] = {}
    for suffix in freq:
        if not suffix or suffix in candidates:
            continue
        branching = len(left[suffix])
        if branching <= len(left[suffix[1:]]):
            continue
        text = "".join(suffix)
        score = para_score(freq[suffix], len(text))
        if score > 0.0:
            candidates[suffix] = EndingCandidate(noun, text, freq[suffix], branching, score)
    ranked = sorted(candidates.values(), key=lambda c: (-c.score, -c.freq, c.suffix))
    return ranked[:top]


def mine_endings(
    pairs: Iterable[tuple[str, str]],
    *,
    unit: Unit = "char",
    top: int = 10,
    max_len: int = 29,
) -> dict[str, list[EndingCandidate]]:
    """Top ending paraphrases per action noun from (web_sentence, mobile_sentence) pairs.

    Deterministic; only the set of distinct pairs matters, in ``normalise_japanese`` form
    (width or composition variants of one pair count once). Nouns are returned in sorted order.
    """
    if unit not in ("char", "word"):
        raise InvalidInput(f"unit must be 'char' or 'word', not {unit!r}")
    if top < 1 or max_len < 1:
        raise InvalidInput("top and max_len must be positive")
    by_noun: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    distinct = {(normalise_japanese(web), normalise_japanese(mobile)) for web, mobile in pairs}
    for web, mobile in sorted(distinct):
        noun = action_noun(mobile)
        if noun is None:
            continue
        units = sentence_units(web, unit)
        if units:
            by_noun[noun].append(units)
    return {
        noun: rank_endings(noun, by_noun[noun], top=top, max_len=max_len)
        for noun in sorted(by_noun)
    }
