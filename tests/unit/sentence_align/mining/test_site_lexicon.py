"""Snapshots of a site's earlier pairs: the checkpoints a page pair learns up to, and what a
snapshot keeps (site_lexicon)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from services.lexical.registry import dictionary_for
from services.sentence_align.aligners.hybrid import SEGMENT_SETTINGS
from services.sentence_align.mining.site_lexicon import SNAPSHOT_EVERY, checkpoint, learn_site


@given(st.integers(0, 10_000))
def test_a_checkpoint_is_at_most_the_earlier_pairs_and_one_of_the_snapshots(earlier: int) -> None:
    point = checkpoint(earlier)
    assert 0 <= point <= earlier
    assert (point == 0) == (earlier == 0)
    assert point in (1, 2, 4, 8) or point % SNAPSHOT_EVERY == 0
    # the newest snapshot not after it: the next checkpoint lies beyond ``earlier``
    assert checkpoint(point) == point
    assert earlier - point < max(SNAPSHOT_EVERY, point)


def test_snapshots_are_few_and_serve_the_pairs_up_to_the_next() -> None:
    points = [checkpoint(n) for n in range(0, 100)]
    assert sorted(set(points)) == [0, 1, 2, 4, 8, 16, 32, 48, 64, 80, 96]
    assert points == sorted(points)


def test_a_snapshot_keeps_the_pairs_counts_and_both_directions() -> None:
    pairs = [
        ("Der Gipfel ist hoch.", "Le sommet est haut."),
        ("Es war kalt in Zürich.", "Il faisait froid à Zürich."),
        ("Wir stiegen 1956 auf.", "Nous sommes montés en 1956."),
    ]
    kept = learn_site(pairs, "de", "fr", SEGMENT_SETTINGS, dictionary_for("de", "fr"))
    assert kept.texts == tuple(pairs)
    assert kept.src.counts["zürich"] == 1 and kept.tgt.counts["1956"] == 1
    assert kept.src.total == sum(kept.src.counts.values())
    assert kept.backward is not None
    # the same words counted both ways: "1956" explains "1956" in each direction
    for counts, word in ((kept.forward, "1956"), (kept.backward, "1956")):
        f = counts.src_vocabulary.index(word)
        row = counts.target[counts.row_start[f] : counts.row_start[f + 1]]
        assert counts.tgt_vocabulary.index(word) in row.tolist()
