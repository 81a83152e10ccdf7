"""The HTTP gateway: ingest, status, queries, metrics."""
