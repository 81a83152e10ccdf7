"""TMX 1.4b: sentence pairs as translation units, written to a file or streamed, and read back."""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import IO

from lxml import etree  # type: ignore[import-untyped]

from shared.sentence_pair import StoredSentencePair

TMX_VERSION = "1.4"
TMX_TOOL_VERSION = "0.1.0"  # creationtoolversion of the header
TMX_ALL_LANGUAGES = "*all*"  # header srclang: units may have different source languages
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Characters XML 1.0 cannot carry (C0 controls except tab/newline/CR, surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# A unit's <prop>s: type and the record's field (left out when None or empty).
_TU_PROPS = (
    ("x-score", "score"),
    ("x-bead", "bead"),
    ("x-src-url", "src_url"),
    ("x-tgt-url", "tgt_url"),
    ("x-pair-id", "pair_id"),
    ("x-count", "count"),
    ("x-flag", "flag"),
    ("x-method", "method"),
    ("x-version", "version"),
    ("x-model-version", "model_version"),
)


def xml_text(text: str) -> str:
    """Text with the characters XML 1.0 forbids removed (crawled pages contain them)."""
    return _NOT_XML.sub("", text)


def _tmx_date(seconds: float) -> str:
    # TMX 1.4b dates are ISO 8601 basic format in UTC: YYYYMMDDThhmmssZ.
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(seconds))


def _tmx_header(srclang: str, version: str) -> etree._Element:
    # Every attribute here is required by TMX 1.4b's <header>.
    return etree.Element(
        "header",
        creationtool="paramine",
        creationtoolversion=version,
        segtype="sentence",
        datatype="plaintext",
        adminlang="en",
        srclang=srclang,
        **{"o-tmf": "paramine"},
    )


def _tmx_unit(row: StoredSentencePair) -> etree._Element:
    unit = etree.Element("tu", tuid=row.id)
    if row.created_at is not None:
        unit.set("creationdate", _tmx_date(row.created_at))
    for prop_type, key in _TU_PROPS:  # <prop> must precede <tuv> inside <tu>
        value = getattr(row, key)
        if value not in (None, ""):
            prop = etree.SubElement(unit, "prop", type=prop_type)
            prop.text = xml_text(f"{value:.6f}" if key == "score" else str(value))
    for lang, text in ((row.src_lang, row.src_text), (row.tgt_lang, row.tgt_text)):
        variant = etree.SubElement(unit, "tuv", {XML_LANG: lang})
        etree.SubElement(variant, "seg").text = xml_text(text)
    return unit


def _tmx_prologue(srclang: str, version: str) -> bytes:
    # The declaration, <tmx> and its <header>, <body> opened: everything before the first unit.
    header: bytes = etree.tostring(
        _tmx_header(srclang, version), encoding="utf-8", pretty_print=True
    )
    return (
        b"<?xml version='1.0' encoding='utf-8'?>\n"
        + f'<tmx version="{TMX_VERSION}">'.encode()
        + header
        + b"<body>"
    )


_TMX_EPILOGUE = b"</body></tmx>"


def _tmx_unit_bytes(row: StoredSentencePair) -> bytes:
    data: bytes = etree.tostring(_tmx_unit(row), encoding="utf-8", pretty_print=True)
    return data


def tmx_chunks(
    rows: Iterable[StoredSentencePair],
    *,
    srclang: str | None = None,
    version: str = TMX_TOOL_VERSION,
) -> Iterator[bytes]:
    """TMX 1.4b document as UTF-8 byte chunks (one per unit), for files and HTTP streaming.

    ``srclang`` defaults to ``*all*`` (TMX: any variant may serve as the source): the header
    goes out before the rows are read, so a stream cannot name one source language without
    knowing that no later row has another. :func:`write_tmx` can, and does.
    """
    pending = _tmx_prologue(srclang or TMX_ALL_LANGUAGES, version)
    for number, row in enumerate(rows):
        # The header travels with the first unit and the closing tags with the last.
        if number:
            yield pending
            pending = b""
        pending += _tmx_unit_bytes(row)
    yield pending + _TMX_EPILOGUE


def write_tmx(
    rows: Iterable[StoredSentencePair], path: Path | IO[bytes], *, srclang: str | None = None
) -> int:
    """Write a TMX 1.4b file (or to a binary stream); returns the number of translation units.

    Without ``srclang`` the header names the rows' source language when they all share one,
    else ``*all*``. The units go to a temporary file beside ``path`` first, since the header,
    which must precede them, depends on every row.
    """
    units = 0
    source_languages: set[str] = set()
    folder = path.parent if isinstance(path, Path) else None
    with tempfile.TemporaryFile(dir=folder) as body:
        for row in rows:
            body.write(_tmx_unit_bytes(row))
            source_languages.add(row.src_lang)
            units += 1
        if srclang is None:
            only = len(source_languages) == 1
            srclang = source_languages.pop() if only else TMX_ALL_LANGUAGES
        body.seek(0)
        with path.open("wb") if isinstance(path, Path) else nullcontext(path) as handle:
            handle.write(_tmx_prologue(srclang, TMX_TOOL_VERSION))
            shutil.copyfileobj(body, handle)
            handle.write(_TMX_EPILOGUE)
    return units


def read_tmx(source: Path | IO[bytes]) -> list[dict[str, str]]:
    """Two-variant translation units of a TMX file: ``src_lang``, ``tgt_lang``, ``src``, ``tgt``."""
    # No entity expansion, no DTD or network access: the file may come from anywhere.
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )  # huge_tree: a segment over 10 MB of text
    units = []
    for unit in etree.parse(source, parser).getroot().iterfind("body/tu"):
        variants = unit.findall("tuv")
        if len(variants) != 2:
            continue
        src, tgt = variants
        units.append(
            {
                "src_lang": src.get(XML_LANG, ""),
                "tgt_lang": tgt.get(XML_LANG, ""),
                "src": src.findtext("seg", default=""),
                "tgt": tgt.findtext("seg", default=""),
            }
        )
    return units
