"""A small two-language site for the matching tests: Text+Berg gold beads (de-fr, read from the
kit through ``kit_path``, so a test skips without it) cut into pages of 6-14 beads under
opaque URLs, one page in five losing its twin, and the gold page pairs."""

from __future__ import annotations

import html
import random

from services.sentence_align.aligners.gold import read_documents
from tests.conftest import kit_path

ORPHAN_SHARE = 0.2


def _page(lang: str, paragraphs: list[str]) -> str:
    menu = {"de": "Startseite Über uns Archiv", "fr": "Accueil À propos Archives"}[lang]
    body = "".join(f"<p>{html.escape(text)}</p>" for text in paragraphs)
    title = html.escape(paragraphs[0][:60])
    return (
        f"<html><head><title>{title}</title></head><body><nav>{menu}</nav>"
        f"<article><h1>{title}</h1>{body}</article><footer>© 2026</footer></body></html>"
    )


def textberg_site(
    names: list[str], host: str, rng: random.Random
) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """The site's pages as (url, html), shuffled, and its gold (de url, fr url) pairs."""
    pages: list[tuple[str, str]] = []
    gold: set[tuple[str, str]] = set()
    for doc in read_documents(kit_path("textberg-bleualign-de-fr"), names):
        beads = [(b.src, b.tgt) for b in doc.gold if b.src and b.tgt]
        start = 0
        while start < len(beads):
            chunk = beads[start : start + rng.randint(6, 14)]
            start += len(chunk)
            if len(chunk) < 3:
                continue
            sides = []
            for lang, lines, part in (("de", doc.src, 0), ("fr", doc.tgt, 1)):
                paragraphs = [" ".join(lines[k] for k in bead[part]) for bead in chunk]
                url = f"https://{host}/p/{rng.randrange(10**8):08d}.html"
                sides.append((url, _page(lang, paragraphs)))
            if rng.random() < ORPHAN_SHARE:
                pages.append(rng.choice(sides))
            else:
                pages += sides
                gold.add((sides[0][0], sides[1][0]))
    rng.shuffle(pages)
    return pages, gold
