"""The banded dynamic programs of the sentence aligners (docs/methods.md §2).

A kernel module here runs a program over the cells of two sentence sequences, the
compiled (numba) loops and the passes that drive them window by window; it takes the
models and costs as arguments and knows nothing of pages, stores or messages. ``banded``
is the program every bead aligner uses (Gale-Church's length cost plus optional lexical
costs per band cell, the bands themselves and forward-backward bead posteriors);
``batched`` runs many small windows in one compiled call; ``two_pass`` is Moore's two
passes (a length pass, Model 1 trained on its confident beads, then the windows realigned
with length and lexical costs together). The models they are given live in the aligners
(``services/sentence_align/aligners/``).
"""
