"""Monolingual word alignment: IBM Model 1 then HMM, both directions, identity prior (§3b).

Seed: paraphrase-corpus-alignment-evaluation.txt §2 (Cohn, Callison-Burch & Lapata 2008): the
gold corpus was pre-aligned with Giza++ trained both ways on monolingual pairs "augmented with
a word-identity lexicon" (Quirk et al. 2004) and symmetrised by intersection.

Our reading (docs/methods.md §3b): instead of appending identity sentence pairs to the training
data, the identity lexicon enters every M-step as Dirichlet pseudo-counts,
    t(f | e) = (c(e, f) + alpha · id(e, f) + eps) / sum_f' (c(e, f') + alpha · id(e, f') + eps)
with id = 1 for case-insensitive identity and ``stem_weight`` for a shared stem (common prefix),
which is the same prior without inventing sentences. Each direction runs IBM Model 1 (lexicon
only) and then the HMM alignment model (Vogel et al. 1996) with Och & Ney's empty word; see
``services.paraphrase.hmm`` for the recurrences. Links come from Viterbi in both directions,
symmetrised by intersection | union | grow-diag | grow-diag-final | grow-diag-final-and (Koehn
et al. 2003), or, as an option measured in ``benchmarks/paraphrase/word_align.py``, from the
averaged posteriors of both directions with a threshold ("posterior"). Intersection is the
default, as docs/methods.md §3b prescribes and benchmarks/results/word_align.md measures on
Edinburgh++ test against grow-diag-final-and (links and atomic phrase pairs).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from services.paraphrase import hmm
from shared.errors import InvalidInput

Symmetrization = Literal[
    "intersection", "union", "grow-diag", "grow-diag-final", "grow-diag-final-and", "posterior"
]
SYMMETRIZATIONS: tuple[str, ...] = (
    "intersection",
    "union",
    "grow-diag",
    "grow-diag-final",
    "grow-diag-final-and",
    "posterior",
)
Link = tuple[int, int]
TokenPair = tuple[Sequence[str], Sequence[str]]

_MODEL_VERSION = 1
_EPSILON = 1e-3  # pseudo-count on every co-occurring pair so no t(f|e) is zero


@dataclass(frozen=True)
class AlignerConfig:
    """Training and decoding parameters of :class:`WordAligner` (defaults: fitted on train)."""

    ibm1_iterations: int = 5
    hmm_iterations: int = 5
    identity_weight: float = 2.0
    stem_weight: float = 0.5
    null_prob: float = 0.1
    null_weight: float = 1.0
    max_jump: int = 7
    symmetrize: Symmetrization = "intersection"
    posterior_threshold: float = 0.4

    def validated(self) -> AlignerConfig:
        if self.symmetrize not in SYMMETRIZATIONS:
            raise InvalidInput(f"unknown symmetrization {self.symmetrize!r}")
        if not 0.0 < self.null_prob < 1.0:
            raise InvalidInput("null_prob must lie strictly between 0 and 1")
        if min(self.ibm1_iterations, self.hmm_iterations, self.max_jump) < 0:
            raise InvalidInput("iteration counts and max_jump must not be negative")
        return self


def stem_match(left: str, right: str) -> bool:
    """Shared stem: a common prefix of >= 4 characters covering all but <= 4 of the longer word."""
    if left == right or min(len(left), len(right)) < 4:
        return False
    common = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        common += 1
    return common >= 4 and common >= max(len(left), len(right)) - 4


def identity_score(left: str, right: str, stem_weight: float) -> float:
    """The identity lexicon: 1 for (case-insensitive) identity, stem_weight for a shared stem."""
    a, b = left.lower(), right.lower()
    if a == b:
        return 1.0
    return stem_weight if stem_match(a, b) else 0.0


@dataclass(frozen=True)
class TrainingProgress:
    """One finished EM iteration, reported to :meth:`WordAligner.fit`'s ``progress`` callback.

    ``direction`` 0 trains source->target, 1 target->source; ``model`` is "ibm1" or "hmm";
    ``step`` counts iterations over both directions and models (1..``steps``);
    ``log_likelihood`` is the corpus log-likelihood under the parameters of that E-step (for
    IBM-1 without the constant uniform-alignment term -J log(I + 1) per pair).
    """

    direction: int
    model: str
    iteration: int
    step: int
    steps: int
    log_likelihood: float


ProgressCallback = Callable[[TrainingProgress], None]


@dataclass
class _Direction:
    """One directional model: lexicon t(f|e) over sorted pair keys, and jump weights."""

    keys: NDArray[np.int64]
    probs: NDArray[np.float64]
    jump: NDArray[np.float64]


@dataclass
class _Corpus:
    """A corpus in one direction, flattened for the kernels (see hmm._emission)."""

    offsets: NDArray[np.int64]
    source_lens: NDArray[np.int64]
    target_lens: NDArray[np.int64]
    pair_index: NDArray[np.int64]
    keys: NDArray[np.int64]  # distinct pair keys e * stride + f, sorted
    prior: NDArray[np.float64]
    source_of_key: NDArray[np.int64]


@dataclass
class WordAligner:
    """IBM-1 + HMM word aligner for monolingual sentence pairs, trained in both directions."""

    config: AlignerConfig = field(default_factory=AlignerConfig)
    vocabulary: list[str] = field(default_factory=list)
    _directions: list[_Direction] = field(default_factory=list, repr=False)
    _word_index: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ vocabulary and corpora
    @property
    def _null(self) -> int:
        return len(self.vocabulary)

    @property
    def _stride(self) -> int:
        return len(self.vocabulary) + 2  # ids: words, NULL, one unknown-word id

    def _ids(self, tokens: Sequence[str], index: dict[str, int]) -> NDArray[np.int64]:
        unknown = len(self.vocabulary) + 1
        return np.array([index.get(t.lower(), unknown) for t in tokens], dtype=np.int64)

    def _corpus(self, pairs: Sequence[tuple[NDArray[np.int64], NDArray[np.int64]]]) -> _Corpus:
        stride = self._stride
        blocks = []
        offsets = np.zeros(len(pairs), dtype=np.int64)
        position = 0
        for k, (source, target) in enumerate(pairs):
            rows = np.append(source, self._null)
            # pair key of (e_i, f_j), row-major with the NULL row last (hmm._emission layout)
            blocks.append(np.add.outer(rows * stride, target).ravel())
            offsets[k] = position
            position += blocks[-1].shape[0]
        flat = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int64)
        keys, inverse = np.unique(flat, return_inverse=True)
        sources = keys // stride
        targets = keys % stride
        prior = np.zeros(keys.shape[0])
        words = self.vocabulary
        weight = self.config.identity_weight
        for n in np.flatnonzero((sources < len(words)) & (targets < len(words))):
            e, f = words[sources[n]], words[targets[n]]
            if e[:1] == f[:1]:
                prior[n] = weight * identity_score(e, f, self.config.stem_weight)
        return _Corpus(
            offsets=offsets,
            source_lens=np.array([len(s) for s, _ in pairs], dtype=np.int64),
            target_lens=np.array([len(t) for _, t in pairs], dtype=np.int64),
            pair_index=inverse.astype(np.int64).ravel(),
            keys=keys,
            prior=prior,
            source_of_key=sources,
        )

    # ------------------------------------------------------------------ training
    def fit(
        self, pairs: Sequence[TokenPair], progress: ProgressCallback | None = None
    ) -> WordAligner:
        """Train both directions on tokenised pairs (source tokens, target tokens).

        ``progress`` (optional) is called after every EM iteration with a
        :class:`TrainingProgress` (for progress bars; it never changes the result).
        """
        config = self.config.validated()
        clean = [(list(s), list(t)) for s, t in pairs if len(s) > 0 and len(t) > 0]
        if not clean:
            raise InvalidInput("no non-empty sentence pair to train the word aligner on")
        self.vocabulary = sorted({w.lower() for s, t in clean for w in (*s, *t)})
        index = {w: n for n, w in enumerate(self.vocabulary)}
        encoded = [(self._ids(s, index), self._ids(t, index)) for s, t in clean]
        self._directions = []
        steps = 2 * (config.ibm1_iterations + config.hmm_iterations)
        for number, direction in enumerate((encoded, [(t, s) for s, t in encoded])):
            corpus = self._corpus(direction)
            report = None
            if progress is not None:
                report = _reporter(progress, number, config.ibm1_iterations, steps)
            self._directions.append(_train_direction(corpus, config, hmm, report))
        return self

    # ------------------------------------------------------------------ decoding
    def _emission(
        self, direction: _Direction, source: Sequence[str], target: Sequence[str]
    ) -> NDArray[np.float64]:
        index = self._index
        stride = self._stride
        rows = np.append(self._ids(source, index), self._null)
        keys = np.add.outer(rows * stride, self._ids(target, index))
        found = np.searchsorted(direction.keys, keys)
        found = np.minimum(found, direction.keys.shape[0] - 1)
        hit = direction.keys[found] == keys
        emission = np.where(hit, direction.probs[found], 0.0)
        # Unseen pairs: the identity lexicon alone, with a small floor (model not trained on them).
        for i, j in zip(*np.nonzero(~hit), strict=True):
            word = source[i] if i < len(source) else None
            score = (
                0.0 if word is None else identity_score(word, target[j], self.config.stem_weight)
            )
            emission[i, j] = 1e-6 + 0.5 * score
        return np.ascontiguousarray(emission.T)

    @property
    def _index(self) -> dict[str, int]:
        if len(self._word_index) != len(self.vocabulary):
            self._word_index = {w: n for n, w in enumerate(self.vocabulary)}
        return self._word_index

    def _require_model(self) -> None:
        if len(self._directions) != 2:
            raise InvalidInput("the word aligner has not been trained (call fit first)")

    def directional(
        self, source: Sequence[str], target: Sequence[str]
    ) -> tuple[set[Link], set[Link]]:
        """Viterbi links source->target and target->source, both as (source i, target j).

        With an empty side there is nothing to link (every word of the other is generated by
        the empty word): two empty sets."""
        self._require_model()
        if not source or not target:
            return set(), set()  # the compiled Viterbi has no state or no step to run on
        forward, backward = self._directions
        p0 = self.config.null_prob
        states, _ = hmm.viterbi(self._emission(forward, source, target), forward.jump, p0)
        links_forward = {(int(s), j) for j, s in enumerate(states) if s < len(source)}
        states, _ = hmm.viterbi(self._emission(backward, target, source), backward.jump, p0)
        links_backward = {(i, int(s)) for i, s in enumerate(states) if s < len(target)}
        return links_forward, links_backward

    def directional_posteriors(
        self, source: Sequence[str], target: Sequence[str]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Link posteriors of each direction, both shaped (len(source), len(target)); all
        zero when a side is empty."""
        self._require_model()
        if not source or not target:
            # the compiled forward-backward reads out of bounds on an empty side (a crash)
            empty = np.zeros((len(source), len(target)))
            return empty, empty.copy()
        forward, backward = self._directions
        p0 = self.config.null_prob
        emission = self._emission(forward, source, target)
        gamma, _, _ = hmm.forward_backward(emission, forward.jump, p0)
        post_forward: NDArray[np.float64] = np.ascontiguousarray(gamma[:, : len(source)].T)
        emission = self._emission(backward, target, source)
        gamma, _, _ = hmm.forward_backward(emission, backward.jump, p0)
        post_backward: NDArray[np.float64] = np.ascontiguousarray(gamma[:, : len(target)])
        return post_forward, post_backward

    def posteriors(self, source: Sequence[str], target: Sequence[str]) -> NDArray[np.float64]:
        """Averaged link posteriors of both directions, shape (len(source), len(target))."""
        post_forward, post_backward = self.directional_posteriors(source, target)
        result: NDArray[np.float64] = 0.5 * (post_forward + post_backward)
        return result

    def align(self, source: Sequence[str], target: Sequence[str]) -> set[Link]:
        """Symmetrised links (i, j), i indexing source tokens and j target tokens, 0-based."""
        if not source or not target:
            return set()
        method = self.config.symmetrize
        if method == "posterior":
            matrix = self.posteriors(source, target)
            rows, cols = np.nonzero(matrix >= self.config.posterior_threshold)
            return {(int(i), int(j)) for i, j in zip(rows, cols, strict=True)}
        forward, backward = self.directional(source, target)
        return symmetrize(forward, backward, len(source), len(target), method)

    def with_config(self, **changes: Any) -> WordAligner:
        """The same trained model with other decoding parameters (symmetrize, threshold)."""
        return WordAligner(replace(self.config, **changes), self.vocabulary, self._directions)

    # ------------------------------------------------------------------ persistence (JSON only)
    def to_json(self) -> str:
        """The model state as JSON (no pickle): config, vocabulary, lexicons and jump weights."""
        self._require_model()
        state = {
            "version": _MODEL_VERSION,
            "config": asdict(self.config),
            "vocabulary": self.vocabulary,
            "directions": [
                {"keys": d.keys.tolist(), "probs": d.probs.tolist(), "jump": d.jump.tolist()}
                for d in self._directions
            ],
        }
        return json.dumps(state, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> WordAligner:
        """Rebuild a trained aligner from :meth:`to_json` output."""
        try:
            state = json.loads(text)
            if state["version"] != _MODEL_VERSION:
                raise InvalidInput(f"unsupported word-aligner model version {state['version']}")
            config = AlignerConfig(**state["config"]).validated()
            directions = [
                _Direction(
                    keys=np.array(d["keys"], dtype=np.int64),
                    probs=np.array(d["probs"], dtype=np.float64),
                    jump=np.array(d["jump"], dtype=np.float64),
                )
                for d in state["directions"]
            ]
            return cls(config, list(state["vocabulary"]), directions)
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed word-aligner model: {error}") from None


def _normalise(corpus: _Corpus, counts: NDArray[np.float64]) -> NDArray[np.float64]:
    # M-step with the identity prior as pseudo-counts (module docstring).
    mass = counts + corpus.prior + _EPSILON
    totals = np.bincount(corpus.source_of_key, weights=mass)
    result: NDArray[np.float64] = mass / totals[corpus.source_of_key]
    return result


def _initial_jump(max_jump: int) -> NDArray[np.float64]:
    # Start monotone: weight exp(-|d - 1|) peaks at the next word (d = +1).
    jumps = np.arange(-max_jump, max_jump + 1)
    return np.exp(-np.abs(jumps - 1).astype(np.float64))


def _reporter(
    progress: ProgressCallback, direction: int, ibm1_iterations: int, steps: int
) -> Callable[[str, int, float], None]:
    # Turns (model, iteration within it, log-likelihood) into TrainingProgress events.
    def report(model: str, iteration: int, log_likelihood: float) -> None:
        within = iteration if model == "ibm1" else ibm1_iterations + iteration
        progress(
            TrainingProgress(
                direction=direction,
                model=model,
                iteration=iteration,
                step=direction * steps // 2 + within,
                steps=steps,
                log_likelihood=log_likelihood,
            )
        )

    return report


def _train_direction(
    corpus: _Corpus,
    config: AlignerConfig,
    hmm: Any,
    report: Callable[[str, int, float], None] | None = None,
) -> _Direction:
    lexicon = _normalise(corpus, np.zeros(corpus.keys.shape[0]))
    for iteration in range(1, config.ibm1_iterations + 1):
        counts = np.zeros_like(lexicon)
        log_likelihood = hmm.ibm1_estep(
            corpus.offsets,
            corpus.source_lens,
            corpus.target_lens,
            corpus.pair_index,
            lexicon,
            config.null_weight,
            counts,
        )
        lexicon = _normalise(corpus, counts)
        if report is not None:
            report("ibm1", iteration, float(log_likelihood))
    jump = _initial_jump(config.max_jump)
    for iteration in range(1, config.hmm_iterations + 1):
        counts = np.zeros_like(lexicon)
        jump_counts = np.zeros_like(jump)
        log_likelihood = hmm.hmm_estep(
            corpus.offsets,
            corpus.source_lens,
            corpus.target_lens,
            corpus.pair_index,
            lexicon,
            jump,
            config.null_prob,
            counts,
            jump_counts,
        )
        lexicon = _normalise(corpus, counts)
        jump = (jump_counts + 1e-2) / (jump_counts.sum() + 1e-2 * jump.shape[0])
        if report is not None:
            report("hmm", iteration, float(log_likelihood))
    return _Direction(keys=corpus.keys, probs=lexicon, jump=jump)


# ---------------------------------------------------------------------- symmetrisation
_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def symmetrize(
    forward: set[Link], backward: set[Link], source_len: int, target_len: int, method: str
) -> set[Link]:
    """Combine two directional alignments (Koehn, Och & Marcu 2003; Moses' grow-diag-final)."""
    if method == "intersection":
        return forward & backward
    if method == "union":
        return forward | backward
    if method not in ("grow-diag", "grow-diag-final", "grow-diag-final-and"):
        raise InvalidInput(f"unknown symmetrization {method!r}")
    union = forward | backward
    links = set(forward & backward)
    aligned_source = {i for i, _ in links}
    aligned_target = {j for _, j in links}
    # grow-diag: repeatedly add union neighbours of current links that align a new word.
    grown = True
    while grown:
        grown = False
        for i in range(source_len):
            for j in range(target_len):
                if (i, j) not in links:
                    continue
                for di, dj in _NEIGHBOURS:
                    cand = (i + di, j + dj)
                    if (
                        cand in union
                        and cand not in links
                        and (cand[0] not in aligned_source or cand[1] not in aligned_target)
                    ):
                        links.add(cand)
                        aligned_source.add(cand[0])
                        aligned_target.add(cand[1])
                        grown = True
    if method == "grow-diag":
        return links
    # final(-and): add directional links whose source or (and) target word is still unaligned.
    for directional_links in (forward, backward):
        for i, j in sorted(directional_links):
            if (i, j) in links:
                continue
            free_source = i not in aligned_source
            free_target = j not in aligned_target
            ok = (
                (free_source and free_target)
                if method.endswith("-and")
                else (free_source or free_target)
            )
            if ok:
                links.add((i, j))
                aligned_source.add(i)
                aligned_target.add(j)
    return links
