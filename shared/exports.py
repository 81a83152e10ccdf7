"""Exports: sentence pairs as JSONL, Moses, TSV and TMX 1.4b; similarity matrices as CSV/NPZ."""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt
from lxml import etree  # type: ignore[import-untyped]

EXPORT_FIELDS = ("id", "pair_id", "src_url", "tgt_url", "src_lang", "tgt_lang", "score", "bead")


def _clean(text: str) -> str:
    # One pair per line in Moses/TSV files: line breaks and tabs inside a sentence become spaces.
    return " ".join(text.split())


def jsonl_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """One JSON object per sentence pair, with ids, urls, languages, score and bead."""
    for row in rows:
        record = {key: row[key] for key in EXPORT_FIELDS}
        record["src"] = row["src_text"]
        record["tgt"] = row["tgt_text"]
        yield json.dumps(record, ensure_ascii=False) + "\n"


def tsv_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """``src<TAB>tgt<TAB>score<TAB>src_url<TAB>tgt_url`` with a header line."""
    yield "src\ttgt\tscore\tsrc_url\ttgt_url\n"
    for row in rows:
        yield (
            f"{_clean(row['src_text'])}\t{_clean(row['tgt_text'])}\t{row['score']:.6f}\t"
            f"{row['src_url']}\t{row['tgt_url']}\n"
        )


def write_moses(rows: Iterable[dict[str, Any]], prefix: Path) -> tuple[Path, Path, int]:
    """Moses plain text: ``PREFIX.<src_lang>`` and ``PREFIX.<tgt_lang>``, line i ↔ line i."""
    handles: dict[str, Any] = {}
    paths: list[Path] = []
    count = 0
    try:
        for row in rows:
            if not handles:
                src_lang, tgt_lang = row["src_lang"], row["tgt_lang"]
                if src_lang == tgt_lang:
                    src_lang, tgt_lang = f"{src_lang}.src", f"{tgt_lang}.tgt"
                for side, lang in (("src", src_lang), ("tgt", tgt_lang)):
                    path = prefix.with_name(f"{prefix.name}.{lang}")
                    paths.append(path)
                    handles[side] = path.open("w", encoding="utf-8")
            handles["src"].write(_clean(row["src_text"]) + "\n")
            handles["tgt"].write(_clean(row["tgt_text"]) + "\n")
            count += 1
    finally:
        for handle in handles.values():
            handle.close()
    if not paths:
        paths = [prefix.with_name(prefix.name + ".src"), prefix.with_name(prefix.name + ".tgt")]
        for path in paths:
            path.write_text("", encoding="utf-8")
    return paths[0], paths[1], count


def write_lines(lines: Iterable[str], path: Path) -> int:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line)
            count += 1
    return count


# -- TMX 1.4b --------------------------------------------------------------------------------

TMX_VERSION = "1.4"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Characters XML 1.0 cannot carry (C0 controls except tab/newline/CR, surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_TU_PROPS = (
    ("x-score", "score"),
    ("x-bead", "bead"),
    ("x-src-url", "src_url"),
    ("x-tgt-url", "tgt_url"),
    ("x-pair-id", "pair_id"),
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


def _tmx_unit(row: dict[str, Any]) -> etree._Element:
    unit = etree.Element("tu", tuid=str(row["id"]))
    if row.get("created_at") is not None:
        unit.set("creationdate", _tmx_date(float(row["created_at"])))
    for prop_type, key in _TU_PROPS:  # <prop> must precede <tuv> inside <tu>
        if row.get(key) is not None:
            prop = etree.SubElement(unit, "prop", type=prop_type)
            prop.text = xml_text(f"{row[key]:.6f}" if key == "score" else str(row[key]))
    for lang_key, text_key in (("src_lang", "src_text"), ("tgt_lang", "tgt_text")):
        variant = etree.SubElement(unit, "tuv", {XML_LANG: str(row[lang_key])})
        etree.SubElement(variant, "seg").text = xml_text(str(row[text_key]))
    return unit


def tmx_chunks(
    rows: Iterable[dict[str, Any]], *, srclang: str | None = None, version: str = "0.1.0"
) -> Iterator[bytes]:
    """TMX 1.4b document as UTF-8 byte chunks (one per unit), for files and HTTP streaming.

    ``srclang`` defaults to the first row's source language (``*all*`` when there are no rows).
    """
    iterator = iter(rows)
    first = next(iterator, None)
    if srclang is None:
        srclang = str(first["src_lang"]) if first is not None else "*all*"
    buffer = io.BytesIO()

    def drain() -> bytes:
        data = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return data

    with etree.xmlfile(buffer, encoding="utf-8") as document:
        document.write_declaration()
        with document.element("tmx", version=TMX_VERSION):
            document.write(_tmx_header(srclang, version), pretty_print=True)
            with document.element("body"):
                if first is not None:
                    document.write(_tmx_unit(first), pretty_print=True)
                for row in iterator:
                    document.flush()
                    yield drain()
                    document.write(_tmx_unit(row), pretty_print=True)
    yield drain()


def write_tmx(rows: Iterable[dict[str, Any]], path: Path, *, srclang: str | None = None) -> int:
    """Write a TMX 1.4b file; returns the number of translation units."""
    units = 0

    def counted() -> Iterator[dict[str, Any]]:
        nonlocal units
        for row in rows:
            units += 1
            yield row

    with path.open("wb") as handle:
        for chunk in tmx_chunks(counted(), srclang=srclang):
            handle.write(chunk)
    return units


def read_tmx(source: Path | IO[bytes]) -> list[dict[str, str]]:
    """Two-variant translation units of a TMX file: ``src_lang``, ``tgt_lang``, ``src``, ``tgt``."""
    # No entity expansion, no DTD or network access: the file may come from anywhere.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
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


# -- similarity matrices -------------------------------------------------------------------------

SIMILARITY_CSV_HEADER = ("class_a", "class_b", "label_a", "label_b", "similarity", "round")


def similarity_csv_rows(
    class_ids: Sequence[str],
    labels: Sequence[str],
    values: npt.NDArray[Any],
    rounds: npt.NDArray[Any],
) -> Iterator[tuple[str, str, str, str, str, str]]:
    """Defined cells of a symmetric similarity matrix, upper triangle (a ≤ b), as CSV fields.

    ``round`` is 0 when the corpus defined the value, k > 0 for estimation round k.
    """
    size = len(class_ids)
    rows, cols = np.triu_indices(size)
    for i, j in zip(rows.tolist(), cols.tolist(), strict=True):
        value = float(values[i, j])
        if np.isnan(value):
            continue
        yield (
            class_ids[i],
            class_ids[j],
            labels[i],
            labels[j],
            repr(value),
            str(int(rounds[i, j])),
        )


def similarity_npz_bytes(
    class_ids: Sequence[str],
    labels: Sequence[str],
    values: npt.NDArray[Any],
    rounds: npt.NDArray[Any],
) -> bytes:
    """The full matrix as NPZ: ``class_ids``, ``labels``, ``values`` (NaN undefined), ``rounds``."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        class_ids=np.array(list(class_ids), dtype=str),
        labels=np.array(list(labels), dtype=str),
        values=np.asarray(values, dtype=np.float32),
        rounds=np.asarray(rounds, dtype=np.int8),
    )
    return buffer.getvalue()


def moses_lines(rows: Iterable[dict[str, Any]], side: str) -> Iterator[str]:
    """One side (``src`` or ``tgt``) of a Moses pair of files, one sentence per line."""
    if side not in ("src", "tgt"):
        raise ValueError(f"side must be 'src' or 'tgt', not {side!r}")
    for row in rows:
        yield _clean(row[f"{side}_text"]) + "\n"
