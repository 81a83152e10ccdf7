"""Crawled HTML as the stages read it: the tag tree (``tag_tree``) and its parser (``parse``).

Shared ground like ``services.lexical``: page_match, tree_align and the content model read
pages through it; it imports no stage. Bytes are decoded by ``shared.encoding``.
"""
