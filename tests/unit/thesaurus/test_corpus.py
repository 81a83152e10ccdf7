"""Tests of reading corpus files: plain text lines and the livedoor tarball layout."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from services.thesaurus.corpus import iter_sentences, split_sentences
from shared.errors import InvalidInput


def test_split_sentences() -> None:
    assert split_sentences("本を読む。水を飲む！終わり") == ["本を読む。", "水を飲む！", "終わり"]
    assert split_sentences("  ") == []


def test_text_file(tmp_path: Path) -> None:
    path = tmp_path / "corpus.txt"
    path.write_text("本を読む。水を飲む。\n\n車を運転する\n", encoding="utf-8")
    assert list(iter_sentences(path)) == ["本を読む。", "水を飲む。", "車を運転する"]


def test_livedoor_tarball_skips_headers_and_licences(tmp_path: Path) -> None:
    path = tmp_path / "ldcc.tar.gz"
    files = {
        "text/README.txt": "本を読む。\n",
        "text/topic-news/LICENSE.txt": "本を読む。\n",
        "text/topic-news/topic-news-1.txt": "http://example/1\n2012-01-01T00:00:00+0900\n題名\n水を飲む。車を運転する。\n",
    }
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    assert list(iter_sentences(path)) == ["題名", "水を飲む。", "車を運転する。"]
    # cut short: gzip's EOFError became click's bare "Aborted." with no reason
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(InvalidInput, match="truncated or corrupt archive"):
        list(iter_sentences(cut))
