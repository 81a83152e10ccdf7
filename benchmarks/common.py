"""Paths every benchmark shares: the repository, the data kit read in place, the results
folder and the installed ``paramine`` command.

The kit is ``../shared/data`` beside the repository (``PARAMINE_KIT_DATA`` names another
folder, as for the tests); nothing is copied from it into the repository.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KIT = Path(os.environ.get("PARAMINE_KIT_DATA", REPO.parent / "shared" / "data"))
RESULTS = REPO / "benchmarks" / "results"
PARAMINE = Path(sys.executable).with_name("paramine")
