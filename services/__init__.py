"""paramine's pipeline stages, one package each, and the CLI that runs them.

Numba's cache for the compiled programs is keyed by their sources (``shared.jit_cache``),
set here, before any stage module compiles anything."""

from pathlib import Path

from shared.jit_cache import use_keyed_cache

use_keyed_cache(Path(__file__).parent)
