"""The shipped pair model's default export threshold, read from its file without the model.

Every command and gateway route that lists or exports sentence pairs applies the threshold
(``shared.pair_query.sentence_pair_query``), and ``paramine export --help`` states it: reading
it must not load the classifier (its features import numba, its trees LightGBM), which would
cost every ``paramine`` command and the gateway's start-up. The threshold is the model file's
``threshold`` field (``pair_model.PairModel``; how it was chosen: the file's ``record``).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from shared.errors import InvalidInput

DEFAULT_MODEL_PATH = Path(__file__).with_name("pair_model.json")


@functools.cache
def default_threshold() -> float:
    """The shipped model's default export threshold (read once)."""
    try:
        state = json.loads(DEFAULT_MODEL_PATH.read_text(encoding="utf-8"))
        return float(state["threshold"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InvalidInput(f"cannot read pair model {DEFAULT_MODEL_PATH}: {error}") from None
