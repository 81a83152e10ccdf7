"""Numba kernels of the word aligners: IBM Model 1 and HMM E-steps, forward-backward, Viterbi.

Conventions shared by every kernel (docs/methods.md §3b; Vogel, Ney & Tillmann 1996 for the HMM,
Och & Ney 2003 §2.1 for its empty word):
- A sentence pair generates target words f_0..f_{J-1} from source words e_0..e_{I-1} or NULL.
- ``emission`` has shape (J, I + 1): column i < I is t(f_j | e_i), column I is t(f_j | NULL).
- HMM states 0..I-1 are "aligned to e_i"; state I + p is "aligned to NULL, last real position
  p" so the next jump is measured from p (Och & Ney's empty-word copies).
- Jumps are bucketed d = clamp(i - p, -K, K) with K = ``max_jump``; the jump weights ``jump``
  (length 2K + 1, index d + K) are renormalised over the I positions of each sentence:
      p(i | p, I) = jump[d(i - p)] / sum_{i'} jump[d(i' - p)]          (Vogel et al. eq. 4)
  The sentence start is the virtual position p = -1.
- Transitions: p(real i | state with position p) = (1 - p0) p(i | p, I);
  p(NULL copy of p | state with position p) = p0; every other NULL copy is unreachable.
  Initial: real i: (1 - p0) p(i | -1, I); NULL copy of p: p0 p(p | -1, I).
Forward and backward are scaled per position (Rabiner 1989 §V.A) so nothing underflows.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@njit(cache=True)
def jump_matrix(jump: FloatArray, source_len: int) -> FloatArray:
    """Row p + 1 (p = -1..I-1) holds p(i | p, I) over i = 0..I-1 (Vogel et al. eq. 4)."""
    max_jump = (jump.shape[0] - 1) // 2
    matrix = np.empty((source_len + 1, source_len))
    for row in range(source_len + 1):
        previous = row - 1
        total = 0.0
        for i in range(source_len):
            d = min(max(i - previous, -max_jump), max_jump)
            matrix[row, i] = jump[d + max_jump]
            total += matrix[row, i]
        for i in range(source_len):
            matrix[row, i] /= total
    return matrix


@njit(cache=True)
def forward_backward(
    emission: FloatArray, jump: FloatArray, p0: float
) -> tuple[FloatArray, FloatArray, float]:
    """State posteriors gamma (J, 2I), expected jump-bucket counts and log-likelihood."""
    n_target, n_cols = emission.shape
    n_source = n_cols - 1
    max_jump = (jump.shape[0] - 1) // 2
    jp = jump_matrix(jump, n_source)
    alpha = np.zeros((n_target, 2 * n_source))
    beta = np.ones((n_target, 2 * n_source))
    scale = np.zeros(n_target)
    # alpha_0(i) = (1 - p0) p(i | -1) t(f_0 | e_i);  alpha_0(I + p) = p0 p(p | -1) t(f_0 | NULL)
    for i in range(n_source):
        alpha[0, i] = (1.0 - p0) * jp[0, i] * emission[0, i]
        alpha[0, n_source + i] = p0 * jp[0, i] * emission[0, n_source]
    scale[0] = alpha[0].sum()
    alpha[0] /= scale[0]
    carried = np.zeros(n_source)
    for j in range(1, n_target):
        # A(p) = alpha_{j-1}(p) + alpha_{j-1}(I + p): both states sit at position p.
        for p in range(n_source):
            carried[p] = alpha[j - 1, p] + alpha[j - 1, n_source + p]
        # alpha_j(i) = (1 - p0) t(f_j | e_i) sum_p A(p) p(i | p)
        # alpha_j(I + p) = p0 t(f_j | NULL) A(p)
        for i in range(n_source):
            total = 0.0
            for p in range(n_source):
                total += carried[p] * jp[p + 1, i]
            alpha[j, i] = (1.0 - p0) * emission[j, i] * total
            alpha[j, n_source + i] = p0 * emission[j, n_source] * carried[i]
        scale[j] = alpha[j].sum()
        alpha[j] /= scale[j]
    # beta_j(s) depends only on the position p of s:
    # B(p) = (1 - p0) sum_i p(i | p) t(f_{j+1} | e_i) beta_{j+1}(i)
    #        + p0 t(f_{j+1} | NULL) beta_{j+1}(I + p)
    for j in range(n_target - 2, -1, -1):
        for p in range(n_source):
            total = 0.0
            for i in range(n_source):
                total += jp[p + 1, i] * emission[j + 1, i] * beta[j + 1, i]
            value = (1.0 - p0) * total + p0 * emission[j + 1, n_source] * beta[j + 1, n_source + p]
            beta[j, p] = value / scale[j + 1]
            beta[j, n_source + p] = value / scale[j + 1]
    gamma = alpha * beta
    jump_counts = np.zeros(jump.shape[0])
    for i in range(n_source):
        d = min(max(i + 1, -max_jump), max_jump)
        jump_counts[d + max_jump] += gamma[0, i]
    for j in range(1, n_target):
        for p in range(n_source):
            carried[p] = alpha[j - 1, p] + alpha[j - 1, n_source + p]
        # xi_j(p -> i) = A(p) (1 - p0) p(i | p) t(f_j | e_i) beta_j(i) / c_j
        for p in range(n_source):
            for i in range(n_source):
                xi = carried[p] * (1.0 - p0) * jp[p + 1, i] * emission[j, i] * beta[j, i] / scale[j]
                d = min(max(i - p, -max_jump), max_jump)
                jump_counts[d + max_jump] += xi
    return gamma, jump_counts, float(np.log(scale).sum())


@njit(cache=True)
def viterbi(emission: FloatArray, jump: FloatArray, p0: float) -> tuple[IntArray, float]:
    """Best state sequence (values < I are source positions, >= I are NULL) and its log-prob."""
    n_target, n_cols = emission.shape
    n_source = n_cols - 1
    jp = np.log(jump_matrix(jump, n_source))
    log_real = np.log(1.0 - p0)
    log_null = np.log(p0)
    log_emission = np.log(emission)
    delta = np.full((n_target, 2 * n_source), -np.inf)
    back = np.zeros((n_target, 2 * n_source), dtype=np.int64)
    for i in range(n_source):
        delta[0, i] = log_real + jp[0, i] + log_emission[0, i]
        delta[0, n_source + i] = log_null + jp[0, i] + log_emission[0, n_source]
    for j in range(1, n_target):
        for s in range(2 * n_source):
            position = s % n_source
            # delta_j(i) = max_s delta_{j-1}(s) + log (1 - p0) p(i | pos(s)) + log t(f_j | e_i)
            for i in range(n_source):
                score = delta[j - 1, s] + log_real + jp[position + 1, i] + log_emission[j, i]
                if score > delta[j, i]:
                    delta[j, i] = score
                    back[j, i] = s
            # delta_j(I + p) = max over s at position p of delta_{j-1}(s) + log p0 + log t(f_j|NULL)
            score = delta[j - 1, s] + log_null + log_emission[j, n_source]
            if score > delta[j, n_source + position]:
                delta[j, n_source + position] = score
                back[j, n_source + position] = s
    states = np.zeros(n_target, dtype=np.int64)
    states[n_target - 1] = int(np.argmax(delta[n_target - 1]))
    best = delta[n_target - 1, states[n_target - 1]]
    for j in range(n_target - 1, 0, -1):
        states[j - 1] = back[j, states[j]]
    return states, float(best)


@njit(cache=True)
def _emission(
    pair_index: IntArray, base: int, n_source: int, n_target: int, lexicon: FloatArray
) -> FloatArray:
    # pair_index[base + i * J + j] is the lexicon entry of (e_i, f_j); row i = I is NULL.
    emission = np.empty((n_target, n_source + 1))
    for i in range(n_source + 1):
        for j in range(n_target):
            emission[j, i] = lexicon[pair_index[base + i * n_target + j]]
    return emission


@njit(cache=True)
def ibm1_estep(
    offsets: IntArray,
    source_lens: IntArray,
    target_lens: IntArray,
    pair_index: IntArray,
    lexicon: FloatArray,
    null_weight: float,
    counts: FloatArray,
) -> float:
    """IBM Model 1 E-step: counts[e,f] += t(f|e) / sum_i t(f|e_i) (Brown et al. 1993 eq. 17)."""
    loglik = 0.0
    for k in range(offsets.shape[0]):
        n_source = source_lens[k]
        n_target = target_lens[k]
        emission = _emission(pair_index, offsets[k], n_source, n_target, lexicon)
        for j in range(n_target):
            emission[j, n_source] *= null_weight
            total = emission[j].sum()
            loglik += np.log(total)
            for i in range(n_source + 1):
                counts[pair_index[offsets[k] + i * n_target + j]] += emission[j, i] / total
    return loglik


@njit(cache=True)
def hmm_estep(
    offsets: IntArray,
    source_lens: IntArray,
    target_lens: IntArray,
    pair_index: IntArray,
    lexicon: FloatArray,
    jump: FloatArray,
    p0: float,
    counts: FloatArray,
    jump_counts: FloatArray,
) -> float:
    """HMM E-step over a corpus: expected lexicon and jump-bucket counts (Baum-Welch)."""
    loglik = 0.0
    for k in range(offsets.shape[0]):
        n_source = source_lens[k]
        n_target = target_lens[k]
        emission = _emission(pair_index, offsets[k], n_source, n_target, lexicon)
        gamma, sentence_jumps, sentence_loglik = forward_backward(emission, jump, p0)
        loglik += sentence_loglik
        jump_counts += sentence_jumps
        for j in range(n_target):
            null_mass = 0.0
            for i in range(n_source):
                counts[pair_index[offsets[k] + i * n_target + j]] += gamma[j, i]
                null_mass += gamma[j, n_source + i]
            counts[pair_index[offsets[k] + n_source * n_target + j]] += null_mass
    return loglik
