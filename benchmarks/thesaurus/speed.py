"""Speed and peak memory of a full similarity recompute (docs/methods.md §4 steps 2–4).

A full recompute is: frequency filter → class counts f(v, C) (polysemy resolved by the verb,
as the service does) → MI → Hindle SIM over all leaf pairs (numba kernel over the sparse verb
lists) → estimation rounds up the tree (defined SIM(C, C) averaged, the default). Cases:

* the shipped sample thesaurus (services/thesaurus/sample_thesaurus.csv) with the livedoor
  counts, and the WordNet-based thesaurus (10k leaves) with the livedoor counts (counts are
  extracted once by benchmarks.thesaurus.livedoor and cached in the temp dir);
* a synthetic case: 10,000 leaf classes (a 10 × 10 × 10 × 10 tree), 5,000 verbs, Zipf-
  distributed cooccurrences (seeded), 20% of the classes never seen;
* peer, side by side: a dense numpy SIM (min over all verbs for every class pair, no
  sparsity) on a 500-class synthetic case, against the same kernel on the same input.

Each case runs in its own process so that its peak RSS is its own.
Writes benchmarks/results/thesaurus_speed.md. Goal: every full recompute < 30 s.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import KIT, REPO, RESULTS, child_json, notes, peak_rss_mb, publish
from services.thesaurus.cooccur import Cooccurrence, filter_counts
from services.thesaurus.estimate import estimate_undefined
from services.thesaurus.similarity import (
    ClassCounts,
    class_counts,
    mutual_information,
    sim_matrix,
    similarity_matrix,
)
from services.thesaurus.thesauri import Thesaurus, load_wlsp, load_wordnet

SAMPLE = REPO / "services" / "thesaurus" / "sample_thesaurus.csv"
RESULT = RESULTS / "thesaurus_speed.md"
SEED = int(os.environ.get("PARAMINE_SEED", "20260601"))


def _livedoor_counts() -> dict[Cooccurrence, int]:
    from benchmarks.thesaurus.livedoor import TARBALL, extract

    counts, _ = extract(TARBALL)
    return counts


def _synthetic_tree(branching: tuple[int, ...]) -> Thesaurus:
    classes: list[tuple[str, str | None, str]] = [("root", None, "")]
    frontier = ["root"]
    for width in branching:
        nxt = []
        for parent in frontier:
            for k in range(width):
                child = f"{parent}.{k}" if parent != "root" else str(k)
                classes.append((child, parent, ""))
                nxt.append(child)
        frontier = nxt
    return Thesaurus.build("synthetic", classes, [])


def _synthetic_counts(thesaurus: Thesaurus, verbs: int, tokens: int) -> ClassCounts:
    rng = np.random.default_rng(SEED)
    leaves = len(thesaurus.leaves)
    verb_weight = 1.0 / np.arange(1, verbs + 1)
    class_weight = 1.0 / np.arange(1, leaves + 1) ** 0.8
    class_weight[rng.permutation(leaves)[: leaves // 5]] = 0.0  # 20% of classes never seen
    verb_ids = rng.choice(verbs, size=tokens, p=verb_weight / verb_weight.sum())
    class_ids = rng.choice(leaves, size=tokens, p=class_weight / class_weight.sum())
    cells = np.bincount(verb_ids * leaves + class_ids, minlength=verbs * leaves)
    matrix = cells.reshape(verbs, leaves).astype(np.float64)
    matrix[matrix < 2] = 0.0  # the seed's rule: pairs seen once are dropped
    names = tuple(f"v{k}" for k in range(verbs))
    return ClassCounts(names, thesaurus.leaf_ids, matrix, int(matrix.sum()), 0)


def _recompute(thesaurus: Thesaurus, counts: ClassCounts) -> dict[str, Any]:
    cpu_started = time.process_time()
    started = time.perf_counter()
    model = similarity_matrix(counts)
    sim_seconds = time.perf_counter() - started
    started = time.perf_counter()
    estimation = estimate_undefined(model, thesaurus)
    return {
        "leaves": len(thesaurus.leaves),
        "verbs": len(counts.verbs),
        "types": int((counts.counts > 0).sum()),
        "sim_seconds": sim_seconds,
        "estimate_seconds": time.perf_counter() - started,
        "sim_estimate_cpu_seconds": time.process_time() - cpu_started,
        "undefined_left": int(
            (estimation.rounds == -1).sum() - (np.diagonal(estimation.rounds) == -1).sum()
        ),
    }


def _warm_up() -> None:
    # Compile the numba kernel outside the timings (cached on disk after the first run).
    sim_matrix(mutual_information(np.array([[1.0, 2.0], [3.0, 1.0]])))


def _dense_peer_sim(mi: np.ndarray) -> np.ndarray:
    positive = np.nan_to_num(np.maximum(mi, 0.0))
    negative = np.nan_to_num(np.maximum(-mi, 0.0))
    classes = mi.shape[1]
    out = np.empty((classes, classes))
    for i in range(classes):
        out[i] = np.minimum(positive[:, i : i + 1], positive).sum(axis=0)
        out[i] += np.minimum(negative[:, i : i + 1], negative).sum(axis=0)
    return out


def run_case(name: str) -> dict[str, Any]:
    _warm_up()
    started = time.perf_counter()
    if name in {"sample", "wordnet"}:
        raw = _livedoor_counts()
        if name == "sample":
            thesaurus = load_wlsp(SAMPLE, encoding="utf-8", name="sample")
        else:
            thesaurus = load_wordnet(
                Path("/usr/share/wordnet"), KIT / "omw-wiktionary-jpn" / "wn-wikt-jpn.tab"
            )
        load_seconds = time.perf_counter() - started
        started = time.perf_counter()
        # As the service's recompute (repository.rebuild_snapshot): polysemy resolved by the verb.
        counts = class_counts(filter_counts(raw), thesaurus, polysemy="verb")
        count_seconds = time.perf_counter() - started
        result = _recompute(thesaurus, counts)
    elif name == "synthetic":
        thesaurus = _synthetic_tree((10, 10, 10, 10))
        load_seconds = time.perf_counter() - started
        started = time.perf_counter()
        counts = _synthetic_counts(thesaurus, verbs=5_000, tokens=3_000_000)
        count_seconds = time.perf_counter() - started
        result = _recompute(thesaurus, counts)
    elif name == "peer":
        thesaurus = _synthetic_tree((5, 10, 10))
        counts = _synthetic_counts(thesaurus, verbs=5_000, tokens=300_000)
        mi = mutual_information(counts.counts)
        started = time.perf_counter()
        ours = sim_matrix(mi)
        ours_seconds = time.perf_counter() - started
        started = time.perf_counter()
        peer = _dense_peer_sim(mi)
        peer_seconds = time.perf_counter() - started
        return {
            "leaves": len(thesaurus.leaves),
            "verbs": len(counts.verbs),
            "ours_seconds": ours_seconds,
            "peer_seconds": peer_seconds,
            "max_abs_difference": float(np.max(np.abs(ours - peer))),
            "peak_mb": peak_rss_mb(),
        }
    else:
        raise SystemExit(f"unknown case {name}")
    result.update(
        load_seconds=load_seconds,
        count_seconds=count_seconds,
        peak_mb=peak_rss_mb(),
    )
    result["recompute_seconds"] = (
        result["count_seconds"] + result["sim_seconds"] + result["estimate_seconds"]
    )
    return result


def _in_subprocess(name: str) -> dict[str, Any]:
    result: dict[str, Any] = child_json("benchmarks.thesaurus.speed", "--case", name)
    return result


LOAD = os.getloadavg()


def main() -> None:
    cases = {
        "sample": "shipped sample thesaurus × livedoor counts",
        "wordnet": "WordNet-based thesaurus × livedoor counts",
        "synthetic": "synthetic 10,000 classes × 5,000 verbs (3M tokens)",
    }
    results = {name: _in_subprocess(name) for name in cases}
    peer = _in_subprocess("peer")
    lines = [
        "# Thesaurus full recompute: speed and peak memory",
        "",
        notes("full-recompute-class"),
        "",
        "| case | leaves | verbs | (v, C) types | counts s | SIM s | estimation s "
        "| recompute s | SIM + estimation CPU s (all threads) | peak RSS MB | goal < 30 s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, label in cases.items():
        r = results[name]
        lines.append(
            f"| {label} | {r['leaves']:,} | {r['verbs']:,} | {r['types']:,} "
            f"| {r['count_seconds']:.2f} | {r['sim_seconds']:.2f} | {r['estimate_seconds']:.2f} "
            f"| {r['recompute_seconds']:.2f} | {r['sim_estimate_cpu_seconds']:.2f} "
            f"| {r['peak_mb']:,.0f} "
            f"| {'met' if r['recompute_seconds'] < 30 else 'NOT met'} |"
        )
    lines += [
        "",
        "## Peer: dense numpy SIM vs the sparse numba kernel (same input)",
        "",
        "| leaves | verbs | numba kernel s | dense numpy s | ratio | max abs difference |",
        "|---|---|---|---|---|---|",
        f"| {peer['leaves']:,} | {peer['verbs']:,} | {peer['ours_seconds']:.3f} "
        f"| {peer['peer_seconds']:.2f} | {peer['peer_seconds'] / peer['ours_seconds']:.0f}× "
        f"| {peer['max_abs_difference']:.1e} |",
        "",
        f"Machine: 2 cores shared with other engineers' jobs (load average {LOAD[0]:.1f} before",
        f"and {os.getloadavg()[0]:.1f} after this run); wall-clock timings are inflated by the",
        "contention. The CPU column (process CPU time of all threads) is what the computation",
        "itself used.",
        "",
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        print(json.dumps(run_case(sys.argv[2])))
    else:
        main()
