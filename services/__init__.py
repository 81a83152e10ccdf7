"""paramine's pipeline stages, one package each, and what runs them.

The stages (``page_match``, ``tree_align``, ``sentence_align``, ``paraphrase``,
``thesaurus``) stand on the ground they share (``html``, ``lexical``, and ``shared`` outside
this package); above them the wiring: ``cli`` (the ``paramine`` command, and the worker
process it starts), ``gateway`` (the HTTP API), ``wiring`` (stage → handler, where work
goes) and ``export`` (the store's contents out). No module sits at this root but this one:
each belongs to one of those packages.

Numba's cache for the compiled programs is keyed by their sources (``shared.jit_cache``),
set here, before any stage module compiles anything."""

from pathlib import Path

from shared.jit_cache import use_keyed_cache

use_keyed_cache(Path(__file__).parent)
