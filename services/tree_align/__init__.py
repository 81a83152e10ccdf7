"""The tree_align stage."""
