"""The paramine error hierarchy: what may be retried and what may not.

``InvalidInput`` means the message or document itself is bad: retrying cannot help, the
gateway maps it to a 4xx answer and a worker writes a dead-letter record with the reason.
``TransientError`` means the world was briefly unavailable (database, broker): a worker
retries with backoff. Everything else is a bug and ends in the dead-letter table too.
"""

from __future__ import annotations


class ParamineError(Exception):
    """Base class of every error paramine raises on purpose."""


class InvalidInput(ParamineError):
    """The input cannot be processed as given; never retried. ``refused`` is the input
    itself, where there is one to keep (a page pair the gateway refused): its dead letter
    holds it, so it can be mended and sent again."""

    def __init__(self, *args: object, refused: object = None) -> None:
        super().__init__(*args)
        self.refused = refused


class InputTooLarge(InvalidInput):
    """The input exceeds a configured size, depth or element limit."""


class TransientError(ParamineError):
    """A dependency was briefly unavailable; the operation may succeed when retried."""


class ConfigurationError(ParamineError):
    """Settings are missing or unsafe for the chosen mode."""


class Deferred(ParamineError):
    """The message needs what earlier messages store first (a page pair learns from its
    site's earlier pairs, which are not all through the stage yet): run it again after
    ``seconds``. Not a failure: nothing is counted, retried or dead-lettered. ``key``: what
    the message is about (its page pair), to tell the same message deferred again."""

    def __init__(self, reason: str, seconds: float, key: str = "") -> None:
        super().__init__(reason)
        self.seconds = seconds
        self.key = key
