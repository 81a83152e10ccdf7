"""Class similarity from cooccurrences: class counts, mutual information, Hindle's SIM.

docs/methods.md §4 steps 2–3 (Shinnou section 2.2–2.3, after Hindle 1990):

    MI(v, C)       = log2( f(v, C) · N / (f(v) · f(C)) )                       (eq. 1)
    sim(v, Ci, Cj) = min(|MI(v,Ci)|, |MI(v,Cj)|)  if MI(v,Ci) · MI(v,Cj) > 0, else 0
    SIM(Ci, Cj)    = Σ_v sim(v, Ci, Cj)

Decisions, written down as docs/methods.md asks:

* **Polysemy.** The paper resolves a polysemous noun "from the distribution of nouns in
  cooccurrence data which have the same verb" without saying how. ``polysemy="verb"`` does
  that: a noun with several leaf classes, seen with verb v, goes to the one class whose
  sibling group (same parent) holds the most monosemous-noun observations of v; when no
  sibling group has any, or several tie, the neighbourhood widens to the grandparent's
  leaves and so on up, among the tied classes, until one wins or the candidates share the
  ancestor. An observation left unresolved is dropped, as the paper's counts
  imply: 86.0% of 3.26M filtered observations generalise (≈ 2.80M), yet it reports 2,708,135
  generalised ones, about 96k fewer, which is the 100,256 polysemous observations it did not
  solve (572,529 − 472,273). ``polysemy="verb-split"`` shares an unresolved observation
  equally over the noun's classes instead (the choice before this was checked against the
  paper's counts). ``polysemy="split"`` (the default) always adds 1/k of each observation to
  each of the noun's k classes; ``polysemy="all"`` adds the full count to each.
* **Counts.** f(v, C) is the generalised count; f(v), f(C) and N are its margins, i.e. they
  count only the cooccurrences whose noun the thesaurus knows (the paper's "generalised
  cooccurrence data").
* **Unseen pairs.** When f(v, C) = 0 but f(C) > 0, MI(v, C) would be −∞; like Hindle we treat
  the verb as saying nothing about C (it adds 0 to SIM), so only verbs seen with both classes
  contribute. SIM(Ci, Cj) is undefined (NaN) exactly when f(Ci) = 0 or f(Cj) = 0.
* **Storage.** SIM over all leaf pairs is one dense float32 L × L array (NaN = undefined), the
  diagonal included (SIM(C, C), used when two words share a class); no dict of pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from services.thesaurus.cooccur import Cooccurrence
from services.thesaurus.thesauri import Thesaurus
from shared.errors import InvalidInput

FloatArray = npt.NDArray[np.float64]
Float32Array = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
RoundArray = npt.NDArray[np.int8]

CORPUS_ROUND = 0  # round tag of a similarity measured on the corpus
UNDEFINED_ROUND = -1  # round tag of a similarity nothing defined


@dataclass(frozen=True, eq=False)
class ClassCounts:
    """f(v, C): generalised cooccurrence counts, verbs × leaf classes (dense)."""

    verbs: tuple[str, ...]
    leaf_ids: tuple[str, ...]
    counts: FloatArray  # (len(verbs), len(leaf_ids))
    mapped_tokens: int  # cooccurrence observations whose noun is in the thesaurus
    unmapped_tokens: int  # observations whose noun is not
    polysemous_tokens: int = 0  # mapped observations whose noun has several classes
    resolved_tokens: int = 0  # of those, the ones ``polysemy="verb"`` resolved
    dropped_tokens: int = 0  # unresolved ones ``polysemy="verb"`` left out

    @property
    def generalised_tokens(self) -> float:
        """Observations that entered f(v, C) (the paper's "generalised cooccurrence data")."""
        return float(self.mapped_tokens - self.dropped_tokens)

    @property
    def verb_frequency(self) -> FloatArray:
        return np.asarray(self.counts.sum(axis=1), dtype=np.float64)

    @property
    def class_frequency(self) -> FloatArray:
        return np.asarray(self.counts.sum(axis=0), dtype=np.float64)

    @property
    def total(self) -> float:
        return float(self.counts.sum())


@dataclass(frozen=True, eq=False)
class SimilarityModel:
    """SIM between every pair of leaf classes, with the round that defined each value."""

    leaf_ids: tuple[str, ...]
    values: Float32Array  # L × L, NaN where undefined
    rounds: RoundArray  # L × L: 0 corpus, k > 0 estimation round k, -1 undefined
    class_frequency: FloatArray  # f(C) per leaf
    total: float  # N

    def defined_share(self) -> dict[int, float]:
        """Share of unordered pairs of distinct classes defined by each round (−1: undefined)."""
        # rounds is symmetric: count the whole matrix, drop the diagonal, halve.
        size = len(self.leaf_ids)
        full = np.bincount(self.rounds.ravel().astype(np.int64) + 1, minlength=1)
        diagonal = np.bincount(np.diagonal(self.rounds).astype(np.int64) + 1, minlength=len(full))
        pairs = max(1, size * (size - 1) // 2)
        return {
            tag - 1: float(count) / 2 / pairs
            for tag, count in enumerate(full - diagonal[: len(full)])
            if count
        }


_POLYSEMY = frozenset({"split", "all", "verb", "verb-split"})


def _verb_evidence(
    counts: Mapping[Cooccurrence, int], thesaurus: Thesaurus, verb_row: Mapping[str, int]
) -> list[tuple[FloatArray, IntArray]]:
    """Per height h = 1, 2, …: monosemous-noun observations of every verb under each ancestor
    h steps up (verbs × groups), and each leaf's group at that height."""
    rows: list[int] = []
    leaf_of: list[int] = []
    weights: list[float] = []
    for pair, count in counts.items():
        leaves = thesaurus.word_leaves(pair.noun)
        if len(leaves) == 1:
            rows.append(verb_row[pair.verb])
            leaf_of.append(leaves[0])
            weights.append(float(count))
    verbs = len(verb_row)
    levels = []
    for height in range(1, thesaurus.max_leaf_depth + 1):
        _, group = np.unique(thesaurus.leaf_ancestors(height), return_inverse=True)
        group = group.astype(np.int64).ravel()
        groups = int(group.max()) + 1 if len(group) else 0
        cell = np.asarray(rows, dtype=np.int64) * groups + group[np.asarray(leaf_of, np.int64)]
        evidence = np.bincount(cell, weights=weights, minlength=verbs * groups)
        levels.append((evidence.astype(np.float64).reshape(verbs, groups), group))
    return levels


def _resolve(
    leaves: tuple[int, ...], row: int, evidence: list[tuple[FloatArray, IntArray]]
) -> int | None:
    """The one class the verb's monosemous nouns point to, widening the neighbourhood from the
    sibling group up the tree while the candidates are in different groups; None if none."""
    candidates = np.asarray(leaves, dtype=np.int64)
    for counts, group in evidence:
        groups = group[candidates]
        if (groups == groups[0]).all():
            return None  # the candidates share this ancestor: nothing higher tells them apart
        score = counts[row, groups]
        if score.max() > 0:
            candidates = candidates[score == score.max()]
            if len(candidates) == 1:
                return int(candidates[0])
    return None


def class_counts(
    counts: Mapping[Cooccurrence, int], thesaurus: Thesaurus, *, polysemy: str = "split"
) -> ClassCounts:
    """Generalise each cooccurrence's noun to its leaf classes (§4 step 2) as a dense f(v, C)."""
    if polysemy not in _POLYSEMY:
        raise InvalidInput(f"polysemy must be one of {sorted(_POLYSEMY)}, not {polysemy!r}")
    verbs = sorted({pair.verb for pair in counts})
    verb_row = {verb: row for row, verb in enumerate(verbs)}
    matrix = np.zeros((len(verbs), len(thesaurus.leaves)), dtype=np.float64)
    by_verb = polysemy in {"verb", "verb-split"}
    if by_verb:
        evidence = _verb_evidence(counts, thesaurus, verb_row)
    mapped = unmapped = polysemous = resolved = dropped = 0
    for pair, count in counts.items():
        leaves = thesaurus.word_leaves(pair.noun)
        if not leaves:
            unmapped += count
            continue
        mapped += count
        row = verb_row[pair.verb]
        if len(leaves) > 1:
            polysemous += count
            best = _resolve(leaves, row, evidence) if by_verb else None
            if best is not None:
                leaves = (best,)
                resolved += count
            elif polysemy == "verb":
                dropped += count
                continue
        share = float(count) if polysemy == "all" else count / len(leaves)
        for leaf in leaves:
            matrix[row, leaf] += share
    return ClassCounts(
        tuple(verbs), thesaurus.leaf_ids, matrix, mapped, unmapped, polysemous, resolved, dropped
    )


def _sparse_mutual_information(
    counts: FloatArray,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], FloatArray]:
    """MI (eq. 1) of the seen (verb, class) cells only: verb rows, class columns, values."""
    verbs, classes = np.nonzero(counts)  # row-major: grouped by verb
    seen = counts[verbs, classes]
    total = float(seen.sum())
    verb_frequency = counts.sum(axis=1)
    class_frequency = counts.sum(axis=0)
    values = np.log2(seen * total / (verb_frequency[verbs] * class_frequency[classes]))
    return verbs.astype(np.int64), classes.astype(np.int64), values


def mutual_information(counts: FloatArray) -> FloatArray:
    """MI(v, C) = log2(f(v,C)·N / (f(v)·f(C))) (eq. 1); NaN where f(v, C) = 0."""
    verbs, classes, values = _sparse_mutual_information(counts)
    mi = np.full(counts.shape, np.nan, dtype=np.float64)
    mi[verbs, classes] = values
    return mi


def hindle_sim(mi_i: FloatArray, mi_j: FloatArray) -> FloatArray:
    """sim(v, Ci, Cj) per verb: min(|MI_i|, |MI_j|) when both have the same sign, else 0."""
    same_sign = np.nan_to_num(mi_i) * np.nan_to_num(mi_j) > 0
    return np.where(same_sign, np.minimum(np.abs(mi_i), np.abs(mi_j)), 0.0)


def _sim_kernel() -> object:
    # Built lazily so importing this module does not compile anything.
    import numba  # lazy: numba stays off readers of snapshots (gateway, export), who never compile

    @numba.njit(parallel=True, cache=True)
    def kernel(
        class_start: npt.NDArray[np.int64],
        class_verb: npt.NDArray[np.int64],
        class_mi: FloatArray,
        verb_start: npt.NDArray[np.int64],
        verb_class: npt.NDArray[np.int64],
        verb_mi: FloatArray,
        position: npt.NDArray[np.int64],
        out: Float32Array,
        rounds: RoundArray,
    ) -> None:
        # Rows and columns are the seen classes; position[i] is class i's row in ``out``.
        n_classes = len(position)
        for i in numba.prange(n_classes):
            row = np.zeros(n_classes, dtype=np.float64)
            for a in range(class_start[i], class_start[i + 1]):
                verb = class_verb[a]
                mi_i = class_mi[a]
                for b in range(verb_start[verb], verb_start[verb + 1]):
                    mi_j = verb_mi[b]
                    # sim(v, Ci, Cj) = min(|MI(v,Ci)|, |MI(v,Cj)|) if MI(v,Ci)·MI(v,Cj) > 0
                    if mi_i * mi_j > 0.0:
                        row[verb_class[b]] += min(abs(mi_i), abs(mi_j))
            target = position[i]
            for j in range(n_classes):
                out[target, position[j]] = row[j]
                rounds[target, position[j]] = CORPUS_ROUND

    return kernel


_KERNEL: object | None = None


def _sim_over_seen(
    verbs: npt.NDArray[np.int64],
    classes: npt.NDArray[np.int64],
    values: FloatArray,
    n_verbs: int,
    n_classes: int,
) -> tuple[Float32Array, RoundArray]:
    """SIM between the classes that have a (verb, class) cell; NaN / round −1 elsewhere.

    Only the seen classes enter the kernel (compact indices), so the cost is
    Σ_v (classes of v)² plus one write per cell of the seen × seen block; the full L × L
    arrays are allocated once, already undefined, and never masked afterwards.
    """
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = _sim_kernel()
    position = np.flatnonzero(np.bincount(classes, minlength=n_classes))
    compact = np.full(n_classes, -1, dtype=np.int64)
    compact[position] = np.arange(len(position))
    local = compact[classes]
    keep = values != 0.0  # MI = 0 adds nothing either way
    verbs, local, kept = verbs[keep], local[keep], values[keep]
    verb_start = np.zeros(n_verbs + 1, dtype=np.int64)
    np.cumsum(np.bincount(verbs, minlength=n_verbs), out=verb_start[1:])
    by_class = np.argsort(local, kind="stable")
    class_start = np.zeros(len(position) + 1, dtype=np.int64)
    np.cumsum(np.bincount(local, minlength=len(position)), out=class_start[1:])
    out = np.full((n_classes, n_classes), np.nan, dtype=np.float32)
    rounds = np.full((n_classes, n_classes), UNDEFINED_ROUND, dtype=np.int8)
    _KERNEL(  # type: ignore[operator]
        class_start,
        verbs[by_class],
        kept[by_class],
        verb_start,
        local,
        kept,
        position.astype(np.int64),
        out,
        rounds,
    )
    return out, rounds


def sim_matrix(mi: FloatArray) -> Float32Array:
    """SIM(Ci, Cj) = Σ_v sim(v, Ci, Cj) for all class pairs (0 where a class has no MI)."""
    seen = np.isfinite(mi)
    verbs, classes = np.nonzero(seen)
    n_verbs, n_classes = mi.shape
    out, _ = _sim_over_seen(verbs, classes, mi[verbs, classes], n_verbs, n_classes)
    return np.nan_to_num(out, copy=False, nan=0.0)


def similarity_matrix(
    counts: ClassCounts, *, verb_weights: FloatArray | None = None
) -> SimilarityModel:
    """SIM over all leaf pairs from the class counts; undefined where f(Ci) = 0 or f(Cj) = 0.

    ``verb_weights`` (one non-negative weight per verb, for the verb bootstrap of
    services/thesaurus/trend.py): SIM = Σ_v w_v · sim(v, Ci, Cj) with MI from the unweighted
    counts. Since min(|w·x|, |w·y|) = w·min(|x|, |y|) and w > 0 keeps the signs, this is SIM
    computed from w_v · MI(v, C); which pairs are defined does not change.
    """
    if not counts.leaf_ids:
        raise InvalidInput("the thesaurus has no leaf classes")
    verbs, classes, mi = _sparse_mutual_information(counts.counts)
    if verb_weights is not None:
        weights = np.asarray(verb_weights, dtype=np.float64)
        if weights.shape != (len(counts.verbs),) or (weights < 0).any():
            raise InvalidInput("verb_weights needs one non-negative weight per verb")
        mi = mi * weights[verbs]
    n_verbs, n_classes = counts.counts.shape
    # A class is seen (f(C) > 0) exactly when it has a nonzero (verb, class) cell.
    values, rounds = _sim_over_seen(verbs, classes, mi, n_verbs, n_classes)
    return SimilarityModel(counts.leaf_ids, values, rounds, counts.class_frequency, counts.total)


def build_model(
    counts: Mapping[Cooccurrence, int], thesaurus: Thesaurus, *, polysemy: str = "split"
) -> SimilarityModel:
    """Corpus similarities (§4 steps 2–3) over the thesaurus' leaf classes."""
    return similarity_matrix(class_counts(counts, thesaurus, polysemy=polysemy))


@dataclass(frozen=True)
class ClassPairMatch:
    """The class pair that gives two words their similarity, and the round that defined it."""

    value: float
    round: int
    first_class: str
    second_class: str


def best_class_pair(
    model: SimilarityModel, thesaurus: Thesaurus, first: str, second: str
) -> ClassPairMatch | None:
    """The pair of the words' classes with the largest defined SIM (None when there is none)."""
    rows = thesaurus.word_leaves(first)
    columns = thesaurus.word_leaves(second)
    if not rows or not columns:
        return None
    block = model.values[np.ix_(rows, columns)].astype(np.float64)
    if np.isnan(block).all():
        return None
    row, column = np.unravel_index(int(np.nanargmax(block)), block.shape)
    i, j = rows[int(row)], columns[int(column)]
    return ClassPairMatch(
        float(block[row, column]), int(model.rounds[i, j]), model.leaf_ids[i], model.leaf_ids[j]
    )


def word_similarity(
    model: SimilarityModel, thesaurus: Thesaurus, first: str, second: str
) -> float | None:
    """Similarity of two words: the largest SIM over their classes (None when undefined)."""
    match = best_class_pair(model, thesaurus, first, second)
    return None if match is None else match.value
