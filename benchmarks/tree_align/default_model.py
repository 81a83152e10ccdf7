"""Train the shipped tree model (services/tree_align/default_model.json) on generated pages.

The page pairs are the training template families of ``benchmarks.tree_align.suite`` (the
validation families are never used) filled with pseudo-word text
(``benchmarks.tree_align.pagegen.synthetic_document``): the tag and deletion model learns the
templates, and is derived from nothing but this repository (no kit text).
Run: ``.venv/bin/python -m benchmarks.tree_align.default_model``.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from benchmarks.common import REPO
from benchmarks.tree_align.families import TRAIN_FAMILIES
from benchmarks.tree_align.pagegen import synthetic_document
from benchmarks.tree_align.suite import TextSet, make_pair

OUT = REPO / "services" / "tree_align" / "default_model.json"
SEED = 20260101
PAIRS = 20  # page pairs, the training families in turn
# Menu and box languages of the pseudo-text pages (their site texts differ in script)
LANGUAGES = (("de", "fr"), ("en", "zh"), ("ja", "en"), ("fr", "de"))
# Chosen on the training part of benchmarks/tree_align/pages.py: see its results file.
EM_ITERATIONS = 1
SMOOTHING = 0.5


def main() -> None:
    import argparse

    from typer.testing import CliRunner

    from services.cli import app

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=EM_ITERATIONS)
    parser.add_argument("--smoothing", type=float, default=SMOOTHING)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as directory:
        for k in range(PAIRS):
            src, tgt, beads = synthetic_document(rng, rng.randint(8, 25))
            texts = TextSet("pseudo", LANGUAGES[k % len(LANGUAGES)], (src, tgt), beads)
            family = TRAIN_FAMILIES[k % len(TRAIN_FAMILIES)]
            pair = make_pair(texts, beads, family, rng.randrange(1 << 30), ("", ""), swap=False)
            Path(directory, f"p{k}.src.html").write_text(pair.pages[0].html, encoding="utf-8")
            Path(directory, f"p{k}.tgt.html").write_text(pair.pages[1].html, encoding="utf-8")
        result = CliRunner().invoke(
            app,
            [
                "train-tree-model",
                directory,
                "--out",
                str(args.out),
                "--iterations",
                str(args.iterations),
                "--smoothing",
                str(args.smoothing),
                "--quiet",
            ],
        )
    sys.stdout.write(result.output)
    if result.exit_code != 0:
        raise SystemExit(result.exit_code)


if __name__ == "__main__":
    main()
