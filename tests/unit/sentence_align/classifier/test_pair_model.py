"""Tests of the pair classifier: its model file, calibration, threshold and the wrong pairs of
issue 50 scored below the default threshold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.lexical.registry import dictionary_for
from services.sentence_align.classifier.pair_features import FEATURE_NAMES, Candidate
from services.sentence_align.classifier.pair_model import (
    VERSION,
    Calibration,
    LabelledRows,
    PairModel,
    expected_calibration_error,
    fit_pair_model,
    load_pair_model,
    precision_threshold,
    reliability,
)
from services.sentence_align.classifier.pair_threshold import default_threshold
from shared.errors import InvalidInput
from tests.conftest import kit_path

MUSEUM = [
    (
        "The museum is open every day from nine to six.",
        "Das Museum ist täglich von neun bis sechs Uhr geöffnet.",
    ),
    (
        "Tickets for children under twelve are free.",
        "Eintrittskarten für Kinder unter zwölf Jahren sind kostenlos.",
    ),
    (
        "The new exhibition opens on 12 May 2026.",
        "Die neue Ausstellung wird am 12. Mai 2026 eröffnet.",
    ),
    ("Guided tours start at the main entrance.", "Führungen beginnen am Haupteingang."),
]
RAIL = [
    (
        "Because of construction work, the line to the airport will be served by buses in January.",
        "En raison de travaux, la ligne de l'aéroport sera desservie par des bus en janvier.",
    ),
    (
        "This was a frequent request from passengers who work late.",
        "C'était une demande fréquente des voyageurs qui travaillent tard.",
    ),
]
GENESIS = [
    ("In the beginning God created the heaven and the earth.", "起初，神创造天地。"),
    (
        "And the earth was without form, and void; and darkness was upon the face of the deep.",
        "地是空虚混沌，渊面黑暗；神的灵运行在水面上。",
    ),
    ("And God said, Let there be light: and there was light.", "神说：要有光，就有了光。"),
    (
        "And God saw the light, that it was good: and God divided the light from the darkness.",
        "神看光是好的，就把光暗分开了。",
    ),
]


def _page(pairs: list[tuple[str, str]], wrong: tuple[str, str]) -> list[Candidate]:
    # the DP's posterior at its most certain: the classifier must not follow it
    return [Candidate(src, tgt, 1, 1, 0.99) for src, tgt in [*pairs, wrong]]


@pytest.mark.parametrize(
    ("langs", "page", "wrong"),
    [
        (("en", "de"), MUSEUM, ("Home Collections", "Jetzt Tickets kaufen")),  # alt text, button
        (("en", "fr"), RAIL, ("Related Construction work in 2027", "Publicité : voyagez malin…")),
        (
            ("ja", "ja"),
            [("プロ野球の日程が発表された。", "プロ野球の日程が発表")],
            ("プロ野球、来季の日程が判明", "モバイルトップへ"),
        ),
        (
            ("de", "en"),
            [(b, a) for a, b in MUSEUM],
            ("Fussballstadion", "Fussballstadion Fussballstadion"),
        ),
    ],
)
def test_wrong_pairs_of_a_page_score_below_the_default_threshold(
    langs: tuple[str, str], page: list[tuple[str, str]], wrong: tuple[str, str]
) -> None:
    model = load_pair_model()
    scores = model.score_page(_page(page, wrong), *langs, dictionary_for(*langs))
    assert scores[-1] < model.threshold


def test_a_bible_verse_with_its_neighbours_chinese_scores_below_the_default_threshold() -> None:
    model = load_pair_model()
    shifted = [GENESIS[0], (GENESIS[1][0], GENESIS[2][1]), (GENESIS[2][0], GENESIS[3][1])]
    candidates = [Candidate(src, tgt, 1, 1, 0.99) for src, tgt in shifted]
    scores = model.score_page(candidates, "en", "zh", dictionary_for("en", "zh"))
    assert (scores[1:] < model.threshold).all()


def test_the_model_file_round_trips() -> None:
    model = load_pair_model()
    again = PairModel.from_json(model.to_json())
    assert again == model
    rows = np.zeros((3, len(FEATURE_NAMES)))
    assert np.array_equal(again.probabilities(rows), model.probabilities(rows))
    assert default_threshold() == model.threshold and 0.0 < model.threshold < 1.0


def _state() -> dict[str, object]:
    state: dict[str, object] = json.loads(load_pair_model().to_json())
    return state


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "malformed pair model (not JSON)"),
        (json.dumps({"format": "paramine-word-model", "version": 2}), "not a paramine pair model"),
        (
            json.dumps({**_state(), "version": VERSION + 1}),
            "retrain it with paramine train-pair-model",
        ),
        (json.dumps({**_state(), "features": ["length"]}), "its features are not this paramine's"),
        (json.dumps({**_state(), "threshold": 2.0}), "malformed pair model"),
        (
            json.dumps(
                {**_state(), "trees": {"kind": "lightgbm", "model": "tree\nno", "features": 2}}
            ),
            "malformed pair model",
        ),
        (
            json.dumps({**_state(), "calibration": {"knots": [0.0, 1.0], "values": [0.9, 0.1]}}),
            "not a non-decreasing map",
        ),
    ],
)
def test_a_malformed_or_other_version_model_file_is_refused_with_one_line(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "pair_model.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput, match=re.escape(message)) as refused:
        load_pair_model(path)
    assert "\n" not in str(refused.value)


@given(
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=1, max_size=60),
    st.lists(st.floats(0, 1), min_size=2, max_size=20),
)
def test_the_calibration_is_a_non_decreasing_map_onto_the_unit_interval(
    points: list[tuple[float, int]], probes: list[float]
) -> None:
    raw = np.array([p for p, _ in points])
    labels = np.array([float(y) for _, y in points])
    calibration = Calibration.fit(raw, labels)
    mapped = calibration(np.sort(np.array(probes)))
    assert (np.diff(mapped) >= -1e-12).all() and ((mapped >= 0) & (mapped <= 1)).all()
    assert Calibration.from_state(json.loads(json.dumps(calibration.state()))) == calibration


def test_threshold_reliability_and_calibration_error() -> None:
    scores = np.array([0.1, 0.2, 0.6, 0.7, 0.9, 0.95])
    labels = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    assert precision_threshold(scores, labels, 0.95) == 0.61
    table = reliability(scores, labels)
    assert sum(count for *_, count in table) == len(scores)
    assert expected_calibration_error(np.array([0.5, 0.5]), np.array([0.0, 1.0])) == 0.0
    assert expected_calibration_error(np.array([1.0, 1.0]), np.array([0.0, 0.0])) == 1.0


def test_fit_on_rows_of_three_folds() -> None:
    rng = np.random.default_rng(0)
    documents = []
    for fold in range(3):
        rows = rng.normal(size=(300, len(FEATURE_NAMES)))
        labels = (rows[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(np.float64)
        documents.append(
            LabelledRows(f"doc {fold}", "de-fr", fold, rows, labels, np.arange(300) % 2 == 0)
        )
    model = fit_pair_model(documents, trained_on=("synthetic",))
    assert 0.0 < model.threshold <= 0.99
    assert PairModel.from_json(model.to_json()) == model
    with pytest.raises(InvalidInput, match="no labelled rows"):
        fit_pair_model([])


def test_the_kit_documents_give_every_kind_of_wrong_pair() -> None:
    from services.sentence_align.classifier.pair_training import kit_document, labelled_pairs

    kit = kit_path("spanalign-sample-en-ja").parent
    document = kit_document(kit, "spanalign sample")
    pairs = labelled_pairs(document, [b for b in document.gold])
    origins = {pair.origin for pair in pairs}
    assert {"aligner", "gold", "shift 1", "random", "added"} <= origins
    assert all(pair.label == 0 for pair in pairs if pair.origin not in ("aligner", "gold"))
    gold = {
        (document.src[b.src[0]], document.tgt[b.tgt[0]])
        for b in document.gold
        if len(b.src) == len(b.tgt) == 1
    }
    made = {(p.candidate.src, p.candidate.tgt) for p in pairs if p.label == 0}
    assert not gold & made  # no gold pair made as a wrong one
