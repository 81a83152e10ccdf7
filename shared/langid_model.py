"""py3langid's model as :mod:`shared.langid` scores with it, and its uncompressed copy.

The model ships inside py3langid as an LZMA-compressed npz; the library decompresses it in
every process that identifies a language (about half a second, on the first page a worker or
``paramine process`` meets). The arrays the scorer reads are therefore kept, on first use,
as plain ``.npy`` files in the cache folder (``shared.cache``, ``langid/<key>/``, keyed by
py3langid's version and its model file's size and time), and later processes map them
read-only: they load in milliseconds and the worker processes of one machine share their
pages. The copy is the library's model, array for array (``tests/unit/shared/test_langid.py``
holds the probabilities against py3langid's own ``rank``); a missing, partial or unreadable
copy is made again from the library, and an unwritable cache folder only means no copy.

:class:`Scorer` is ``LanguageIdentifier._decide`` over these arrays: the text encoded as the
library encodes it, the byte walk's feature counts (compiled: :mod:`shared.langid_walk`),
naive Bayes scores ``log1p(counts) @ ptc[features] + pc``, tempered by the square root of the
byte length and normalised (softmax), a duplicated label's column folded into its first. The
numpy expressions are the library's, so the probabilities are its own to the bit.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import tempfile
import unicodedata
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.cache import cache_dir

LAYOUT = 1  # raise when the arrays kept or their meaning change
ARRAYS = ("ptc", "pc", "nextmove", "rowbase", "output", "labels")
COMPLETE = "complete"  # written last: a folder without it is a partial copy


def _model_file() -> Path:
    # lazy: py3langid (numpy) only when a language is first identified
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    return Path(str(MODEL_DIR)) / str(MODEL_FILE)


def model_folder() -> Path:
    """Where the uncompressed copy of the installed py3langid's model is kept."""
    stat = _model_file().stat()
    key = f"py3langid-{version('py3langid')}-{stat.st_size}-{stat.st_mtime_ns}-{LAYOUT}"
    return cache_dir() / "langid" / key


def _from_library() -> dict[str, npt.NDArray[Any]]:
    """The scorer's arrays from the library's model file (decompressed here)."""
    # lazy: as _model_file's
    from py3langid.langid import LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(str(_model_file()), norm_probs=True)
    return {
        # float32 once rather than each text's rows from float16: the same values, and
        # numpy's float16 conversion was half of a text's cost
        "ptc": np.asarray(identifier.nb_ptc, dtype=np.float32),
        "pc": np.asarray(identifier.nb_pc),
        "nextmove": np.frombuffer(identifier.tk_nextmove, dtype=np.uint32).copy(),
        "rowbase": np.asarray(identifier.tk_row, dtype=np.int64) << 8,
        "output": np.asarray(identifier.tk_output, dtype=np.int64),
        "labels": np.asarray([str(label) for label in identifier.nb_classes]),
    }


def _read_copy(folder: Path) -> dict[str, npt.NDArray[Any]] | None:
    if not (folder / COMPLETE).is_file():
        return None
    try:
        return {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in ARRAYS}
    except (OSError, ValueError):
        return None


def _write_copy(folder: Path, arrays: dict[str, npt.NDArray[Any]]) -> None:
    """Write the copy into a fresh folder beside ``folder``, then rename it into place."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".partial-"))
    except OSError:
        return  # an unwritable cache folder: no copy
    try:
        for name, array in arrays.items():
            np.save(scratch / f"{name}.npy", array, allow_pickle=False)
        (scratch / COMPLETE).write_text("", encoding="utf-8")
        os.replace(scratch, folder)
    except OSError:
        pass  # a full disk, or another process put its copy there first
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def model_arrays() -> dict[str, npt.NDArray[Any]]:
    """The scorer's arrays: the kept copy, else the library's (and a copy kept of them)."""
    folder = model_folder()
    arrays = _read_copy(folder)
    if arrays is None:
        arrays = _from_library()
        shutil.rmtree(folder, ignore_errors=True)  # a partial or broken copy, if any
        _write_copy(folder, arrays)
    return arrays


class Scorer:
    """The library's normalised scores of a text over its model's columns (module
    docstring), and what :mod:`shared.langid` asks of them."""

    def __init__(
        self, arrays: dict[str, npt.NDArray[Any]], walk: Callable[..., tuple[Any, Any]]
    ) -> None:
        self.walk = walk
        self.ptc, self.pc = arrays["ptc"], arrays["pc"]
        self.nextmove, self.rowbase, self.output = (
            arrays["nextmove"],
            arrays["rowbase"],
            arrays["output"],
        )
        self.labels = [str(label) for label in arrays["labels"]]
        first: dict[str, int] = {}
        self.aliases: list[tuple[int, int]] = []
        for column, label in enumerate(self.labels):
            if label in first:
                self.aliases.append((first[label], column))
            else:
                first[label] = column
        self.first_columns = first  # label → the column its score is kept in

    def probabilities(self, text: str) -> npt.NDArray[np.float32]:
        """The normalised score of every column (a duplicate's folded into its first)."""
        if text.isupper():
            text = text.lower()
        data = unicodedata.normalize("NFC", text).encode("utf8", errors="surrogatepass")
        features, counts = self.walk(
            np.frombuffer(data, dtype=np.uint8), self.nextmove, self.rowbase, self.output
        )
        scores: npt.NDArray[np.float32]
        if len(features):
            scores = np.log1p(counts.astype(np.float32)) @ self.ptc[features] + self.pc
        else:  # no feature: every language alike
            scores = np.full(len(self.pc), 0.0, dtype=np.float32)
        scores *= 1.0 / math.sqrt(len(data) or 1)
        np.exp(scores - scores.max(), out=scores)
        scores /= scores.sum()
        for kept, folded in self.aliases:
            scores[kept] += scores[folded]
            scores[folded] = 0.0
        return scores

    def best(self, text: str) -> tuple[str, float]:
        """``LanguageIdentifier.classify``: the best label and its probability."""
        scores = self.probabilities(text)
        column = int(scores.argmax())
        return self.labels[column], float(scores[column])

    def summed(self, text: str, columns: Sequence[int]) -> float:
        """The probabilities of ``columns`` summed best first, as a sum over ``rank``'s
        order is."""
        scores = self.probabilities(text)
        return sum(sorted((float(scores[c]) for c in columns), reverse=True))


@functools.cache
def scorer() -> Scorer:
    """The process's scorer (its arrays read once)."""
    # lazy: numba loads (and compiles the walk) on first use, not at a worker's start
    from shared.langid_walk import feature_counts

    return Scorer(model_arrays(), feature_counts)
