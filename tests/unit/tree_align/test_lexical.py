"""The lexical Pr_text: Model 1 likelihood ratios, and the two-pass tree alignment using it."""

from __future__ import annotations

import math
import random

import numpy as np

from services.html.parse import block_tree, parse_html, text_chunks
from services.lexical import model1
from services.tree_align.align import align_page_texts, text_pairs
from services.tree_align.calibrate import calibrated
from services.tree_align.components import chunk_components
from services.tree_align.lexical import LexicalTextModel, spaced, train_lexical_model
from services.tree_align.model import LengthTextModel, initial_model
from services.tree_align.two_pass import align_two_pass

ZERO_LENGTH = LengthTextModel(ratio=1.0, variance=1e12, background_mean=None)


def _llr_by_definition(model: LexicalTextModel, src: str, tgt: str) -> float:
    """LLR(T|S) straight from the module docstring's formula, word by word."""
    src_ids, _ = model.src.encode([src])
    tgt_ids, _ = model.tgt.encode([tgt])
    table = model.forward
    total = 0.0
    for e in tgt_ids:
        mass = 0.0
        for f in src_ids:
            if f < len(table.row_start) - 1:
                row = range(table.row_start[f], table.row_start[f + 1])
                mass += sum(float(table.probability[k]) for k in row if table.target[k] == e)
        p = model.epsilon * model.tgt.background[e] + (1 - model.epsilon) / len(src_ids) * mass
        total += math.log(p / model.tgt.background[e])
    return total


def test_pair_costs_are_the_two_directions_likelihood_ratios() -> None:
    src = ["das haus ist rot", "der hund bellt laut", "ein blauer vogel"]
    tgt = ["la maison est rouge", "le chien aboie fort", "un oiseau bleu"]
    model = train_lexical_model(src, tgt, list(zip(src, tgt, strict=True)), ZERO_LENGTH)
    probe_src = ["das haus bellt", "unbekannt", ""]
    probe_tgt = ["la maison", "le chien aboie fort", "inconnu xyz"]
    costs = model.pair_costs(probe_src, probe_tgt)
    base = ZERO_LENGTH.pair_costs(probe_src, probe_tgt)
    backward = LexicalTextModel(
        ZERO_LENGTH, model.tgt, model.src, model.backward, model.forward, model.weight,
        model.epsilon, model.word_offset,
    )  # fmt: skip
    for i, s in enumerate(probe_src):
        for j, t in enumerate(probe_tgt):
            n_s, n_t = len(model1.tokenize(s, None)), len(model1.tokenize(t, None))
            forward = _llr_by_definition(model, s, t) if n_s else 0.0
            back = _llr_by_definition(backward, t, s) if n_t else 0.0
            offset = model.word_offset * (n_s + n_t)
            expected = base[i, j] - model.weight * 0.5 * (forward + back - offset)
            assert math.isclose(costs[i, j], expected, rel_tol=1e-9, abs_tol=1e-9)


def _vocabulary(rng: random.Random, size: int, letters: str) -> list[str]:
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 8))) for _ in range(size)]


def test_two_passes_leave_look_alike_one_sided_boxes_unpaired() -> None:
    rng = random.Random(3)
    src_words = _vocabulary(rng, 80, "bdfgklmnrst")
    tgt_words = [word.upper() for word in src_words]  # a one-to-one "translation"
    box_src = _vocabulary(rng, 40, "aeiou")
    box_tgt = _vocabulary(rng, 40, "aeiouy")
    src_html, tgt_html = [], []
    for k in range(40):
        words = rng.sample(range(80), rng.randint(8, 20))
        src_html.append("<p>" + " ".join(src_words[w] for w in words) + ".</p>")
        tgt_html.append("<p>" + " ".join(tgt_words[w] for w in words) + ".</p>")
        if k % 8 == 3:  # a box on each side at the same place, unrelated texts of one length
            size = rng.randint(8, 14)
            src_html.append(
                "<div class='box'><p>" + " ".join(rng.choices(box_src, k=size)) + ".</p></div>"
            )
            tgt_html.append(
                "<div class='box'><p>" + " ".join(rng.choices(box_tgt, k=size)) + ".</p></div>"
            )
    src = block_tree(parse_html("<html><body>" + "".join(src_html) + "</body></html>"))
    tgt = block_tree(parse_html("<html><body>" + "".join(tgt_html) + "</body></html>"))
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    # align_page_texts calibrates the length ratio on the pages first
    alignment, lexical_model = align_two_pass(src, tgt, calibrated(model, src, tgt))[:2]
    assert isinstance(lexical_model.text_model, LexicalTextModel)
    # the decoder leaves every box leaf unaligned (gap filling is off here: a box pair alone
    # between the same two paragraph pairs is joined by it when short enough, see align.py)
    box_letters = set("aeiouy. ")
    chunks = text_chunks(src), text_chunks(tgt)
    components = chunk_components(src, tgt, alignment, lexical_model, max_gap=0)
    texts = [
        (
            " ".join(chunks[0][k].text for k in component.src_chunks),
            " ".join(chunks[1][j].text for j in component.tgt_chunks),
        )
        for component in components
    ]
    assert not any(set(a) <= box_letters or set(b) <= box_letters for a, b in texts)
    assert sum(a.upper() == b for a, b in texts) == 40
    pairs = text_pairs(src, tgt, alignment, lexical_model)
    assert pairs == align_page_texts(src, tgt, model=model)


def test_too_little_confident_text_keeps_the_first_pass() -> None:
    src = block_tree(parse_html("<html><body><p>Ein Satz 1990.</p></body></html>"))
    tgt = block_tree(parse_html("<html><body><p>Une phrase 1990.</p></body></html>"))
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    alignment, same, _ = align_two_pass(src, tgt, model)
    assert same is model
    assert np.array_equal(alignment.pairs, align_two_pass(src, tgt, model)[0].pairs)


def test_ideographs_and_kana_are_tokens_of_their_own() -> None:
    assert spaced("plain text") == "plain text"
    assert spaced("我们走了。ok").split() == ["我", "们", "走", "了", "。ok"]
    assert spaced("カナ").split() == ["カ", "ナ"]
