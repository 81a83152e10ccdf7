"""Tests of alignment evaluation against the seed's hand-computed example and real gold."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from services.paraphrase.evaluate import (
    CodedPair,
    GoldAlignment,
    kappa_c,
    parse_links,
    phrase_scores,
    read_jacana,
    set_agreement,
    word_scores,
)
from shared.errors import InvalidInput
from tests.conftest import kit_path

# A reconstruction of the seed's Figure 2 (the sentence itself is not in the scanned text):
# identical links discussed, the, and, . are sure for both annotators and never counted.
SOURCE = (
    *("They", "discussed", "the", "matter", "at", "length"),
    *("and", "reached", "an", "extensive", "agreement", "."),
)
TARGET = (
    *("Both", "parties", "discussed", "the", "issue", "in", "depth"),
    *("and", "arrived", "at", "a", "broad", "consensus", "."),
)
IDENTICAL = {(1, 2), (2, 3), (6, 7), (11, 13)}
SHARED = {
    (3, 4),
    (8, 10),
    (9, 11),
    (10, 12),
}  # matter-issue, an-a, extensive-broad, agreement-consensus
# Annotator A: sure = SHARED; possible adds the block "at length"="in depth" and two 1-1 links.
A_SURE = IDENTICAL | SHARED
A_POSSIBLE = A_SURE | {(4, 5), (4, 6), (5, 5), (5, 6), (0, 1), (7, 8)}
# Annotator B (gold): "at"-"in", "length"-"depth", "They"-"Both parties", "reached"-"arrived at".
B_SURE = IDENTICAL | {(3, 4), (8, 10), (9, 11), (4, 5), (0, 0)}
B_POSSIBLE = B_SURE | {(10, 12), (5, 6), (0, 1), (7, 8), (7, 9)}
GOLD_B = GoldAlignment(SOURCE, TARGET, frozenset(B_SURE), frozenset(B_POSSIBLE))


def test_seed_example_word_level() -> None:
    # |A_S| = 4, |B_S| = 5 (non-identical): precision 4/4, recall 4/5 (seed §3, Figure 2).
    scores = word_scores(
        [A_SURE], [GOLD_B], only_non_identical=True, predicted_possible=[A_POSSIBLE]
    )
    assert (scores.predicted, scores.gold_sure) == (4, 5)
    assert scores.precision == pytest.approx(4 / 4)
    assert scores.recall == pytest.approx(4 / 5)
    assert scores.f1 == pytest.approx(2 * 1 * 0.8 / 1.8)


def test_seed_example_phrase_level() -> None:
    # A atoms: 4 shared + block + They-parties + reached-arrived = 7; 5 are B phrase pairs.
    # B atoms: 4 shared + at-in + length-depth + They-Both parties + reached-arrived at = 8;
    # 4 are A phrase pairs. Precision 5/7, recall 4/8 (seed Table 2).
    scores = phrase_scores([A_POSSIBLE], [GOLD_B])
    assert (scores.predicted_atomic, scores.gold_atomic) == (7, 8)
    assert scores.precision == pytest.approx(5 / 7)
    assert scores.recall == pytest.approx(4 / 8)


def test_aer_hand_computed() -> None:
    gold = GoldAlignment(("a", "b"), ("c", "d"), frozenset({(0, 0)}), frozenset({(0, 0), (1, 1)}))
    scores = word_scores([{(0, 0), (1, 1), (0, 1)}], [gold])
    # AER = 1 - (|A&S| + |A&P|) / (|A| + |S|) = 1 - (1 + 2) / (3 + 1)
    assert scores.aer == pytest.approx(0.25)
    assert scores.precision == pytest.approx(2 / 3)
    assert scores.recall == pytest.approx(1.0)


def test_out_of_range_link_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        word_scores([{(50, 0)}], [GOLD_B])
    with pytest.raises(InvalidInput):
        parse_links("1-x")


def test_set_agreement_and_kappa_bounds() -> None:
    assert set_agreement(set(), set()) == 1.0
    assert set_agreement({(0, 1, 0, 1)}, {(0, 1, 0, 1), (1, 2, 1, 2)}) == 0.5
    pair = CodedPair(
        SOURCE, TARGET, frozenset(A_SURE), frozenset(A_POSSIBLE), frozenset(B_POSSIBLE)
    )
    result = kappa_c([pair, pair], samples=20, seed=3)
    again = kappa_c([pair, pair], samples=20, seed=3)
    assert result == again  # seeded Monte Carlo
    assert 0.0 <= result.chance < 1.0
    assert result.kappa == pytest.approx((result.observed - result.chance) / (1 - result.chance))


def test_kappa_at_chance_agreement_one_is_one_or_none_never_infinite() -> None:
    # theta_0 = 1 divided by zero and gave -inf: perfect agreement reported as the worst
    # value, and json.dumps wrote the non-JSON token -Infinity
    identical = CodedPair(SOURCE, TARGET, frozenset(A_SURE), frozenset(A_SURE), frozenset(A_SURE))
    result = kappa_c([identical, identical], samples=5)  # no edits: theta_0 = 1
    assert (result.observed, result.chance, result.kappa) == (1.0, 1.0, 1.0)
    assert json.loads(json.dumps(asdict(result), allow_nan=False))["kappa"] == 1.0
    # One edited cell in 49: with one sample, seed 1 flips no cell, so theta_0 = 1 > theta.
    source, target = tuple("abcdefg"), tuple("pqrstuv")
    initial = frozenset((i, i) for i in range(7))
    edited = CodedPair(source, target, initial, initial - {(3, 3)}, initial)
    undefined = kappa_c([edited], samples=1, seed=1)
    assert undefined.chance == 1.0 and undefined.observed < 1.0 and undefined.kappa is None
    assert json.loads(json.dumps(asdict(undefined), allow_nan=False))["kappa"] is None


def test_read_jacana_sure_and_possible(tmp_path: Path) -> None:
    record = {
        "id": "x",
        "source": "a b",
        "target": "c d",
        "sureAlign": "0-0",
        "possibleAlign": "1-1",
    }
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([record]))
    (gold,) = read_jacana(path)
    assert gold.sure == {(0, 0)} and gold.possible == {(0, 0), (1, 1)}


@pytest.mark.parametrize("field,links", [("sureAlign", "0-0 2-1"), ("possibleAlign", "1-2")])
def test_read_jacana_refuses_a_link_outside_the_pair(
    tmp_path: Path, field: str, links: str
) -> None:
    # read without a check, the gold failed later inside a scorer with an IndexError
    record = {"id": "x", "source": "a b", "target": "c d", "sureAlign": "0-0", field: links}
    path = tmp_path / "gold.json"
    path.write_text(json.dumps([record]))
    with pytest.raises(InvalidInput, match=r"record 0: link .* outside the sentence pair"):
        read_jacana(path)


def test_kappa_refuses_empty_sentences_and_stray_links() -> None:
    empty = CodedPair(SOURCE, (), frozenset(), frozenset(), frozenset())
    with pytest.raises(InvalidInput, match="coded pair 0 has an empty sentence"):
        kappa_c([empty], samples=2)  # was a ZeroDivisionError
    stray = frozenset({(len(SOURCE), 0)})
    pair = CodedPair(SOURCE, TARGET, frozenset(A_SURE), frozenset(A_SURE), stray)
    with pytest.raises(InvalidInput, match="coded pair 0: link"):
        kappa_c([pair], samples=2)  # was an IndexError


def test_read_edinburgh_pair_of_files() -> None:
    sure = kit_path("edinburgh-plusplus-jacana/gold.test.sure.json")
    both = kit_path("edinburgh-plusplus-jacana/gold.test.sure+poss.json")
    gold = read_jacana(sure, both)
    assert len(gold) == 306
    assert sum(len(g.sure) for g in gold) == 5766  # SOURCE.md
    assert sum(len(g.possible) for g in gold) == 6637
    assert all(g.sure <= g.possible for g in gold)


def test_a_possible_file_of_other_pairs_is_refused() -> None:
    # the train file given for test matched no id and was read as no possible links
    sure = kit_path("edinburgh-plusplus-jacana/gold.test.sure.json")
    other = kit_path("edinburgh-plusplus-jacana/gold.train.sure+poss.json")
    with pytest.raises(InvalidInput, match="not its sure\\+poss file"):
        read_jacana(sure, other)
