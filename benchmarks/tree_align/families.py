"""Template families of the tree_align page suite: how each side of a site renders a page.

A family gives each side its own features, the way real sites differ (:class:`Side`). The ten
moderate families (:data:`FAMILIES`: five training, five validation) were the suite's first;
the heavy ones (:data:`HEAVY_FAMILIES`) stand for pages as they are crawled: 40-80-link menus
on both sides, 40-64-cell footer tables, cookie and newsletter banners, several one-sided boxes
of *same-language* prose of other documents between the paragraphs, related-article lists
titled with other documents' sentences, plain ``div`` markup with no semantic hints, and the
two sides built from different templates. The random part draws sides from the moderate
features (:func:`random_families`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass


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
    # heavy templates (the heavy parts, :data:`HEAVY_FAMILIES`)
    plain: bool = False  # divs with neutral classes instead of header, nav, aside, footer, main
    foreign: int = 0  # one-sided boxes of same-language prose of other documents, in the text
    related: int = 0  # a related-articles list: links titled with other documents' sentences
    inline: bool = False  # menus and footers as link bars: a row of links in one block


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

HEAVY_FAMILIES = (
    Family(
        "heavy portal: 60-80-link menus (link bars one side), 64-cell footers, six one-sided boxes",
        Side(menu=(60, 80), inline=True, footer_links=(56, 64), cookie=True, foreign=6,
             related=8),
        Side(menu=(60, 80), footer="table", footer_links=(40, 64), newsletter=True, depth=5,
             plain=True, related=10),
    ),
    Family(
        "heavy news: plain markup and link bars both, 40-60-link menus, boxes both sides, ads",
        Side(menu=(40, 60), inline=True, footer_links=(40, 64), plain=True, foreign=3,
             related=10, boxes=0.2, sidebar="after", teaser=True),
        Side(menu=(40, 60), inline=True, footer_links=(40, 64), plain=True, foreign=3,
             related=10, depth=6, cookie=True),
    ),
    Family(
        "heavy magazine: semantic vs plain, 50-80-link menus, six one-sided boxes, splits",
        Side(menu=(50, 80), footer="table", footer_links=(60, 64), cookie=True, related=12,
             split=0.3, heading="div"),
        Side(menu=(50, 80), inline=True, footer_links=(40, 50), plain=True, foreign=6,
             newsletter=True, sidebar="before", depth=8),
    ),
    Family(
        "heavy shop: table cells vs divs, boxes both sides, 40-70-link menus, ads, related lists",
        Side(menu=(40, 70), block="td", inline=True, footer_links=(40, 64), plain=True,
             foreign=4, related=6, boxes=0.3, untranslated=True),
        Side(menu=(40, 70), block="div", footer="table", footer_links=(40, 64), foreign=4,
             related=6, footer_first=True, cookie=True, newsletter=True, depth=4),
    ),
)  # fmt: skip
HEAVY_TRAIN_FAMILIES = HEAVY_FAMILIES[:2]
HEAVY_VALIDATION_FAMILIES = HEAVY_FAMILIES[2:]


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
