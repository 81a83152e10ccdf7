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
Site texts come from :mod:`benchmarks.tree_align.sitetext` (translated menus and boxes).

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
from benchmarks.tree_align.families import (
    HEAVY_TRAIN_FAMILIES,
    HEAVY_VALIDATION_FAMILIES,
    RANDOM_SEEDS,
    TRAIN_FAMILIES,
    VALIDATION_FAMILIES,
    Family,
    Side,
    random_families,
)
from benchmarks.tree_align.sitetext import BOX, MENU, sentence_joiner
from services.sentence_align.aligners.beads import parse_beads

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


def _inline_links(page: Page, labels: list[int], rng: random.Random, separator: str) -> str:
    """Rows of 6-12 links inline in one block each (a link bar: one text chunk a row), a
    row sometimes ending in a number (a cart or message count)."""
    rows: list[str] = []
    k = 0
    while k < len(labels):
        size = rng.randint(6, 12)
        links = separator.join(
            f"<a href='#'>{page.block(_label(page.lang, x), set())}</a>"
            for x in labels[k : k + size]
        )
        badge = f" <span class='n'>{rng.randint(1, 20)}</span>" if rng.random() < 0.5 else ""
        rows.append(f"<div class='row'>{links}{badge}</div>")
        k += size
    return "".join(rows)


def _box(page: Page, lang: str, kind: str, rng: random.Random, count: int = 2) -> str:
    lines = "".join(
        f"<p>{page.block(text, set())}</p>" for text in rng.sample(BOX[lang], count)
    )  # fmt: skip
    return f"<div class='{kind}'><div class='inner'>{lines}</div></div>"


def _plain(html_text: str, side: Side, rng: random.Random) -> str:
    """``html_text`` with its semantic template elements as divs of neutral classes."""
    if not side.plain:
        return html_text
    for tag in ("header", "nav", "aside", "footer", "main"):
        html_text = re.sub(
            rf"<{tag}(?=[ >])", lambda _: f"<div class='c{rng.randrange(1000)}'", html_text
        )
        html_text = html_text.replace(f"</{tag}>", "</div>")
    return html_text


def _heavy_boxes(page: Page, side: Side, prose: list[str], rng: random.Random) -> list[str]:
    """The side's one-sided boxes of other documents' prose (judged as teasers: unpaired)."""
    return [
        f"<div class='box{rng.randrange(100)}'><p>{page.block(text, {-1})}</p></div>"
        for text in prose[: side.foreign]
    ]


def _related(page: Page, side: Side, titles: list[str]) -> str:
    """A related-articles list: links titled with other documents' sentences (site text)."""
    if not side.related or not titles:
        return ""
    items = "".join(
        f"<li><a href='#'>{page.block(title, set())}</a></li>" for title in titles[: side.related]
    )
    return f"<div class='related'><h3>{page.block('»', set())}</h3><ul>{items}</ul></div>"


def _render(
    page: Page, side: Side, blocks: list[tuple[str, set[int]]], site: dict[str, object],
    rng: random.Random, other_lang: str, teaser_text: str,
    heavy: tuple[list[str], list[str]] = ([], []),
) -> None:  # fmt: skip
    lang = page.lang
    parts: list[str] = []
    drawn = side.foreign or side.related or side.inline or side.plain
    heavy_rng = random.Random(rng.random()) if drawn else rng
    foreign = _heavy_boxes(page, side, heavy[0], heavy_rng)
    after = set(heavy_rng.sample(range(len(blocks)), min(len(foreign), len(blocks))))
    if side.cookie:
        parts.append(_box(page, lang, "cookie-banner", rng))
    menu_labels = site["menu"]
    assert isinstance(menu_labels, list)
    count = rng.randint(*side.menu) if side.menu[1] else 0
    if count:
        labels = menu_labels[:count]
        if side.inline:
            bar = _inline_links(page, labels, heavy_rng, " ")
            parts.append(f"<header><nav>{bar}</nav>")
        elif side.nested:
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
        if side.inline:
            footer = f"<footer>{_inline_links(page, links, heavy_rng, ' | ')}"
        elif side.footer == "table":
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
    for number, (text, paragraphs) in enumerate(blocks):
        escaped = page.block(text, paragraphs)
        if side.block == "li":
            content.append(f"<li>{escaped}</li>")
        elif side.block == "td":
            content.append(f"<tr><td><p>{escaped}</p></td></tr>")
        elif side.block == "div":
            content.append(f"<div class='text'>{escaped}</div>")
        else:
            content.append(f"<p>{escaped}</p>")
        if number in after and foreign:
            content.append(_in_block(side.block, foreign.pop()))
        if side.boxes and rng.random() < side.boxes:
            content.append(_in_block(side.block, _box(page, lang, "ad", rng, 1)))
    if side.block in ("li", "td"):
        content.append("</ul>" if side.block == "li" else "</table>")
    if side.teaser and teaser_text and side.sidebar == "none":
        content.append(f"<div class='teaser'><p>{page.block(teaser_text, {-1})}</p></div>")
    if side.newsletter:
        content.append(_box(page, lang, "newsletter", rng, 2) + "<form><input></form>")
    content.extend(foreign)  # boxes left over when there were few paragraphs
    content.append(_related(page, side, heavy[1]))
    content.append("</div>" * side.depth)
    parts.append("<main>" + "".join(content) + "</main>")
    if side.sidebar == "after":
        parts.append(sidebar)
    if not side.footer_first:
        parts.append(footer)
    del other_lang
    body = _plain("".join(parts), side, heavy_rng)
    page.html = (
        f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title>"
        "<script>var x = 1;</script></head><body>" + body + "</body></html>"
    )


def _in_block(block: str, box: str) -> str:
    """A box among the text blocks: a list item or a table row where the blocks are those."""
    return {"li": f"<li>{box}</li>", "td": f"<tr><td>{box}</td></tr>"}.get(block, box)


def heavy_prose(
    others: Sequence[TextSet], langs: tuple[str, str], side: Side, seed: int
) -> tuple[list[str], list[str]]:
    """One side's prose of other documents in its own language (``others``, the part's other
    texts): ``side.foreign`` snippets of 1-3 consecutive sentences for one-sided boxes and
    ``side.related`` sentences, cut to 80 characters, as related-article titles."""
    lang = langs[0]
    pool = [t.sentences[t.langs.index(lang)] for t in others if lang in t.langs]
    if not pool or not (side.foreign or side.related):
        return [], []
    rng = random.Random(seed)
    joiner = sentence_joiner(lang)
    boxes: list[str] = []
    for _ in range(side.foreign):
        lines = rng.choice(pool)
        start = rng.randrange(max(1, len(lines) - 3))
        boxes.append(joiner.join(lines[start : start + rng.randint(1, 3)]))
    titles = [rng.choice(rng.choice(pool))[:80] for _ in range(side.related)]
    return boxes, titles


def make_pair(
    texts: TextSet, beads: Sequence[Bead], family: Family, seed: int, teaser: tuple[str, str],
    *, swap: bool, others: Sequence[TextSet] = (),
) -> PagePair:  # fmt: skip
    """One page pair: ``beads`` of ``texts`` cut into paragraphs, rendered by ``family``
    (``others``: the part's other texts, the prose of heavy templates' one-sided boxes)."""
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
        heavy = heavy_prose(others, (langs[side], langs[1 - side]), spec, seed + side)
        _render(pages[side], spec, blocks, site, rng, langs[1 - side], teaser[side], heavy)
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


SPLITS = ("train", "random", "validation", "heavy", "heavy-validation")


def suite(split: str, seed: int = 7) -> list[PagePair]:
    """Every page pair of one part (:data:`SPLITS`; deterministic for ``seed``, the random
    part for its own seeds). "heavy" and "heavy-validation": the training and validation
    texts in the heavy template families."""
    if split == "random":
        return [
            pair
            for random_seed in RANDOM_SEEDS
            for pair in _pairs("train", random_families(random_seed), random_seed)
        ]
    if split == "heavy":
        return _pairs("train", HEAVY_TRAIN_FAMILIES, seed + 1)
    if split == "heavy-validation":
        return _pairs("validation", HEAVY_VALIDATION_FAMILIES, seed + 1)
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
                texts, beads, family, rng.randrange(1 << 30), teaser, swap=rng.random() < 0.5,
                others=[t for t in sets if t is not texts],
            )  # fmt: skip
            pairs.append(pair)
        if texts.langs[0] == "en":  # the tiny set: one page pair in every family
            for family in families:
                if family is not families[index % len(families)]:
                    teaser = _teaser(other, texts.langs, rng)
                    pairs.append(
                        make_pair(
                            texts, texts.beads, family, rng.randrange(1 << 30), teaser,
                            swap=rng.random() < 0.5, others=[t for t in sets if t is not texts],
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
