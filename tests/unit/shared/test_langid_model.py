"""py3langid's model kept uncompressed in the cache folder (shared.langid_model): the copy
scores as the library does, and a partial, broken or unwritable copy costs nothing but time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared import langid_model
from shared.langid_walk import feature_counts

TEXTS = [
    "Die Firma wurde im Jahr 2002 gegründet und baut seitdem Maschinen für Kunden.",
    "你要用歌斐木造一只方舟，分一间一间地造。",
    "HOME COLLECTIONS",
    "",
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PARAMINE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_kept_copy_is_read_back_mapped_and_scores_as_the_library(cache: Path) -> None:
    from_library = langid_model.model_arrays()  # no copy yet: the library's, and a copy kept
    folder = langid_model.model_folder()
    assert folder.is_relative_to(cache) and (folder / langid_model.COMPLETE).is_file()
    kept = langid_model.model_arrays()
    assert all(isinstance(kept[name], np.memmap) for name in ("ptc", "nextmove", "output"))
    for name in langid_model.ARRAYS:
        assert np.array_equal(kept[name], from_library[name])
    ours = langid_model.Scorer(kept, feature_counts)
    theirs = langid_model.Scorer(from_library, feature_counts)
    for text in TEXTS:
        assert np.array_equal(ours.probabilities(text), theirs.probabilities(text))
        assert ours.best(text) == theirs.best(text)


def test_a_partial_or_broken_copy_is_made_again(cache: Path) -> None:
    langid_model.model_arrays()
    folder = langid_model.model_folder()
    (folder / langid_model.COMPLETE).unlink()  # as if the writer died before the end
    assert not isinstance(langid_model.model_arrays()["ptc"], np.memmap)  # the library's
    assert isinstance(langid_model.model_arrays()["ptc"], np.memmap)  # the copy made again
    (folder / "ptc.npy").write_bytes(b"not an array")
    arrays = langid_model.model_arrays()
    assert not isinstance(arrays["ptc"], np.memmap)
    assert arrays["ptc"].dtype == np.float32 and arrays["ptc"].shape[1] == len(arrays["pc"])
    assert isinstance(langid_model.model_arrays()["ptc"], np.memmap)


def test_an_unwritable_cache_folder_means_no_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("PARAMINE_CACHE_DIR", str(blocker))  # a file where a folder must be
    arrays = langid_model.model_arrays()
    assert not isinstance(arrays["ptc"], np.memmap)
    assert langid_model.Scorer(arrays, feature_counts).best(TEXTS[0])[0] == "de"
