"""Celery configuration: at-least-once delivery settings and JSON-only content."""

from __future__ import annotations

from shared.config import Settings
from shared.delivery.celery_app import make_celery, queue_name, task_name


def test_delivery_guarantees_are_configured() -> None:
    conf = make_celery(Settings(redis_url="redis://127.0.0.1:6379/0")).conf
    assert conf.accept_content == ["json"] and conf.task_serializer == "json"
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert conf.task_time_limit > conf.task_soft_time_limit
    options = conf.broker_transport_options
    # leases renewed often enough to survive a late renewal; a dead link is noticed
    assert options["visibility_timeout"] > 2 * Settings().queue.lease_renewal_interval > 0
    assert options["socket_timeout"] > 0 and options["socket_keepalive"]
    # a sweep lock whose holder was cut off does not stop restores for longer than a lease
    assert options["unacked_mutex_expire"] < options["visibility_timeout"]
    assert conf.task_routes[task_name("thesaurus")] == {"queue": queue_name("thesaurus")}


def test_periodic_recomputes_go_to_their_stages_queues() -> None:
    conf = make_celery(Settings(redis_url="redis://127.0.0.1:6379/0")).conf
    for stage in ("thesaurus", "paraphrase"):
        entry = conf.beat_schedule[f"{stage}-recompute"]
        assert entry["task"] == f"paramine.{stage}.recompute"
        assert entry["options"] == {"queue": queue_name(stage)}
        assert conf.task_routes[f"paramine.{stage}.recompute"] == {"queue": queue_name(stage)}
