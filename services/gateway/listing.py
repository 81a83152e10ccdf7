"""The sentence-pair listing's record (``GET /v1/sentence-pairs``): the API's model of a
:class:`~shared.sentence_pair.StoredSentencePair`, made from the record's fields (their types
and defaults), so that the two cannot drift apart: a field added to the record is listed
unless it is named here as left out."""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, create_model

from shared.sentence_pair import StoredSentencePair

# The record's fields the listing leaves out: where in its page pair and chunk the pair
# is, its dedup key, the DP's posterior and when the store kept it.
NOT_LISTED = frozenset({"chunk", "position", "dedup_key", "posterior", "created_at"})
# The listing names the two sentences as a JSONL export record does.
LISTED_NAMES = {"src_text": "src", "tgt_text": "tgt"}
_DOC = """One sentence pair of the listing, its fields named as in a JSONL export record
(``src`` and ``tgt``: the two sentences), with its kind and site besides."""


def _listed_fields() -> list[str]:
    """The record's fields the listing shows, in its order: the record's, the occurrence
    count right after the bead (where the listing has always had it)."""
    names = [field.name for field in fields(StoredSentencePair) if field.name not in NOT_LISTED]
    names.remove("count")
    names.insert(names.index("bead") + 1, "count")
    return names


def _listing_model() -> type[BaseModel]:
    """The listing's pydantic model: each listed field of the record, renamed as the listing
    names it, with the record's type and default (none: required)."""
    types = get_type_hints(StoredSentencePair)
    defaults = {field.name: field.default for field in fields(StoredSentencePair)}
    definitions: dict[str, Any] = {
        LISTED_NAMES.get(name, name): (
            types[name],
            ... if defaults[name] is MISSING else defaults[name],
        )
        for name in LISTED_FIELDS
    }
    return create_model("SentencePairOut", __doc__=_DOC, __module__=__name__, **definitions)


# The record's fields the listing shows, in the listing's order.
LISTED_FIELDS = tuple(_listed_fields())
if TYPE_CHECKING:
    SentencePairOut = BaseModel  # made from the record's fields at import, below
else:
    SentencePairOut = _listing_model()


def listed_pair(record: StoredSentencePair) -> SentencePairOut:
    """The listing's record of a stored pair."""
    return SentencePairOut(
        **{LISTED_NAMES.get(name, name): getattr(record, name) for name in LISTED_FIELDS}
    )
