"""Decoding crawled page bytes to text, as browsers do (WHATWG "encoding sniffing", reduced).

Order: a byte-order mark; the charset the transport declared (HTTP header, WARC record);
a ``<meta charset>`` in the first 4 KB; UTF-8; then detection (charset-normalizer). Labels
are read as the WHATWG label table reads them: ``iso-8859-1``, ``latin1`` and ``us-ascii``
mean windows-1252 (Python's strict latin-1 turned ’ – € into invisible C1 controls), and a
``<meta>`` naming UTF-16 or UTF-32 means UTF-8 (a meta found by an ASCII scan cannot be in
UTF-16 text; decoded as UTF-16 an even-length page became CJK nonsense).

A declared (or meta) encoding that fails on a few stray bytes still wins, with U+FFFD for
them, as in a browser: strict decoding sent a UTF-8 page with one bad byte to detection,
which read all of it as a single-byte codec ("Ăśber uns").
"""

from __future__ import annotations

import codecs
import re

_BOMS = (  # UTF-32 LE before UTF-16 LE: its mark begins with UTF-16 LE's
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# The WHATWG prescan, reduced: comments skipped, then each <meta>'s attributes; its charset
# attribute, or the charset in the content of an http-equiv="content-type" one. (A charset
# anywhere in a <meta>, the former rule, read one inside a comment or a description's text.)
_COMMENT = re.compile(rb"<!--.*?(?:-->|$)", re.DOTALL)
_META_TAG = re.compile(rb"<meta(?=[\s/])([^>]*)", re.IGNORECASE)
_ATTRIBUTE = re.compile(rb"""([^\s=/>]+)\s*(?:=\s*("[^"]*"|'[^']*'|[^\s>]*))?""")
_CONTENT_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)


def meta_charset(head: bytes) -> str | None:
    """The encoding label a page's ``<meta>`` declares in ``head`` (its first bytes)."""
    for tag in _META_TAG.finditer(_COMMENT.sub(b"", head)):
        attributes = {
            name.lower(): value.strip(b"\"'") for name, value in _ATTRIBUTE.findall(tag.group(1))
        }
        label = attributes.get(b"charset")
        if not label and attributes.get(b"http-equiv", b"").lower() == b"content-type":
            found = _CONTENT_CHARSET.search(attributes.get(b"content", b""))
            label = found.group(1) if found else None
        if label:
            return str(label.strip().decode("ascii", errors="replace"))
    return None


# WHATWG labels of windows-1252 that Python reads as another (stricter) codec.
_WINDOWS_1252 = frozenset({"latin-1", "iso8859-1", "ascii"})
# Labels the standard reads as a superset that Python names apart.
_WHATWG_ALIASES = {
    "gb2312": "gbk",
    "iso8859-9": "cp1254",
    "iso8859-11": "cp874",
    "tis-620": "cp874",
}
# The encodings of the WHATWG Encoding Standard (plus windows-31j, the Shift_JIS browsers
# read, and the UTF-32 of byte-order marks), as Python names them. Any other codec Python
# knows is refused: base64, rot13 and hex are no text encodings (a <meta charset="base64">
# raised LookupError mid-batch), and EBCDIC or unicode_escape garble a page browsers read.
_WHATWG_LABELS = (
    "utf-8 ibm866 iso-8859-2 iso-8859-3 iso-8859-4 iso-8859-5 iso-8859-6 iso-8859-7 iso-8859-8 "
    "iso-8859-10 iso-8859-13 iso-8859-14 iso-8859-15 iso-8859-16 koi8-r koi8-u mac-roman cp874 "
    "cp1250 cp1251 cp1252 cp1253 cp1254 cp1255 cp1256 cp1257 cp1258 mac-cyrillic gbk gb18030 "
    "big5 big5hkscs euc-jp iso-2022-jp shift_jis cp932 euc-kr cp949 utf-16 utf-16-le "
    "utf-16-be utf-32 utf-32-le utf-32-be latin-1 ascii"
)
_TEXT_ENCODINGS = frozenset(codecs.lookup(label).name for label in _WHATWG_LABELS.split(" "))
# At most this share of U+FFFD in a declared encoding's lenient decoding: past it the
# declaration is wrong, not the bytes.
MAX_REPLACED_SHARE = 0.01


def whatwg_codec(label: str, *, from_meta: bool = False) -> str | None:
    """Python's codec for an encoding label, read as browsers read it (None: unknown, or no
    encoding of the WHATWG Encoding Standard)."""
    try:
        name = codecs.lookup(label.strip()).name
    except (LookupError, ValueError):  # ValueError: a label holding a NUL
        return None
    name = _WHATWG_ALIASES.get(name, name)
    if name not in _TEXT_ENCODINGS:
        return None
    if name in _WINDOWS_1252:
        return "cp1252"
    if from_meta and name.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return name


def decode_page(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """The page's text and the codec it was read with (``"detected:<name>"`` after detection,
    ``""`` when nothing could read it: the caller refuses the page)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace"), codec
    candidates = [whatwg_codec(declared)] if declared else []
    meta = meta_charset(data[:4096])
    if meta:
        candidates.append(whatwg_codec(meta, from_meta=True))
    named = [codec for codec in dict.fromkeys(candidates) if codec]
    for codec in [*named, "utf-8"]:
        try:
            return data.decode(codec), codec
        except UnicodeError:
            continue
    for codec in named or ["utf-8"]:
        text = data.decode(codec, errors="replace")
        if text.count("\ufffd") <= MAX_REPLACED_SHARE * max(len(text), 1):
            return text, codec
    import charset_normalizer  # lazy: only a page no named codec reads needs the detector

    best = charset_normalizer.from_bytes(data[:1_000_000]).best()
    if best is None or best.encoding is None:
        return "", ""
    return data.decode(best.encoding, errors="replace"), f"detected:{best.encoding}"
