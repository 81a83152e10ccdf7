"""Content-derived identifiers: the same content always gets the same id."""

from __future__ import annotations

import hashlib


def content_id(*parts: str | bytes, prefix: str = "") -> str:
    """A 32-hex-digit SHA-256 digest of the parts, length-prefixed so that boundaries count."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return prefix + digest.hexdigest()[:32]
