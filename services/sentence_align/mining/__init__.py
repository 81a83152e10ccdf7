"""What the sentence_align stage makes of a message, as pure functions the handler calls.

``records`` turns a page pair's aligned chunks (or a day batch of Web and mobile articles)
into sentence-pair records (``shared.sentence_pair.SentencePairRecord``): sentences split
and aligned (``aligners``), each pair scored by the pair classifier (``classifier``),
flagged and stamped with its provenance. ``routing`` says which of the site's earlier pairs
a page pair learns from and which stages its pairs go on to. Nothing here reads the
settings or the store, counts metrics or sends messages: the handler does.
"""
