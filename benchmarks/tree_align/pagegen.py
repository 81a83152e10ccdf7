"""Generate realistic page pairs around parallel text, with gold, for tree_align benchmarks.

Two different page templates, one per side, around the same site menus (labels are
pseudo-words of matching word counts on each side, as translated menus are; the header menu
is nested on one side and flat on the other, the side menu comes after the article on one
side and before it on the other, the footer links fill 3 or 4 columns): a source template
(header with nested nav menu,
breadcrumb, article of ``<p>`` with inline markup, info boxes and ads inside the article,
sidebar after the content, footer link lists) and a target template (top bar with a flat
menu, sidebar *before* the content, article wrapped in ``section/div/p``, an occasional
paragraph split into two ``<p>``, a related-articles box and a cookie banner only on this
side, a table-based footer). Navigation and box texts are pseudo-words drawn from small
per-language syllable lists written here, so nothing is copied from elsewhere.

Every text fragment written is recorded with its role (article paragraph k, box on one side
only, navigation) so text-leaf alignment can be scored after parsing.
"""

from __future__ import annotations

import html
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

SYLLABLES = {
    "src": ("ber", "gen", "stein", "wald", "haus", "kunst", "lich", "ung", "keit", "schaft"),
    "tgt": ("mon", "tagne", "roche", "val", "cour", "lier", "ment", "ance", "ette", "oise"),
}


@dataclass
class GeneratedPage:
    """One page's HTML and the role of each text fragment in it."""

    html: str
    roles: dict[str, set[str]] = field(default_factory=dict)

    def record(self, text: str, role: str) -> str:
        self.roles.setdefault(" ".join(text.split()), set()).add(role)
        return html.escape(text)


@dataclass(frozen=True)
class Paragraph:
    """Consecutive gold beads kept together in one paragraph on both sides."""

    src: tuple[int, ...]
    tgt: tuple[int, ...]


def paragraphs_from_beads(
    beads: Sequence[tuple[tuple[int, ...], tuple[int, ...]]], rng: random.Random
) -> list[Paragraph]:
    """Cut the bead sequence into paragraphs of 1-6 beads (boundaries only between beads)."""
    result: list[Paragraph] = []
    start = 0
    while start < len(beads):
        stop = min(len(beads), start + rng.randint(1, 6))
        src = tuple(i for bead in beads[start:stop] for i in bead[0])
        tgt = tuple(j for bead in beads[start:stop] for j in bead[1])
        result.append(Paragraph(src, tgt))
        start = stop
    return result


def _words(rng: random.Random, side: str, count: int) -> str:
    syllables = SYLLABLES[side]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3))) for _ in range(count)]
    return " ".join(words).capitalize()


def _inline(page: GeneratedPage, text: str, role: str, rng: random.Random) -> str:
    """Write a sentence, sometimes with a word span in <b>, <a> or <span>."""
    words = text.split()
    if len(words) < 6 or rng.random() < 0.6:
        return page.record(text, role)
    start = rng.randint(0, len(words) - 4)
    stop = start + rng.randint(2, 3)
    tag = rng.choice(("b", "a", "span", "em"))
    head, mid, tail = " ".join(words[:start]), " ".join(words[start:stop]), " ".join(words[stop:])
    attrs = ' href="#"' if tag == "a" else ""
    return (
        (page.record(head, role) + " " if head else "")
        + f"<{tag}{attrs}>{page.record(mid, role)}</{tag}>"
        + (" " + page.record(tail, role) if tail else "")
    )


def _paragraph_html(
    page: GeneratedPage, sentences: Sequence[str], role: str, rng: random.Random
) -> str:
    page.record(" ".join(sentences), role)  # the whole block's text, as a chunk reads it
    return " ".join(_inline(page, s, role, rng) for s in sentences)


MenuSpec = list[tuple[int, list[int]]]  # per item: words of its label, words of sub-items


@dataclass(frozen=True)
class SiteMenus:
    """The site's menus, the same on both sides (labels differ, as translations do)."""

    header: MenuSpec
    side: MenuSpec
    footer: MenuSpec


def site_menus(paragraphs: Sequence[Paragraph], scale: int) -> SiteMenus:
    """Menus shared by both pages of a pair (derived from the pair, so both sides agree)."""
    rng = random.Random(len(paragraphs) * 7919 + scale)

    def spec(items: int, nested: bool) -> MenuSpec:
        return [
            (
                rng.randint(1, 2),
                [2] * rng.randint(2, 6) if nested and rng.random() < 0.3 else [],
            )
            for _ in range(items)
        ]

    return SiteMenus(spec(12 * scale, True), spec(8 * scale, False), spec(18 * scale, False))


def _menu(
    page: GeneratedPage, side: str, rng: random.Random, spec: MenuSpec, *, nested: bool
) -> str:
    """Render a menu; not ``nested``: sub-items follow their parent in one flat list."""
    parts = ["<ul class='menu'>"]
    for words, sub_words in spec:
        label = page.record(_words(rng, side, words), "nav")
        entries = [
            f"<li><a href='#'>{page.record(_words(rng, side, n), 'nav')}</a></li>"
            for n in sub_words
        ]
        sub = f"<ul class='sub'>{''.join(entries)}</ul>" if nested and entries else ""
        parts.append(f"<li class='item'><a href='#'><span>{label}</span></a>{sub}</li>")
        if not nested:
            parts.extend(entries)
    parts.append("</ul>")
    return "".join(parts)


def _columns(spec: MenuSpec, count: int) -> list[MenuSpec]:
    size = -(-len(spec) // count)
    return [spec[k : k + size] for k in range(0, len(spec), size)]


def _box(page: GeneratedPage, side: str, rng: random.Random, kind: str) -> str:
    lines = "".join(
        f"<p>{page.record(_words(rng, side, rng.randint(4, 12)) + '.', kind)}</p>"
        for _ in range(rng.randint(1, 3))
    )
    title = page.record(_words(rng, side, 2), kind)
    return (
        f"<div class='{kind}'><div class='inner'><h4>{title}</h4>{lines}"
        "<img src='x.png'></div></div>"
    )


def source_page(
    sentences: Sequence[str], paragraphs: Sequence[Paragraph], rng: random.Random, *, scale: int = 1
) -> GeneratedPage:
    """The source-side template (see module docstring)."""
    page = GeneratedPage("")
    menus = site_menus(paragraphs, scale)
    body = [
        "<div id='wrapper'><div id='header'><div class='logo'><img src='l.png' alt='Logo'></div>"
    ]
    body.append(
        "<div id='nav'>" + _menu(page, "src", rng, menus.header, nested=True) + "</div></div>"
    )
    body.append(
        "<div id='content'><div class='breadcrumb'>"
        + page.record(_words(rng, "src", 3), "nav")
        + "</div>"
    )
    body.append(
        "<div class='article'><h1>" + page.record(_words(rng, "src", 4), "src-only") + "</h1>"
    )
    for k, para in enumerate(paragraphs):
        if para.src:
            text = _paragraph_html(page, [sentences[i] for i in para.src], f"para{k}", rng)
            body.append(f"<p>{text}</p>")
        if rng.random() < 0.12:
            body.append(_box(page, "src", rng, "src-only"))
    body.append("</div></div>")
    body.append(
        "<div id='sidebar'>"
        + _box(page, "src", rng, "src-only")
        + _menu(page, "src", rng, menus.side, nested=False)
        + "</div>"
    )
    footer = "".join(
        "<div class='col'>" + _menu(page, "src", rng, column, nested=False) + "</div>"
        for column in _columns(menus.footer, 3)
    )
    body.append(
        f"<div id='footer'>{footer}<p>{page.record(_words(rng, 'src', 5), 'nav')}</p></div></div>"
    )
    page.html = (
        "<!DOCTYPE html><html><head><title>T</title><meta charset='utf-8'>"
        "<script>var a=1;</script></head><body>" + "".join(body) + "</body></html>"
    )
    return page


def target_page(
    sentences: Sequence[str], paragraphs: Sequence[Paragraph], rng: random.Random, *, scale: int = 1
) -> GeneratedPage:
    """The target-side template (see module docstring)."""
    page = GeneratedPage("")
    menus = site_menus(paragraphs, scale)
    body = [
        "<div class='cookie'><p>"
        + page.record(_words(rng, "tgt", 14) + ".", "tgt-only")
        + "</p><button>OK</button></div>"
    ]
    body.append(
        "<header><div class='top'>"
        + _menu(page, "tgt", rng, menus.header, nested=False)
        + "</div></header>"
    )
    body.append(
        "<div class='container'><div class='row'><aside class='col-3'>"
        + _menu(page, "tgt", rng, menus.side, nested=True)
    )
    body.append(
        _box(page, "tgt", rng, "tgt-only") + "</aside><main class='col-9'><article><header><h2>"
    )
    body.append(page.record(_words(rng, "tgt", 4), "tgt-only") + "</h2></header><section>")
    for k, para in enumerate(paragraphs):
        if not para.tgt:
            continue
        sents = [sentences[j] for j in para.tgt]
        if len(sents) >= 4 and rng.random() < 0.2:
            cut = len(sents) // 2
            body.append(
                f"<div class='para'><p>{_paragraph_html(page, sents[:cut], f'para{k}', rng)}</p>"
                f"<p>{_paragraph_html(page, sents[cut:], f'para{k}', rng)}</p></div>"
            )
        else:
            body.append(
                f"<div class='para'><p>{_paragraph_html(page, sents, f'para{k}', rng)}</p></div>"
            )
        if rng.random() < 0.08:
            body.append(_box(page, "tgt", rng, "tgt-only"))
    body.append(
        "</section></article><div class='related'>"
        + _box(page, "tgt", rng, "tgt-only")
        + "</div></main></div></div>"
    )
    cells = "".join(
        "<td>" + _menu(page, "tgt", rng, column, nested=False) + "</td>"
        for column in _columns(menus.footer, 4)
    )
    body.append(f"<footer><table><tr>{cells}</tr></table></footer>")
    page.html = (
        "<!DOCTYPE html><html lang='fr'><head><title>T</title><style>p{{}}</style></head><body>"
        + "".join(body)
        + "</body></html>"
    )
    return page


def synthetic_document(
    rng: random.Random, n_beads: int
) -> tuple[list[str], list[str], list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """Pseudo-word parallel text (for training the shipped model): lengths roughly track."""
    src: list[str] = []
    tgt: list[str] = []
    beads: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for _ in range(n_beads):
        n = rng.randint(4, 25)
        src.append(_words(rng, "src", n) + ".")
        tgt.append(_words(rng, "tgt", max(1, n + rng.randint(-2, 3))) + ".")
        beads.append(((len(src) - 1,), (len(tgt) - 1,)))
    return src, tgt, beads
