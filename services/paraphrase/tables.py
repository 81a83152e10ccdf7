"""Paraphrase tables aggregated from stored observations: ending paraphrases and phrase pairs.

Observations are distinct sentence pairs (keyed by id in the store), so recomputing from them
gives the same tables however often a pair was delivered.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from services.paraphrase.endings import EndingCandidate, Unit, mine_endings
from services.paraphrase.phrases import PhraseTableEntry, phrase_table
from services.paraphrase.word_model import WordModel, load_word_model
from shared.text import analyse_japanese, base_lang, normalise_japanese, tokenize_words


@dataclass(frozen=True)
class Observation:
    """One stored monolingual sentence pair."""

    lang: str
    kind: str
    src: str
    tgt: str


def stored_observations(rows: Iterable[Mapping[str, Any]]) -> list[Observation]:
    """Observations from ``Store.paraphrase_observations()`` rows."""
    return [Observation(r["lang"], r["kind"], r["src_text"], r["tgt_text"]) for r in rows]


def tokens(text: str, lang: str) -> list[str]:
    """Words of a sentence: UniDic morphemes for Japanese (read in ``normalise_japanese``
    form, as the thesaurus stage reads it, so ｱｯﾌﾟﾛｰﾄﾞ ~ アップロード is no paraphrase), word
    tokens otherwise."""
    if base_lang(lang) == "ja":
        morphemes = analyse_japanese(normalise_japanese(text))
        return [m.surface for m in morphemes if not m.surface.isspace()]
    return tokenize_words(text)


def ending_paraphrases(
    observations: Iterable[Observation], *, unit: Unit = "char", top: int = 10
) -> dict[str, list[EndingCandidate]]:
    """Ranked ending paraphrases per action noun over the Japanese PC/mobile pairs (§3a)."""
    pairs = [
        (obs.src, obs.tgt)
        for obs in observations
        if obs.kind == "pc-mobile" and base_lang(obs.lang) == "ja"
    ]
    return mine_endings(pairs, unit=unit, top=top)


# Pairs longer than this (tokens a side) or this unbalanced are left out of the phrase table,
# as Moses' clean-corpus-n does: the HMM's E step is cubic in the sentence length (a pair of
# over a thousand tokens took minutes: benchmarks/results/tuning_history.md,
# services/paraphrase/tables.py), and such pairs are rarely paraphrases.
MAX_TOKENS = 100
MAX_LENGTH_RATIO = 9.0


def phrase_paraphrases(
    observations: Sequence[Observation], *, lang: str | None = None
) -> list[PhraseTableEntry]:
    """PPDB-style tables (§3b), one per language: each word-aligns its distinct pairs with a
    model trained on them alone (one model over all languages let German's "die" ~ "die"
    pull the English "die" ~ "perish" away, and summed the counts behind p(e|f) across
    languages). Entries carry their language; ``lang`` keeps one language's table."""
    by_language: dict[str, set[tuple[str, str, str]]] = {}
    for obs in observations:
        language = base_lang(obs.lang)
        if lang is None or language == base_lang(lang):
            by_language.setdefault(language, set()).add((obs.lang, obs.src, obs.tgt))
    return [
        replace(entry, lang=language)
        for language in sorted(by_language)
        for entry in _phrase_table(tuple(sorted(by_language[language])))
    ]


def _usable(src: list[str], tgt: list[str]) -> bool:
    shorter, longer = sorted((len(src), len(tgt)))
    return shorter > 0 and longer <= MAX_TOKENS and longer <= MAX_LENGTH_RATIO * shorter


@functools.lru_cache(maxsize=1)
def default_word_model() -> WordModel:
    """The shipped word model, read once per process."""
    return load_word_model()


@functools.lru_cache(maxsize=8)
def _phrase_table(distinct: tuple[tuple[str, str, str], ...]) -> list[PhraseTableEntry]:
    # Training the word aligner is the expensive part: the same set of pairs (every query
    # between two ingests) reuses the table instead of retraining. Links come from the shipped
    # word model (HMM posteriors + link classifier), as ``paramine align-words`` gives them.
    tokenised = [(tokens(src, lang), tokens(tgt, lang)) for lang, src, tgt in distinct]
    tokenised = [(s, t) for s, t in tokenised if _usable(s, t)]
    if not tokenised:
        return []
    links = default_word_model().align_corpus(tokenised)
    return phrase_table((s, t, found) for (s, t), found in zip(tokenised, links, strict=True))
