"""Benchmarks of page matching (``services/page_match``): site crawls built from the kit's
parallel texts (``crawls``), their scoring (``matching``) and a site in three languages
(``languages``)."""
