"""The sentence_align stage."""
