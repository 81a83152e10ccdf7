"""``paramine process``'s page-pair bar (services/cli/processing.py): completed never exceeds
total while page_match adds the pairs it finds, driven by the real in-process runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from services.cli.processing import pair_progress
from shared.delivery.pipeline import LocalRunner, Outgoing, RunSummary
from shared.errors import InvalidInput
from shared.metrics import StageMetrics
from shared.schemas import CrawledPages, Page, PagePair
from shared.store import Store


def _pair(name: str) -> PagePair:
    return PagePair(
        job_id="j",
        src=Page(url=f"https://e.org/en/{name}", lang="en", html=f"<p>{name}</p>"),
        tgt=Page(url=f"https://e.org/de/{name}", lang="de", html=f"<p>{name}</p>"),
    )


def _pages(batch: str) -> dict[str, object]:
    page = Page(url=f"https://e.org/{batch}", lang="en", html="<p>x</p>")
    return CrawledPages(job_id="j", pages=[page], batch_id=batch).model_dump(mode="json")


class FakeStages:
    """Explicit fake handlers: page_match finds ``found[batch]`` page pairs in a message;
    tree_align refuses the pairs named "bad" and passes on nothing."""

    def __init__(self, found: dict[str, int]) -> None:
        self.found = found

    def page_match(self, message: CrawledPages, store: Store) -> list[Outgoing]:
        count = self.found[message.batch_id or ""]
        return [("tree_align", _pair(f"{message.batch_id}-{n}")) for n in range(count)]

    def tree_align(self, message: PagePair, store: Store) -> list[Outgoing]:
        if message.src.url.endswith("/bad"):
            raise InvalidInput("page pair is bad")
        return []


@pytest.mark.parametrize(
    ("found", "given"),
    [
        ({"b1": 2, "b2": 0, "b3": 3}, ["p1", "p2", "p3", "p4"]),  # 5/4 once
        ({"b1": 3}, []),  # single pages only: the total starts at 0
        ({"b1": 0}, ["p1", "bad"]),  # nothing paired; a failed pair counts as taken
    ],
)
def test_the_bar_never_shows_more_pairs_done_than_found(
    tmp_path: Path, found: dict[str, int], given: list[str]
) -> None:
    stages = FakeStages(found)
    summary = RunSummary()
    shown: list[tuple[int, int]] = []
    runner = LocalRunner(
        {"page_match": stages.page_match, "tree_align": stages.tree_align},
        Store(f"sqlite:///{tmp_path / 's.db'}"),
        StageMetrics.create(CollectorRegistry()),
        on_message=lambda stage: shown.append(pair_progress(len(given), summary)),
    )
    runner.run("page_match", [_pages(batch) for batch in found], summary)
    runner.run("tree_align", [_pair(name).model_dump(mode="json") for name in given], summary)
    assert all(completed <= total for completed, total in shown), shown
    every = len(given) + sum(found.values())
    assert shown[-1] == (every, every)  # the bar ends full


def test_the_total_counts_the_pairs_read_and_those_found() -> None:
    summary = RunSummary()
    summary.emitted["page_match"] = 3
    summary.received["tree_align"] = 2
    summary.emitted["tree_align"] = 7  # chunk pairs sent on: not page pairs
    assert pair_progress(4, summary) == (2, 7)
