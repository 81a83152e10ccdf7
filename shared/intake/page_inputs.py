"""Crawler outputs as single pages (page_match's input): no pairing, no language required.

Every reader yields :class:`~shared.schemas.Page` items whose ``lang`` is the declared
language, or ``und`` (undetermined) where the input declares none: page_match identifies the
language from the text and takes a declaration as evidence only.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from shared.errors import InvalidInput
from shared.intake.inputs import (
    binary_file,
    decode_html,
    html_language,
    pages_from_lett,
    pages_from_warc,
    record_error,
)
from shared.schemas import Page

UNDETERMINED = "und"


def read_single_pages(paths: Iterable[Path]) -> Iterator[Page | InvalidInput]:
    """Pages from directories of ``.html`` files, ``.jsonl`` (``{"url", "html", "lang"?}`` a
    line), ``.lett(.gz)`` and ``.warc(.gz)``; what cannot be read comes as an error naming it,
    and the rest goes on."""
    for path in paths:
        name = path.name.lower()
        try:
            if not path.exists():
                yield InvalidInput(f"{path}: no such file or directory")
            elif path.is_dir():
                yield from pages_from_html_files(path)
            elif name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
                yield from pages_from_jsonl(path)
            elif name.endswith((".lett", ".lett.gz")):
                yield from pages_from_lett(path)
            elif name.endswith((".warc", ".warc.gz")):
                yield from pages_from_warc(path, unknown_lang=UNDETERMINED)
            else:
                yield InvalidInput(f"{path}: not a directory, .jsonl, .lett or .warc input")
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            yield InvalidInput(f"{path}: not readable to the end ({type(exc).__name__}: {exc})")


def pages_from_html_files(directory: Path) -> Iterator[Page | InvalidInput]:
    """Every ``.html``/``.htm`` file below ``directory``, its URL the ``file:`` URL of its
    path, its language the page's ``<html lang>`` if any."""
    for path in sorted(directory.rglob("*")):
        if not path.is_file() or not path.name.lower().endswith((".html", ".htm")):
            continue
        try:
            html = decode_html(path.read_bytes())
            lang = html_language(html) or UNDETERMINED
            yield Page(url=path.resolve().as_uri(), lang=lang, html=html)
        except (InvalidInput, ValueError, OSError) as exc:
            yield InvalidInput(f"{path}: {str(exc)[:200]}")


def pages_from_jsonl(path: Path) -> Iterator[Page | InvalidInput]:
    """One page a line: ``{"url", "html", "lang"?}`` (a binary file: one error)."""
    if binary_file(path):
        yield InvalidInput(f"{path}: binary data, not JSON lines")
        return

    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict) or "html" not in record:
                    raise InvalidInput('a page is {"url", "html", "lang"?}')
                yield Page(
                    url=record.get("url", ""),
                    lang=record.get("lang") or html_language(record["html"]) or UNDETERMINED,
                    html=record["html"],
                )
            except (ValueError, InvalidInput, ValidationError) as exc:
                yield InvalidInput(f"{path}:{number}: {record_error(exc)}")
