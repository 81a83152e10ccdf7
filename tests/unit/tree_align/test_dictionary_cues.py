"""The tree path's Pr_text with a bilingual dictionary, and its per-page word offset."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from services.html.parse import block_tree, parse_html
from services.tree_align.align import align_page_texts
from services.tree_align.calibrate import calibrated
from services.tree_align.lexical import (
    DEFAULT_WORD_OFFSET,
    LexicalTextModel,
    page_offset,
    train_lexical_model,
)
from services.tree_align.model import LengthTextModel, initial_model
from services.tree_align.two_pass import align_two_pass
from tests.unit.tree_align.pseudo_languages import dictionary, texts

FLAT_LENGTH = LengthTextModel(ratio=1.0, variance=1e12, background_mean=None)


def test_dictionary_cues_make_translations_cheaper_than_unrelatedtexts() -> None:
    src, tgt = texts(5, 6)
    without = train_lexical_model(src, tgt, [], FLAT_LENGTH)
    seeded = train_lexical_model(src, tgt, [], FLAT_LENGTH, dictionary=dictionary(5))
    off = ~np.eye(len(src), dtype=bool)
    costs = seeded.pair_costs(src, tgt)
    # every translation is cheaper than every unrelated pair of its row
    assert all(costs[k, k] < costs[k][off[k]].min() for k in range(len(src)))
    # without the dictionary no word is known: the translation is no cheaper per word
    plain = without.pair_costs(src, tgt)
    words = np.array([[len(a.split()) + len(b.split()) for b in tgt] for a in src])
    per_word = plain / words
    assert abs(float(np.diag(per_word).mean() - per_word[off].mean())) < 0.05


def test_page_offset_lies_between_unrelated_and_translatedtexts() -> None:
    src, tgt = texts(9, 8)
    model = train_lexical_model(src, tgt, [], FLAT_LENGTH, dictionary=dictionary(9))
    llr, words = model.llr(src, tgt)
    per_word = llr / words
    off = ~np.eye(len(src), dtype=bool)
    offset = page_offset(model, src, tgt)
    assert offset == model.word_offset  # the trained model carries the measured offset
    assert offset <= DEFAULT_WORD_OFFSET
    assert float(np.median(per_word[off])) < offset < float(np.diag(per_word).min())


def test_page_offset_needs_two_longer_texts_a_side() -> None:
    src, tgt = texts(11, 3)
    trained = train_lexical_model(src, tgt, [], FLAT_LENGTH)
    model = dataclasses.replace(trained, word_offset=-1.5)
    assert page_offset(model, src[:1], tgt) == -1.5
    assert page_offset(model, ["short text"] * 3, tgt) == -1.5
    assert page_offset(model, src, tgt) <= -1.5  # the ceiling holds


def test_a_dictionary_runs_the_lexical_pass_without_confident_pairs() -> None:
    """A page too short for Model 1 to learn from keeps the length pass, unless a dictionary
    knows its words; then the lexical pass pairs the translations, the one-sided box before
    them (as long as the first paragraph, of words nobody knows) stays unpaired."""
    src, tgt = texts(13, 3)
    box = " ".join("qoq" + "abcdefghijklmn"[k] for k in range(len(src[0].split())))
    src_html = "".join(f"<p>{text}</p>" for text in src)
    tgt_html = f"<div class='box'><p>{box}</p></div>" + "".join(f"<p>{text}</p>" for text in tgt)
    src_tree = block_tree(parse_html(f"<html><body>{src_html}</body></html>"))
    tgt_tree = block_tree(parse_html(f"<html><body>{tgt_html}</body></html>"))
    model = calibrated(
        initial_model(sorted(set(src_tree.label_names) | set(tgt_tree.label_names))),
        src_tree,
        tgt_tree,
    )
    plain = align_two_pass(src_tree, tgt_tree, model)
    assert plain.model is model  # under MIN_TRAINING_WORDS: the first pass stands
    seeded = align_two_pass(src_tree, tgt_tree, model, dictionary=dictionary(13))
    assert isinstance(seeded.model.text_model, LexicalTextModel)
    assert seeded.components is not None
    paired = {(c.src_chunks, c.tgt_chunks) for c in seeded.components}
    # target chunk 0 is the box: the three paragraphs pair with target chunks 1-3
    assert paired == {((0,), (1,)), ((1,), (2,)), ((2,), (3,))}


@pytest.mark.parametrize(("seed", "box_words"), [(13, 20), (5, 25)])
def test_split_paragraphs_keep_the_lexical_pass_against_a_shifted_length_pass(
    seed: int, box_words: int
) -> None:
    """Each target paragraph is two source blocks, and a one-sided box of unknown words opens
    the source page. The length pass pairs the box with the first paragraph (a shift); the
    lexical pass pairs each paragraph with one of its halves, which alone has little length
    evidence. Measured as output (halves joined) the lexical pass keeps its evidence and
    stands: every paragraph pairs with both its halves, the box with nothing."""
    src, tgt = texts(seed, 6)
    box = " ".join("qoq" + "abcdefghijklmn"[k % 14] for k in range(box_words))
    src_html = f"<div class='box'><p>{box}</p></div>" + "".join(f"<p>{t}</p>" for t in src)
    tgt_html = "".join(f"<p>{tgt[2 * k]} {tgt[2 * k + 1]}</p>" for k in range(3))
    pairs = align_page_texts(
        parse_html(f"<html><body>{src_html}</body></html>"),
        parse_html(f"<html><body>{tgt_html}</body></html>"),
        dictionary=dictionary(seed),
    )
    found = {(tuple(pair.src_text.split()), tuple(pair.tgt_text.split())) for pair in pairs}
    expected = {
        (
            tuple(f"{src[2 * k]} {src[2 * k + 1]}".split()),
            tuple(f"{tgt[2 * k]} {tgt[2 * k + 1]}".split()),
        )
        for k in range(3)
    }
    assert found == expected
