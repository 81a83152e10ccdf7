"""Tests of the pair classifier's features on hand-made pairs."""

from __future__ import annotations

import math

import numpy as np

from services.sentence_align.classifier.pair_features import FEATURE_NAMES, Candidate, page_features

COLUMN = {name: k for k, name in enumerate(FEATURE_NAMES)}
PAGE = [
    Candidate("The hut was full.", "Die Hütte war voll."),
    Candidate("In the morning it snowed again.", "Am Morgen schneite es wieder."),
    Candidate("The hut opens in June 2026.", "Die Hütte öffnet im Juni 2026."),
    Candidate("The morning was cold.", "Der Morgen war kalt."),
]


def _feature(rows: np.ndarray, row: int, name: str) -> float:
    return float(rows[row, COLUMN[name]])


def test_one_row_of_every_feature_per_candidate() -> None:
    rows = page_features(PAGE, "en", "de")
    assert rows.shape == (len(PAGE), len(FEATURE_NAMES))
    assert page_features([], "en", "de").shape == (0, len(FEATURE_NAMES))
    # no dictionary: its features are missing, not zero; no posterior: missing too
    assert math.isnan(_feature(rows, 0, "dictionary_src_known"))
    assert math.isnan(_feature(rows, 0, "posterior"))


def test_numbers_copies_and_neighbours() -> None:
    candidates = [
        *PAGE,
        Candidate("Fussballstadion", "Fussballstadion Fussballstadion"),
        Candidate("Open in 2026.", "Geöffnet 2027.", tgt_after="Die Hütte war voll."),
    ]
    rows = page_features(candidates, "en", "de")
    assert _feature(rows, 2, "numbers_agreement") == 1.0  # 2026 on both sides
    assert _feature(rows, 0, "numbers_agreement") == -1.0  # no number on either side
    assert _feature(rows, 5, "numbers_agreement") == 0.0
    assert _feature(rows, 4, "copy_trigrams") > 0.6 and _feature(rows, 4, "self_repetition") == 0.5
    assert _feature(rows, 4, "identical_words") == 1.0
    assert _feature(rows, 0, "tgt_after_coverage") == -1.0  # no neighbour given
    assert _feature(rows, 5, "tgt_after_coverage") >= 0.0


def test_words_met_in_one_pair_only_do_not_cover_each_other() -> None:
    # Model 1 fits two menu items of unrelated words to each other; the coverage features
    # count only evidence from outside the pair (cues, words met in other pairs)
    rows = page_features([*PAGE, Candidate("Home Collections", "Jetzt Tickets kaufen")], "en", "de")
    assert _feature(rows, 4, "model1_tgt_coverage") == 0.0
    assert _feature(rows, 4, "model1_src_coverage") == 0.0
    assert _feature(rows, 0, "model1_tgt_coverage") > 0.0  # "hut", "war" recur on the page


def test_a_monolingual_pair_has_no_copy_features_and_the_identity_as_dictionary() -> None:
    same = [Candidate("プロ野球の日程が発表された。", "プロ野球の日程が発表された。")]
    rows = page_features(same, "ja", "ja")
    assert _feature(rows, 0, "copy_trigrams") == 0.0 and _feature(rows, 0, "identical_words") == 0.0
    assert _feature(rows, 0, "dictionary_src_coverage") == 1.0
