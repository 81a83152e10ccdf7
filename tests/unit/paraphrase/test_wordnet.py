"""Tests of the English WordNet reader: morphy lemmas, synonyms, lexical and taxonomic links."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.paraphrase.wordnet import WordNet, default_wordnet

# A hand-written WordNet in the data-file format: synset offset, lex file, type, word count
# (hex), words with lex ids, pointer count, pointers (symbol offset pos source/target), gloss.
DATA = {
    "noun": [
        "  1 licence header line",
        "00000001 03 n 01 death 0 002 + 00000010 v 0101 @ 00000002 n 0000 | the end of life",
        "00000002 03 n 01 end 0 001 ~ 00000001 n 0000 | a final part",
        "00000003 06 n 02 child 0 kid 0 000 | a young person",
    ],
    "verb": [
        "00000010 30 v 03 die 0 pass_away 0 decease 0 001 + 00000001 n 0101 | stop living",
        "00000011 40 v 02 buy 0 purchase 0 000 | obtain for money",
    ],
    "adj": ["00000020 00 a 02 quick(a) 0 fast 0 000 | moving fast"],
    "adv": [],
}
EXCEPTIONS = {"noun": ["children child"], "verb": ["died die", "bought buy"]}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> WordNet:
    folder: Path = tmp_path_factory.mktemp("wordnet")
    for name, lines in DATA.items():
        (folder / f"data.{name}").write_text("".join(f"{line}  \n" for line in lines))
    for name, lines in EXCEPTIONS.items():
        (folder / f"{name}.exc").write_text("".join(f"{line}\n" for line in lines))
    return WordNet(folder)


def test_lemmas_use_exceptions_and_detachment_rules(tiny: WordNet) -> None:
    assert tiny.lemmas("Children") == {"children", "child"}
    assert tiny.lemmas("bought") == {"bought", "buy"}
    assert "purchase" in tiny.lemmas("purchased")  # -ed -> -e
    assert "buy" in tiny.lemmas("buys")  # -s
    assert tiny.lemmas("kidding") == {"kidding"}  # "kidd" is no lemma
    assert "pass_away" in tiny.lemmas("passed_away")  # the first word carries the inflection


def test_relation_grades(tiny: WordNet) -> None:
    assert tiny.relation("bought", "purchased") == 3  # synonyms via their lemmas
    assert tiny.relation("passed_away", "died") == 3
    assert tiny.relation("quick", "fast") == 3  # adjective marker (a) stripped
    assert tiny.relation("death", "died") == 2  # derivational pointer
    assert tiny.relation("died", "death") == 2  # either direction
    assert tiny.relation("death", "end") == 1  # hypernym
    assert tiny.relation("child", "death") == 0
    assert tiny.relation("unknown", "death") == 0
    WordNet.clear_caches()
    assert tiny.relation("death", "end") == 1  # recomputed after forgetting the caches
    assert tiny.known("kids") and not tiny.known("xyzzy")


def test_missing_directory_is_reported(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="wordnet-base"):
        WordNet(tmp_path)


def test_system_wordnet_relations() -> None:
    wordnet = default_wordnet()
    if wordnet is None:
        pytest.skip("WordNet 3.0 is absent: apt-get install wordnet-base (/usr/share/wordnet)")
    assert wordnet.relation("passed_away", "died") == 3
    assert wordnet.relation("buy", "purchased") == 3
    assert wordnet.relation("death", "died") == 2
    assert "mouse" in wordnet.lemmas("mice")
