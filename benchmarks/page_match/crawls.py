"""Site crawls for the page_match benchmark, built from the kit's parallel texts.

Each site is one language pair's documents cut into pages of 6-14 gold beads (paragraphs of
1-4 beads), wrapped in one of three site templates (``TEMPLATES``: an article with a header
menu and a footer; a layout table with a menu column, nested divs, paragraphs split by
``<br>`` and a footer table; a portal with a styled-div headline, a cookie box, an
untranslated newsletter box and a sidebar of links to other pages with their titles),
published under one of four URL schemes: language directories (``/en/page-12.html``), a query
parameter (``?id=12&lang=en``), opaque ids on both sides (``/p/83412.html``), translated slugs
(``/en/the-first-words.html``). Texts are read in place from ../shared/data: Text+Berg de-fr
and MAC-Dev zh-en (``textberg_documents``, ``mac_documents``). The scoring and the report are
``benchmarks.page_match.matching``.
"""

from __future__ import annotations

import html
import random
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import KIT
from benchmarks.tree_align.sitetext import BOX, MENU
from services.sentence_align.aligners.beads import parse_beads

ORPHAN_SHARE = 0.2  # pages that lose their twin in the crawl
TEXTBERG = KIT / "textberg-bleualign-de-fr"


MAC = KIT / "mac-dev-zh-en-bertalign"


MENUS = {
    "de": ("Startseite", "Über uns", "Berichte", "Archiv", "Kontakt", "Impressum"),
    "fr": ("Accueil", "À propos", "Rapports", "Archives", "Contact", "Mentions légales"),
    "en": ("Home", "About us", "Reports", "Archive", "Contact", "Legal notice"),
    "zh": ("首页", "关于我们", "报告", "档案", "联系我们", "法律声明"),
}


FOOTERS = {
    "de": "Alle Rechte vorbehalten.",
    "fr": "Tous droits réservés.",
    "en": "All rights reserved.",
    "zh": "版权所有。",
}


Document = tuple[str, str, list[tuple[str, str]]]  # languages and (src, tgt) bead texts


def _bead_texts(
    first: Path, second: Path, gold: Path, joiners: tuple[str, str] = (" ", " ")
) -> list[tuple[str, str]]:
    # the (first side, second side) texts of the gold beads with both sides
    lines_a = first.read_text("utf-8").splitlines()
    lines_b = second.read_text("utf-8").splitlines()
    return [
        (
            joiners[0].join(lines_a[i] for i in bead.src),
            joiners[1].join(lines_b[j] for j in bead.tgt),
        )
        for bead in parse_beads(gold.read_text("utf-8").splitlines())
        if bead.src and bead.tgt
    ]


def textberg_documents(names: Sequence[str]) -> list[Document]:
    return [
        (
            "de",
            "fr",
            _bead_texts(TEXTBERG / f"{n}.de", TEXTBERG / f"{n}.fr", TEXTBERG / f"{n}.defr"),
        )
        for n in names
    ]


def mac_documents(names: Sequence[str]) -> list[Document]:
    # MAC's beads read Chinese first: the pairs are turned to (en, zh)
    documents: list[Document] = []
    for name in names:
        beads = _bead_texts(
            MAC / "zh" / name, MAC / "en" / name, MAC / "gold" / f"{name}.align", ("", " ")
        )
        documents.append(("en", "zh", [(en, zh) for zh, en in beads]))
    return documents


@dataclass(frozen=True)
class CrawledPage:
    url: str
    html: str


NEWSLETTER = {
    "de": "Abonnieren Sie unseren Newsletter und verpassen Sie keine Neuigkeit.",
    "fr": "Abonnez-vous à notre lettre d'information pour ne rien manquer.",
    "en": "Subscribe to our newsletter and never miss a story.",
    "zh": "订阅我们的新闻通讯，不错过任何消息。",
}


TEMPLATES = ("article", "table", "portal")
# Heavy templates (sites added beside the others, ``site_crawl(template="heavy")``): a link
# bar of 60 labels, a 64-cell footer table, cookie and newsletter banners, a related-article
# list of other pages' titles, and three one-sided boxes of other pages' prose in the text.
HEAVY = "heavy"
HEAVY_BOXES = 3


def _heavy_html(
    lang: str,
    paragraphs: Sequence[str],
    home: str,
    related: Sequence[tuple[str, str]],
    boxes: Sequence[str],
    title: str,
) -> str:
    labels = MENU[lang]
    bar = " ".join(f'<a href="{home}m{k}">{html.escape(labels[k % len(labels)])}</a>'
                   for k in range(60))  # fmt: skip
    cells = "".join(
        f'<td><a href="{home}f{k}">{html.escape(labels[(k * 7) % len(labels)])}</a></td>'
        + ("</tr><tr>" if k % 8 == 7 else "")
        for k in range(64)
    )
    side = "".join(
        f'<li><a href="{url}">{html.escape(text[:60])}</a></li>' for url, text in related
    )
    body: list[str] = []
    after = set(range(len(paragraphs))[:: max(1, len(paragraphs) // max(1, len(boxes)))])
    pending = list(boxes)
    for k, text in enumerate(paragraphs):
        body.append(f"<p>{html.escape(text)}</p>")
        if k in after and pending:
            body.append(f'<div class="c{k}"><p>{html.escape(pending.pop())}</p></div>')
    body += [f'<div class="c9"><p>{html.escape(text)}</p></div>' for text in pending]
    return (
        f"<html><head><title>{html.escape(title)}</title></head><body>"
        f'<div class="c1">{BOX[lang][0]} <button>OK</button></div>'
        f'<div class="c2"><div class="c3">{bar}</div></div>'
        f'<div class="c4"><div class="c5"><h1>{html.escape(title)}</h1>{"".join(body)}'
        f'<div class="c6"><p>{BOX[lang][2]}</p><form><input></form></div>'
        f'<div class="c7"><ul>{side}</ul></div></div></div>'
        f'<div class="c8"><table><tr>{cells}</tr></table><p>{FOOTERS[lang]}</p></div>'
        "</body></html>"
    )


def _page_html(
    lang: str,
    paragraphs: Sequence[str],
    home: str,
    template: str = "article",
    related: Sequence[tuple[str, str]] = (),
    title: str | None = None,
) -> str:
    """One page of a site in one of the TEMPLATES families: ``article`` (header menu, an
    article, a footer line), ``table`` (a layout table: menu column, content in nested
    divs, a footer table of links, paragraphs split by ``<br>``), ``portal`` (headline as a
    styled div, a cookie box and an untranslated English newsletter box, a sidebar of links
    to other pages of the site with their titles)."""
    title = html.escape(paragraphs[0][:60] if title is None else title)
    labels = MENUS[lang]
    if template == "table":
        menu = "".join(
            f'<tr><td><a href="{home}{k}">{html.escape(x)}</a></td></tr>'
            for k, x in enumerate(labels)
        )
        body = "<br><br>".join(html.escape(text) for text in paragraphs)
        links = "".join(
            f'<td><a href="{home}f{k}">{html.escape(x)}</a></td>' for k, x in enumerate(labels[3:])
        )
        return (
            f"<html><head><title>{title}</title></head><body><table><tr>"
            f"<td class=side><table>{menu}</table></td><td class=main><div><div><div>"
            f'<h2>{title}</h2><div class="text">{body}</div></div></div></div></td></tr></table>'
            f"<table class=foot><tr>{links}</tr><tr><td>{FOOTERS[lang]}</td></tr></table>"
            "</body></html>"
        )
    if template == "portal":
        menu = " | ".join(f'<a href="{home}{k}">{html.escape(x)}</a>' for k, x in enumerate(labels))
        side = "".join(
            f'<li><a href="{url}">{html.escape(text[:50])}</a></li>' for url, text in related
        )
        body = "".join(f"<div class=para>{html.escape(text)}</div>" for text in paragraphs)
        return (
            f"<html><head><title>{title}</title></head><body><div id=top>{menu}</div>"
            f'<div class="cookie">We use cookies. <button>OK</button></div>'
            f'<div class="wrap"><div class="col"><div class="headline">{title}</div>{body}</div>'
            f'<aside><ul>{side}</ul><div class="box">{NEWSLETTER["en"]}</div></aside></div>'
            f'<div class="bottom"><img src="/img/logo-{lang}.gif"> {FOOTERS[lang]}</div>'
            "</body></html>"
        )
    menu = "".join(
        f'<li><a href="{home}{k}">{html.escape(label)}</a></li>' for k, label in enumerate(labels)
    )
    body = "".join(f"<p>{html.escape(text)}</p>" for text in paragraphs)
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
        f'<header><img src="/static/logo.png" alt=""><nav><ul>{menu}</ul></nav></header>'
        f"<main><article><h1>{title}</h1>{body}</article></main>"
        f"<footer><p>© 2026 Example. {FOOTERS[lang]}</p></footer></body></html>"
    )


def _slug(text: str) -> str:
    words = text.split()[:4] if " " in text else [text[:6]]
    return urllib.parse.quote("-".join(w.strip(".,;:!?\"'()").lower() for w in words))


def site_crawl(
    documents: Sequence[Document],
    scheme: str,
    host: str,
    rng: random.Random,
    beads: list[tuple[str, str]] | None = None,
    template: str = "article",
) -> tuple[list[CrawledPage], set[tuple[str, str]]]:
    """The pages of one site (shuffled) in one of the TEMPLATES, and its gold page pairs
    (src_url, tgt_url); the gold beads of the pairs whose both pages are in the crawl are
    added to ``beads``."""
    drafts: list[tuple[str, str, list[str], str]] = []  # lang, url, paragraphs, title
    gold: set[tuple[str, str]] = set()
    number = 0
    for src_lang, tgt_lang, pairs in documents:
        start = 0
        while start < len(pairs):
            size = rng.randint(6, 14)
            chunk = pairs[start : start + size]
            start += size
            if len(chunk) < 3:
                continue
            number += 1
            cuts = _paragraph_cuts(len(chunk), rng)
            sides = {}
            for lang, index in ((src_lang, 0), (tgt_lang, 1)):
                joiner = "" if lang == "zh" else " "
                paragraphs = [joiner.join(b[index] for b in chunk[a:z]) for a, z in cuts]
                sides[lang] = (
                    lang,
                    _url(scheme, host, lang, number, paragraphs[0], rng),
                    paragraphs,
                    chunk[0][index],  # the title: the page's first sentence, translated
                )
            drop = rng.random() < ORPHAN_SHARE
            if drop:
                drafts.append(sides[rng.choice((src_lang, tgt_lang))])
            else:
                drafts += [sides[src_lang], sides[tgt_lang]]
                gold.add((sides[src_lang][1], sides[tgt_lang][1]))
                if beads is not None:
                    beads += [(a, b) for a, b in chunk]
    pages = []
    for lang, url, paragraphs, title in drafts:
        others = [(u, t) for other, u, _, t in drafts if other == lang and u != url]
        related = rng.sample(others, min(5, len(others))) if template in ("portal", HEAVY) else []
        if template == HEAVY:
            prose = [p for other, u, ps, _ in drafts if other == lang and u != url for p in ps]
            boxes = rng.sample(prose, min(HEAVY_BOXES, len(prose)))
            home = f"https://{host}/"
            page_html = _heavy_html(lang, paragraphs, home, related, boxes, title)
        else:
            page_html = _page_html(lang, paragraphs, f"https://{host}/", template, related, title)
        pages.append(CrawledPage(url, page_html))
    rng.shuffle(pages)
    return pages, gold


def _paragraph_cuts(size: int, rng: random.Random) -> list[tuple[int, int]]:
    cuts, start = [], 0
    while start < size:
        end = min(size, start + rng.randint(1, 4))
        cuts.append((start, end))
        start = end
    return cuts


def _url(scheme: str, host: str, lang: str, number: int, first: str, rng: random.Random) -> str:
    if scheme == "dirs":
        return f"https://{host}/{lang}/page-{number}.html"
    if scheme == "query":
        return f"https://{host}/page.php?id={number}&lang={lang}"
    if scheme == "opaque":
        return f"https://{host}/p/{rng.randrange(10**8):08d}.html"
    return f"https://{host}/{lang}/{_slug(first)}.html"
