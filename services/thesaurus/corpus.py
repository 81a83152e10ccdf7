"""Japanese sentences from corpus files: plain text (one sentence or article per line) or livedoor.

The livedoor news corpus is read in place from its distributed tarball (``ldcc-text.tar.gz``):
every ``text/<category>/<category>-<id>.txt`` member is an article whose first two lines are
its URL and date; the title (line 3) and the body follow. Licence and README members are
skipped. Lines are split into sentences after 。！？ so that each sentence gets its own
content-derived id when stored.
"""

from __future__ import annotations

import re
import tarfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from shared.errors import InvalidInput

_SENTENCE_END = re.compile(r"(?<=[。！？!?])")
_LIVEDOOR_ARTICLE = re.compile(r"text/([^/]+)/\1-\d+\.txt$")
_LIVEDOOR_HEADER_LINES = 2  # URL, date


def split_sentences(line: str) -> list[str]:
    """Sentences of one line of text, each ending after 。！？ (the last one may not)."""
    return [part.strip() for part in _SENTENCE_END.split(line) if part.strip()]


def _livedoor_sentences(path: Path) -> Iterator[str]:
    try:
        with tarfile.open(path, mode="r:*") as archive:
            for member in archive:
                if not member.isfile() or not _LIVEDOOR_ARTICLE.search(member.name):
                    continue
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                lines = handle.read().decode("utf-8").splitlines()
                for line in lines[_LIVEDOOR_HEADER_LINES:]:
                    yield from split_sentences(line)
    except (EOFError, tarfile.TarError, zlib.error) as error:
        # EOFError: click turned it into a bare "Aborted." with no reason
        raise InvalidInput(f"{path}: truncated or corrupt archive ({error})") from None


def iter_sentences(path: Path) -> Iterator[str]:
    """Every sentence of a text file (UTF-8, one sentence or article per line) or a tarball."""
    if not path.exists():
        raise InvalidInput(f"corpus file {path} does not exist")
    if tarfile.is_tarfile(path):
        yield from _livedoor_sentences(path)
        return
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            yield from split_sentences(line)
