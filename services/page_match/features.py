"""What a crawled page shows of itself for matching: language, text blocks, anchors, links.

One parse per page (``services.html.parse``, with its limits on hostile HTML) gives
the text blocks in document order, each with the tag of its block element: their tags form
the STRAND-style structure sequence (Resnik & Smith 2003), their lengths the length profile.
Anchors are the tokens a translation keeps as they are (numbers, Latin-script names and words
on a page in another script, e-mail and code-like tokens), the outgoing links and the images.

The page language is identified from its text (``shared.langid``); a declared language
(``<html lang>``, the crawler's label) decides only when the text is too short or the model
is unsure: it is evidence, not truth.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.html  # type: ignore[import-untyped]

from services.html.content import page_blocks
from services.html.parse import ParseLimits, parse_page
from services.lexical.dictionary import UNSEGMENTED, stem
from services.lexical.model1 import tokenize
from shared.errors import InvalidInput
from shared.langid import guess, known, language_group, letters, mostly_latin
from shared.text import is_word

# At least this many letters and this probability for the identified language to overrule a
# declared one (the wrong-language flag of shared.langid uses the same letter floor).
MIN_LETTERS_TO_IDENTIFY = 40
MIN_PROBABILITY_TO_OVERRULE = 0.9
MAX_ANCHORS = 400
MAX_WORDS = 3000

_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
_URL_NUMBER = re.compile(r"\d{1,12}")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]{2,}")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)*\b|\b[A-Z]{2,}\b")
_URL_LANGUAGE = re.compile(
    r"(?:^|[/._\-=])(?P<lang>[a-z]{2})(?:[-_][a-z]{2})?(?=[/._\-&?#]|$)", re.IGNORECASE
)


@dataclass(frozen=True)
class PageFeatures:
    """A page as the matcher sees it (everything hashable, nothing kept of the HTML)."""

    url: str
    lang: str
    declared: str | None
    blocks: tuple[tuple[str, int, int], ...]  # (block tag, text length, text hash) in order
    text_length: int
    anchors: frozenset[str]
    links: frozenset[str]
    images: frozenset[str]
    words: frozenset[str]  # content word stems, for a dictionary's translation evidence
    digest: str  # of the text, links and images: a re-crawl with the same ones is the same page

    @property
    def host(self) -> str:
        return site_of(self.url)

    def to_json(self) -> dict[str, Any]:
        """The features as JSON-ready values (sets as sorted lists), for the store and queues."""
        return {
            "url": self.url,
            "lang": self.lang,
            "declared": self.declared,
            "blocks": [list(block) for block in self.blocks],
            "text_length": self.text_length,
            "anchors": sorted(self.anchors),
            "links": sorted(self.links),
            "images": sorted(self.images),
            "words": sorted(self.words),
            "digest": self.digest,
        }

    @classmethod
    def from_json(cls, state: dict[str, Any]) -> PageFeatures:
        """Features written by :meth:`to_json` (InvalidInput when they are not)."""
        try:
            return cls(
                url=str(state["url"]),
                lang=str(state["lang"]),
                declared=None if state["declared"] is None else str(state["declared"]),
                blocks=tuple((str(t), int(n), int(h)) for t, n, h in state["blocks"]),
                text_length=int(state["text_length"]),
                anchors=frozenset(map(str, state["anchors"])),
                links=frozenset(map(str, state["links"])),
                images=frozenset(map(str, state["images"])),
                words=frozenset(map(str, state["words"])),
                digest=str(state["digest"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed page features: {error}") from None


def site_of(url: str) -> str:
    """The site a URL belongs to: its host without ``www.``, ``m.``, ``mobile.`` or a
    language subdomain (``en.example.org`` and ``de.example.org`` are one site)."""
    host = (urlsplit(url).hostname or "").lower()
    parts = host.split(".")
    while len(parts) > 2 and (parts[0] in ("www", "m", "mobile") or len(parts[0]) == 2):
        parts = parts[1:]
    return ".".join(parts)


def page_features(
    url: str, html: str, declared: str | None = None, limits: ParseLimits | None = None
) -> PageFeatures:
    """Features of one page; hostile or oversized HTML raises the parser's clear error."""
    limits = limits or ParseLimits()
    tree, document = parse_page(html, limits=limits)
    found = page_blocks(tree, document)
    every = [block.chunk for block in found]
    content = [block.chunk for block in found if block.is_content]
    # the page's words, anchors and language are those of its content (services.html.content):
    # a sidebar, menu or footer two pages of a site share makes them no more alike; a page
    # without content blocks is read whole. The paragraphing is the whole page's.
    texts = [chunk.text for chunk in content or every]
    blocks = tuple(
        (tree.label(chunk.block), _length(chunk.text), _text_hash(chunk.text)) for chunk in every
    )
    text = "\n".join(texts)
    lang = identify_language(text, declared, url)
    links, images, link_texts = _links_and_images(document, url)
    # the words and anchors of the page's own text: a block that is one link's text is a
    # menu entry or a link to another page (its title), not this page's content
    own = "\n".join(t for t in texts if " ".join(t.split()) not in link_texts)
    return PageFeatures(
        url=url,
        lang=lang,
        declared=declared,
        blocks=blocks,
        text_length=sum(length for _, length, _ in blocks),
        anchors=frozenset(anchor_tokens(own)[:MAX_ANCHORS] + url_numbers(url)),
        links=links,
        images=images,
        words=frozenset(content_words(own, lang)[:MAX_WORDS]),
        digest=_digest("\n".join(chunk.text for chunk in every), links, images),
    )


def identify_language(text: str, declared: str | None, url: str = "") -> str:
    """The page language: identified from the text when it has enough letters and the model
    is sure; else the declared language; else a language marker of the URL; else the model's
    guess on what text there is ("und" with no letter at all)."""
    if letters(text) >= MIN_LETTERS_TO_IDENTIFY:
        found, probability = guess(text)
        if probability >= MIN_PROBABILITY_TO_OVERRULE or not declared:
            return language_group(found)
    if declared:
        return language_group(declared)
    marker = url_language(url)
    if marker:
        return marker
    if letters(text) == 0:
        return "und"
    return language_group(guess(text)[0])


def url_language(url: str) -> str | None:
    """A two-letter language marker of a URL path or query (``/en/``, ``lang=de``,
    ``_fr.html``) when there is exactly one kind of it."""
    path = urlsplit(url)
    found = {
        m.group("lang").lower()
        for m in _URL_LANGUAGE.finditer(f"{path.path}?{path.query}")
        if known(m.group("lang"))
    }
    return found.pop() if len(found) == 1 else None


def url_numbers(url: str) -> list[str]:
    """The numbers of a URL's path and query as anchors (``/25-1-Fair-2006.html`` and
    ``/25-0-Messe-2006.html`` share 25 and 2006: an id or a date that a site keeps across its
    languages, as Bitextor's URL features use); the host is left out."""
    parts = urlsplit(url)
    return [f"url#{int(number)}" for number in _URL_NUMBER.findall(f"{parts.path}?{parts.query}")]


def anchor_tokens(text: str) -> list[str]:
    """Tokens a translation keeps: numbers (normalised: 1.000 ~ 1,000 ~ 1000), capitalised
    Latin-script names, and on a page whose letters are mostly of another script every
    Latin-script word (names, brands, codes in Chinese, Gujarati or Serbian Cyrillic text)."""
    normalised = unicodedata.normalize("NFKC", text)
    tokens = ["#" + re.sub(r"[.,]", "", number) for number in _NUMBER.findall(normalised)]
    if mostly_latin(normalised):
        tokens += [word.lower() for word in _CAPITALISED.findall(normalised) if len(word) > 2]
    else:
        tokens += [word.lower() for word in _LATIN_WORD.findall(normalised)]
    seen: dict[str, None] = dict.fromkeys(tokens)
    return list(seen)


def content_words(text: str, lang: str) -> list[str]:
    """Distinct word stems of the text, as the dictionary registry reads them (Snowball stems;
    jieba's words for Chinese, UniDic base forms for Japanese); words of letters (and their
    combining marks) only, of three letters or more in languages that space their words."""
    shortest = 1 if lang in UNSEGMENTED else 3
    words = (
        stem(token, lang)
        for token in tokenize(text, lang)
        if len(token) >= shortest and is_word(token)
    )
    return list(dict.fromkeys(words))


def _length(text: str) -> int:
    # characters without spaces: comparable across scripts that do and do not space words
    return sum(1 for char in text if not char.isspace())


def _links_and_images(
    document: lxml.html.HtmlElement, base: str
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The page's link targets, image file names and link texts (whitespace normalised)."""
    anchors = document.xpath("//a[@href]")[:2000]
    links = {_link_key(urljoin(base, a.get("href", ""))) for a in anchors}
    texts = {" ".join(a.text_content().split()) for a in anchors}
    images = {
        src.rsplit("/", 1)[-1].split("?", 1)[0].lower()
        for src in document.xpath("//img/@src")[:2000]
    }
    return (
        frozenset(link for link in links if link),
        frozenset(i for i in images if i),
        frozenset(t for t in texts if t),
    )


def _link_key(url: str) -> str:
    # a link target without scheme, fragment and language marker: /en/a.html ~ /de/a.html
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", ""):
        return ""
    path = _URL_LANGUAGE.sub("", parts.path.lower())
    return f"{site_of(url)}{path}"


def _digest(text: str, links: frozenset[str], images: frozenset[str]) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    for item in (*sorted(links), "\0", *sorted(images)):
        digest.update(b"\n" + item.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _text_hash(text: str) -> int:
    # a stable 63-bit hash of a block's text (boilerplate blocks repeat across a site's pages)
    digest = hashlib.blake2b(" ".join(text.split()).encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 1
