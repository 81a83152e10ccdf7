"""Brute-force oracles for the HMM alignment kernels (forward-backward, Viterbi, IBM-1)."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from services.paraphrase.hmm import forward_backward, ibm1_estep, viterbi


def _model(n_source: int, jump: np.ndarray, p0: float) -> tuple[np.ndarray, np.ndarray]:
    """Initial vector and 2I x 2I transition matrix written out from the documented model."""
    max_jump = (len(jump) - 1) // 2

    def p_jump(i: int, previous: int) -> float:
        weights = [
            jump[min(max(k - previous, -max_jump), max_jump) + max_jump] for k in range(n_source)
        ]
        return float(weights[i] / sum(weights))

    initial = np.zeros(2 * n_source)
    transition = np.zeros((2 * n_source, 2 * n_source))
    for i in range(n_source):
        initial[i] = (1 - p0) * p_jump(i, -1)
        initial[n_source + i] = p0 * p_jump(i, -1)
    for s in range(2 * n_source):
        position = s % n_source
        for i in range(n_source):
            transition[s, i] = (1 - p0) * p_jump(i, position)
        transition[s, n_source + position] = p0
    return initial, transition


def _enumerate(emission: np.ndarray, jump: np.ndarray, p0: float):  # type: ignore[no-untyped-def]
    n_target, n_cols = emission.shape
    n_source = n_cols - 1
    initial, transition = _model(n_source, jump, p0)
    sequences = {}
    for states in itertools.product(range(2 * n_source), repeat=n_target):
        prob = initial[states[0]]
        for j, s in enumerate(states):
            if j:
                prob *= transition[states[j - 1], s]
            prob *= emission[j, s if s < n_source else n_source]
        sequences[states] = prob
    return sequences


small = st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(0, 10**6))


def _random_inputs(shape: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, float]:
    n_source, n_target, seed = shape
    rng = np.random.default_rng(seed)
    emission = rng.uniform(0.01, 1.0, size=(n_target, n_source + 1))
    jump = rng.uniform(0.05, 1.0, size=5)
    return emission, jump, float(rng.uniform(0.05, 0.5))


@given(small)
def test_forward_backward_matches_enumeration(shape: tuple[int, int, int]) -> None:
    emission, jump, p0 = _random_inputs(shape)
    sequences = _enumerate(emission, jump, p0)
    total = sum(sequences.values())
    gamma, jump_counts, loglik = forward_backward(emission, jump, p0)
    assert math.isclose(loglik, math.log(total), rel_tol=1e-9)
    expected = np.zeros_like(gamma)
    for states, prob in sequences.items():
        for j, s in enumerate(states):
            expected[j, s] += prob / total
    np.testing.assert_allclose(gamma, expected, atol=1e-10)
    # Expected jump-bucket counts: jumps into real states (from -1 at j = 0).
    max_jump = (len(jump) - 1) // 2
    n_source = emission.shape[1] - 1
    expected_jumps = np.zeros_like(jump)
    for states, prob in sequences.items():
        position = -1
        for s in states:
            if s < n_source:
                expected_jumps[min(max(s - position, -max_jump), max_jump) + max_jump] += (
                    prob / total
                )
            position = s % n_source
    np.testing.assert_allclose(jump_counts, expected_jumps, atol=1e-10)


@given(small)
def test_viterbi_matches_enumeration(shape: tuple[int, int, int]) -> None:
    emission, jump, p0 = _random_inputs(shape)
    sequences = _enumerate(emission, jump, p0)
    best_states = max(sequences, key=lambda k: sequences[k])
    states, logprob = viterbi(emission, jump, p0)
    assert math.isclose(logprob, math.log(sequences[best_states]), rel_tol=1e-9)
    assert math.isclose(
        sequences[tuple(int(s) for s in states)], sequences[best_states], rel_tol=1e-9
    )


def test_ibm1_estep_posteriors_sum_to_target_length() -> None:
    # One pair, I = 2, J = 3: pair_index rows e0, e1, NULL; each f_j distributes one count.
    lexicon = np.array([0.2, 0.5, 0.3, 0.7, 0.1, 0.4])
    pair_index = np.array([0, 1, 2, 3, 4, 5, 2, 2, 2], dtype=np.int64)
    counts = np.zeros(6)
    ibm1_estep(np.array([0]), np.array([2]), np.array([3]), pair_index, lexicon, 1.0, counts)
    assert counts.sum() == np.float64(3.0) or math.isclose(counts.sum(), 3.0)
    # f_0: t = (0.2, 0.7, 0.3) -> posterior of e0 = 0.2 / 1.2
    assert math.isclose(counts[0], 0.2 / 1.2)
