"""Tests of class counts, mutual information and Hindle SIM against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from services.thesaurus.cooccur import Cooccurrence
from services.thesaurus.similarity import (
    best_class_pair,
    build_model,
    class_counts,
    hindle_sim,
    mutual_information,
    sim_matrix,
    similarity_matrix,
    word_similarity,
)
from services.thesaurus.thesauri import Thesaurus
from shared.errors import InvalidInput
from tests.unit.thesaurus.conftest import two_level_tree

# Verbs × classes: f(v1, ·) = 2 1 0 0, f(v2, ·) = 0 1 1 0.  N = 5, f(v1) = 3, f(v2) = 2,
# f(C1) = 2, f(C2) = 2, f(C3) = 1, f(C4) = 0.
COUNTS = np.array([[2.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 0.0]])
MI_V1_C1 = math.log2(2 * 5 / (3 * 2))  # +0.737
MI_V1_C2 = math.log2(1 * 5 / (3 * 2))  # −0.263
MI_V2_C2 = math.log2(1 * 5 / (2 * 2))  # +0.322
MI_V2_C3 = math.log2(1 * 5 / (2 * 1))  # +1.322


def test_mutual_information_by_hand() -> None:
    mi = mutual_information(COUNTS)
    expected = np.array(
        [[MI_V1_C1, MI_V1_C2, np.nan, np.nan], [np.nan, MI_V2_C2, MI_V2_C3, np.nan]]
    )
    np.testing.assert_allclose(mi, expected, equal_nan=True)


def test_hindle_sim_needs_the_same_sign() -> None:
    got = hindle_sim(np.array([2.0, 2.0, -1.0, np.nan]), np.array([0.5, -0.5, -3.0, 1.0]))
    np.testing.assert_allclose(got, [0.5, 0.0, 1.0, 0.0])


def test_sim_by_hand_and_undefined_classes() -> None:
    model = similarity_matrix(
        class_counts(
            {
                Cooccurrence("a", "v1"): 2,
                Cooccurrence("b", "v1"): 1,
                Cooccurrence("b", "v2"): 1,
                Cooccurrence("c", "v2"): 1,
            },
            Thesaurus.build(
                "t",
                [("r", None, "")] + [(f"C{k}", "r", "") for k in range(1, 5)],
                [("a", "C1"), ("b", "C2"), ("c", "C3"), ("d", "C4")],
            ),
        )
    )
    values = model.values
    # C1, C2: v1 has opposite signs, v2 never saw C1.
    assert values[0, 1] == pytest.approx(0.0)
    # C2, C3: only v2, min(0.322, 1.322).
    assert values[1, 2] == pytest.approx(MI_V2_C2, rel=1e-6)
    assert values[0, 0] == pytest.approx(MI_V1_C1, rel=1e-6)
    assert values[1, 1] == pytest.approx(abs(MI_V1_C2) + MI_V2_C2, rel=1e-6)
    assert np.isnan(values[3]).all() and np.isnan(values[:, 3]).all()  # f(C4) = 0
    assert (model.rounds[:3, :3] == 0).all() and (model.rounds[3] == -1).all()
    assert model.total == 5.0
    shares = model.defined_share()
    assert shares[0] == pytest.approx(3 / 6) and shares[-1] == pytest.approx(3 / 6)


def _brute_force_sim(mi: np.ndarray) -> np.ndarray:
    classes = mi.shape[1]
    out = np.zeros((classes, classes))
    for i in range(classes):
        for j in range(classes):
            out[i, j] = hindle_sim(mi[:, i], mi[:, j]).sum()
    return out


SHAPES = st.tuples(st.integers(1, 6), st.integers(1, 7))


@given(arrays(np.int64, SHAPES, elements=st.integers(0, 4)))
def test_sim_kernel_matches_brute_force(counts: np.ndarray) -> None:
    if counts.sum() == 0:
        return
    mi = mutual_information(counts.astype(np.float64))
    np.testing.assert_allclose(sim_matrix(mi), _brute_force_sim(mi), rtol=1e-5, atol=1e-5)


def test_polysemous_noun_splits_its_count(tree: Thesaurus) -> None:
    counts = class_counts({Cooccurrence("銀", "磨く"): 4, Cooccurrence("謎", "解く"): 3}, tree)
    assert counts.verbs == ("磨く", "解く")
    row = counts.counts[counts.verbs.index("磨く")]
    np.testing.assert_allclose(row, [2.0, 0, 0, 2.0, 0])
    assert counts.mapped_tokens == 4 and counts.unmapped_tokens == 3
    everywhere = class_counts({Cooccurrence("銀", "磨く"): 4}, tree, polysemy="all")
    np.testing.assert_allclose(everywhere.counts[0], [4.0, 0, 0, 4.0, 0])


def test_polysemy_resolved_by_the_verbs_other_nouns(tree: Thesaurus) -> None:
    observed = {
        Cooccurrence("銀", "磨く"): 4,  # 銀 is in a1 (group P) and b1 (group Q)
        Cooccurrence("船", "磨く"): 2,  # monosemous, b2 in group Q: evidence for b1
        Cooccurrence("銀", "解く"): 2,  # no monosemous noun with 解く: unresolved
    }
    counts = class_counts(observed, tree, polysemy="verb")
    row = {verb: counts.counts[k] for k, verb in enumerate(counts.verbs)}
    np.testing.assert_allclose(row["磨く"], [0, 0, 0, 4.0, 2.0])
    np.testing.assert_allclose(row["解く"], [0, 0, 0, 0, 0])  # dropped, as the paper's counts
    assert (counts.polysemous_tokens, counts.resolved_tokens) == (6, 4)
    assert (counts.dropped_tokens, counts.generalised_tokens) == (2, 6.0)
    shared = class_counts(observed, tree, polysemy="verb-split")
    row = {verb: shared.counts[k] for k, verb in enumerate(shared.verbs)}
    np.testing.assert_allclose(row["解く"], [1.0, 0, 0, 1.0, 0])  # shared when unresolved
    assert (shared.dropped_tokens, shared.generalised_tokens) == (0, 8.0)
    with pytest.raises(InvalidInput, match="polysemy"):
        class_counts(observed, tree, polysemy="guess")


def test_polysemy_evidence_widens_up_the_tree() -> None:
    # root → X (P: p1 p2, R: r1), Y (Q: q1 q2); 銀 is in p1 and q1.
    deep = two_level_tree()
    leaf = {cid: k for k, cid in enumerate(deep.leaf_ids)}
    # No monosemous noun of 磨く in P or Q; 石 (r1) is under X, p1's grandparent.
    counts = class_counts(
        {Cooccurrence("銀", "磨く"): 3, Cooccurrence("石", "磨く"): 2}, deep, polysemy="verb"
    )
    assert counts.counts[0, leaf["p1"]] == 3 and counts.counts[0, leaf["q1"]] == 0
    # Evidence in the sibling group decides first: 船 (q2) is q1's sibling.
    counts = class_counts(
        {
            Cooccurrence("銀", "磨く"): 3,
            Cooccurrence("石", "磨く"): 5,
            Cooccurrence("船", "磨く"): 1,
        },
        deep,
        polysemy="verb",
    )
    assert counts.counts[0, leaf["q1"]] == 3 and counts.resolved_tokens == 3


def test_word_similarity_is_the_max_over_classes(tree: Thesaurus) -> None:
    counts = {
        Cooccurrence("犬", "飼う"): 3,
        Cooccurrence("猫", "飼う"): 2,
        Cooccurrence("車", "運転する"): 4,
        Cooccurrence("犬", "散歩する"): 2,
        Cooccurrence("車", "飼う"): 1,
    }
    model = build_model(counts, tree, polysemy="all")
    leaf = {cid: k for k, cid in enumerate(model.leaf_ids)}
    a1_a2 = float(model.values[leaf["a1"], leaf["a2"]])
    b1_a2 = float(model.values[leaf["b1"], leaf["a2"]])
    assert a1_a2 > 0
    # 銀 is in a1 and b1: its similarity to 猫 (a2) is the larger of the two.
    assert word_similarity(model, tree, "銀", "猫") == pytest.approx(max(a1_a2, b1_a2))
    match = best_class_pair(model, tree, "銀", "猫")
    assert match is not None and match.round == 0
    assert word_similarity(model, tree, "犬", "船") is None  # b2 never seen: undefined
    assert word_similarity(model, tree, "犬", "未知語") is None
