"""The store's contents out, one package that ``paramine export``, ``paramine process``'s
output folder and the gateway's downloads all call, so each gives the same bytes.

``formats`` (JSONL, TSV, Moses), ``tmx`` (TMX 1.4b, written and read) and ``similarity``
(a thesaurus' similarity matrix as CSV or NPZ) are the formats; ``corpus`` which sentence
pairs an export gives and what it left out (each distinct pair once, flagged pairs and pairs
below the pair classifier's default threshold left out unless asked for); ``stage_tables``
the paraphrase and thesaurus stages' tables as text; ``streams`` a download's byte chunks,
media type and file name; ``run_outputs`` what ``process`` writes into its output folder.

Not a stage: it sits above them with the wiring (``services.cli``, ``services.gateway``),
as it reads what several stages stored; no stage imports it.
"""
