"""A worker's store on PostgreSQL: a transaction left idle (its worker cut off the network)
is ended by the server, releasing the locks the redelivered message's worker waits for."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from shared.delivery.worker import end_idle_transactions
from shared.store import Store


def test_an_idle_transaction_is_ended_by_the_server(postgres_url: str) -> None:
    store = Store(postgres_url)
    end_idle_transactions(store, 0.3)
    try:
        with store.engine.connect() as conn:
            setting = conn.execute(sa.text("SHOW idle_in_transaction_session_timeout")).scalar()
            assert setting == "300ms"
        with store.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))  # a transaction is open
            time.sleep(1.0)  # idle inside it for longer than the timeout
            with pytest.raises(sa.exc.DBAPIError, match="idle-in-transaction"):
                conn.execute(sa.text("SELECT 1"))
    finally:
        store.engine.dispose()
