"""What produced a stored sentence pair: the code version (the package version and a digest
of the source of every stage and of ``shared/``, so a changed aligner is a new version) and
the model version (the tree model shipped with tree_align, the pair classifier shipped with
sentence_align, the language identifier)."""

from __future__ import annotations

import functools
import hashlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from shared import langid

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def code_version() -> str:
    """``<package version>+<12 hex digits of the sources' digest>``."""
    try:
        package = version("paramine")
    except PackageNotFoundError:  # run from a source tree that was never installed
        package = "0"
    digest = hashlib.sha256()
    for folder in ("services", "shared"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return f"{package}+{digest.hexdigest()[:12]}"


@functools.cache
def tree_model_version() -> str:
    """The shipped tree model, by a digest of its file."""
    data = (ROOT / "services" / "tree_align" / "default_model.json").read_bytes()
    return f"tree-{hashlib.sha256(data).hexdigest()[:12]}"


@functools.cache
def pair_model_version() -> str:
    """The shipped pair classifier, by a digest of its file."""
    data = (ROOT / "services" / "sentence_align" / "classifier" / "pair_model.json").read_bytes()
    return f"pair-{hashlib.sha256(data).hexdigest()[:12]}"


def model_version(*, tree: bool, pair: bool = True) -> str:
    """The models a sentence pair went through: the tree model when the page pair was
    aligned as trees, the pair classifier when it scored the pair (every bead aligner's
    pair; not article pairs), and always the language identifier of its flag."""
    parts = [tree_model_version()] if tree else []
    parts += [pair_model_version()] if pair else []
    return "+".join([*parts, langid.model_version()])
