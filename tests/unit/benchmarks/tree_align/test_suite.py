"""The random-template families of the tree_align page suite: reproducible, within the ranges
the written families use, distinct per seed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from benchmarks.tree_align.families import FAMILIES, random_families


@given(st.integers(min_value=0, max_value=10_000))
def test_random_families_are_reproducible_and_within_the_written_ranges(seed: int) -> None:
    families = random_families(seed)
    assert families == random_families(seed)
    written = [side for family in FAMILIES for side in (family.src, family.tgt)]
    blocks = {side.block for side in written}
    sidebars = {side.sidebar for side in written}
    headings = {side.heading for side in written}
    for family in families:
        for side in (family.src, family.tgt):
            low, high = side.menu
            assert 0 <= low <= high <= 100
            assert side.block in blocks
            assert side.sidebar in sidebars
            assert side.heading in headings
            assert 0.0 <= side.split <= 0.35 and 0.0 <= side.merge <= 0.25
            assert 1 <= side.depth <= 12


def test_seeds_draw_different_templates() -> None:
    assert random_families(1) != random_families(2)
    assert len({family.name for family in random_families(1) + random_families(2)}) == 10
