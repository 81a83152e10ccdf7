"""The paraphrase stage's observations: monolingual sentence pairs, each recorded once (the
tables are computed from them by ``services/paraphrase``)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

from shared.store.base import StoreBase
from shared.store.inserts import insert_ignoring_conflicts
from shared.store.rows import ParaphraseObservationRow, row_dict
from shared.store.tables import paraphrase_observations


class ParaphraseRepository(StoreBase):
    """Paraphrase observations."""

    def add_paraphrase_observations(
        self, rows: Sequence[ParaphraseObservationRow | Mapping[str, Any]]
    ) -> int:
        """Record observations; one already stored (same id) is kept as it was."""
        now = time.time()
        values = [{**row_dict(row), "created_at": now} for row in rows]
        with self.guard(), self.begin() as conn:
            return insert_ignoring_conflicts(conn, paraphrase_observations, values)

    def paraphrase_observations(self, *, kind: str | None = None) -> list[dict[str, Any]]:
        statement = sa.select(paraphrase_observations).order_by(paraphrase_observations.c.id)
        if kind:
            statement = statement.where(paraphrase_observations.c.kind == kind)
        return self.mappings(statement)
