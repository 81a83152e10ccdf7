"""Typed rows of the store: what a handler writes (chunk pairs, paraphrase observations;
sentence pairs are ``shared.sentence_pair.SentencePairRecord``) and what the job bookkeeping
reads back (tracked pairs, job status)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any

from shared.sentence_pair import SentencePairRecord


@dataclass(frozen=True)
class NodePairRow:
    """One aligned text chunk of a page pair (``node_pairs``, without its ``pair_id``): the
    xpaths of the two block elements, their text and the summed -log Pr."""

    chunk: int
    src_xpath: str
    tgt_xpath: str
    src_text: str
    tgt_text: str
    cost: float


@dataclass(frozen=True)
class ParaphraseObservationRow:
    """One monolingual sentence pair observed by the paraphrase stage
    (``paraphrase_observations``; ``created_at`` is set by the store)."""

    id: str
    kind: str
    lang: str
    src_text: str
    tgt_text: str


Row = SentencePairRecord | NodePairRow | ParaphraseObservationRow


def row_dict(row: Row | Mapping[str, Any]) -> dict[str, Any]:
    """The column values of a typed row, or of a mapping of them (a copy). A typed row's
    fields are plain values, so its ``vars`` are copied (``dataclasses.asdict`` would copy
    each value deeply, on every row of every message)."""
    if is_dataclass(row) and not isinstance(row, type):
        return dict(vars(row))
    return dict(row)  # type: ignore[arg-type]


def stored_fields(row_type: type[Row], stored: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of a row read back (``stored``) that the typed row ``row_type`` holds,
    by name: what builds a typed row, or one of a subclass with more fields, from a read."""
    return {field.name: stored[field.name] for field in fields(row_type)}


@dataclass(frozen=True)
class TrackedPair:
    """A tracked page pair (or article batch) and the message that starts its work."""

    job_id: str
    pair_id: str
    stage: str
    payload: str | None = None


@dataclass(frozen=True)
class FailureCount:
    """Dead letters of one job that share a stage and a reason (the reason without the URL or
    id it names): one line of a summary, "27 pages: HTML page looks like binary data"."""

    stage: str
    reason: str
    count: int
    example: str = ""  # one letter's whole reason, with the page or pair it names

    @property
    def unit(self) -> str:
        """What the stage's dead letters are of: inputs, pages, page pairs or messages."""
        return STAGE_UNITS.get(self.stage, "messages")

    def line(self) -> str:
        """The summary line: a lone letter's whole reason, else the count and the reason."""
        if self.count == 1:
            return f"1 {self.unit[:-1]} ({self.stage}): {self.example or self.reason}"
        return f"{self.count} {self.unit} ({self.stage}): {self.reason}"


STAGE_UNITS = {
    "ingest": "inputs",
    "page_match": "pages",
    "tree_align": "page pairs",
    "sentence_align": "page pairs",
}


@dataclass(frozen=True)
class JobStatus:
    """Progress of one job, computed from observations.

    ``state``: "running" while a page_match message of the job is pending or a page pair is
    neither completed nor failed; then "waiting" while pages of the job wait for a
    counterpart (``waiting_pages``: a later page may still pair them); else "done", or
    "done-with-errors" when anything of the job was refused or failed (``failures``)."""

    job_id: str
    pairs: int
    completed: int
    failed: int
    sentence_pairs: int
    refused: int = 0  # inputs refused at ingest (dead letters of stage "ingest")
    pages: int = 0  # single pages sent to page_match
    pending_pages: int = 0  # of them, in page_match messages not yet processed
    failed_pages: int = 0  # pages page_match refused (or whose message it dead-lettered)
    waiting_pages: int = 0  # the job's pages in no page pair yet (set by page_match's reader)
    failures: tuple[FailureCount, ...] = ()

    @property
    def state(self) -> str:
        if self.pending_pages > 0 or self.completed + self.failed < self.pairs:
            return "running"
        if self.waiting_pages > 0:
            return "waiting"
        errors = self.failed or self.refused or self.failed_pages or self.failures
        return "done-with-errors" if errors else "done"

    def answer(self) -> dict[str, object]:
        """The job as ``GET /v1/jobs/{id}`` and ``submit --wait`` give it (JSON types)."""
        fields = {k: v for k, v in asdict(self).items() if k != "failures"}
        failures = [
            {"stage": f.stage, "reason": f.reason, "count": f.count, "line": f.line()}
            for f in self.failures
        ]
        return {**fields, "state": self.state, "failures": failures}
