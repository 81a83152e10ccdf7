"""Crawler outputs as page pairs: HTML directories, JSONL manifests, .lett files and WARCs.

Every reader yields :class:`PairSource` items; :func:`read_page_pairs` turns any mix of
paths into them. Bytes are decoded here (BOM, declared charset, ``<meta charset>``, then
charset detection) so that queue messages carry text, never bytes.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import http.client
import io
import json
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar, cast

from fastwarc.warc import ArchiveIterator, WarcRecordType
from pydantic import ValidationError

from shared.encoding import decode_page
from shared.errors import InvalidInput
from shared.intake.url_language import strip_language
from shared.schemas import Page

_HTML_LANG = re.compile(r"""<html[^>]*\blang\s*=\s*["']?([A-Za-z]{2,3})""", re.IGNORECASE)
# <id>.<lang>.html, <lang> with an optional region or script (en-gb, zh-hant, pt_br), or
# <id>.<lang>-pc.html / <id>.<lang>-mobile.html for the two versions of one news page.
_HTML_FILE = re.compile(
    r"^(?P<id>.+)\.(?P<variant>[A-Za-z]{2,3}(?:[-_](?!(?:pc|mobile)\.)[A-Za-z0-9]{2,8})?"
    r"(?:-(?:pc|mobile))?)\.html?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PairSource:
    """Two pages to align, where they came from, and whether they are PC/mobile versions."""

    src: Page
    tgt: Page
    kind: str
    origin: str


@dataclass(frozen=True)
class PairingOptions:
    """How pages of a multi-page crawl (.lett, WARC) are paired; ``languages_seen`` counts
    the pages read per language (filled as they are read: a run that pairs nothing says what
    it found)."""

    src_lang: str = "en"
    tgt_lang: str = "de"
    url_key: str | None = None
    pairs_file: Path | None = None
    languages_seen: Counter[str] = field(default_factory=Counter, compare=False)


# The files an input folder is searched for (besides <id>.<lang>.html pair folders).
INPUT_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".lett", ".lett.gz", ".warc", ".warc.gz")


def expand_inputs(paths: Iterable[Path]) -> list[Path]:
    """The inputs a list of paths names: a folder holding ``.html`` files is a page pair
    folder; any folder is searched, its subfolders too, for pair folders and input files
    (hidden ones left out, symbolic links to folders not followed); a folder with none of
    them, like a missing path, is kept as given, for its reader to refuse."""
    found: list[Path] = []
    for path in paths:
        inside = _inputs_in(path) if path.is_dir() else []
        found.extend(inside or [path])
    return list(dict.fromkeys(found))


def _inputs_in(directory: Path) -> list[Path]:
    entries = sorted(p for p in directory.iterdir() if not p.name.startswith("."))
    files = [p for p in entries if p.is_file()]
    found = [directory] if any(p.suffix.lower() in (".html", ".htm") for p in files) else []
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            found.extend(_inputs_in(entry))
        elif entry.is_file() and entry.name.lower().endswith(INPUT_SUFFIXES):
            found.append(entry)
    return found


def decode_html(data: bytes, declared: str | None = None) -> str:
    """Decode crawled HTML bytes: BOM, declared charset, <meta charset>, UTF-8, detection
    (``shared.encoding``)."""
    text, codec = decode_page(data, declared)
    if not codec:
        raise InvalidInput("page bytes are not text in any detectable encoding")
    return text


def html_language(html: str) -> str | None:
    """The ``<html lang>`` of a page, if declared."""
    match = _HTML_LANG.search(html[:4096])
    return match.group(1).lower() if match else None


# -- directories of <id>.<lang>.html --------------------------------------------------------
def pairs_from_html_dir(directory: Path) -> Iterator[PairSource | InvalidInput]:
    """Pair ``<id>.<lang>.html`` files by id; ``<id>.ja-pc.html`` + ``<id>.ja-mobile.html`` too.
    An id without exactly two versions is refused with its versions listed."""
    groups: dict[str, dict[str, Path]] = defaultdict(dict)
    for path in sorted(directory.iterdir()):
        if not path.is_file() or not path.name.lower().endswith((".html", ".htm")):
            continue
        match = _HTML_FILE.match(path.name)
        if match is None:
            yield InvalidInput(f"{path}: not named <id>.<lang>.html; not paired")
            continue
        variants = groups[match.group("id")]
        variant = match.group("variant").lower().replace("_", "-")
        if variant in variants:  # x.EN.html beside x.en.html: neither wins unseen
            yield InvalidInput(f"{path}: a second {variant} version of {variants[variant]}")
            continue
        variants[variant] = path
    for page_id, variants in sorted(groups.items()):
        pc = [v for v in variants if v.endswith("-pc")]
        mobile = [v for v in variants if v.endswith("-mobile")]
        if len(pc) == 1 and len(mobile) == 1 and len(variants) == 2:
            yield _file_pair(variants, pc[0], mobile[0], "pc-mobile")
            continue
        langs = sorted(variants)
        if len(langs) != 2 or pc or mobile:
            yield InvalidInput(
                f"{directory / page_id}.*.html: {len(langs)} version(s) ({', '.join(langs)}); "
                "a page pair needs exactly two (<id>.<lang>.html, or -pc and -mobile)"
            )
            continue
        # English first when present, so translation pairs read en → xx.
        first, second = sorted(langs, key=lambda lang: (lang.split("-")[0] != "en", lang))
        yield _file_pair(variants, first, second, "translation")


def _file_pair(
    variants: dict[str, Path], src: str, tgt: str, kind: str
) -> PairSource | InvalidInput:
    """The pair of two versions of one page (``variants``: version -> file)."""
    try:
        return PairSource(
            _file_page(variants[src], src), _file_page(variants[tgt], tgt), kind,
            origin=str(variants[src].parent),
        )  # fmt: skip
    except (InvalidInput, OSError, ValueError) as exc:  # the rest of the directory goes on
        names = f"{variants[src].name} + {variants[tgt].name}"
        return InvalidInput(f"{names} in {variants[src].parent}: {str(exc)[:200]}")


def _file_page(path: Path, variant: str) -> Page:
    lang = re.sub(r"-(?:pc|mobile)$", "", variant)  # ja-pc -> ja, en-gb stays
    return Page(url=path.resolve().as_uri(), lang=lang, html=decode_html(path.read_bytes()))


# -- JSONL manifests ------------------------------------------------------------------------
def pairs_from_jsonl(path: Path) -> Iterator[PairSource | InvalidInput]:
    """One ``{"id", "src", "tgt", "kind"}`` page-pair record per line; bad lines: errors, one
    line each (a binary file: one error for the file)."""
    if binary_file(path):
        yield InvalidInput(f"{path}: binary data, not JSON lines")
        return
    with _open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise InvalidInput(f"a JSON object per line, not {type(record).__name__}")
                src, tgt = (_record_page(record, side) for side in ("src", "tgt"))
                kind = str(record.get("kind", "translation"))
                yield PairSource(src, tgt, kind, origin=f"{path}:{number}")
            except (ValueError, InvalidInput, RecursionError) as exc:
                yield InvalidInput(f"{path}:{number}: not a page-pair record ({record_error(exc)})")


def _record_page(record: dict[str, Any], side: str) -> Page:
    if side not in record:
        raise InvalidInput(f"no {side!r} field")
    try:
        return Page.model_validate(record[side])
    except ValidationError as exc:
        raise InvalidInput(f"{side}: {record_error(exc)}") from None


def record_error(exc: BaseException) -> str:
    """A reason a record was refused, in one short line: pydantic's errors as ``field:
    message`` (its dump ran over several lines and was cut mid-word), JSON's with the
    column."""
    if isinstance(exc, ValidationError):
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'record'}: {error['msg'].lower()}"
            for error in exc.errors()
        ]
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        return "; ".join(problems[:3]) + more
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc.msg.lower()} at column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)[:200]


def binary_file(path: Path) -> bool:
    """Whether a file meant to be text starts as binary data: a NUL byte, or more than a
    tenth of its first 4 KiB control characters or bytes that are not UTF-8 (a binary file
    once gave one error per 'line' it happened to hold, 60 of them)."""
    try:
        with _open_binary(path) as stream:
            head = stream.read(4096)
    except (OSError, EOFError, zlib.error):
        return False  # the reader names what is wrong with it
    if not head:
        return False
    if b"\x00" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    odd = sum(1 for c in text if c == "\ufffd" or (ord(c) < 32 and c not in "\t\n\r\f"))
    return odd > len(text) / 10


# -- WMT16 .lett and WARC --------------------------------------------------------------------
def pages_from_lett(path: Path) -> Iterator[Page | InvalidInput]:
    """Pages of a WMT16 ``.lett`` file: lang, mime, encoding, url, base64 html, base64 text;
    a line that cannot be read: an error naming it (a binary file: one error)."""
    if binary_file(path):
        yield InvalidInput(f"{path}: binary data, not a .lett file")
        return
    with _open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) < 5:
                if line.strip():  # a line cut short (a blank line is no record)
                    yield InvalidInput(f"{path}:{number}: {len(fields)} of 5 or 6 fields")
                continue
            if not fields[1].lower().startswith("text/html"):
                continue
            try:
                html = decode_html(
                    base64.b64decode(fields[4], validate=True), declared=_charset(fields[2])
                )
                yield Page(url=fields[3], lang=fields[0].lower(), html=html)
            except (ValueError, binascii.Error, InvalidInput) as exc:
                yield InvalidInput(f"{path}:{number}: page not readable ({str(exc)[:200]})")


def pages_from_warc(path: Path, unknown_lang: str | None = None) -> Iterator[Page | InvalidInput]:
    """HTML responses of a WARC file (read with fastwarc); language from the page or its URL,
    else ``unknown_lang`` (a page without any is skipped when that is None)."""
    # A .gz is decompressed by Python's gzip, which raises EOFError at a cut-off member
    # (fastwarc's own decompression stopped there silently, and the rest was lost unseen);
    # it is read in short reads, so the records before the cut reach fastwarc first.
    with _open_binary(path) as stream:
        source = _ShortReads(stream) if isinstance(stream, gzip.GzipFile) else stream
        for record in ArchiveIterator(source, parse_http=True, stream_detect=False):
            if record.headers.get("Content-Length") is None:
                yield InvalidInput(f"{path}: record at byte {record.stream_pos} is cut short")
                continue
            if record.record_type != WarcRecordType.response:
                continue
            content_type = (record.http_content_type or "").lower()
            url = str(record.headers.get("WARC-Target-URI", ""))
            if "html" not in content_type:
                continue
            body = record.reader.read()
            try:
                if len(body) < record.content_length:
                    raise InvalidInput(f"cut short ({len(body)} of {record.content_length} bytes)")
                body = _http_payload(body, record.http_headers)
                html = decode_html(body, declared=record.http_charset)
                lang = html_language(html) or _url_language(url) or unknown_lang
                if lang:
                    yield Page(url=url, lang=lang, html=html)
            except (InvalidInput, ValueError) as exc:  # ValueError: a field Page refuses
                yield InvalidInput(f"{path}: {url[:200]}: {str(exc)[:200]}")


# A WARC response's body is what came over the wire (fastwarc decodes neither coding): its
# chunk-size lines were read as page text, a gzipped body was refused as undecodable.
_MAX_INFLATED_BYTES = 50_000_000  # over the HTML limit: decode_html's callers refuse it there


def _http_payload(body: bytes, headers: Any) -> bytes:
    """``body`` without its HTTP transfer coding (chunked) and content coding (gzip,
    deflate); InvalidInput for a coding that cannot be undone."""
    if headers is None:  # not parsed as HTTP
        return body
    transfer = str(headers.get("Transfer-Encoding", "") or "").lower()
    if "chunked" in transfer:
        body = _dechunked(body)
    coding = str(headers.get("Content-Encoding", "") or "").strip().lower()
    if coding in ("gzip", "x-gzip", "deflate"):
        wbits = 47 if coding != "deflate" else zlib.MAX_WBITS  # 47: gzip or zlib header
        try:
            inflater = zlib.decompressobj(wbits)
            body = inflater.decompress(body, _MAX_INFLATED_BYTES)
        except zlib.error as exc:
            raise InvalidInput(f"Content-Encoding {coding}: body not decodable ({exc})") from None
        if inflater.unconsumed_tail:
            raise InvalidInput(f"Content-Encoding {coding}: over {_MAX_INFLATED_BYTES:,} bytes")
    elif coding not in ("", "identity"):
        raise InvalidInput(f"Content-Encoding {coding[:40]} is not supported")
    return body


class _StoredResponse:
    """The socket ``http.client`` reads a response from: the record's bytes."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def makefile(self, mode: str) -> IO[bytes]:
        return io.BytesIO(self._data)


def _dechunked(body: bytes) -> bytes:
    """A chunked body decoded by ``http.client``; a body that is not valid chunked coding
    is kept as it is (a crawler that decoded it and kept the header)."""
    stored = _StoredResponse(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
    response = http.client.HTTPResponse(cast(Any, stored))
    try:
        response.begin()
        return response.read()
    except (http.client.HTTPException, ValueError):
        return body


def pair_pages(
    pages: Iterable[Page | InvalidInput], options: PairingOptions
) -> Iterator[PairSource | InvalidInput]:
    """Pair pages of two languages by a pairs file, a URL-key regex, or language-free URLs
    (errors among the pages are passed on)."""
    by_lang: dict[str, dict[str, Page]] = defaultdict(dict)
    for page in pages:
        if isinstance(page, InvalidInput):
            yield page
            continue
        by_lang[page.lang][page.url] = page
        options.languages_seen[page.lang] += 1
    # page languages are lower case (schemas.Page): so are the options' here
    sources = by_lang.get(options.src_lang.lower(), {})
    targets = by_lang.get(options.tgt_lang.lower(), {})
    if options.pairs_file is not None:
        for line in options.pairs_file.read_text(encoding="utf-8").splitlines():
            fields = line.split()
            if len(fields) >= 2 and fields[0] in sources and fields[1] in targets:
                yield PairSource(
                    sources[fields[0]], targets[fields[1]], "translation", str(options.pairs_file)
                )
        return
    key = _url_key_function(options)
    target_by_key: dict[str, Page] = {}
    for url, page in sorted(targets.items()):
        target_by_key.setdefault(key(url, options.tgt_lang), page)
    for url, page in sorted(sources.items()):
        match = target_by_key.get(key(url, options.src_lang))
        if match is not None:
            yield PairSource(page, match, "translation", origin="url-pattern")


def _url_key_function(options: PairingOptions) -> Any:
    if options.url_key:
        pattern = re.compile(options.url_key)
        if not pattern.groups:
            raise InvalidInput(f"url key {options.url_key!r} has no group to take the key from")
        group: str | int = "key" if "key" in pattern.groupindex else 1

        def regex_key(url: str, lang: str) -> str:
            # no match, or the key group did not take part (an optional group): the URL is
            # its own key, so it pairs with nothing (a None key paired every such page)
            found = pattern.search(url)
            key = found.group(group) if found else None
            return key if key is not None else "\0" + url

        return regex_key
    return lambda url, lang: strip_language(url, lang)


def _url_language(url: str) -> str | None:
    match = re.search(r"/([a-z]{2})(?:/|$)|[?&]lang=([a-z]{2})", url.lower())
    if not match:
        return None
    return match.group(1) or match.group(2)


def _charset(field: str) -> str | None:
    return field.split("=", 1)[1] if "=" in field else (field or None)


class _ShortReads:
    """A gzip stream whose ``read`` returns what one decompression step gives (``read1``).

    A full ``read(n)`` gathers several steps and, when the data is cut off, raises EOFError
    with everything it gathered: a small truncated .warc.gz lost all its pages. With short
    reads only the records after the last whole step are lost, and the error still comes."""

    def __init__(self, stream: gzip.GzipFile) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        return self._stream.read1(size if size > 0 else io.DEFAULT_BUFFER_SIZE)

    def tell(self) -> int:
        return self._stream.tell()


def _gzipped(path: Path) -> bool:
    """Whether ``path`` is read through gzip: named .gz in any case, as ``read_page_pairs``
    matches the names."""
    return path.name.lower().endswith(".gz")


def _open_binary(path: Path) -> IO[bytes]:
    if _gzipped(path):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _open_text(path: Path) -> IO[str]:
    # lines end at "\n" only: a raw "\r" inside a record split it in two (universal newlines);
    # utf-8-sig: a byte-order mark at the start refused the first record
    if _gzipped(path):
        return gzip.open(path, "rt", encoding="utf-8-sig", errors="replace", newline="\n")
    return path.open("r", encoding="utf-8-sig", errors="replace", newline="\n")


# -- any input ------------------------------------------------------------------------------
def read_page_pairs(
    paths: Iterable[Path], options: PairingOptions | None = None
) -> Iterator[PairSource | InvalidInput]:
    """Page pairs from directories, ``.jsonl``, ``.lett(.gz)`` and ``.warc(.gz)`` files."""
    options = options or PairingOptions()
    for path in paths:
        name = path.name.lower()
        if not path.exists():
            yield InvalidInput(f"{path}: no such file or directory")
        elif path.is_dir():
            yield from _guarded(path, pairs_from_html_dir)
        elif name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
            yield from _guarded(path, pairs_from_jsonl)
        elif name.endswith((".lett", ".lett.gz")):
            # guarded page by page: the pages read before a failure are still paired
            yield from pair_pages(_guarded(path, pages_from_lett), options)
        elif name.endswith((".warc", ".warc.gz")):
            yield from pair_pages(_guarded(path, pages_from_warc), options)
        else:
            yield InvalidInput(f"{path}: not a directory, .jsonl, .lett or .warc input")


_Item = TypeVar("_Item")
# What reading a file can raise midway: unreadable, truncated or corrupt compressed data.
_READ_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError)


def _guarded(path: Path, read: Callable[[Path], Iterable[_Item]]) -> Iterator[_Item | InvalidInput]:
    """The items (pairs or pages) ``read`` finds in ``path`` up to where it fails; then the
    failure, as an error naming the file (the other inputs of the batch go on)."""
    try:
        yield from read(path)
    except _READ_ERRORS as exc:
        yield InvalidInput(f"{path}: not readable to the end ({type(exc).__name__}: {exc})")
