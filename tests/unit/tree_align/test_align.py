"""Text-chunk pairs from the tree alignment: inline markup merged, one-sided text dropped."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tree_align.align import align_page_texts, text_pairs
from services.tree_align.decoder import align_trees, decoding_work
from services.tree_align.html_tree import TextChunk, block_tree, parse_html
from services.tree_align.model import FloatArray, default_model, initial_model
from services.tree_align.two_pass import align_two_pass

SRC = """<html><body><div id=nav><ul><li><a>Startseite</a></li><li><a>Kontakt</a></li></ul></div>
<div class=main><h1>Die Geschichte</h1>
<p>Die Firma wurde <b>1990</b> in Berlin gegründet.</p>
<p>Heute arbeiten dort über hundert Menschen.</p></div>
<div class=ad><p>Jetzt kaufen! Nur heute zum halben Preis, solange der Vorrat reicht.</p></div>
</body></html>"""
TGT = """<html><body><div id=nav><ul><li><a>Accueil</a></li><li><a>Contact</a></li></ul></div>
<div class=main><h1>L'histoire</h1>
<p>L'entreprise a été fondée en <i>1990</i> à Berlin.</p>
<p>Aujourd'hui plus de cent personnes y travaillent.</p></div>
</body></html>"""


def test_inline_fragments_merge_and_the_ad_is_not_paired() -> None:
    src, tgt = parse_html(SRC), parse_html(TGT)
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    pairs = align_page_texts(src, tgt, model=model)
    texts = [(p.src_text, p.tgt_text) for p in pairs]
    assert ("Die Firma wurde 1990 in Berlin gegründet.",
            "L'entreprise a été fondée en 1990 à Berlin.") in texts  # fmt: skip
    assert ("Heute arbeiten dort über hundert Menschen.",
            "Aujourd'hui plus de cent personnes y travaillent.") in texts  # fmt: skip
    assert not any("Jetzt kaufen" in src_text for src_text, _ in texts)
    assert [p.src_xpath for p in pairs][-1] == "/html/body/div[2]/p[2]"


def test_paragraph_split_in_a_wrapper_joins_its_aligned_half() -> None:
    long_de = "Der erste Teil des langen Absatzes erzählt vom Piz Buin im Jahr 1990. " * 3
    src = parse_html(f"<html><body><div><p>{long_de}</p><p>Kurz 1991.</p></div></body></html>")
    tgt = parse_html(
        "<html><body><div><div class='para'>"
        "<p>La première partie du long paragraphe parle du Piz Buin en 1990. "
        * 2
        + "</p><p>Encore une phrase.</p></div><p>Bref 1991.</p></div></body></html>"
    )
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    folded = block_tree(src), block_tree(tgt)
    alignment = align_trees(*folded, model)
    joined = text_pairs(*folded, alignment, model, attach_wrapped=True)
    alone = text_pairs(*folded, alignment, model, attach_wrapped=False)
    assert not any("Encore une phrase." in pair.tgt_text for pair in alone)
    assert any(
        "Encore une phrase." in pair.tgt_text and "Piz Buin" in pair.src_text for pair in joined
    )
    assert not any(
        "Encore une phrase." in pair.tgt_text and "Kurz" in pair.src_text for pair in joined
    )


def test_a_box_body_does_not_join_its_paired_title() -> None:
    # the boxes' short titles pair; their long bodies would ruin the pair's length match
    src = parse_html(
        "<html><body><div class='box'><h4>Werbung</h4>"
        "<p>Kaufen Sie jetzt unsere neuen Wanderschuhe, nur diese Woche im Angebot!</p>"
        "<p>Versand kostenlos ab dem zweiten Paar, Rückgabe innerhalb von dreissig Tagen.</p>"
        "</div></body></html>"
    )
    tgt = parse_html("<html><body><div class='box'><h4>Annonce</h4></div></body></html>")
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    folded = block_tree(src), block_tree(tgt)
    alignment = align_trees(*folded, model)
    pairs = text_pairs(*folded, alignment, model, attach_wrapped=True)
    assert [(pair.src_text, pair.tgt_text) for pair in pairs] == [("Werbung", "Annonce")]


def test_a_paragraph_split_in_two_between_pairs_fills_the_gap() -> None:
    from services.tree_align.components import chunk_components

    whole = " ".join(["ein langer satz ohne namen ist hier zu lesen und geht weiter"] * 12)
    half = " ".join(["une longue phrase sans noms est lue ici"] * 9)
    src = parse_html(
        "<html><body><p>Erster Absatz 1957 im Tal.</p>"
        f"<p>{whole}</p><p>Letzter Absatz 1958 am Berg.</p></body></html>"
    )
    tgt = parse_html(
        "<html><body><p>Premier paragraphe 1957 au val.</p>"
        f"<div><p>{half}</p><p>{half}</p></div>"
        "<p>Dernier paragraphe 1958 au mont.</p></body></html>"
    )
    model = initial_model(sorted(set(src.label_names) | set(tgt.label_names)))
    folded = block_tree(src), block_tree(tgt)
    alignment = align_trees(*folded, model)
    without = chunk_components(*folded, alignment, model, max_gap=0)
    filled = chunk_components(*folded, alignment, model, max_gap=4)
    assert all(component.src_chunks != (1,) for component in without)
    assert [(c.src_chunks, c.tgt_chunks) for c in filled] == [
        ((0,), (0,)),
        ((1,), (1, 2)),
        ((2,), (3,)),
    ]


def test_leaf_pairs_at_or_above_the_link_cost_link_nothing() -> None:
    from services.tree_align.components import chunk_components
    from services.tree_align.tag_tree import NODE_ELEMENT

    folded = block_tree(parse_html(SRC)), block_tree(parse_html(TGT))
    model = initial_model(sorted(set(folded[0].label_names) | set(folded[1].label_names)))
    alignment = align_trees(*folded, model)
    is_text = (folded[0].kinds[alignment.pairs[:, 0]] != NODE_ELEMENT) & (
        folded[1].kinds[alignment.pairs[:, 1]] != NODE_ELEMENT
    )
    costs = sorted(float(c) for c in alignment.pair_costs[is_text])
    assert len(costs) >= 3 and costs[-2] < costs[-1]
    linked = chunk_components(*folded, alignment, model, max_gap=0)
    limited = chunk_components(*folded, alignment, model, max_gap=0, link_cost=costs[-1])
    assert len(linked) == len(costs)
    assert sorted(c.cost for c in limited) == costs[:-1]  # only the costliest pair is gone
    assert chunk_components(*folded, alignment, model, max_gap=0, link_cost=costs[0]) == []


class _FixedCost:
    """A Pr_text giving every pair of texts the same cost."""

    def __init__(self, cost: float) -> None:
        self.cost = cost

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        return np.full((len(src_texts), len(tgt_texts)), self.cost)


def test_a_gap_pair_may_cost_more_the_more_words_it_explains() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap
    from services.tree_align.html_tree import TextChunk

    def gap_pairs(words: int, cost: float, per_word: float) -> int:
        chunks = (
            [TextChunk((0,), 0, " ".join(["wort"] * words))],
            [TextChunk((0,), 0, " ".join(["mot"] * words))],
        )
        model = initial_model(["p"])
        model = dataclasses.replace(model, text_model=_FixedCost(cost))
        return len(_fill_gap(chunks, ChunkUnion(2), model, [0], [0], 20.0, per_word))

    assert gap_pairs(10, 19.0, 0.5) == 1  # below the threshold
    assert gap_pairs(10, 21.0, 0.5) == 0  # 20 words x 0.5 = 10 < 20: the threshold stands
    assert gap_pairs(30, 21.0, 0.5) == 1  # 60 words x 0.5 = 30
    assert gap_pairs(30, 31.0, 0.5) == 0
    assert gap_pairs(30, 21.0, 0.0) == 0


def test_without_a_per_word_allowance_a_negative_gap_threshold_stands() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap
    from services.tree_align.html_tree import TextChunk

    chunks = ([TextChunk((0,), 0, "ein wort")], [TextChunk((0,), 0, "un mot")])
    model = dataclasses.replace(initial_model(["p"]), text_model=_FixedCost(-5.0))
    assert _fill_gap(chunks, ChunkUnion(2), model, [0], [0], -8.0, 0.0) == []
    assert _fill_gap(chunks, ChunkUnion(2), model, [0], [0], -4.0, 0.0) == [(0, -5.0)]


class _ShortIsCheap:
    """A Pr_text of cost -5 + 0.1 per word of the two texts."""

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        src = np.array([len(text.split()) for text in src_texts], dtype=np.float64)
        tgt = np.array([len(text.split()) for text in tgt_texts], dtype=np.float64)
        return np.round(-5.0 + 0.1 * (src[:, None] + tgt[None, :]), 9)


def test_gap_pairs_of_too_few_words_are_not_joined() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap
    from services.tree_align.html_tree import TextChunk

    chunks = (
        [TextChunk((0,), 0, "kurzer titel"), TextChunk((1,), 1, "ein langer absatz mit worten")],
        [TextChunk((0,), 0, "titre court"), TextChunk((1,), 1, "un long paragraphe de mots")],
    )
    model = dataclasses.replace(initial_model(["p"]), text_model=_ShortIsCheap())
    # every pair is below the threshold: titles and paragraphs both join, in order
    assert _fill_gap(chunks, ChunkUnion(4), model, [0, 1], [0, 1], 0.0, 0.0) == [
        (0, -4.6),
        (1, -4.0),
    ]
    components = ChunkUnion(4)
    assert _fill_gap(chunks, components, model, [0, 1], [0, 1], 0.0, 0.0, 3) == [(1, -4.0)]
    assert components.find(1) == components.find(3) and components.find(0) != components.find(2)


class _Translations:
    """A Pr_text of cost -10 for texts with the same keys (words ending in a digit), else 10."""

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        def keys(text: str) -> set[str]:
            return {word for word in text.split() if word[-1].isdigit()}

        return np.array(
            [[-10.0 if keys(a) == keys(b) else 10.0 for b in tgt_texts] for a in src_texts]
        )


def _chunks(*texts: str) -> list[TextChunk]:
    return [TextChunk((k,), k, text) for k, text in enumerate(texts)]


def test_a_gap_joins_all_its_pairs_in_order_and_skips_one_sided_text() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    chunks = (
        _chunks("a1 x y z", "box1 x y z", "b1 x y z", "c1 x y z"),
        _chunks("a1 u v w", "b1 u v w", "box2 u v w", "c1 u v w", "c1 u v w"),
    )
    model = dataclasses.replace(initial_model(["p"]), text_model=_Translations())
    components = ChunkUnion(9)
    made = _fill_gap(chunks, components, model, [0, 1, 2, 3], [0, 1, 2, 3, 4], 0.0, 0.1)
    assert [source for source, _ in made] == [0, 2, 3]
    group = {components.find(4 + j) for j in (3, 4)}  # the more words the higher the limit
    assert group == {components.find(3)}  # c1 with both halves of its split translation
    assert components.find(1) not in {components.find(4 + j) for j in range(5)}  # box1 alone
    assert components.find(4 + 2) not in {components.find(x) for x in range(4)}  # box2 alone


def test_a_gap_does_not_join_two_chunks_on_both_sides() -> None:
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import _fill_gap

    chunks = (_chunks("a1 x", "a1 y"), _chunks("a1 u", "b1 v"))
    model = dataclasses.replace(initial_model(["p"]), text_model=_Translations())
    components = ChunkUnion(4)
    assert _fill_gap(chunks, components, model, [0, 1], [0, 1], 0.0, 0.0) == [(0, -10.0)]
    assert components.find(3) != components.find(0)


def test_gap_windows_of_long_and_open_gaps() -> None:
    from services.tree_align.gap_fill import _gap_windows

    run, gap = list(range(10, 20)), list(range(30, 33))
    both = (True, True)
    assert _gap_windows(run[:3], gap, both, 4, False) == [(run[:3], gap)]
    assert _gap_windows(run, gap, both, 4, False) == []  # too long without wide gaps
    assert _gap_windows(run, gap, (True, False), 4, False) == []  # open end
    # a long gap: the chunks next to the following pair, then those after the previous one
    assert _gap_windows(run, gap, both, 4, True) == [(run[-4:], gap)]  # all 3 taken by the tail
    assert _gap_windows(run, list(range(30, 40)), both, 4, True) == [
        (run[-4:], list(range(36, 40))),
        (run[:4], list(range(30, 34))),
    ]
    assert _gap_windows(run, gap, (True, False), 4, True) == [(run[:4], gap)]  # page end
    assert _gap_windows(run, gap, (False, True), 4, True) == [(run[-4:], gap)]  # page start
    assert _gap_windows(run, gap, (False, False), 4, True) == []  # no pair at all
    assert _gap_windows(run, [], both, 4, True) == []


class _TableCosts:
    """A Pr_text read from a table: cost of (source text, target text)."""

    def __init__(self, costs: dict[tuple[str, str], float]) -> None:
        self.costs = costs

    def pair_costs(self, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> FloatArray:
        return np.array([[self.costs[(a, b)] for b in tgt_texts] for a in src_texts])


def _best_chain(candidates: list[tuple[int, int, int, int, float]]) -> float:
    """Brute force: the lowest summed gain over every chain of candidate pairs (a, b, c, d,
    gain) in order on both sides (each starts after the previous one ends), or 0."""

    def extend(after_src: int, after_tgt: int) -> float:
        best = 0.0
        for a, b, c, d, gain in candidates:
            if a > after_src and c > after_tgt:
                best = min(best, gain + extend(b, d))
        return best

    return extend(-1, -1)


_SIZES_AND_COSTS = (
    st.integers(1, 4),
    st.integers(1, 4),
    st.lists(st.floats(-5.0, 5.0, allow_nan=False), min_size=49, max_size=49),
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(*_SIZES_AND_COSTS)
def test_fill_gap_equals_the_brute_force_best_chain(
    n_src: int, n_tgt: int, values: list[float]
) -> None:
    """The gap DP joins the set of pairs that a brute-force search over all in-order
    chains finds best (sum of cost - threshold; sub-runs of up to MAX_GAP_SPAN chunks, not
    two chunks on both sides)."""
    from services.tree_align.chunk_union import ChunkUnion
    from services.tree_align.gap_fill import MAX_GAP_SPAN, _fill_gap, chunk_spans

    chunks = (_chunks(*(f"s{k}" for k in range(n_src))), _chunks(*(f"t{k}" for k in range(n_tgt))))
    src_spans, tgt_spans = chunk_spans(n_src), chunk_spans(n_tgt)
    text = {
        side: {span: " ".join(f"{side}{k}" for k in range(span[0], span[1] + 1)) for span in spans}
        for side, spans in (("s", src_spans), ("t", tgt_spans))
    }
    costs, candidates, index = {}, [], 0
    for a, b in src_spans:
        for c, d in tgt_spans:
            cost = values[index % len(values)] + index * 1e-6  # distinct: no ties
            index += 1
            costs[(text["s"][(a, b)], text["t"][(c, d)])] = cost
            if cost < 0.0 and (b == a or d == c):
                candidates.append((a, b, c, d, cost))
    assert MAX_GAP_SPAN == 2  # the spans above are those _fill_gap scores
    model = dataclasses.replace(initial_model(["p"]), text_model=_TableCosts(costs))
    made = _fill_gap(
        chunks, ChunkUnion(n_src + n_tgt), model, list(range(n_src)), list(range(n_tgt)),
        0.0, 0.0,
    )  # fmt: skip
    assert sum(cost for _, cost in made) == pytest.approx(_best_chain(candidates))


def _chain_covering(
    candidates: list[tuple[int, int, int, int, float]], keep: tuple[list[bool], list[bool]]
) -> float | None:
    """Brute force: the lowest summed gain over every in-order chain of candidate pairs
    (a, b, c, d, gain) that pairs every kept chunk, or None when no chain does."""

    def extend(after_src: int, after_tgt: int) -> float | None:
        # the chain may stop here only if no kept chunk lies after it
        best = (
            0.0 if not any(keep[0][after_src + 1 :]) and not any(keep[1][after_tgt + 1 :]) else None
        )
        for a, b, c, d, gain in candidates:
            if a <= after_src or c <= after_tgt:
                continue
            if any(keep[0][after_src + 1 : a]) or any(keep[1][after_tgt + 1 : c]):
                continue  # a kept chunk skipped
            rest = extend(b, d)
            if rest is not None and (best is None or gain + rest < best):
                best = gain + rest
        return best

    return extend(-1, -1)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    *_SIZES_AND_COSTS,
    st.lists(st.booleans(), min_size=8, max_size=8),
    st.lists(st.booleans(), min_size=49, max_size=49),
)
def test_best_chain_keeping_chunks_equals_the_brute_force_best_chain(
    n_src: int, n_tgt: int, values: list[float], kept: list[bool], barred: list[bool]
) -> None:
    """With chunks that must stay paired, the DP's chain is the best chain pairing all of
    them (every finite gain a candidate, of either sign), or [] when none exists."""
    from services.tree_align.gap_fill import best_chain, chunk_spans

    src_spans, tgt_spans = chunk_spans(n_src), chunk_spans(n_tgt)
    keep = (kept[:n_src], kept[4 : 4 + n_tgt])
    gain = np.full((len(src_spans), len(tgt_spans)), np.inf)
    candidates, index = [], 0
    for x, (a, b) in enumerate(src_spans):
        for y, (c, d) in enumerate(tgt_spans):
            if not barred[index % len(barred)]:
                gain[x, y] = values[index % len(values)] + index * 1e-6
                if b == a or d == c:
                    candidates.append((a, b, c, d, float(gain[x, y])))
            index += 1
    chosen = best_chain(n_src, n_tgt, src_spans, tgt_spans, gain, keep)
    expected = _chain_covering(candidates, keep)
    if expected is None or (not any(keep[0]) and not any(keep[1]) and expected >= 0.0):
        # nothing feasible, or the empty chain (0) is the best when nothing must be kept
        assert chosen == [] or sum(gain[x, y] for x, y in chosen) == pytest.approx(0.0)
        if expected is None:
            assert chosen == []
        return
    assert sum(gain[x, y] for x, y in chosen) == pytest.approx(expected)
    covered = (
        {i for x, _ in chosen for i in range(src_spans[x][0], src_spans[x][1] + 1)},
        {j for _, y in chosen for j in range(tgt_spans[y][0], tgt_spans[y][1] + 1)},
    )
    assert all(i in covered[0] for i in range(n_src) if keep[0][i])
    assert all(j in covered[1] for j in range(n_tgt) if keep[1][j])


WORDS = " x y z u v w"  # six words and more a side: pairs the repair may touch


def test_pairs_shifted_by_a_split_paragraph_are_repaired() -> None:
    from services.tree_align.chunk_union import ChunkComponent
    from services.tree_align.repair import repair_pairs

    # b1 is split in two on the target side; its first half went to a1's pair
    chunks = (
        _chunks("a1" + WORDS, "b1" + WORDS),
        _chunks("a1" + WORDS, "b1 half" + WORDS, "b1" + WORDS),
    )
    model = dataclasses.replace(initial_model(["p"]), text_model=_Translations())
    shifted = [ChunkComponent((0,), (0, 1), 0.0), ChunkComponent((1,), (2,), 0.0)]
    repaired = repair_pairs(chunks, shifted, model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [((0,), (0,)), ((1,), (1, 2))]
    assert [c.cost for c in repaired] == [-10.0, -10.0]


def test_repair_keeps_paired_chunks_paired_and_one_sided_text_out() -> None:
    from services.tree_align.chunk_union import ChunkComponent
    from services.tree_align.repair import repair_pairs

    model = dataclasses.replace(initial_model(["p"]), text_model=_Translations())
    # b1 has no translation: the pair (b1, c1) would be dropped by a plain best chain, but a
    # paired chunk stays paired; the box between the pairs joins no pair
    chunks = (
        _chunks("a1" + WORDS, "box9" + WORDS, "b1" + WORDS),
        _chunks("a1" + WORDS, "c1" + WORDS),
    )
    pairs = [ChunkComponent((0,), (0,), 0.0), ChunkComponent((2,), (1,), 0.0)]
    repaired = repair_pairs(chunks, pairs, model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [((0,), (0,)), ((2,), (1,))]
    # short pairs (titles) are not re-paired even when shifted
    chunks = (_chunks("a1 t", "b1" + WORDS), _chunks("a1 t", "b1 t", "b1" + WORDS))
    pairs = [ChunkComponent((0,), (0, 1), 0.0), ChunkComponent((1,), (2,), 0.0)]
    repaired = repair_pairs(chunks, pairs, model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [((0,), (0, 1)), ((1,), (2,))]


def test_repair_reaches_unpaired_chunks_beside_the_window_and_pairs_no_two_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import services.tree_align.repair as repair
    from services.tree_align.chunk_union import ChunkComponent
    from services.tree_align.repair import repair_pairs

    model = dataclasses.replace(initial_model(["p"]), text_model=_Translations())
    # a1 went to b1's translation; a1's own lies before the window, b1 after the first pair
    chunks = (
        _chunks("a1" + WORDS, "b1" + WORDS, "c1" + WORDS),
        _chunks("a1" + WORDS, "b1" + WORDS, "c1" + WORDS),
    )
    pairs = [ChunkComponent((0,), (1,), 0.0), ChunkComponent((2,), (2,), 0.0)]
    repaired = repair_pairs(chunks, list(pairs), model, 2)
    assert [(c.src_chunks, c.tgt_chunks) for c in repaired] == [
        ((0,), (0,)),
        ((1,), (1,)),
        ((2,), (2,)),
    ]
    monkeypatch.setattr(repair, "REPAIR_REACH", 0)
    assert repair_pairs(chunks, list(pairs), model, 2) == pairs
    # two chunks unpaired before are left to the gap filling
    pairs = [ChunkComponent((0,), (0,), 0.0), ChunkComponent((2,), (2,), 0.0)]
    assert repair_pairs(chunks, list(pairs), model, 2) == pairs


def test_every_pass_of_a_wide_pair_decodes_with_the_span_restriction_found_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    de = "Der Hund {k} schläft heute im warmen Garten, während die Kinder in der Schule lernen"
    fr = "Le chien {k} dort aujourd'hui au jardin pendant que les enfants apprennent à l'école"
    src = block_tree(
        parse_html("<ul>" + "".join(f"<li>{de.format(k=k)}</li>" for k in range(80)) + "</ul>")
    )
    tgt = block_tree(
        parse_html(
            "<ul>"
            + "".join(f"<li>{fr.format(k=k)}</li>" for k in range(80) if k % 20 != 7)
            + "</ul>"
        )
    )
    model = default_model()
    budget = decoding_work(src, tgt, 7)
    with caplog.at_level(logging.WARNING, logger="services.tree_align.decoder"):
        alignment, lexical, _ = align_two_pass(src, tgt, model, max_work=budget, confident_cost=0.0)
    assert lexical is not model  # the lexical pass ran
    assert alignment.max_span == 7
    assert sum("restricted to 7 siblings" in r.getMessage() for r in caplog.records) == 1
    again = align_trees(src, tgt, lexical, max_span=7)
    assert alignment.cost == again.cost
    assert np.array_equal(alignment.pairs, again.pairs)


def test_aligned_chunk_pairs_keep_the_lines_of_the_page() -> None:
    # the folded tree's chunk lines were joined with spaces again when the pairs were read
    src = parse_html("<div><p>Hello world<br>Next line</p><pre>a\n b</pre></div>")
    tgt = parse_html("<div><p>Hallo Welt<br>Nächste Zeile</p><pre>a\n b</pre></div>")
    pairs = align_page_texts(src, tgt, lexical=False)
    assert [(pair.src_text, pair.tgt_text) for pair in pairs] == [
        ("Hello world\nNext line", "Hallo Welt\nNächste Zeile"),
        ("a\nb", "a\nb"),
    ]
