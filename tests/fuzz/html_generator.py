"""A seeded generator of hostile little HTML documents for the fuzz tests (no hypothesis)."""

from __future__ import annotations

import random

TAGS = (
    "html", "head", "body", "div", "p", "span", "a", "b", "i", "table", "tr", "td", "ul", "li",
    "br", "img", "script", "style", "noscript", "title", "meta", "h1", "pre", "svg", "math",
    "template", "iframe", "form", "input", "select", "option", "xmp", "plaintext", "frameset",
    "blink", "x-custom", "ruby", "rt", "wbr", "hr", "textarea",
)  # fmt: skip
PIECES = (
    "<!DOCTYPE html>", "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>", "&e;", "&amp;",
    "&#0;", "&#xD800;", "&#1114112;", "&nbsp;", "&unknown;", "<![CDATA[ x ]]>", "<!-- c -->",
    "<!--", "-->", "<?xml version='1.0'?>", "<?php echo 1 ?>", "</", "<", ">", "\x00", "\ufeff",
    "\u202e", "\ud800", "\U0001f600", "日本語の文。", "Ünïcödé.", "\r\n", "\t", "'", '"', "=",
)  # fmt: skip
WORDS = ("alpha", "beta", "Gamma.", "delta!", "東京", "です。", "x" * 40, "1.5", "Dr.", "?")


def random_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.6:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 8)))
    if kind < 0.8:
        return rng.choice(PIECES)
    return "".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(0, 12)))


def random_attributes(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(("class", "id", "href", "alt", "src", "onload", "x", "lang", "charset"))
        value = rng.choice(("", "a", "javascript:alert(1)", "file:///etc/passwd", "utf-7", "\"'<>"))
        parts.append(f' {name}="{value}"' if rng.random() < 0.8 else f" {name}={value}")
    return "".join(parts)


def random_html(rng: random.Random, max_nodes: int = 40) -> str:
    """One document: random tags (often unclosed or mismatched), text and hostile pieces."""
    out: list[str] = []
    open_tags: list[str] = []
    for _ in range(rng.randint(0, max_nodes)):
        roll = rng.random()
        if roll < 0.35:
            tag = rng.choice(TAGS)
            out.append(f"<{tag}{random_attributes(rng)}>")
            open_tags.append(tag)
        elif roll < 0.55 and open_tags:
            tag = open_tags.pop() if rng.random() < 0.8 else rng.choice(TAGS)
            out.append(f"</{tag}>")
        elif roll < 0.9:
            out.append(random_text(rng))
        else:
            out.append(rng.choice(PIECES))
    return "".join(out)


def random_bytes_html(rng: random.Random) -> bytes:
    """The same documents as bytes in a random (sometimes lying) encoding, or raw garbage."""
    roll = rng.random()
    if roll < 0.1:
        return rng.randbytes(rng.randint(0, 200))
    text = random_html(rng)
    encoding = rng.choice(("utf-8", "utf-16", "shift_jis", "latin-1", "cp1252", "euc-jp"))
    declared = rng.choice(("", "utf-8", "shift_jis", "bogus-charset", "utf-16", "utf-7"))
    head = f'<meta charset="{declared}">' if declared else ""
    return (head + text).encode(encoding, errors="replace")
