"""The compiled Model 1 training gives exactly the table of the former numpy version."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from services.lexical.model1 import (
    EncodedSide,
    TranslationTable,
    _group_pairs,
    _group_pairs_dense,
    _group_pairs_sorted,
    _prune_rows,
    _training_entries,
    cue_similarity,
    encode,
    tokenize,
    train_model1,
)


def reference_train_model1(
    sides: tuple[EncodedSide, EncodedSide],
    bead_pairs: Sequence[tuple[int, int]],
    cues: dict[tuple[int, int], float],
    options: tuple[int, float, int] = (5, 1.0, 16),
) -> TranslationTable:
    """The numpy implementation train_model1 had before the compiled kernels (the oracle);
    ``options`` = (iterations, cue_weight, keep_per_word)."""
    src, tgt = sides
    iterations, cue_weight, keep_per_word = options
    n_src_vocab, n_tgt_vocab = len(src.vocabulary), len(tgt.vocabulary)
    pair_array = np.asarray(bead_pairs, dtype=np.int64).reshape(-1, 2)
    no_extra = np.empty((0, 2), dtype=np.int64)
    entry_f, entry_e, tokens = _training_entries(
        src.ids, src.start, tgt.ids, tgt.start, pair_array, no_extra
    )
    token_count = int(tokens[-1]) + 1 if len(tokens) else 0
    cue_keys = np.asarray(list(cues), dtype=np.int64).reshape(-1, 2)
    cue_values = np.asarray(list(cues.values()), dtype=np.float64)
    pair_key = np.concatenate([entry_f, cue_keys[:, 0]]) * n_tgt_vocab + np.concatenate(
        [entry_e, cue_keys[:, 1]]
    )
    unique_keys, inverse = np.unique(pair_key, return_inverse=True)
    n_entries = len(pair_key) - len(cue_keys)
    entry_pair, cue_pair = inverse[:n_entries], inverse[n_entries:]
    pair_f = unique_keys // n_tgt_vocab
    prior = np.zeros(len(unique_keys))
    np.add.at(prior, cue_pair, cue_weight * cue_values)

    def normalise(counts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        totals = np.bincount(pair_f, weights=counts, minlength=n_src_vocab)
        result: npt.NDArray[np.float64] = counts / np.maximum(totals[pair_f], 1e-300)
        return result

    table = normalise(np.ones(len(unique_keys)) + prior)
    for _ in range(iterations):
        weight = table[entry_pair]
        denominator = np.bincount(tokens, weights=weight, minlength=token_count)
        counts = np.bincount(
            entry_pair, weights=weight / denominator[tokens], minlength=len(unique_keys)
        )
        table = normalise(counts + prior)
    pair_e = unique_keys % n_tgt_vocab
    order = np.lexsort((-table, pair_f))
    pair_f, pair_e, table = pair_f[order], pair_e[order], table[order]
    row_start = np.searchsorted(pair_f, np.arange(n_src_vocab + 1))
    rank = np.arange(len(pair_f)) - row_start[pair_f]
    keep = (rank < keep_per_word) & (table > 1e-4)
    pair_f, pair_e, table = pair_f[keep], pair_e[keep], table[keep]
    return TranslationTable(
        np.searchsorted(pair_f, np.arange(n_src_vocab + 1)).astype(np.int64),
        pair_e.astype(np.int64),
        table.astype(np.float64),
    )


def random_document(rng: np.random.Generator, n: int, vocabulary: int) -> list[str]:
    words = [f"w{k}" for k in range(vocabulary)]
    # Zipf-like word choice, so rows have ties, long rows and pruned entries.
    weights = 1.0 / np.arange(1, vocabulary + 1)
    weights /= weights.sum()
    return [" ".join(rng.choice(words, size=int(rng.integers(0, 12)), p=weights)) for _ in range(n)]


def assert_same_table(left: TranslationTable, right: TranslationTable) -> None:
    assert np.array_equal(left.row_start, right.row_start)
    assert np.array_equal(left.target, right.target)
    assert np.array_equal(left.probability, right.probability)  # bit for bit


@pytest.mark.parametrize("seed", range(12))
def test_train_model1_matches_the_numpy_version(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    src = encode(random_document(rng, n, int(rng.integers(2, 80))), "en")
    tgt = encode(random_document(rng, n, int(rng.integers(2, 80))), "en")
    pairs = [(x, int(rng.integers(n))) for x in range(n) if rng.random() < 0.8]
    cues = cue_similarity(src.vocabulary, tgt.vocabulary)
    iterations = int(rng.integers(0, 7))
    cue_weight = float(rng.choice([0.0, 1.0, 5.0]))
    keep_per_word = int(rng.choice([1, 3, 16]))
    assert_same_table(
        train_model1(
            src,
            tgt,
            pairs,
            cues,
            iterations=iterations,
            cue_weight=cue_weight,
            keep_per_word=keep_per_word,
        ),
        reference_train_model1((src, tgt), pairs, cues, (iterations, cue_weight, keep_per_word)),
    )


def test_train_model1_without_pairs_or_cues() -> None:
    src, tgt = encode(["a b", "c"], "en"), encode(["x", "y z"], "en")
    for pairs, cues in (([], {}), ([], {(0, 1): 1.0}), ([(0, 1)], {})):
        assert_same_table(
            train_model1(src, tgt, pairs, cues), reference_train_model1((src, tgt), pairs, cues)
        )


def test_group_pairs_equals_np_unique() -> None:
    rng = np.random.default_rng(7)
    keys_f = rng.integers(0, 9, size=500)
    keys_e = rng.integers(0, 13, size=500)
    pair_f, pair_e, inverse = _group_pairs(keys_f, keys_e, 9, 13)
    unique_keys, expected_inverse = np.unique(keys_f * 13 + keys_e, return_inverse=True)
    assert np.array_equal(pair_f * 13 + pair_e, unique_keys)
    assert np.array_equal(inverse, expected_inverse)


@pytest.mark.parametrize("seed", range(4))
def test_both_grouping_paths_equal_np_unique(seed: int) -> None:
    """The dense path (small vocabularies) and the counting-sort path give np.unique's answer
    whichever of them _group_pairs picks."""
    rng = np.random.default_rng(seed)
    n_f, n_e = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    size = int(rng.integers(0, 300))
    keys_f, keys_e = rng.integers(0, n_f, size=size), rng.integers(0, n_e, size=size)
    unique_keys, expected_inverse = np.unique(keys_f * n_e + keys_e, return_inverse=True)
    for group in (_group_pairs_dense, _group_pairs_sorted):
        pair_f, pair_e, inverse = group(keys_f, keys_e, n_f, n_e)
        assert np.array_equal(pair_f * n_e + pair_e, unique_keys)
        assert np.array_equal(inverse, expected_inverse.reshape(-1))


def reference_prune_rows(
    pair_f: npt.NDArray[np.int64],
    pair_e: npt.NDArray[np.int64],
    table: npt.NDArray[np.float64],
    n_src_vocab: int,
    keep: int,
) -> tuple[list[int], list[int], list[float]]:
    """Each row sorted by probability, best first, ties in target order (a stable sort),
    cut to ``keep``, entries of 1e-4 or less left out."""
    row_start, target, probability = [0], [], []
    for f in range(n_src_vocab):
        row = sorted((-table[p], int(pair_e[p]), p) for p in np.flatnonzero(pair_f == f))
        kept = [(e, -minus) for minus, e, _ in row[:keep] if -minus > 1e-4]
        target += [e for e, _ in kept]
        probability += [value for _, value in kept]
        row_start.append(len(target))
    return row_start, target, probability


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("keep", [0, 1, 3, 16])
def test_pruned_rows_are_each_rows_best_with_ties_in_target_order(seed: int, keep: int) -> None:
    rng = np.random.default_rng(seed)
    n_f, n_e = int(rng.integers(1, 12)), int(rng.integers(1, 40))
    keys_f, keys_e = rng.integers(0, n_f, size=400), rng.integers(0, n_e, size=400)
    pair_f, pair_e, _ = _group_pairs(keys_f, keys_e, n_f, n_e)
    # few distinct values: many ties; some at or below the 1e-4 floor
    table = rng.choice([0.0, 1e-4, 0.05, 0.2, 0.5], size=pair_f.shape[0])
    row_start, target, probability = _prune_rows(pair_f, pair_e, table, n_f, keep)
    expected = reference_prune_rows(pair_f, pair_e, table, n_f, keep)
    assert row_start.tolist() == expected[0]
    assert target.tolist() == expected[1]
    assert probability.tolist() == expected[2]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        # vowel signs and viramas (Unicode marks) belong to their word
        ("भारत एक विशाल देश है।", ["भारत", "एक", "विशाल", "देश", "है", "।"]),
        ("ભારત દેશ છે.", ["ભારત", "દેશ", "છે", "."]),
        ("ဒါက ပထမ စာကြောင်း", ["ဒါက", "ပထမ", "စာကြောင်း"]),
        ("cafe\u0301 noir", ["cafe\u0301", "noir"]),  # a decomposed accent
        ("Hello, world!", ["hello", ",", "world", "!"]),
    ],
)
def test_words_keep_their_combining_marks(text: str, tokens: list[str]) -> None:
    assert tokenize(text, None) == tokens
