"""Benchmarks of the thesaurus stage (``services/thesaurus``): noun-を-verb extraction
(``extraction``), similarity end to end on livedoor news (``livedoor``, its Table-2 tendency:
``trend``) and a full recompute's time (``speed``)."""
