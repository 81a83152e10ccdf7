"""Benchmarks of sentence alignment (``services/sentence_align``): the aligners on Text+Berg
(``aligners`` and its parts ``textberg``, ``rows``, ``dev``, ``report``, ``large``,
``pages``), per language pair and script (``languages``, ``scripts``), a long paragraph
(``long``), BAM anchors (``bam_anchors``), Web-vs-mobile pairing
(``web_mobile``) and the pair classifier's score (``pair_score``)."""
