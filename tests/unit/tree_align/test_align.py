"""Text-chunk pairs from the tree alignment: inline markup merged, one-sided text dropped."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from services.html.parse import block_tree, parse_html
from services.tree_align.align import align_page_texts, text_pairs
from services.tree_align.decoder import align_trees, decoding_work
from services.tree_align.model import default_model, initial_model
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
    from services.html.tag_tree import NODE_ELEMENT
    from services.tree_align.components import chunk_components

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
