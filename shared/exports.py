"""Exports: sentence pairs as JSONL, Moses, TSV and TMX 1.4b; similarity matrices as CSV/NPZ."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt
from lxml import etree  # type: ignore[import-untyped]

from shared.errors import InvalidInput

EXPORT_FIELDS = ("id", "pair_id", "src_url", "tgt_url", "src_lang", "tgt_lang", "score", "bead")
# What produced the pair and how often the corpus holds it (a listing of every occurrence: 1).
PROVENANCE_FIELDS = ("method", "version", "model_version")


# What ends a line for str.splitlines (and so for a reader of Moses or TSV files), and tab.
_LINE_OR_COLUMN_BREAK = re.compile("[\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029]")
# Line separators JSON leaves as they are: escaped, so a reader splitting lines keeps a record.
_JSON_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _clean(text: str) -> str:
    """One pair per line in Moses/TSV files: line breaks and tabs inside a sentence become
    spaces, nothing else (all whitespace was collapsed: an ideographic space or a no-break
    space became a plain one, and the export no longer matched the stored sentence)."""
    return _LINE_OR_COLUMN_BREAK.sub(" ", text)


def jsonl_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """One JSON object per sentence pair, with ids, urls, languages, score (the pair
    classifier's probability), the bead and its DP posterior, its occurrence count, flag
    (when kept) and provenance."""
    for row in rows:
        record = {key: row[key] for key in EXPORT_FIELDS}
        record["posterior"] = row.get("posterior")  # the DP's; score: the pair classifier's
        record["count"] = row.get("count", 1)
        if row.get("flag"):
            record["flag"] = row["flag"]
        record |= {key: row.get(key, "") for key in PROVENANCE_FIELDS}
        record["src"] = row["src_text"]
        record["tgt"] = row["tgt_text"]
        yield json.dumps(record, ensure_ascii=False).translate(_JSON_LINE_BREAKS) + "\n"


def tsv_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """``src<TAB>tgt<TAB>score<TAB>src_url<TAB>tgt_url<TAB>count`` with a header line."""
    yield "src\ttgt\tscore\tsrc_url\ttgt_url\tcount\n"
    for row in rows:
        yield (
            f"{_clean(row['src_text'])}\t{_clean(row['tgt_text'])}\t{row['score']:.6f}\t"
            f"{_clean(row['src_url'])}\t{_clean(row['tgt_url'])}\t"  # a tab in a URL split rows
            f"{row.get('count', 1)}\n"
        )


@dataclass(frozen=True)
class MosesCorpus:
    """The two files of one language pair's Moses corpus: line i of ``src`` ↔ line i of ``tgt``."""

    src_lang: str | None  # None: an empty corpus with no language given
    tgt_lang: str | None
    src: Path
    tgt: Path
    pairs: int


def _moses_suffixes(src_lang: str, tgt_lang: str) -> tuple[str, str]:
    """File suffixes of a pair's two sides: the languages, or ``<lang>.src``/``<lang>.tgt``
    when both sides share one (monolingual pairs would otherwise write to the same file)."""
    if src_lang == tgt_lang:
        return f"{src_lang}.src", f"{tgt_lang}.tgt"
    return src_lang, tgt_lang


def _moses_paths(stem: Path, src_lang: str, tgt_lang: str) -> tuple[Path, Path]:
    src_suffix, tgt_suffix = _moses_suffixes(src_lang, tgt_lang)
    return stem.with_name(f"{stem.name}.{src_suffix}"), stem.with_name(f"{stem.name}.{tgt_suffix}")


def _pair_stem(prefix: Path, src_lang: str, tgt_lang: str) -> Path:
    return prefix.with_name(f"{prefix.name}.{src_lang}-{tgt_lang}")


def write_moses(
    rows: Iterable[dict[str, Any]],
    prefix: Path,
    *,
    src_lang: str | None = None,
    tgt_lang: str | None = None,
) -> list[MosesCorpus]:
    """Moses plain text, one corpus per (src_lang, tgt_lang) pair, in order of first appearance.

    Rows of one pair: ``PREFIX.<src>`` and ``PREFIX.<tgt>``. Rows of several pairs: each pair's
    corpus has the stem ``PREFIX.<src>-<tgt>`` (``PREFIX.en-de.en``, ``PREFIX.en-de.de``), as
    Moses' own multi-pair corpora are named. No rows: one empty corpus named after ``src_lang``
    and ``tgt_lang`` (the caller's filter), ``src``/``tgt`` for a language not given.
    """
    handles: dict[tuple[str, str], tuple[IO[str], IO[str]]] = {}
    counts: dict[tuple[str, str], int] = {}
    written_by: dict[Path, tuple[str, str]] = {}
    try:
        for row in rows:
            languages = (str(row["src_lang"]), str(row["tgt_lang"]))
            if languages not in handles:
                # Written under the pair's own stem until the end shows whether it is the only one.
                src_path, tgt_path = _moses_paths(_pair_stem(prefix, *languages), *languages)
                for path in (src_path, tgt_path):
                    # ("de", "ch-de") and ("de-ch", "de") would both write corpus.de-ch-de.de
                    if path in written_by:
                        raise InvalidInput(
                            f"language pairs {'-'.join(written_by[path])} and "
                            f"{'-'.join(languages)} would write the same file {path.name}: "
                            "export them one pair at a time (--src-lang, --tgt-lang)"
                        )
                    written_by[path] = languages
                handles[languages] = (
                    src_path.open("w", encoding="utf-8"),
                    tgt_path.open("w", encoding="utf-8"),
                )
                counts[languages] = 0
            src_handle, tgt_handle = handles[languages]
            src_handle.write(_clean(row["src_text"]) + "\n")
            tgt_handle.write(_clean(row["tgt_text"]) + "\n")
            counts[languages] += 1
    finally:
        for pair_handles in handles.values():
            for handle in pair_handles:
                handle.close()
    if not counts:
        src_path, tgt_path = _moses_paths(prefix, src_lang or "src", tgt_lang or "tgt")
        for path in (src_path, tgt_path):
            path.write_text("", encoding="utf-8")
        return [MosesCorpus(src_lang, tgt_lang, src_path, tgt_path, 0)]
    corpora = []
    for languages, count in counts.items():
        src_path, tgt_path = _moses_paths(_pair_stem(prefix, *languages), *languages)
        if len(counts) == 1:
            plain_src, plain_tgt = _moses_paths(prefix, *languages)
            src_path, tgt_path = src_path.replace(plain_src), tgt_path.replace(plain_tgt)
        corpora.append(MosesCorpus(*languages, src_path, tgt_path, count))
    return corpora


def write_lines(lines: Iterable[str], path: Path | IO[str]) -> int:
    """Write ``lines`` to a file (or a text stream); returns how many."""
    count = 0
    with (
        path.open("w", encoding="utf-8") if isinstance(path, Path) else nullcontext(path) as handle
    ):
        for line in lines:
            handle.write(line)
            count += 1
    return count


# -- TMX 1.4b --------------------------------------------------------------------------------

TMX_VERSION = "1.4"
TMX_TOOL_VERSION = "0.1.0"  # creationtoolversion of the header
TMX_ALL_LANGUAGES = "*all*"  # header srclang: units may have different source languages
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# Characters XML 1.0 cannot carry (C0 controls except tab/newline/CR, surrogates, U+FFFE/F).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
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


def _tmx_unit(row: dict[str, Any]) -> etree._Element:
    unit = etree.Element("tu", tuid=str(row["id"]))
    if row.get("created_at") is not None:
        unit.set("creationdate", _tmx_date(float(row["created_at"])))
    for prop_type, key in _TU_PROPS:  # <prop> must precede <tuv> inside <tu>
        if row.get(key) not in (None, ""):
            prop = etree.SubElement(unit, "prop", type=prop_type)
            prop.text = xml_text(f"{row[key]:.6f}" if key == "score" else str(row[key]))
    for lang_key, text_key in (("src_lang", "src_text"), ("tgt_lang", "tgt_text")):
        variant = etree.SubElement(unit, "tuv", {XML_LANG: str(row[lang_key])})
        etree.SubElement(variant, "seg").text = xml_text(str(row[text_key]))
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


def _tmx_unit_bytes(row: dict[str, Any]) -> bytes:
    data: bytes = etree.tostring(_tmx_unit(row), encoding="utf-8", pretty_print=True)
    return data


def tmx_chunks(
    rows: Iterable[dict[str, Any]],
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
    rows: Iterable[dict[str, Any]], path: Path | IO[bytes], *, srclang: str | None = None
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
            source_languages.add(str(row["src_lang"]))
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
    # Row by row: all upper-triangle indices at once were two Python lists of L(L+1)/2 ints
    # (WordNet's 10,381 leaves: 17.5 GB and 3 minutes before the first row).
    for i in range(len(class_ids)):
        row = values[i, i:]
        for offset in np.flatnonzero(~np.isnan(row)).tolist():
            j = i + offset
            yield (
                class_ids[i],
                class_ids[j],
                labels[i],
                labels[j],
                repr(float(row[offset])),
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


@dataclass(frozen=True)
class SimilarityMatrix:
    """The newest similarity snapshot's leaf classes and symmetric SIM/round matrices."""

    snapshot_id: int
    thesaurus: str
    class_ids: tuple[str, ...]
    labels: tuple[str, ...]
    values: np.ndarray[Any, Any]
    rounds: np.ndarray[Any, Any]


def similarity_csv_lines(matrix: SimilarityMatrix) -> Iterator[str]:
    """CSV text of the defined upper-triangle cells, header first."""
    buffer = io.StringIO()
    # CRLF, as RFC 4180: the writer then quotes a field holding a bare CR too (with "\n" it
    # did not, and a label with one split its row in two)
    writer = csv.writer(buffer, lineterminator="\r\n")
    cells = similarity_csv_rows(matrix.class_ids, matrix.labels, matrix.values, matrix.rounds)
    for record in (SIMILARITY_CSV_HEADER, *cells):
        writer.writerow(record)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
