"""Delivery: how a message gets from one stage to the next and is never lost.

``pipeline`` (one code path for both run modes: the embedded runner and the Celery sender),
``celery_app`` (the Celery factory), ``worker`` (a stage's task: retries, dead letters,
deferral), ``broker`` and ``consumer`` (kombu's Redis transport checked, undecodable
messages dead-lettered), ``lease`` (held messages kept alive), ``reconcile`` (tracked page
pairs whose message was lost sent again), ``ordering`` (learning from a site in ingest order).
"""
