"""Operations files agree with the code: alert rules, Grafana dashboard, Kubernetes manifests."""

from __future__ import annotations

import inspect
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from prometheus_client import CollectorRegistry

from shared.config import QueueSettings, Settings
from shared.delivery.celery_app import queue_name
from shared.metrics import QueueDepthCollector, StageMetrics
from shared.schemas import STAGES
from tests.conftest import REPO

FAILED_SERIES = 'paramine_messages_failed_total{stage="sentence_align",error="InvalidInput"}'
DEAD_LETTER_SUMMARY = "sentence_align dead-lettered 1 messages (InvalidInput)"
NEW_FAILED_SERIES = 'paramine_messages_failed_total{stage="tree_align",error="InputTooLarge"}'
ALERTS = REPO / "deploy/prometheus/alerts.yml"
DASHBOARD = REPO / "deploy/grafana/paramine.json"
K8S = REPO / "deploy/k8s"
# Read from Redis at scrape time by the gateway's QueueDepthCollector (label ``queue``).
QUEUE_DEPTH = "paramine_queue_depth"
PROMQL_WORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right",
    "bool", "offset", "inf", "nan",
}  # fmt: skip


def defined_metric_names() -> set[str]:
    """Every sample name the code's metrics expose, plus Prometheus' own ``up``."""
    registry = CollectorRegistry()
    metrics = StageMetrics.create(registry)
    for metric in (metrics.messages_in, metrics.messages_out, metrics.messages_retried):
        metric.labels("s").inc()
    metrics.messages_failed.labels("s", "e").inc()
    metrics.latency.labels("s").observe(0.1)
    metrics.queue_wait.labels("s").observe(0.01)
    metrics.in_flight.labels("s").set(1)
    metrics.pages_matched.labels("url").inc()
    metrics.page_pairs_superseded.labels("better").inc()
    metrics.pages_waiting.labels("any").set(1)
    metrics.site_pairs_used.inc()
    names = {sample.name for family in registry.collect() for sample in family.samples}
    return names | {QUEUE_DEPTH, "up"}


def test_queue_depth_name_is_the_collectors() -> None:
    assert f'"{QUEUE_DEPTH}"' in inspect.getsource(QueueDepthCollector)


def promql_metric_names(expr: str) -> set[str]:
    """Metric names a PromQL expression reads: identifiers that are not functions or keywords."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # range selectors
    expr = re.sub(r"\boffset\s+\d+[smhdwy]", "", expr)  # offset modifiers
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", expr):
        word = match.group(0)
        followed_by_call = re.match(r"\s*\(", expr[match.end() :]) is not None
        if not followed_by_call and word.lower() not in PROMQL_WORDS:
            names.add(word)
    return names


def alert_rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def test_promql_name_extraction() -> None:
    expr = 'histogram_quantile(0.99, sum by (le) (rate(x_bucket{s!="a"}[5m]))) > 3 and on() up'
    assert promql_metric_names(expr) == {"x_bucket", "up"}


def test_alerts_cover_the_issue_and_name_only_defined_metrics() -> None:
    rules = alert_rules()
    names = {rule["alert"] for rule in rules}
    assert {
        "ParamineNoWorkers", "ParamineQueueGrowing", "ParamineHighFailureRate",
        "ParamineDeadLetters", "ParamineStageLatencyHigh",
    } <= names  # fmt: skip
    known = defined_metric_names()
    for rule in rules:
        assert promql_metric_names(rule["expr"]) <= known, rule["alert"]
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}
        assert rule["annotations"]["summary"]


def _promtool() -> str:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed (Debian package prometheus; .ci/run installs it)")
    return promtool


def test_promtool_checks_the_rules() -> None:
    result = subprocess.run(
        [_promtool(), "check", "rules", str(ALERTS)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_unit_tests_of_alerts(tmp_path: Path) -> None:
    """Series in, alerts out: dead letters, missing workers and a growing queue fire, on time."""
    annotations = {rule["alert"]: rule["annotations"] for rule in alert_rules()}
    tests = {
        "rule_files": [str(ALERTS)],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [
                    # sentence_align dead-letters one InvalidInput message at minute 5.
                    {
                        "series": FAILED_SERIES,
                        "values": "0 0 0 0 0 1 1 1 1 1 1",
                    },
                    # tree_align's first InputTooLarge letter: its series appears at 1
                    # (increase() alone never saw it)
                    {"series": NEW_FAILED_SERIES, "values": "_ _ _ _ _ 1 1 1 1 1 1"},
                    {
                        "series": 'up{job="paramine-workers",service="tree_align"}',
                        "values": "1x10 0x10",
                    },
                    {"series": 'up{job="paramine-gateway"}', "values": "1x20"},
                    {
                        "series": 'paramine_queue_depth{queue="paramine.tree_align"}',
                        "values": "50+10x40",
                    },
                    # sentence_align's messages wait between 60 and 600 s, 10 a minute
                    *(
                        {
                            "series": "paramine_queue_wait_seconds_bucket"
                            f'{{stage="sentence_align",le="{le}"}}',
                            "values": values,
                        }
                        for le, values in (("60", "0x40"), ("600", "0+10x40"), ("+Inf", "0+10x40"))
                    ),
                ],
                "alert_rule_test": [
                    {"eval_time": "3m", "alertname": "ParamineDeadLetters", "exp_alerts": []},
                    {
                        "eval_time": "8m",
                        "alertname": "ParamineDeadLetters",
                        "exp_alerts": [
                            {
                                "exp_labels": {
                                    "severity": "info",
                                    "stage": "sentence_align",
                                    "error": "InvalidInput",
                                },
                                "exp_annotations": {
                                    "summary": DEAD_LETTER_SUMMARY,
                                    "description": annotations["ParamineDeadLetters"][
                                        "description"
                                    ],
                                },
                            },
                            {
                                "exp_labels": {
                                    "severity": "info",
                                    "stage": "tree_align",
                                    "error": "InputTooLarge",
                                },
                                "exp_annotations": {
                                    "summary": "tree_align dead-lettered 1 messages "
                                    "(InputTooLarge)",
                                    "description": annotations["ParamineDeadLetters"][
                                        "description"
                                    ],
                                },
                            },
                        ],
                    },
                    {"eval_time": "9m", "alertname": "ParamineNoWorkers", "exp_alerts": []},
                    {
                        "eval_time": "14m",
                        "alertname": "ParamineNoWorkers",
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "critical"},
                                "exp_annotations": annotations["ParamineNoWorkers"],
                            }
                        ],
                    },
                    {
                        "eval_time": "14m",
                        "alertname": "ParamineStageWithoutWorkers",
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "critical", "service": "tree_align"},
                                "exp_annotations": {
                                    "summary": "Stage tree_align has no running worker",
                                    "description": "Every tree_align worker target is down; "
                                    "its queue paramine.tree_align is not consumed.",
                                },
                            }
                        ],
                    },
                    {"eval_time": "14m", "alertname": "ParamineGatewayDown", "exp_alerts": []},
                    # waits over 60 s from minute 1: pending for 15 minutes, then firing
                    {"eval_time": "10m", "alertname": "ParamineQueueWaitHigh", "exp_alerts": []},
                    {
                        "eval_time": "25m",
                        "alertname": "ParamineQueueWaitHigh",
                        "exp_alerts": [
                            {
                                "exp_labels": {"severity": "warning", "stage": "sentence_align"},
                                "exp_annotations": {
                                    "summary": "sentence_align messages wait 9m 54s in the"
                                    " queue (p99)",
                                    "description": annotations["ParamineQueueWaitHigh"][
                                        "description"
                                    ],
                                },
                            }
                        ],
                    },
                    # depth passes 100 at minute 5; it must stay growing for 15 more minutes.
                    {"eval_time": "12m", "alertname": "ParamineQueueGrowing", "exp_alerts": []},
                    {
                        "eval_time": "30m",
                        "alertname": "ParamineQueueGrowing",
                        "exp_alerts": [
                            {
                                "exp_labels": {
                                    "severity": "warning",
                                    "queue": "paramine.tree_align",
                                },
                                "exp_annotations": {
                                    "summary": "Queue paramine.tree_align is growing (350 waiting)",
                                    "description": annotations["ParamineQueueGrowing"][
                                        "description"
                                    ],
                                },
                            }
                        ],
                    },
                ],
            }
        ],
    }
    path = tmp_path / "alerts_test.yml"
    path.write_text(yaml.safe_dump(tests))
    result = subprocess.run(
        [_promtool(), "test", "rules", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_dashboard_panels_use_only_defined_metrics() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    known = defined_metric_names()
    read: set[str] = set()
    for panel in dashboard["panels"]:
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            names = promql_metric_names(target["expr"])
            assert names, f"{panel['title']}: no metric in {target['expr']!r}"
            assert names <= known, f"{panel['title']}: unknown {names - known}"
            read |= names
    # throughput, failures, retries, latency, in-flight and queue depth are all shown
    assert {
        "paramine_messages_in_total", "paramine_messages_failed_total",
        "paramine_messages_retried_total", "paramine_stage_latency_seconds_bucket",
        "paramine_in_flight", QUEUE_DEPTH,
    } <= read  # fmt: skip
    titles = " ".join(panel["title"] for panel in dashboard["panels"])
    assert "p50" in titles and "p99" in titles
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])


# -- Kubernetes -------------------------------------------------------------------------------

API_VERSIONS = {
    "Namespace": "v1", "ConfigMap": "v1", "Secret": "v1", "Service": "v1",
    "Deployment": "apps/v1", "StatefulSet": "apps/v1", "ScaledObject": "keda.sh/v1alpha1",
}  # fmt: skip
NAMESPACE = "paramine"


def k8s_docs() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in sorted(K8S.glob("*.yaml")):
        docs.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    return docs


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == kind}


def parse_cli(command: list[str]) -> dict[str, Any]:
    """Parse a container command with the real ``paramine`` CLI; unknown options raise."""
    from services.cli import app

    assert command[0] == "paramine"
    root = typer.main.get_command(app)
    assert isinstance(root, typer.core.TyperGroup)
    with root.make_context("paramine", list(command[1:]), resilient_parsing=False) as ctx:
        sub = root.get_command(ctx, command[1])
        assert sub is not None, f"unknown command {command[1]}"
        with sub.make_context(command[1], list(command[2:]), parent=ctx) as sub_ctx:
            return dict(sub_ctx.params)


def test_parse_cli_rejects_unknown_options() -> None:
    with pytest.raises(Exception, match="No such option"):
        parse_cli(["paramine", "worker", "--stage", "tree_align", "--prefetch", "4"])


def test_k8s_documents_are_well_formed() -> None:
    docs = k8s_docs()
    kinds = {doc["kind"] for doc in docs}
    assert {"Namespace", "ConfigMap", "Secret", "Deployment", "Service", "ScaledObject"} <= kinds
    for doc in docs:
        assert doc["apiVersion"] == API_VERSIONS[doc["kind"]], doc["metadata"]
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", doc["metadata"]["name"])
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["namespace"] == NAMESPACE
    configs = set(by_kind(docs, "ConfigMap"))
    secrets = set(by_kind(docs, "Secret"))
    for kind in ("Deployment", "StatefulSet"):
        for name, doc in by_kind(docs, kind).items():
            template = doc["spec"]["template"]
            assert (
                doc["spec"]["selector"]["matchLabels"].items()
                <= template["metadata"]["labels"].items()
            ), name
            for container in template["spec"]["containers"]:
                assert container["name"] and container["image"], name
                for source in container.get("envFrom", []):
                    if "configMapRef" in source:
                        assert source["configMapRef"]["name"] in configs
                    if "secretRef" in source:
                        assert source["secretRef"]["name"] in secrets
    pod_labels = [
        doc["spec"]["template"]["metadata"]["labels"] for kind in ("Deployment", "StatefulSet")
        for doc in by_kind(docs, kind).values()
    ]  # fmt: skip
    for name, service in by_kind(docs, "Service").items():
        selector = service["spec"]["selector"]
        assert any(selector.items() <= labels.items() for labels in pod_labels), (
            f"service {name} selects no pod"
        )


def _worker_deployments(docs: list[dict[str, Any]]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Stage → (Deployment name, Deployment) for every Deployment running ``paramine worker``."""
    workers: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, doc in by_kind(docs, "Deployment").items():
        command = doc["spec"]["template"]["spec"]["containers"][0]["command"]
        if command[1] == "worker":
            params = parse_cli(command)
            assert params["stage"] not in workers, f"two Deployments for {params['stage']}"
            workers[params["stage"]] = (name, doc)
    return workers


def test_every_container_command_parses_with_the_cli() -> None:
    commands = [
        container["command"]
        for doc in by_kind(k8s_docs(), "Deployment").values()
        for container in doc["spec"]["template"]["spec"]["containers"]
    ]
    assert {command[1] for command in commands} >= {"serve", "worker"}
    for command in commands:
        parse_cli(command)


def test_one_worker_deployment_per_stage_with_grace_above_hard_limit() -> None:
    docs = k8s_docs()
    workers = _worker_deployments(docs)
    assert set(workers) == set(STAGES)
    config = next(iter(by_kind(docs, "ConfigMap").values()))["data"]
    hard_limit = float(
        config.get("PARAMINE_QUEUE__HARD_TIME_LIMIT", QueueSettings().hard_time_limit)
    )
    visibility = float(
        config.get("PARAMINE_QUEUE__VISIBILITY_TIMEOUT", QueueSettings().visibility_timeout)
    )
    renewal = float(
        config.get("PARAMINE_QUEUE__LEASE_RENEWAL_INTERVAL", QueueSettings().lease_renewal_interval)
    )
    # renewed leases outlive one late renewal; unrenewed ones outlive any task
    assert visibility > 2 * renewal if renewal else visibility > hard_limit
    for stage, (_, doc) in workers.items():
        spec = doc["spec"]["template"]["spec"]
        # SIGTERM: warm shutdown finishes the running task, which the hard limit bounds
        assert spec["terminationGracePeriodSeconds"] >= hard_limit + 10, stage
        params = parse_cli(spec["containers"][0]["command"])
        assert params["concurrency"] == 1, stage


def test_the_gateway_gets_its_graceful_shutdown_time_before_it_is_killed() -> None:
    docs = k8s_docs()
    gateway = [
        doc
        for doc in by_kind(docs, "Deployment").values()
        if doc["spec"]["template"]["spec"]["containers"][0]["command"][1] == "serve"
    ]
    assert len(gateway) == 1
    config = next(iter(by_kind(docs, "ConfigMap").values()))["data"]
    drain = float(
        config.get("PARAMINE_GATEWAY_SHUTDOWN_TIMEOUT", Settings().gateway_shutdown_timeout)
    )
    assert gateway[0]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= drain + 5


def test_scaled_objects_target_each_stage_queue() -> None:
    docs = k8s_docs()
    workers = _worker_deployments(docs)
    deployments = by_kind(docs, "Deployment")
    redis_services = {f"{name}.{NAMESPACE}.svc.cluster.local" for name in by_kind(docs, "Service")}
    scaled: dict[str, str] = {}
    for name, doc in by_kind(docs, "ScaledObject").items():
        target = doc["spec"]["scaleTargetRef"]["name"]
        assert target in deployments, f"{name} targets missing Deployment {target}"
        assert doc["spec"]["minReplicaCount"] >= 1
        assert doc["spec"]["maxReplicaCount"] >= doc["spec"]["minReplicaCount"]
        (trigger,) = doc["spec"]["triggers"]
        assert trigger["type"] == "redis"
        host, _, port = trigger["metadata"]["address"].rpartition(":")
        assert host in redis_services and port == "6379"
        scaled[target] = trigger["metadata"]["listName"]
    for stage, (deployment, _) in workers.items():
        assert scaled.get(deployment) == queue_name(stage), stage
