"""Tests of the tag tree: structure, text leaves, chunks, xpaths and hostile input."""

from __future__ import annotations

import numpy as np
import pytest

from services.tree_align.html_tree import (
    TEXT_LABEL,
    ParseLimits,
    block_tree,
    page_text,
    parse_html,
    text_chunks,
    tree_from_nodes,
)
from shared.errors import InputTooLarge, InvalidInput

PAGE = (
    b"<html><head><title>T</title><script>x=1</script><style>p{}</style></head>"
    b"<body><!-- c --><p>Hello <b>world</b>.<br>Next</p>"
    b"<div>Intro <p>para</p> tail <img src=a.png alt='Logo'></div>"
    b"<noscript>n</noscript></body></html>"
)


def test_labels_and_text_leaves_follow_document_order() -> None:
    tree = parse_html(PAGE)
    labels = [tree.label(i) for i in range(tree.size)]
    assert labels == [
        "html", "head", "title", "#text", "body", "p", "#text", "b", "#text", "#text", "br",
        "#text", "div", "#text", "p", "#text", "#text", "img", "#text",
    ]  # fmt: skip
    texts = [tree.texts[i] for i in tree.text_leaves()]
    assert texts == ["T", "Hello ", "world", ".", "Next", "Intro ", "para", " tail ", "Logo"]


def test_arrays_describe_the_same_tree() -> None:
    tree = parse_html(PAGE)
    for node in range(tree.size):
        for child in tree.children(node):
            assert tree.parent[child] == node
            assert node < child < tree.subtree_end[node]
    position = np.empty(tree.size, dtype=np.int64)
    position[tree.postorder] = np.arange(tree.size)
    for node in range(1, tree.size):
        assert position[node] < position[tree.parent[node]]
    assert sorted(tree.postorder.tolist()) == list(range(tree.size))


def test_chunks_merge_inline_markup_and_keep_blocks_apart() -> None:
    tree = parse_html(PAGE)
    assert page_text(tree) == ["T", "Hello world. Next", "Intro", "para", "tail Logo"]
    chunk = text_chunks(tree)[1]
    assert tree.xpath(chunk.block) == "/html/body/p"
    assert len(chunk.leaves) == 4


def test_xpaths_locate_nodes() -> None:
    tree = parse_html(b"<html><body><p>a</p><p>b<br>c</p></body></html>")
    paths = [tree.xpath(leaf) for leaf in tree.text_leaves()]
    assert paths == [
        "/html/body/p[1]/text()[1]",
        "/html/body/p[2]/text()[1]",
        "/html/body/p[2]/text()[2]",
    ]


def test_encoding_from_meta_charset() -> None:
    html = "<html><head><meta charset='iso-8859-1'></head><body><p>Grüße</p></body></html>"
    tree = parse_html(html.encode("iso-8859-1"))
    assert page_text(tree) == ["Grüße"]


@pytest.mark.parametrize("page", [b"", b"   \n ", "  "])
def test_empty_page_is_invalid(page: bytes | str) -> None:
    with pytest.raises(InvalidInput, match="empty"):
        parse_html(page)


def test_binary_garbage_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        parse_html(bytes(range(256)) * 40)


def test_too_many_bytes() -> None:
    with pytest.raises(InputTooLarge, match="bytes"):
        parse_html(b"<p>x</p>" * 100, limits=ParseLimits(max_bytes=500))


def test_hundred_thousand_deep_nesting_is_bounded() -> None:
    depth = 100_000
    page = b"<div>" * depth + b"deep" + b"</div>" * depth
    tree = parse_html(page)  # libxml2 flattens nesting beyond 256 levels by itself
    depths = np.zeros(tree.size, dtype=np.int64)
    for node in range(1, tree.size):
        depths[node] = depths[tree.parent[node]] + 1
    assert depths.max() <= 300
    with pytest.raises(InputTooLarge, match="deeper"):
        parse_html(page, limits=ParseLimits(max_depth=100))


def test_million_element_page_is_refused_clearly() -> None:
    page = b"<html><body>" + b"<i></i>" * 1_000_000 + b"</body></html>"
    with pytest.raises(InputTooLarge, match="nodes"):
        parse_html(page)


def test_block_tree_folds_inline_markup_into_one_leaf_per_block() -> None:
    folded = block_tree(parse_html(PAGE))
    labels = [folded.label(i) for i in range(folded.size)]
    assert labels == [
        "html", "head", "title", "#text", "body", "p", "#text", "div", "#text", "p", "#text",
        "#text",
    ]  # fmt: skip
    texts = [folded.texts[i] for i in folded.text_leaves()]
    assert texts == ["T", "Hello world. Next", "Intro", "para", "tail Logo"]
    assert folded.xpath(int(folded.parent[folded.text_leaves()[1]])) == "/html/body/p"


def test_tree_from_nodes_rejects_broken_preorder() -> None:
    with pytest.raises(InvalidInput):
        tree_from_nodes(["div", "p", "b"], [-1, 0, 3], ["", "", ""])
    with pytest.raises(InvalidInput):
        tree_from_nodes(["div", TEXT_LABEL, "b"], [-1, 0, 1], ["", "x", ""])


def test_whitespace_between_inline_elements_separates_words() -> None:
    tree = parse_html(b"<html><body><nav><a>Home</a> <a>News</a>\n<a>FR</a></nav></body></html>")
    assert page_text(tree) == ["Home News FR"]
