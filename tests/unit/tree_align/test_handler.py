"""tree_align's handler on a shipped sample pair: node pairs stored, beads point into them."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.sentence_align import handler as sentence_handler
from services.tree_align import handler as tree_handler
from shared.ingest import build_job
from shared.inputs import pairs_from_html_dir
from shared.schemas import ChunkPairs, PagePair
from shared.store import Store, node_pairs, sentence_pairs

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "crawl"


@pytest.fixture(scope="module")
def museum_pair() -> PagePair:
    job = build_job(pairs_from_html_dir(SAMPLES))
    (pair,) = [pair for pair in job.pairs if "museum" in pair.src.url]
    return pair


def test_node_pairs_are_stored_once_and_beads_point_into_them(
    museum_pair: PagePair, tmp_path: Path
) -> None:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    ((stage, message),) = tree_handler.handle(museum_pair, store)
    assert stage == "sentence_align" and isinstance(message, ChunkPairs)

    stored = store.node_pairs(museum_pair.pair_id)
    assert [row["chunk"] for row in stored] == list(range(len(message.chunks))) != []
    for row, chunk in zip(stored, message.chunks, strict=True):
        assert (row["src_xpath"], row["tgt_xpath"]) == (chunk.src_xpath, chunk.tgt_xpath)
        assert (row["src_text"], row["tgt_text"]) == (chunk.src_text, chunk.tgt_text)
        assert row["src_xpath"].startswith("/html") and row["tgt_xpath"].startswith("/html")

    # redelivery of the same message changes nothing
    tree_handler.handle(museum_pair, store)
    assert store.count(node_pairs) == len(stored)

    sentence_handler.handle(message, store)
    texts = {row["chunk"]: (row["src_text"], row["tgt_text"]) for row in stored}
    with store.begin() as conn:
        rows = list(conn.execute(sentence_pairs.select()).mappings())
    assert rows
    for row in rows:
        src_text, tgt_text = texts[row["chunk"]]
        assert " ".join(row["src_text"].split()) in " ".join(src_text.split())
        assert " ".join(row["tgt_text"].split()) in " ".join(tgt_text.split())
