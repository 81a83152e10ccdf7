"""Page-pair suite for tree_align: real parallel text in ten differing site template families.

Texts (read in place from ../shared/data, nothing written): German–French (Text+Berg),
Chinese–English (MAC-Dev), English–Japanese (SpanAlign sample, 12 beads: tiny). Each text
set is split into a training part and a validation part, and the template families too
(:data:`TRAIN_FAMILIES`, :data:`VALIDATION_FAMILIES`); a validation page pair joins
validation texts with validation families only. Source and target sides are swapped on
half of the page pairs (English is then the source of Chinese or Japanese pages).

A family gives each side its own features, the way real sites differ: menus of 5-80
links on one or both sides and in other orders, footers as tables or lists, ad, cookie and
newsletter boxes, a sidebar on one side, content in deep wrappers, paragraphs split or
merged on one side, headings as ``h1`` or styled ``div``, lists against paragraphs, blocks
reordered, an untranslated box, a one-sided teaser of real prose from another document.
Site texts come from :mod:`benchmarks.tree_align_sitetext` (translated menus and boxes).

Every block written is recorded with the content paragraphs it holds, so chunk pairs can be
judged after parsing; gold beads are the text set's own.
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from benchmarks.common import KIT
from benchmarks.tree_align_sitetext import BOX, MENU, sentence_joiner
from services.sentence_align.beads import parse_beads

Bead = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class TextSet:
    """One document of parallel text with gold beads (source = ``langs[0]``)."""

    name: str
    langs: tuple[str, str]
    sentences: tuple[list[str], list[str]]
    beads: list[Bead]


def _textberg(doc: str) -> TextSet:
    folder = KIT / "textberg-bleualign-de-fr"
    de = (folder / f"{doc}.de").read_text(encoding="utf-8").splitlines()
    fr = (folder / f"{doc}.fr").read_text(encoding="utf-8").splitlines()
    beads = parse_beads((folder / f"{doc}.defr").read_text(encoding="utf-8").splitlines())
    return TextSet(f"de-fr {doc}", ("de", "fr"), (de, fr), [(b.src, b.tgt) for b in beads])


def _mac(doc: str) -> TextSet:
    folder = KIT / "mac-dev-zh-en-bertalign"
    zh = (folder / "zh" / doc).read_text(encoding="utf-8").splitlines()
    en = (folder / "en" / doc).read_text(encoding="utf-8").splitlines()
    beads = parse_beads((folder / "gold" / f"{doc}.align").read_text(encoding="utf-8").splitlines())
    return TextSet(f"zh-en {doc}", ("zh", "en"), (zh, en), [(b.src, b.tgt) for b in beads])


def _spanalign(part: int) -> TextSet:
    """Half of the 12 beads (1-based in the file), in English order."""
    folder = KIT / "spanalign-sample-en-ja"
    en = (folder / "sample.l1").read_text(encoding="utf-8").splitlines()
    ja = (folder / "sample.l2").read_text(encoding="utf-8").splitlines()
    beads: list[Bead] = []
    for line in (folder / "sample.pair").read_text(encoding="utf-8").splitlines():
        left, right = line.split(":")
        src = tuple(int(x) - 1 for x in re.findall(r"\d+", left))
        tgt = tuple(int(x) - 1 for x in re.findall(r"\d+", right))
        beads.append((src, tgt))
    half = beads[:6] if part == 0 else beads[6:]
    return TextSet(f"en-ja part{part}", ("en", "ja"), (en, ja), half)


def text_sets(split: str) -> list[TextSet]:
    """The training or validation texts."""
    if split == "train":
        return [
            *(_textberg(doc) for doc in ("test0", "test1", "test2")),
            *(_mac(doc) for doc in ("001", "002", "003")),
            _spanalign(0),
        ]
    return [
        *(_textberg(doc) for doc in ("test3", "test4", "test5", "test6")),
        *(_mac(doc) for doc in ("004", "005", "006")),
        _spanalign(1),
    ]


@dataclass(frozen=True)
class Side:
    """How one side of a family renders its page."""

    menu: tuple[int, int] = (8, 12)  # link count range; (0, 0): no menu
    menu_order: str = "same"  # "same", "shuffle", "reverse"
    nested: bool = False
    footer: str = "list"  # "list", "table", "none"
    footer_links: tuple[int, int] = (6, 12)
    sidebar: str = "none"  # "none", "before", "after"
    depth: int = 2  # wrappers around the content
    heading: str = "h1"  # "h1", "div", "h2"
    block: str = "p"  # "p", "li", "td", "div"
    boxes: float = 0.0  # chance of a box after each paragraph
    cookie: bool = False
    newsletter: bool = False
    split: float = 0.0  # chance a paragraph of 2+ sentences is split in two blocks
    merge: float = 0.0  # chance a paragraph is merged with the next into one block
    teaser: bool = False  # one-sided teaser of prose from another document
    untranslated: bool = False  # a box in the source language on this side too
    footer_first: bool = False  # footer block before the content (reordered blocks)


@dataclass(frozen=True)
class Family:
    name: str
    src: Side
    tgt: Side


FAMILIES = (
    Family(
        "portal: 40-80-link menus both sides, list vs table footer, cookie both",
        Side(menu=(40, 80), nested=True, footer="list", footer_links=(20, 40), cookie=True),
        Side(menu=(40, 80), footer="table", footer_links=(20, 40), cookie=True, depth=4),
    ),
    Family(
        "blog: small menus, one-sided sidebar with teaser, h1 vs styled div, paragraphs split",
        Side(menu=(5, 10), sidebar="after", teaser=True, heading="h1"),
        Side(menu=(5, 10), heading="div", depth=3, split=0.3),
    ),
    Family(
        "news: deep wrappers one side, ads between paragraphs, menu reordered",
        Side(menu=(15, 30), depth=12, boxes=0.25, footer="table"),
        Side(menu=(15, 30), menu_order="shuffle", depth=2, footer="list"),
    ),
    Family(
        "docs: list items vs paragraphs, menu on one side only",
        Side(menu=(20, 40), block="li", sidebar="before"),
        Side(menu=(0, 0), block="p", footer="none"),
    ),
    Family(
        "shop: 40-cell footer tables, newsletter one side, untranslated box, merged paragraphs",
        Side(menu=(10, 20), footer="table", footer_links=(30, 40), untranslated=True, merge=0.2),
        Side(
            menu=(10, 20), footer="table", footer_links=(30, 40), newsletter=True,
            untranslated=True, boxes=0.1,
        ),
    ),
    Family(
        "magazine: paragraphs split one side, merged the other, sidebar before vs after",
        Side(menu=(10, 25), split=0.35, sidebar="before", teaser=True),
        Side(menu=(10, 25), merge=0.25, sidebar="after", depth=5),
    ),
    Family(
        "corporate: menus reversed, 60-link menu vs 8, cookie and ads one side",
        Side(menu=(50, 70), nested=True, cookie=True, boxes=0.2, heading="div"),
        Side(menu=(6, 10), menu_order="reverse", heading="h2", footer="table"),
    ),
    Family(
        "table layout: content in table cells vs divs, footer first on one side",
        Side(menu=(10, 20), block="td", footer="table", depth=3),
        Side(menu=(10, 20), block="div", footer_first=True, depth=6, newsletter=True),
    ),
    Family(
        "landing: 80-link menu one side, all boxes one side, split and merge",
        Side(menu=(60, 80), cookie=True, newsletter=True, boxes=0.3, merge=0.2, teaser=True),
        Side(menu=(5, 8), split=0.3, heading="div", footer="none", depth=7),
    ),
    Family(
        "wiki: deep wrappers both, lists vs divs, shuffled footer, sidebar one side",
        Side(menu=(25, 45), block="div", depth=9, footer_links=(15, 30), sidebar="before"),
        Side(menu=(25, 45), block="li", depth=8, menu_order="shuffle", footer_links=(15, 30)),
    ),
)  # fmt: skip
TRAIN_FAMILIES = FAMILIES[:5]
VALIDATION_FAMILIES = FAMILIES[5:]


@dataclass
class Page:
    """One page's HTML and, per written block (whitespace removed), its paragraph ids."""

    lang: str
    html: str = ""
    blocks: dict[str, set[int]] = field(default_factory=dict)

    def block(self, text: str, paragraphs: set[int]) -> str:
        key = "".join(text.split())
        self.blocks.setdefault(key, set()).update(paragraphs)
        return html.escape(text)


@dataclass(frozen=True)
class PagePair:
    """A generated page pair with its gold: beads as sentence texts, and paragraphs."""

    name: str
    family: str
    langs: tuple[str, str]
    pages: tuple[Page, Page]
    gold: list[tuple[tuple[str, ...], tuple[str, ...]]]  # content beads, both sides non-empty
    sentences: tuple[list[str], list[str]]  # every content sentence of each side
    paragraphs: list[tuple[str, str]]  # the content paragraphs' texts (an oracle's chunk pairs)


def _menu_labels(lang: str, count: int, rng: random.Random) -> list[int]:
    """Indices into the parallel menu vocabulary (pairs of labels beyond its size)."""
    size = len(MENU[lang])
    return [k if k < size else size + rng.randrange(size * size) for k in range(count)]


def _label(lang: str, index: int) -> str:
    words = MENU[lang]
    if index < len(words):
        return words[index]
    a, b = divmod(index - len(words), len(words))
    return f"{words[a]}{'' if lang in ('zh', 'ja') else ' '}{words[b]}"


def _links(page: Page, labels: list[int], order: str, rng: random.Random, tag: str) -> str:
    labels = list(labels)
    if order == "shuffle":
        rng.shuffle(labels)
    elif order == "reverse":
        labels.reverse()
    items = "".join(
        f"<{tag}><a href='#'>{page.block(_label(page.lang, k), set())}</a></{tag}>" for k in labels
    )
    return items


def _box(page: Page, lang: str, kind: str, rng: random.Random, count: int = 2) -> str:
    lines = "".join(
        f"<p>{page.block(text, set())}</p>" for text in rng.sample(BOX[lang], count)
    )  # fmt: skip
    return f"<div class='{kind}'><div class='inner'>{lines}</div></div>"


def _render(
    page: Page, side: Side, blocks: list[tuple[str, set[int]]], site: dict[str, object],
    rng: random.Random, other_lang: str, teaser_text: str,
) -> None:  # fmt: skip
    lang = page.lang
    parts: list[str] = []
    if side.cookie:
        parts.append(_box(page, lang, "cookie-banner", rng))
    menu_labels = site["menu"]
    assert isinstance(menu_labels, list)
    count = rng.randint(*side.menu) if side.menu[1] else 0
    if count:
        labels = menu_labels[:count]
        if side.nested:
            half = max(1, len(labels) // 4)
            inner = _links(page, labels[half:], side.menu_order, rng, "li")
            top = _links(page, labels[:half], side.menu_order, rng, "li")
            parts.append(f"<header><nav><ul>{top}<li><ul class='sub'>{inner}</ul></li></ul></nav>")
        else:
            parts.append(
                f"<header><nav><ul>{_links(page, labels, side.menu_order, rng, 'li')}</ul></nav>"
            )
        parts.append("</header>")
    footer_labels = site["footer"]
    assert isinstance(footer_labels, list)
    footer = ""
    if side.footer != "none":
        links = footer_labels[: rng.randint(*side.footer_links)]
        if side.footer == "table":
            cells = _links(page, links, "same", rng, "td")
            footer = f"<footer><table><tr>{cells}</tr></table>"
        else:
            footer = f"<footer><ul>{_links(page, links, 'same', rng, 'li')}</ul>"
        footer += f"<p>{page.block(BOX[lang][7], set())}</p></footer>"
    if side.footer_first:
        parts.append(footer)
    sidebar = ""
    if side.sidebar != "none":
        sidebar = "<aside class='sidebar'>" + _box(page, lang, "promo", rng)
        if side.teaser and teaser_text:
            sidebar += f"<div class='teaser'><p>{page.block(teaser_text, {-1})}</p></div>"
        sidebar += "</aside>"
    if side.sidebar == "before":
        parts.append(sidebar)
    opening = "".join(f"<div class='w{k}'>" for k in range(side.depth))
    content = [opening]
    title = _label(lang, int(site["title"]))  # type: ignore[call-overload]
    if side.heading == "h1":
        content.append(f"<h1>{page.block(title, set())}</h1>")
    elif side.heading == "h2":
        content.append(f"<h2 class='title'>{page.block(title, set())}</h2>")
    else:
        content.append(f"<div class='title big'>{page.block(title, set())}</div>")
    if side.block in ("li", "td"):
        content.append("<ul>" if side.block == "li" else "<table>")
    if side.untranslated:
        content.append(
            f"<div class='notice'><p>{page.block(str(site['untranslated']), set())}</p></div>"
        )
    for text, paragraphs in blocks:
        escaped = page.block(text, paragraphs)
        if side.block == "li":
            content.append(f"<li>{escaped}</li>")
        elif side.block == "td":
            content.append(f"<tr><td><p>{escaped}</p></td></tr>")
        elif side.block == "div":
            content.append(f"<div class='text'>{escaped}</div>")
        else:
            content.append(f"<p>{escaped}</p>")
        if side.boxes and rng.random() < side.boxes:
            box = _box(page, lang, "ad", rng, 1)
            if side.block == "li":
                box = f"<li>{box}</li>"
            elif side.block == "td":
                box = f"<tr><td>{box}</td></tr>"
            content.append(box)
    if side.block in ("li", "td"):
        content.append("</ul>" if side.block == "li" else "</table>")
    if side.teaser and teaser_text and side.sidebar == "none":
        content.append(f"<div class='teaser'><p>{page.block(teaser_text, {-1})}</p></div>")
    if side.newsletter:
        content.append(_box(page, lang, "newsletter", rng, 2) + "<form><input></form>")
    content.append("</div>" * side.depth)
    parts.append("<main>" + "".join(content) + "</main>")
    if side.sidebar == "after":
        parts.append(sidebar)
    if not side.footer_first:
        parts.append(footer)
    del other_lang
    page.html = (
        f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title>"
        "<script>var x = 1;</script></head><body>" + "".join(parts) + "</body></html>"
    )


def make_pair(
    texts: TextSet, beads: Sequence[Bead], family: Family, seed: int, teaser: tuple[str, str],
    *, swap: bool,
) -> PagePair:  # fmt: skip
    """One page pair: ``beads`` of ``texts`` cut into paragraphs, rendered by ``family``."""
    rng = random.Random(seed)
    sents = texts.sentences
    langs = texts.langs
    if swap:
        sents = (sents[1], sents[0])
        langs = (langs[1], langs[0])
        beads = [(t, s) for s, t in beads]
        teaser = (teaser[1], teaser[0])
    paragraphs: list[list[Bead]] = []
    k = 0
    while k < len(beads):
        size = rng.randint(1, 5)
        paragraphs.append(list(beads[k : k + size]))
        k += size
    site: dict[str, object] = {
        "menu": _menu_labels("en", 80, rng),
        "footer": _menu_labels("en", 40, rng)[::-1],
        "title": rng.randrange(len(MENU["en"])),
        "untranslated": BOX[langs[0]][rng.randrange(len(BOX["en"]))],
    }
    pages = (Page(langs[0]), Page(langs[1]))
    sides = (family.src, family.tgt)
    for side in (0, 1):
        spec = sides[side]
        joiner = sentence_joiner(langs[side])
        blocks: list[tuple[str, set[int]]] = []
        pending: tuple[list[str], set[int]] | None = None
        for number, para in enumerate(paragraphs):
            lines = [sents[side][i] for bead in para for i in bead[side]]
            if not lines:
                continue
            if pending is not None:
                blocks.append((joiner.join([*pending[0], *lines]), pending[1] | {number}))
                pending = None
                continue
            if spec.merge and rng.random() < spec.merge and number + 1 < len(paragraphs):
                pending = (lines, {number})
                continue
            if spec.split and len(lines) >= 2 and rng.random() < spec.split:
                cut = len(lines) // 2
                blocks.append((joiner.join(lines[:cut]), {number}))
                blocks.append((joiner.join(lines[cut:]), {number}))
                continue
            blocks.append((joiner.join(lines), {number}))
        if pending is not None:
            blocks.append((joiner.join(pending[0]), pending[1]))
        _render(pages[side], spec, blocks, site, rng, langs[1 - side], teaser[side])
    gold = [
        (tuple(sents[0][i] for i in s), tuple(sents[1][j] for j in t)) for s, t in beads if s and t
    ]
    content = (
        [sents[0][i] for s, _ in beads for i in s],
        [sents[1][j] for _, t in beads for j in t],
    )
    oracle = [
        tuple(
            sentence_joiner(langs[side]).join(sents[side][i] for bead in para for i in bead[side])
            for side in (0, 1)
        )
        for para in paragraphs
    ]
    return PagePair(
        texts.name, family.name.split(":")[0], langs, pages, gold, content,
        [(a, b) for a, b in oracle if a and b],
    )  # fmt: skip


PAGE_BEADS = {"de": 30, "zh": 30, "en": 6}  # beads per page pair, by source language of the set


# The random-template part: for each seed, five families drawn by :func:`random_family`,
# filled with the training texts (a development set with templates nobody wrote).
RANDOM_SEEDS = (1, 2)


def random_side(rng: random.Random) -> Side:
    """One side's features drawn independently from the ranges the ten families use."""
    low = rng.choice([0, 5, 10, 25, 40, 60])
    return Side(
        menu=(0, 0) if low == 0 else (low, low + rng.randint(3, 20)),
        menu_order=rng.choice(["same", "shuffle", "reverse"]),
        nested=rng.random() < 0.3,
        footer=rng.choice(["list", "table", "none"]),
        footer_links=(6, rng.randint(8, 40)),
        sidebar=rng.choice(["none", "before", "after"]),
        depth=rng.randint(1, 10),
        heading=rng.choice(["h1", "div", "h2"]),
        block=rng.choice(["p", "p", "li", "td", "div"]),
        boxes=rng.choice([0.0, 0.0, 0.1, 0.3]),
        cookie=rng.random() < 0.3,
        newsletter=rng.random() < 0.3,
        split=rng.choice([0.0, 0.0, 0.3]),
        merge=rng.choice([0.0, 0.0, 0.2]),
        teaser=rng.random() < 0.4,
        untranslated=rng.random() < 0.2,
        footer_first=rng.random() < 0.15,
    )


def random_families(seed: int, count: int = 5) -> tuple[Family, ...]:
    """``count`` families of two independently drawn sides (:func:`random_side`)."""
    rng = random.Random(seed)
    return tuple(
        Family(f"random {seed}.{k}", random_side(rng), random_side(rng)) for k in range(count)
    )


def suite(split: str, seed: int = 7) -> list[PagePair]:
    """Every page pair of the training, validation or random-template part ("train",
    "validation", "random"; deterministic for ``seed``, the random part for its own seeds)."""
    if split == "random":
        return [
            pair
            for random_seed in RANDOM_SEEDS
            for pair in _pairs("train", random_families(random_seed), random_seed)
        ]
    return _pairs(split, TRAIN_FAMILIES if split == "train" else VALIDATION_FAMILIES, seed)


def _pairs(split: str, families: Sequence[Family], seed: int) -> list[PagePair]:
    pairs: list[PagePair] = []
    rng = random.Random(seed)
    sets = text_sets(split)
    for index, texts in enumerate(sets):
        size = PAGE_BEADS[texts.langs[0]]
        chunks = [texts.beads[k : k + size] for k in range(0, len(texts.beads), size)]
        if len(chunks) > 1 and len(chunks[-1]) < size // 2:
            last = chunks.pop()
            chunks[-1] = chunks[-1] + last
        other = sets[(index + 1) % len(sets)]
        for number, beads in enumerate(chunks):
            family = families[(index + number) % len(families)]
            teaser = _teaser(other, texts.langs, rng)
            pair = make_pair(
                texts, beads, family, rng.randrange(1 << 30), teaser, swap=rng.random() < 0.5
            )
            pairs.append(pair)
        if texts.langs[0] == "en":  # the tiny set: one page pair in every family
            for family in families:
                if family is not families[index % len(families)]:
                    teaser = _teaser(other, texts.langs, rng)
                    pairs.append(
                        make_pair(
                            texts, texts.beads, family, rng.randrange(1 << 30), teaser,
                            swap=rng.random() < 0.5,
                        )
                    )  # fmt: skip
    return pairs


def _teaser(other: TextSet, langs: tuple[str, str], rng: random.Random) -> tuple[str, str]:
    """Prose of another document for a one-sided teaser, in each side's language if the
    other document has it (else none on that side)."""
    result = []
    for lang in langs:
        if lang in other.langs:
            lines = other.sentences[other.langs.index(lang)]
            start = rng.randrange(max(1, len(lines) - 3))
            result.append(sentence_joiner(lang).join(lines[start : start + 2]))
        else:
            result.append("")
    return result[0], result[1]
