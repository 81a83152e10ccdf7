"""Tests of the bead type and its vecalign text format."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.sentence_align.aligners.beads import Bead, check_coverage, format_bead, parse_beads
from shared.errors import InvalidInput


def test_format_bead_matches_vecalign_text() -> None:
    assert format_bead(Bead((0, 1), (2,), 0.123)) == "[0, 1]:[2]\t0.123000"
    assert format_bead(Bead((3,), ()), with_cost=False) == "[3]:[]"
    assert format_bead(Bead((), (4,)), with_cost=False) == "[]:[4]"


def test_parse_beads_reads_defr_lines_and_skips_blanks() -> None:
    beads = parse_beads(["[0]:[0, 1]\n", "", "[1, 2]:[]\t1.5", "[]:[2]"])
    assert beads == [Bead((0,), (0, 1)), Bead((1, 2), (), 1.5), Bead((), (2,))]


@pytest.mark.parametrize("line", ["0:1", "[a]:[1]", "[0]:[1]\tcheap", "[0] [1]"])
def test_parse_beads_rejects_malformed_lines(line: str) -> None:
    with pytest.raises(InvalidInput):
        parse_beads([line])


sides = st.lists(st.integers(0, 10_000), max_size=4).map(tuple)


@given(sides, sides, st.floats(0, 1e6, allow_nan=False))
def test_format_then_parse_round_trips(
    src: tuple[int, ...], tgt: tuple[int, ...], cost: float
) -> None:
    (parsed,) = parse_beads([format_bead(Bead(src, tgt, cost))])
    assert (parsed.src, parsed.tgt) == (src, tgt)
    assert parsed.cost == pytest.approx(cost, abs=1e-6)


def test_check_coverage_accepts_a_complete_alignment_and_rejects_gaps() -> None:
    beads = [Bead((0,), (0, 1)), Bead((1,), ()), Bead((2,), (2,))]
    check_coverage(beads, 3, 3)
    with pytest.raises(InvalidInput):
        check_coverage(beads, 4, 3)
    with pytest.raises(InvalidInput):
        check_coverage([Bead((0,), (1,))], 1, 2)


def test_mirrored_swaps_sides() -> None:
    assert Bead((0, 1), (2,), 3.0).mirrored() == Bead((2,), (0, 1), 3.0)
