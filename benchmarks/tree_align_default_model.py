"""Train the shipped tree model (services/tree_align/default_model.json) on generated pages.

The page pairs are made here from pseudo-word text (benchmarks.tree_align_pagegen with
``synthetic_document``), so the shipped model is derived from nothing but this repository.
Run: ``.venv/bin/python -m benchmarks.tree_align_default_model``.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from benchmarks.tree_align_pagegen import (
    paragraphs_from_beads,
    source_page,
    synthetic_document,
    target_page,
)

OUT = Path(__file__).resolve().parents[1] / "services" / "tree_align" / "default_model.json"
SEED = 20260101
PAIRS = 8
# Early stopping chosen on the dev document of benchmarks/tree_align_pages.py (strict F1 of two
# seeds): 1 EM step 0.603/0.649, 2 steps 0.593/0.634, 8 steps 0.554/0.581, untrained
# 0.581/0.624. Later steps learn to pair the templates' unrelated menus ever more eagerly.
EM_ITERATIONS = 1


def main() -> None:
    from typer.testing import CliRunner

    from services.cli import app

    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as directory:
        for k in range(PAIRS):
            src, tgt, beads = synthetic_document(rng, rng.randint(8, 25))
            paragraphs = paragraphs_from_beads(beads, rng)
            Path(directory, f"p{k}.src.html").write_text(source_page(src, paragraphs, rng).html)
            Path(directory, f"p{k}.tgt.html").write_text(target_page(tgt, paragraphs, rng).html)
        result = CliRunner().invoke(
            app,
            ["train-tree-model", directory, "--out", str(OUT), "--iterations", str(EM_ITERATIONS)],
        )
    sys.stdout.write(result.output)
    if result.exit_code != 0:
        raise SystemExit(result.exit_code)


if __name__ == "__main__":
    main()
