"""A process that forks while another of its threads creates tables hands its child a free
schema lock (a worker's consumer forks pool children at any moment; issue 39)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import sqlalchemy as sa

from shared.store import engine as store_engine
from shared.store.engine import create_tables, make_engine

CHILD_SECONDS = 5  # the forked child's whole budget; it needs milliseconds


def test_a_child_forked_while_a_thread_holds_the_schema_lock_can_create_tables(
    tmp_path: Path,
) -> None:
    tables = sa.MetaData()
    sa.Table("fork_probe", tables, sa.Column("id", sa.Integer, primary_key=True))
    engine = make_engine(f"sqlite:///{tmp_path / 'child.db'}")
    held, release = threading.Event(), threading.Event()

    def creating_tables() -> None:
        # what create_tables does while it waits for the database: holds the lock
        with store_engine._schema_lock:
            held.set()
            release.wait(30)

    thread = threading.Thread(target=creating_tables, daemon=True)
    thread.start()
    assert held.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: SIGALRM ends it if the lock never comes free
            signal.alarm(CHILD_SECONDS)
            code = 3
            try:
                create_tables(engine, tables)
                code = 0 if sa.inspect(engine).has_table("fork_probe") else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        thread.join(10)
        engine.dispose()
    assert os.waitstatus_to_exitcode(status) == 0, (
        f"the forked child could not create tables (status {status}): it waited on the "
        "schema lock its parent's thread held at the fork"
    )
