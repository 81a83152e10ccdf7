"""Benchmarks of sentence alignment (``services/sentence_align``): the aligners on Text+Berg
(``length``, ``aligners`` and its parts ``rows``, ``dev``, ``report``, ``large``, ``pages``),
per language pair and script (``languages``, ``scripts``), whole processes
(``whole_process``), the hybrid's components (``ablation``), hard documents
(``missing_block``, ``long``), BAM anchors (``bam_anchors``), Web-vs-mobile pairing
(``web_mobile``) and the pair classifier's score (``pair_score``)."""
