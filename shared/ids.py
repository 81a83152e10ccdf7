"""Content-derived identifiers: the same content always gets the same id."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable


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
