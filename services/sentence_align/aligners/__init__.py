"""The sentence aligners and what they stand on (docs/methods.md §2), pure algorithm code.

``align`` is the entry point of every method (``length``, ``lexicon``, ``hybrid``,
``anchors``) and of corpus mode; ``beads`` the bead type and its text format; ``splitter``
the language-aware sentence splitter. The models: ``length`` (Gale-Church) and its passes
``length_passes``, ``lexicon`` and ``hybrid`` (Moore's two passes with Model 1, settings in
``lexical_settings``), the hybrid's cost terms ``bead_llr`` (lexical bead scores),
``boundary_model`` (sentence ends), ``anchor_tokens`` (names and numbers) and
``long_segments`` (cuts of very long segments); ``anchors`` (BAM, monolingual pairs);
``articles`` (Web and mobile articles paired, then their sentences); ``evaluate`` (beads
scored against gold). The programs they run are in ``services/sentence_align/dp/``.
"""
