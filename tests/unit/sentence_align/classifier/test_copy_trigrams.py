"""The copy feature's compiled trigram sets against the plain set of character tuples."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.sentence_align.classifier import copy_trigrams


def _tuple_trigrams(text: str) -> frozenset[tuple[str, str, str]]:
    """The oracle: a text's trigrams as a set of character tuples (a shorter text padded)."""
    if len(text) < 3:
        text = text.ljust(3) if text else ""
    return frozenset(zip(text, text[1:], text[2:], strict=False))


def _tuple_dice(a: str, b: str) -> float:
    x, y = _tuple_trigrams(a), _tuple_trigrams(b)
    return 2 * len(x & y) / (len(x) + len(y)) if x or y else 0.0


# Letters of several scripts and planes (an emoji needs all 21 bits of its code point).
TEXTS = st.text(alphabet="abcé 你好Жж\U0001f600\U0010fffd", max_size=40)


@given(TEXTS)
def test_a_texts_trigrams_are_the_distinct_tuples_sorted(text: str) -> None:
    ids = copy_trigrams.trigrams(text)
    assert len(ids) == len(_tuple_trigrams(text))
    assert list(ids) == sorted(set(ids.tolist()))


@given(TEXTS, TEXTS)
def test_dice_is_the_dice_of_the_tuple_sets(a: str, b: str) -> None:
    got = copy_trigrams.dice(copy_trigrams.trigrams(a), copy_trigrams.trigrams(b))
    assert got == _tuple_dice(a, b)


def test_a_copy_scores_one_and_a_translation_little() -> None:
    text = "Fussballstadion in der Stadt"
    assert copy_trigrams.dice(copy_trigrams.trigrams(text), copy_trigrams.trigrams(text)) == 1.0
    other = copy_trigrams.trigrams("a football stadium in town")
    assert copy_trigrams.dice(copy_trigrams.trigrams(text), other) < 0.3
    assert copy_trigrams.dice(copy_trigrams.EMPTY, copy_trigrams.EMPTY) == 0.0
