"""The shipped word-alignment model: what ``align-words`` and the phrase tables run by default.

A :class:`WordModel` bundles the supervised link classifier (``link_classifier``), its two
decision thresholds, the settings of the unsupervised IBM-1 + HMM aligner whose posteriors it
reads, and the identity rule; :func:`train_word_model` fits it on gold-aligned corpora and
chooses the thresholds and the rule by cross-validation on that training gold alone.

Aligning a corpus (:meth:`WordModel.align_corpus`) trains the HMM aligner on the corpus itself
(unsupervised, as before), then decides every cell with the classifier. The identity rule keeps
the links a trivial aligner would give: the one-to-one matching of identical words
(:func:`identity_links`) adds a link wherever the classifier left both of its words unlinked,
so that on text unlike the training gold the output stays near "link identical words" (MSR RTE
premise/hypothesis pairs, where the unsupervised aligner alone fell below it).

The model file is JSON (no pickle) with a format name and version; another version or a
malformed file is refused with one line (InvalidInput). Pairs longer than
:data:`MAX_PAIR_TOKENS` a side are linked by the identity rule alone: the classifier's features
are (I, J, 84) arrays and the HMM is cubic in the length (a 10,000-token pair would need 67 GB).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from services.paraphrase.evaluate import GoldAlignment, word_scores
from services.paraphrase.link_classifier import LinkClassifier
from services.paraphrase.word_align import AlignerConfig, Link, TokenPair, WordAligner
from services.paraphrase.wordnet import default_wordnet
from shared.boosted import model_file_state
from shared.errors import InvalidInput

FORMAT = "paramine-word-model"
VERSION = 2  # 2: boosted stages (LightGBM model text); 1: logistic stages
DEFAULT_MODEL_PATH = Path(__file__).with_name("word_model.json")
MAX_PAIR_TOKENS = 250
FOLDS = 3
# Candidate thresholds for cells of different words and of identical words; the grid of the
# former benchmark's cross-validation (benchmarks/results/word_align.md).
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)

Progress = Callable[[str], None]


def identity_links(source: Sequence[str], target: Sequence[str]) -> set[Link]:
    """One-to-one links between identical tokens (case-insensitive), nearest relative position
    first: the "link identical words" baseline."""
    if not source or not target:
        return set()
    candidates = sorted(
        (abs(i / len(source) - j / len(target)), i, j)
        for i, a in enumerate(source)
        for j, b in enumerate(target)
        if a.lower() == b.lower()
    )
    used_source: set[int] = set()
    used_target: set[int] = set()
    links = set()
    for _, i, j in candidates:
        if i not in used_source and j not in used_target:
            links.add((i, j))
            used_source.add(i)
            used_target.add(j)
    return links


def with_identity_rule(links: set[Link], source: Sequence[str], target: Sequence[str]) -> set[Link]:
    """``links`` plus every identity link whose two words ``links`` leaves unlinked."""
    linked_source = {i for i, _ in links}
    linked_target = {j for _, j in links}
    kept = {
        (i, j)
        for i, j in identity_links(source, target)
        if i not in linked_source and j not in linked_target
    }
    return links | kept


@dataclass(frozen=True)
class WordModel:
    """A trained link classifier with its thresholds, aligner settings and training record."""

    classifier: LinkClassifier
    aligner_config: AlignerConfig = field(default_factory=AlignerConfig)
    identity_rule: bool = True
    trained_on: tuple[str, ...] = ()
    cross_validation: tuple[tuple[str, float], ...] = ()

    def missing_features(self) -> str | None:
        """Why some of the model's features are unavailable here (None when all are)."""
        if self.classifier.uses_wordnet and default_wordnet() is None:
            return (
                "WordNet is not installed (Debian wordnet-base, /usr/share/wordnet): the word "
                "model runs without its WordNet features"
            )
        return None

    def _runnable(self) -> LinkClassifier:
        # Without WordNet the WordNet features are 0, as for a word WordNet does not know.
        if self.missing_features() is not None:
            return replace(self.classifier, uses_wordnet=False)
        return self.classifier

    def align_corpus(
        self, pairs: Sequence[TokenPair], extra: Sequence[TokenPair] = ()
    ) -> list[set[Link]]:
        """Links of every pair: the HMM aligner trained on ``pairs`` + ``extra`` (unsupervised),
        the classifier's decision, then the identity rule. A pair with an empty side gets no
        link; one over :data:`MAX_PAIR_TOKENS` a side gets the identity links alone."""
        fitting = [_fits(s, t) for s, t in pairs]
        result: list[set[Link]] = [
            set() if fits or not s or not t else identity_links(s, t)
            for (s, t), fits in zip(pairs, fitting, strict=True)
        ]
        if not any(fitting):
            return result
        usable = [(s, t) for s, t in (*pairs, *extra) if _fits(s, t)]
        aligner = WordAligner(self.aligner_config).fit(usable)
        chosen = [k for k, fits in enumerate(fitting) if fits]
        found = self._runnable().align_pairs(aligner, [pairs[k] for k in chosen])
        for k, links in zip(chosen, found, strict=True):
            result[k] = self.decide(links, *pairs[k])
        return result

    def decide(self, links: set[Link], source: Sequence[str], target: Sequence[str]) -> set[Link]:
        """The classifier's links with the identity rule applied if the model uses it."""
        return with_identity_rule(links, source, target) if self.identity_rule else links

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "aligner_config": asdict(self.aligner_config),
                "identity_rule": self.identity_rule,
                "trained_on": list(self.trained_on),
                "cross_validation": [list(item) for item in self.cross_validation],
                "classifier": json.loads(self.classifier.to_json()),
            },
            ensure_ascii=False,
            indent=0,
            allow_nan=False,
        )

    @classmethod
    def from_json(cls, text: str) -> WordModel:
        state = model_file_state(
            text, file_format=FORMAT, version=VERSION, what="word model",
            command="paramine train-word-model",
        )  # fmt: skip
        try:
            config = AlignerConfig(**state["aligner_config"]).validated()
            classifier = LinkClassifier.from_json(json.dumps(state["classifier"]))
            return cls(
                classifier,
                config,
                bool(state["identity_rule"]),
                tuple(str(name) for name in state["trained_on"]),
                tuple((str(name), float(value)) for name, value in state["cross_validation"]),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInput(f"malformed word model: {error}") from None


def load_word_model(path: Path | None = None) -> WordModel:
    """The model at ``path``, or the one shipped with paramine (:data:`DEFAULT_MODEL_PATH`)."""
    where = DEFAULT_MODEL_PATH if path is None else path
    try:
        text = Path(where).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"cannot read word model {where}: {error}") from None
    return WordModel.from_json(text)


def _fits(source: Sequence[str], target: Sequence[str]) -> bool:
    return 0 < len(source) <= MAX_PAIR_TOKENS and 0 < len(target) <= MAX_PAIR_TOKENS


@dataclass(frozen=True)
class Decision:
    """One point of the cross-validation grid: thresholds and whether the identity rule is on."""

    threshold: float
    identical_threshold: float
    identity_rule: bool


def train_word_model(
    corpora: Sequence[tuple[str, Sequence[GoldAlignment]]],
    *,
    config: AlignerConfig | None = None,
    use_wordnet: bool = True,
    progress: Progress | None = None,
) -> WordModel:
    """Fit the classifier on every corpus' sure links, with the thresholds and the identity
    rule chosen by :data:`FOLDS`-fold cross-validation on these corpora alone.

    The choice maximises :func:`_criterion` over the cross-validated links. The HMM aligner
    whose posteriors the classifier reads is trained on the training sentences (no links), as
    ``align_corpus`` trains it on the sentences it aligns.
    """
    config = config or AlignerConfig()
    named = [(name, [g for g in gold if g.source and g.target]) for name, gold in corpora]
    named = [(name, gold) for name, gold in named if gold]
    if not named:
        raise InvalidInput("no gold-aligned pair to train the word model on")
    if use_wordnet and default_wordnet() is None:
        raise InvalidInput(
            "WordNet is not installed (Debian wordnet-base): install it or train with --no-wordnet"
        )
    say = progress or (lambda _: None)
    everything = [g for _, gold in named for g in gold]
    say(f"training the HMM aligner on {len(everything)} gold sentence pairs")
    aligner = WordAligner(config).fit([(g.source, g.target) for g in everything])
    folds = [k % FOLDS for k in range(len(everything))]
    probabilities: list[NDArray[np.float64]] = [np.zeros(0)] * len(everything)
    for fold in range(FOLDS):
        say(f"cross-validation fold {fold + 1} of {FOLDS}")
        inside = [g for g, f in zip(everything, folds, strict=True) if f != fold]
        model = LinkClassifier.fit(
            aligner, [(g.source, g.target, g.sure) for g in inside], use_wordnet=use_wordnet
        )
        held_out = [k for k in range(len(everything)) if folds[k] == fold]
        scored = model.probabilities_of_pairs(
            aligner, [(everything[k].source, everything[k].target) for k in held_out]
        )
        for k, p in zip(held_out, scored, strict=True):
            probabilities[k] = p
    scores = _grid_scores(named, everything, probabilities)
    best = max(scores, key=lambda decision: _criterion(scores[decision]))
    say("fitting the classifier on all gold")
    classifier = LinkClassifier.fit(
        aligner, [(g.source, g.target, g.sure) for g in everything], use_wordnet=use_wordnet
    ).with_threshold(best.threshold, best.identical_threshold)
    record = [
        ("threshold", best.threshold),
        ("identical_threshold", best.identical_threshold),
        ("identity_rule", float(best.identity_rule)),
    ]
    for (name, _), (f1, non_identical) in zip(named, scores[best], strict=True):
        record += [(f"cv_f1 {name}", f1), (f"cv_non_identical_f1 {name}", non_identical)]
    names = tuple(f"{name} ({len(gold)} pairs)" for name, gold in named)
    return WordModel(classifier, config, best.identity_rule, names, tuple(record))


def _grid_scores(
    named: Sequence[tuple[str, Sequence[GoldAlignment]]],
    everything: Sequence[GoldAlignment],
    probabilities: Sequence[NDArray[np.float64]],
) -> dict[Decision, list[tuple[float, float]]]:
    # per corpus, the CV F1 and non-identical F1 of every decision; corpora are consecutive
    # in everything
    bounds = np.cumsum([0] + [len(gold) for _, gold in named])
    cells = [_scored_cells(p, g) for p, g in zip(probabilities, everything, strict=True)]
    scores = {}
    for threshold in THRESHOLDS:
        for identical in THRESHOLDS:
            links = [
                {cell for cell, p, same in scored if p >= (identical if same else threshold)}
                for scored in cells
            ]
            for rule in (False, True):
                decided = links
                if rule:
                    decided = [
                        with_identity_rule(found, g.source, g.target)
                        for found, g in zip(links, everything, strict=True)
                    ]
                scores[Decision(threshold, identical, rule)] = [
                    (
                        word_scores(decided[start:stop], everything[start:stop]).f1,
                        word_scores(
                            decided[start:stop], everything[start:stop], only_non_identical=True
                        ).f1,
                    )
                    for start, stop in itertools.pairwise(bounds)
                ]
    return scores


def _scored_cells(
    probabilities: NDArray[np.float64], gold: GoldAlignment
) -> list[tuple[Link, float, bool]]:
    # the cells any grid threshold can link: (cell, p, identical words), as decide_links reads
    rows, cols = np.nonzero(probabilities >= min(THRESHOLDS))
    lower_t = [w.lower() for w in gold.target]
    return [
        ((int(i), int(j)), float(probabilities[i, j]), gold.source[i].lower() == lower_t[j])
        for i, j in zip(rows, cols, strict=True)
    ]


def _criterion(per_corpus: Sequence[tuple[float, float]]) -> float:
    """Mean over corpora of (F1 + non-identical F1) / 2: links between different words are
    the paraphrase evidence the phrase table is built from, and identical words are what a
    trivial aligner links already (each corpus counts once, whatever its size)."""
    return float(np.mean([(f1 + non_identical) / 2 for f1, non_identical in per_corpus]))
