"""Template and content apart in the tree path: pruned trees, walled leaf pairs, flags."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from services.html.parse import block_tree, parse_html, text_chunks
from services.tree_align.align import align_page_texts
from services.tree_align.content_wall import (
    CONTENT,
    TEMPLATE,
    UNKNOWN,
    WALL_COST,
    ContentWall,
    all_template,
    block_kinds,
    line_kinds,
)


class Flat:
    """A text model pricing every leaf pair at 1."""

    def pair_costs(self, src_texts: list[str], tgt_texts: list[str]) -> np.ndarray:
        return np.ones((len(src_texts), len(tgt_texts)))


def test_a_text_both_content_and_template_on_one_page_is_unknown() -> None:
    kinds = block_kinds(["Home", "A  paragraph", "Home", "Menu"], [False, True, True, False])
    assert kinds == {"Home": UNKNOWN, "A paragraph": CONTENT, "Menu": TEMPLATE}


@given(
    st.lists(st.sampled_from([CONTENT, TEMPLATE, UNKNOWN]), min_size=1, max_size=6),
    st.lists(st.sampled_from([CONTENT, TEMPLATE, UNKNOWN]), min_size=1, max_size=6),
)
def test_the_wall_prices_exactly_the_content_template_pairs(src: list[int], tgt: list[int]) -> None:
    src_texts = [f"s{k}" for k in range(len(src))]
    tgt_texts = [f"t{k}" for k in range(len(tgt))]
    wall = ContentWall(
        Flat(), dict(zip(src_texts, src, strict=True)), dict(zip(tgt_texts, tgt, strict=True))
    )
    costs = wall.pair_costs([*src_texts, "joined"], tgt_texts)
    for i, a in enumerate(src):
        for j, b in enumerate(tgt):
            walled = UNKNOWN not in (a, b) and a != b
            assert costs[i, j] == 1 + WALL_COST * walled
    assert (costs[-1] == 1).all()  # a text the model does not know passes


def test_output_texts_of_template_lines_only_are_boilerplate() -> None:
    kinds = line_kinds(["Home\nNews", "A paragraph."], [False, True])
    assert all_template("Home\nNews", kinds) and all_template("News", kinds)
    assert not all_template("Home\nA paragraph.", kinds) and not all_template("", kinds)


PARAGRAPHS = (
    ["The bridge opened in 1998 after four years of work.", "It carries 40,000 cars a day."],
    ["Die Brücke wurde 1998 nach vier Jahren eröffnet.", "Sie trägt 40.000 Autos am Tag."],
)
MENUS = (["Home", "News", "Contact us today"], ["Start", "Aktuelles", "Kontakt"])


def _page(side: int, box: str = "") -> str:
    menu = "".join(f"<li><a href='#'>{label}</a></li>" for label in MENUS[side])
    body = "".join(f"<p>{text}</p>" for text in PARAGRAPHS[side])
    return f"<html><body><nav><ul>{menu}</ul></nav><div>{body}{box}</div></body></html>"


def test_block_tree_keeps_the_chosen_chunks_and_only_elements_above_them() -> None:
    tree = parse_html(_page(0))
    texts = [chunk.text for chunk in text_chunks(tree)]
    keep = [k for k, text in enumerate(texts) if text in PARAGRAPHS[0]]
    folded = block_tree(tree, keep)
    assert [chunk.text for chunk in text_chunks(folded)] == PARAGRAPHS[0]
    labels = {folded.label(node) for node in range(folded.size)}
    assert "nav" not in labels and "li" not in labels and "p" in labels
    assert [folded.xpath(chunk.block) for chunk in text_chunks(folded)] == [
        "/html/body/div/p[1]",
        "/html/body/div/p[2]",
    ]


def test_with_content_flags_no_pair_joins_template_and_content() -> None:
    src, tgt = parse_html(_page(0)), parse_html(_page(1))
    flags = tuple(
        [chunk.text in PARAGRAPHS[side] for chunk in text_chunks(tree)]
        for side, tree in enumerate((src, tgt))
    )
    pairs = align_page_texts(src, tgt, content=(flags[0], flags[1]))
    assert [(p.src_text, p.tgt_text) for p in pairs] == list(zip(*PARAGRAPHS, strict=True))
    # a side with no content block: the whole trees, template pairs flagged boilerplate
    none = ([False] * len(flags[0]), flags[1])
    for pair in align_page_texts(src, tgt, content=none):
        assert pair.src_text not in PARAGRAPHS[0] or pair.tgt_text not in MENUS[1]
        assert pair.boilerplate == (pair.tgt_text not in PARAGRAPHS[1])
