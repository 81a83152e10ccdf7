"""Template and content apart in the tree path: content trees, and the boilerplate flag of
pairs that are template on both pages when a page has no content."""

from __future__ import annotations

from services.html.parse import block_tree, parse_html, text_chunks
from services.tree_align.align import align_page_texts
from services.tree_align.boilerplate import (
    CONTENT,
    TEMPLATE,
    UNKNOWN,
    all_template,
    line_kinds,
)


def test_a_line_both_content_and_template_on_one_page_is_unknown() -> None:
    kinds = line_kinds(["Home", "A  paragraph", "Home\nMenu"], [False, True, True])
    assert kinds == {"Home": UNKNOWN, "A paragraph": CONTENT, "Menu": CONTENT}
    assert line_kinds(["Menu"], [False]) == {"Menu": TEMPLATE}


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
    # a page with no content block: the whole trees, as without the content model; a pair
    # is boilerplate exactly when every line of it is template on both pages
    none = ([False] * len(flags[0]), flags[1])
    whole = align_page_texts(src, tgt, content=none)
    plain = align_page_texts(src, tgt)
    assert [(p.src_text, p.tgt_text) for p in whole] == [(p.src_text, p.tgt_text) for p in plain]
    for pair in whole:
        assert pair.boilerplate == (pair.tgt_text not in "\n".join(PARAGRAPHS[1]))
