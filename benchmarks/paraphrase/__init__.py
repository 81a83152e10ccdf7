"""Benchmarks of the paraphrase stage (``services/paraphrase``): word alignment against
eflomal and the gold of Edinburgh++ and RTE2 (``word_align``), planted sentence-ending
paraphrases (``ending_paraphrases``)."""
