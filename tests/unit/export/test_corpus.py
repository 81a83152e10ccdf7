"""services.export.corpus: the pairs an export gives (threshold, flags, directions) and what
it left out."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from services.export.corpus import (
    Occurrences,
    corpus_query,
    exported_rows,
    job_query,
    left_out,
    other_way,
    stored_other_way,
    turned,
)
from services.sentence_align.classifier.pair_threshold import default_threshold
from shared.store import Store
from tests.unit.export.records import stored_pair


def row(
    number: int, *, src_lang: str = "en", tgt_lang: str = "de", **fields: Any
) -> dict[str, Any]:
    return {
        "id": f"sp{number}",
        "pair_id": "pp",
        "kind": "translation",
        "src_url": "https://example.org/a",
        "tgt_url": "https://example.org/b",
        "site": "example.org",
        "src_lang": src_lang,
        "tgt_lang": tgt_lang,
        "src_text": f"source {number}",
        "tgt_text": f"target {number}",
        "score": 0.99,
        "posterior": 0.9,
        "bead": "[0, 1]:[2]",
        "chunk": 0,
        "position": number,
        **fields,
    }


def stored(tmp_path: Path, rows: list[dict[str, Any]]) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    store.add_sentence_pairs(rows, pair_id="pp", stage="sentence_align")
    return store


def test_corpus_query_applies_the_default_threshold_unless_a_score_or_all_is_asked() -> None:
    assert corpus_query().default_min_score == default_threshold()
    assert corpus_query(min_score=0.2).min_score == 0.2
    everything = corpus_query(every=True)
    assert everything.default_min_score is None and everything.flagged
    assert job_query("job-1") == corpus_query(job="job-1")


def test_turned_swaps_every_side_and_the_bead() -> None:
    pair = stored_pair(src_text="a", tgt_text="b", src_url="ua", tgt_url="ub", bead="[0, 1]:[2]")
    assert turned(pair) == dataclasses.replace(
        pair,
        src_text="b", tgt_text="a", src_lang="de", tgt_lang="en", src_url="ub", tgt_url="ua",
        bead="[2]:[0, 1]",
    )  # fmt: skip
    names = {field.name for field in dataclasses.fields(pair)}
    sides = [name for name in names if name.startswith("src_") and "tgt_" + name[4:] in names]
    assert (
        all(
            getattr(turned(pair), side) == getattr(pair, "tgt_" + side[4:])
            and getattr(turned(pair), "tgt_" + side[4:]) == getattr(pair, side)
            for side in sides
        )
        and len(sides) == 3
    )  # every src_ field has its tgt_ one swapped
    article = stored_pair(bead="article:x:y", dedup_key="dk1")
    assert turned(article).bead == "article:x:y"
    assert turned(article).dedup_key == article.dedup_key  # the pair's key, not recomputed
    assert pair.src_text == "a"  # the caller's row is left as it was


def test_occurrences_count_the_rows_read_and_those_merged() -> None:
    rows = Occurrences([stored_pair(count=3), stored_pair(count=1), stored_pair()])
    assert rows.distinct == 0
    assert len(list(rows)) == 3
    assert (rows.distinct, rows.occurrences, rows.merged) == (3, 5, 2)


def test_either_direction_adds_the_pairs_stored_the_other_way_turned(tmp_path: Path) -> None:
    store = stored(tmp_path, [row(0), row(1, src_lang="de", tgt_lang="en")])
    query = corpus_query(src_lang="en", tgt_lang="de")
    assert [r.id for r in exported_rows(store, query)] == ["sp0"]
    both = list(exported_rows(store, query, either_direction=True))
    assert [(r.id, r.src_lang, r.src_text) for r in both] == [
        ("sp0", "en", "source 0"),
        ("sp1", "en", "target 1"),
    ]
    assert other_way(query).src_lang == "de" and other_way(query).tgt_lang == "en"
    assert stored_other_way(store, corpus_query(src_lang="de", tgt_lang="en"))
    assert not stored_other_way(store, corpus_query(src_lang="en", tgt_lang="fr"))


def test_left_out_counts_duplicates_flags_and_pairs_below_the_threshold(tmp_path: Path) -> None:
    low = default_threshold() / 2
    twin = {"src_text": "source 0", "tgt_text": "target 0"}
    store = stored(
        tmp_path,
        [row(0), row(1, **twin), row(2, flag="untranslated"), row(3, score=low)],
    )
    query = corpus_query()
    rows = exported_rows(store, query)
    assert [r.id for r in rows] == ["sp0"]
    omitted = left_out(store, query, rows)
    assert (omitted.distinct, omitted.stored, omitted.merged) == (1, 2, 1)
    assert omitted.flagged == {"untranslated": 1}
    assert omitted.below_threshold == 1
    everything = corpus_query(every=True)
    kept = exported_rows(store, everything)
    assert len(list(kept)) == 3
    assert left_out(store, everything, kept).flagged == {}
