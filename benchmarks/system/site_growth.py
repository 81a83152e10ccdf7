"""What a page pair's store reads cost as its site grows, this code against a baseline
checkout, side by side in one run (needs PostgreSQL).

One site (``en.`` and ``de.`` hosts) grows to each size in ``SIZES`` page pairs, each with 20
stored sentence pairs and 80 blocks a page (40 of them a menu every page holds), written in
bulk. At each size 20 new page pairs are recorded one after another and each asks what a
worker asks of the store for it, as the default path does (site learning on): the
site-order check (``earlier_unsettled``), its learning checkpoint (``checkpoint_seq``; in
baselines without it ``earlier_pairs`` and ``nth_pair_seq``), the site's pairs since the
checkpoint and the checkpoint's snapshot (``site_pairs``, 500 pairs), and the site
repetition of its 80 blocks (tree_align's ``block_counts``). The median of each, in ms.

Each version runs in its own process (this virtualenv's Python, the checkout first on
``PYTHONPATH``) on a fresh database, ``ANALYZE``\\ d after each growth, so that both are
planned on current statistics and only what each reads differs. (On a server without
autovacuum the baseline is planned on the statistics of an empty store as well, which
costs it more than shown here.)

Run: ``.venv/bin/python -m benchmarks.system.site_growth --baseline ../baseline`` (~5 min).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import REPO, RESULTS, notes, publish

SIZES = (1_000, 5_000, 12_000, 20_000)
ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1/postgres"
SITE, TGT = "en.growth.example.org", "de.growth.example.org"
READS = ("earlier_unsettled", "checkpoint", "site_pairs_since", "snapshot", "block_counts")
MENU = [f"m{i:015d}" for i in range(40)]


def grow(store: Any, repository: Any, start: int, end: int) -> None:
    """Page pairs ``start`` to ``end`` of the site, their sentence pairs, progress and
    blocks, in batches of 500."""
    import sqlalchemy as sa

    from shared.store.tables import pair_order, pair_progress, sentence_pairs

    for low in range(start, end, 500):
        pairs = [(f"pp{k}", f"https://{SITE}/{k}", f"https://{TGT}/{k}")
                 for k in range(low, min(end, low + 500))]  # fmt: skip
        store.record_job(f"j{low}", pairs, source="growth")
        now = time.time()
        with store.engine.begin() as conn:
            ids = [pair_id for pair_id, _, _ in pairs]
            order = sa.select(pair_order.c.pair_id, pair_order.c.seq)
            seq = dict(conn.execute(order.where(pair_order.c.pair_id.in_(ids))).all())
            rows, progress, blocks = [], [], []
            for pair_id, src_url, tgt_url in pairs:
                k = int(pair_id[2:])
                rows += [{"id": f"sp-{k}-{n}", "pair_id": pair_id, "kind": "translation",
                          "src_url": src_url, "tgt_url": tgt_url, "site": SITE,
                          "src_lang": "en", "tgt_lang": "de", "src_text": f"english {k} {n}",
                          "tgt_text": f"deutsch {k} {n}", "score": 0.95, "bead": f"[{n}]:[{n}]",
                          "chunk": 0, "position": n, "flag": "", "dedup_key": f"{k}-{n}",
                          "created_at": now} for n in range(20)]  # fmt: skip
                progress += [{"pair_id": pair_id, "stage": stage, "outputs": 1, "updated_at": now}
                             for stage in ("tree_align", "sentence_align")]  # fmt: skip
                for url, site in ((src_url, SITE), (tgt_url, TGT)):
                    keys = MENU + [f"u{k:08d}{i:07d}" for i in range(40)]
                    page = repository.page_key(url)
                    blocks += [{"site": site, "block_key": key, "page_key": page,
                                "seq": seq[pair_id]} for key in keys]  # fmt: skip
            conn.execute(sentence_pairs.insert(), rows)
            conn.execute(pair_progress.insert(), progress)
            conn.execute(repository.site_blocks.insert(), blocks)
        with store.engine.begin() as conn:
            conn.execute(sa.text("ANALYZE"))


def measure(store: Any, repository: Any, size: int) -> dict[str, float]:
    """The median ms of each read over 20 new page pairs of the site."""
    from services.sentence_align.mining.site_lexicon import checkpoint

    times: dict[str, list[float]] = {read: [] for read in READS}

    def timed(read: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        result = call(*args, **kwargs)
        times[read].append((time.perf_counter() - start) * 1000)
        return result

    def nth_checkpoint(position: Any) -> Any:  # a baseline before the remembered checkpoints
        return store.nth_pair_seq(position, checkpoint(store.earlier_pairs(position)))

    capped = {"at_most": 16} if "at_most" in repository.block_counts.__code__.co_varnames else {}
    hosts, langs = [SITE, TGT], ("en", "de")
    for i in range(20):
        pair_id = f"new{size}-{i}"
        urls = (f"https://{SITE}/{pair_id}", f"https://{TGT}/{pair_id}")
        store.record_job(f"jn{size}-{i}", [(pair_id, *urls)], source="growth")
        position = store.pair_position(pair_id)
        timed("earlier_unsettled", store.earlier_unsettled, position, "sentence_align", 0.0)
        if hasattr(store, "checkpoint_seq"):
            last = timed("checkpoint", store.checkpoint_seq, position, checkpoint)
        else:
            last = timed("checkpoint", nth_checkpoint, position)
        wanted = {"limit": 500, "min_score": 0.9, "exclude_pair_id": pair_id}
        timed("site_pairs_since", store.site_pairs, hosts, langs, before=position.seq,
              after=last, **wanted)  # fmt: skip
        timed("snapshot", store.site_pairs, hosts, langs, before=last + 1, **wanted)
        keys = MENU + [f"x{i:015d}" for i in range(40)]
        timed("block_counts", repository.block_counts, store.engine, SITE, keys, urls[:1],
              position.seq, **capped)  # fmt: skip
        for stage in ("tree_align", "sentence_align"):
            store.record_progress(pair_id, stage, 1)
    return {read: statistics.median(values) for read, values in times.items()}


def run_one(database: str) -> None:
    """Grow a fresh ``database`` through SIZES; print a JSON line of medians per size."""
    import sqlalchemy as sa

    from services.tree_align import repository
    from shared.store import Store

    admin = sa.create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        conn.execute(sa.text(f'CREATE DATABASE "{database}"'))
    store = Store(ADMIN_URL.rsplit("/", 1)[0] + f"/{database}")
    repository.ensure_schema(store.engine)
    done = 0
    try:
        for size in SIZES:
            grow(store, repository, done, size)
            done = size
            print(json.dumps({"size": size, **measure(store, repository, size)}), flush=True)
    finally:
        store.engine.dispose()
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))


def child(checkout: Path, database: str) -> list[dict[str, float]]:
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{REPO}"}
    # this file as a script: a baseline's own benchmarks package may not have it
    done = subprocess.run(
        [sys.executable, __file__, "--one", database],
        cwd=checkout, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def report(versions: dict[str, list[dict[str, float]]]) -> list[str]:
    names = list(versions)
    lines = ["# A site's growth: per-page-pair store reads (ms, median of 20 page pairs)", "",
             f"PostgreSQL, statistics current; {', '.join(names)} side by side in one run "
             "(`python -m benchmarks.system.site_growth`).", "",
             "| read | page pairs of the site | " + " | ".join(names) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in names) + " |"]  # fmt: skip
    for read in (*READS, "per page pair"):
        for row, size in enumerate(SIZES):
            cells = []
            for name in names:
                medians = versions[name][row]
                value = (sum(medians[r] for r in READS if r != "snapshot") + medians["snapshot"]
                         / 16 if read == "per page pair" else medians[read])  # fmt: skip
                cells.append(f"{value:.1f}")
            lines.append(f"| {read} | {size:,} | " + " | ".join(cells) + " |")
    lines += ["", "Per page pair: the reads' sum, the snapshot's a sixteenth (a process reads "
              "it once per checkpoint, every 16 page pairs).", "", notes("reading")]  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout, measured beside this one")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a child: grow this database
    args = parser.parse_args(argv)
    if args.one:
        run_one(args.one)
        return
    versions: dict[str, list[dict[str, float]]] = {}
    if args.baseline is not None:
        versions["baseline"] = child(args.baseline.resolve(), "paramine_growth_baseline")
    versions["this code"] = child(REPO, "paramine_growth_this")
    publish(RESULTS / "site_growth.md", report(versions))


if __name__ == "__main__":
    main()
