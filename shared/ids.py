"""Content-derived identifiers: the same content always gets the same id; the site a URL is
filed under."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from urllib.parse import urlsplit


def content_id(*parts: str | bytes, prefix: str = "") -> str:
    """A 32-hex-digit SHA-256 digest of the parts, length-prefixed so that boundaries count."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return prefix + digest.hexdigest()[:32]


def repeated_ids(ids: Iterable[str]) -> list[str]:
    """The ids found more than once, sorted (results name articles and pages by id, so a
    repeated id loses one of them or mixes up the two)."""
    return sorted(key for key, count in Counter(ids).items() if count > 1)


SITE_LENGTH = 256  # sentence_pairs.site: a host name (at most 253 characters)


def site_of(url: str) -> str:
    """The host name of a URL, lower case ('' when there is none). Port and user name are
    not part of it, nor a query string that follows the host without a path
    (``https://example.com?session=...``, once taken whole as the site: a 300-character
    one overflowed the column and lost the page pair's sentences)."""
    if "://" not in url:
        return ""
    try:
        host = urlsplit(url).hostname
    except ValueError:  # an unclosed IPv6 bracket, a port that is not a number
        return ""
    return (host or "")[:SITE_LENGTH]
