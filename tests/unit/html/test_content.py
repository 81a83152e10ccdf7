"""The content model: content or template per text block, from the extractor's verdict,
link density, template markup and site repetition."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from services.html.content import (
    CONTENT_THRESHOLD,
    REPEATS_COUNTED,
    SiteBlocks,
    block_contents,
    block_key,
    content_probability,
    coverage,
    extracted_text,
    main_paragraphs,
    page_blocks,
    tokens,
)
from services.html.parse import parse_html, parse_page

ARTICLE = [
    "The new bridge over the Rhine opened in 1998 after four years of work on both banks.",
    "It carries forty thousand cars a day between Basel and the German border, and a tram.",
    "Engineers from three countries designed its single arch of steel and concrete.",
]
MENU = ["Home", "News", "About us", "Contact", "Careers", "Press", "Events", "Shop"]


def page(*, sidebar: str = "") -> str:
    links = "".join(f"<li><a href='/{k}'>{label}</a></li>" for k, label in enumerate(MENU))
    related = "".join(
        f"<li><a href='/r{k}'>Read also: a story about the river number {k}</a></li>"
        for k in range(5)
    )
    paragraphs = "".join(f"<p>{text}</p>" for text in ARTICLE)
    return (
        "<html><head><title>The Rhine bridge</title></head><body>"
        f"<header><nav><ul>{links}</ul></nav></header>"
        f"<main><article><h1>The Rhine bridge</h1>{paragraphs}</article>"
        f"<div class='related'><ul>{related}</ul></div></main>{sidebar}"
        "<footer><p>Copyright 2026 Bridge Example. All rights reserved.</p></footer>"
        "</body></html>"
    )


def kinds(blocks: list) -> dict[str, bool]:  # type: ignore[type-arg]
    return {block.chunk.text: block.is_content for block in blocks}


def test_tokens_read_ideographs_one_by_one_and_words_whole() -> None:
    assert tokens("Die Brücke, 1998!") == ("die", "brücke", "1998")
    assert tokens("新的大桥2019年") == ("新", "的", "大", "桥", "2019", "年")


def test_article_blocks_are_content_and_menus_footers_related_links_are_not() -> None:
    tree = parse_html(page())
    found = kinds(block_contents(tree, "\n".join(ARTICLE)))
    assert all(found[text] for text in ARTICLE)
    assert not any(found[label] for label in MENU)
    assert not found["Copyright 2026 Bridge Example. All rights reserved."]
    assert not found["Read also: a story about the river number 1"]


def test_without_an_extractor_verdict_link_density_and_markup_still_decide() -> None:
    found = kinds(block_contents(parse_html(page()), None))
    assert all(found[text] for text in ARTICLE)
    assert not any(found[label] for label in MENU)
    assert not found["Read also: a story about the river number 1"]


def test_a_block_repeated_across_the_site_is_template() -> None:
    # the extractor keeps a newsletter box in the article column; the site's other pages
    # hold it too, so it is template
    box = "Subscribe to our newsletter and never miss a story about the river again."
    tree = parse_html(page().replace("</article>", f"<p>{box}</p></article>"))
    main_text = "\n".join([*ARTICLE, box])
    alone = kinds(block_contents(tree, main_text))
    site = SiteBlocks({block_key(box): 12}, site_pages=12)
    crawled = kinds(block_contents(tree, main_text, site=site))
    assert alone[box] and not crawled[box]
    assert all(crawled[text] for text in ARTICLE)
    assert block_key(box) == block_key("  subscribe to our NEWSLETTER and never miss a story "
                                       "about the river again ")  # fmt: skip


def test_a_headline_repeated_on_the_page_takes_the_main_text_once() -> None:
    shingles = Counter({("a", "b", "c"): 1, ("b", "c", "d"): 1})
    assert coverage(["a", "b", "c", "d"], shingles, Counter()) == 1.0
    assert coverage(["a", "b", "c", "d"], shingles, Counter()) == 0.0  # used up
    lines = Counter({"home": 1})
    assert coverage(["home"], Counter(), lines, consume=False) == 1.0
    assert coverage(["home"], Counter(), lines) == 1.0
    assert coverage(["home"], Counter(), lines) == 0.0


def test_the_extractor_reads_the_parsed_document_without_changing_it() -> None:
    tree, document = parse_page(page(sidebar="<aside><p>Weather: sunny.</p></aside>"))
    before = len(list(document.iter()))
    blocks = page_blocks(tree, document)
    assert len(list(document.iter())) == before
    paragraphs = main_paragraphs(blocks)
    assert all(text in paragraphs for text in ARTICLE)
    assert not set(MENU) & set(paragraphs)


def test_a_short_cell_of_a_long_table_row_of_the_extractor_counts_as_its_text() -> None:
    cells = ["DL", "Larry Ogunjobi", "63", "85%", "1 tackle (1 combined). 1 sack, 1 TFL, 2 QH."]
    row = "".join(f"<td>{cell}</td>" for cell in cells)
    tree = parse_html(f"<html><body><table><tr>{row}</tr></table></body></html>")
    main_text = "| " + " | ".join(cells) + " | "  # trafilatura's text of a table row
    assert len(tokens(main_text)) > 12  # longer than a short line
    found = kinds(block_contents(tree, main_text))
    assert all(found[cell] for cell in cells)
    elsewhere = kinds(
        block_contents(
            tree,
            "DL and 63 appear in a long sentence of the article, which is no table row at all.",
        )
    )
    assert not elsewhere["63"] and not elsewhere["Larry Ogunjobi"]


def test_alignment_reads_the_recall_setting_and_a_reader_the_precision_setting() -> None:
    tree, document = parse_page(page())
    for favor in ("recall", "precision"):
        with mock.patch("trafilatura.extract", return_value="") as extract:
            extracted_text(document, favor=favor)
        settings = extract.call_args.kwargs
        assert settings["favor_recall"] is (favor == "recall")
        assert settings["favor_precision"] is (favor == "precision")
    paragraphs = main_paragraphs(page_blocks(tree, document, favor="precision"))
    assert all(text in paragraphs for text in ARTICLE) and not set(MENU) & set(paragraphs)


@given(st.floats(0, 1), st.floats(0, 1), st.booleans(), st.integers(0, 1000), st.integers(1, 50))
def test_probability_falls_with_each_kind_of_template_evidence(
    extractor: float, links: float, template: bool, repeated: int, more: int
) -> None:
    p = content_probability(extractor, links, template, repeated)
    assert 0.0 <= p <= 1.0
    assert content_probability(extractor, links, template, repeated + more) <= p
    assert content_probability(extractor, min(1.0, links + 0.1), template, repeated) <= p
    assert content_probability(extractor, links, True, repeated) <= p
    assert content_probability(min(1.0, extractor + 0.1), links, template, repeated) >= p
    assert (content_probability(1.0, 0.0, False, 0) >= CONTENT_THRESHOLD) and (
        content_probability(0.0, 0.0, False, 0) < CONTENT_THRESHOLD
    )


@given(st.floats(0, 1), st.floats(0, 1), st.booleans(), st.booleans(), st.integers(0, 10**6))
def test_a_block_on_the_counted_number_of_pages_is_template_whatever_else(
    extractor: float, links: float, template: bool, box: bool, more: int
) -> None:
    # why the site's counts may stop at REPEATS_COUNTED (tree_align.repository.block_counts)
    at_cap = content_probability(extractor, links, template, REPEATS_COUNTED, box)
    assert at_cap < CONTENT_THRESHOLD
    beyond = content_probability(extractor, links, template, REPEATS_COUNTED + more, box)
    assert beyond < CONTENT_THRESHOLD


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("paramine")), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_extract_content_prints_main_paragraphs_of_html_and_gzipped_pages(tmp_path: Path) -> None:
    plain = tmp_path / "bridge.html"
    plain.write_text(page(), encoding="utf-8")
    packed = tmp_path / "bridge.html.gz"
    declared = page().replace("<head>", "<head><meta charset='windows-1252'>")
    packed.write_bytes(gzip.compress(declared.encode("ascii").replace(b"Rhine", b"Rh\xeene")))
    result = _cli("extract-content", str(plain))
    assert result.returncode == 0, result.stderr
    paragraphs = result.stdout.strip().split("\n\n")
    assert all(text in paragraphs for text in ARTICLE) and "Home" not in result.stdout
    result = _cli("extract-content", "--jsonl", str(plain), str(packed))
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["path"] for r in records] == [str(plain), str(packed)]
    assert "Rhîne" in records[1]["text"] and ARTICLE[1] in records[1]["text"]


def test_extract_content_refuses_a_bad_page_in_one_line_and_goes_on(tmp_path: Path) -> None:
    good = tmp_path / "good.html"
    good.write_text(page(), encoding="utf-8")
    broken = tmp_path / "broken.html.gz"
    broken.write_bytes(b"not gzip at all")
    result = _cli("extract-content", "--jsonl", str(broken), str(good))
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) == 1 and ARTICLE[0] in result.stdout
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "broken.html.gz" in errors[0] and "gzip" in errors[0]
