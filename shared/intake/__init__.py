"""Intake: what comes in and how it becomes work.

``inputs`` (page pairs from JSONL, .lett and WARC files), ``page_inputs`` (single pages),
``url_language`` (languages read off URLs), ``ingest`` (a job recorded and queued), and
``gateway_client`` (``paramine submit``'s HTTP client).
"""
