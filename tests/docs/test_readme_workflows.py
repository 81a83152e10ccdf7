"""README workflows run as written: every ```sh block marked ``<!-- test: NAME -->`` is executed.

Each block runs with bash (``set -euo pipefail``) in a fresh temp directory holding the inputs
the README names, with ``.venv/bin`` on PATH and PARAMINE_DATABASE_URL on a temp SQLite file.
A marker may say ``needs="COMMAND"``: the block is skipped (with the reason) when that probe
fails. Blocks that deploy real infrastructure run only with PARAMINE_TEST_DEPLOY=1.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from shared.exports import read_tmx
from tests.unit.shared.test_exports_tmx import assert_tmx_14b

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
BIN = Path(sys.executable).parent
MARKER = re.compile(r'<!-- test: ([\w-]+)(?: needs="([^"]+)")? -->\n```sh\n(.*?)\n```', re.S)
DEPLOYING = {"compose", "kubernetes"}
WORKFLOW_HEADINGS = (
    "### Mine a WARC crawl",
    "### Export a clean corpus",
    "### Align two documents",
    "### Align words and mine phrase paraphrases",
    "### Train the tree model on your own site pairs",
    "### Build the thesaurus from your corpus",
    "### Deploy with compose",
    "### Scale on Kubernetes",
)


@dataclass(frozen=True)
class Block:
    name: str
    needs: str | None
    script: str


def readme_blocks() -> dict[str, Block]:
    text = README.read_text(encoding="utf-8")
    return {m[1]: Block(m[1], m[2], m[3]) for m in MARKER.finditer(text)}


# -- inputs ----------------------------------------------------------------------------------


def warc_record(url: str, html: bytes) -> bytes:
    """One gzipped WARC/1.0 response record (a WARC.gz is a concatenation of gzip members)."""
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        + f"Content-Length: {len(html)}\r\n\r\n".encode()
        + html
    )
    headers = (
        "WARC/1.0\r\n"
        "WARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\n"
        "WARC-Date: 2026-01-12T10:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{zlib.crc32(url.encode()):012d}>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return gzip.compress(headers + http + b"\r\n\r\n", mtime=0)


def make_warc(work: Path) -> None:
    crawl = REPO / "samples" / "crawl"
    records = [
        warc_record(
            f"https://museum.example.org/{lang}/visit.html",
            (crawl / f"museum.{lang}.html").read_bytes(),
        )
        for lang in ("en", "de")
    ]
    (work / "crawl.warc.gz").write_bytes(b"".join(records))


def copy_samples(work: Path) -> None:
    shutil.copytree(REPO / "samples", work / "samples")


def copy_thesaurus(work: Path) -> None:
    target = work / "services" / "thesaurus"
    target.mkdir(parents=True)
    shutil.copy(REPO / "services" / "thesaurus" / "sample_thesaurus.csv", target)


def in_repo(work: Path) -> None:
    return None


def nothing(work: Path) -> None:
    return None  # the block makes its own inputs, in a temporary directory


SETUP: dict[str, Callable[[Path], None]] = {
    "warc": make_warc,
    "corpus": copy_samples,
    "align": copy_samples,
    "words": nothing,
    "train-tree": copy_samples,
    "thesaurus": copy_thesaurus,
    "compose": in_repo,
    "kubernetes": in_repo,
}


# -- expected outputs --------------------------------------------------------------------------


def check_warc(work: Path, stdout: str) -> None:
    mined = [
        json.loads(line)
        for line in (work / "out" / "sentence_pairs.jsonl").read_text("utf-8").splitlines()
    ]
    assert len(mined) >= 5
    assert {(row["src_url"], row["tgt_url"]) for row in mined} == {
        ("https://museum.example.org/en/visit.html", "https://museum.example.org/de/visit.html")
    }
    data = (work / "pairs.tmx").read_bytes()
    assert_tmx_14b(data)
    units = read_tmx(io.BytesIO(data))
    assert units and all(u["src_lang"] == "en" and u["tgt_lang"] == "de" for u in units)
    assert len(units) <= len(mined)  # --min-score 0.9, above the default threshold: a subset
    src = (work / "corpus.en").read_text("utf-8").splitlines()
    tgt = (work / "corpus.de").read_text("utf-8").splitlines()
    assert len(src) == len(tgt) == len(mined)
    assert {(u["src"], u["tgt"]) for u in units} <= set(zip(src, tgt, strict=True))
    assert re.search(rf"\b{len(mined)} out/sentence_pairs.jsonl", stdout)


def check_corpus(work: Path, output: str) -> None:
    def records(name: str) -> list[dict[str, object]]:
        return [json.loads(line) for line in (work / name).read_text("utf-8").splitlines()]

    pairs, stored = records("pairs.jsonl"), records("stored.jsonl")
    en_de = [p for p in pairs if (p["src_lang"], p["tgt_lang"]) == ("en", "de")]
    assert all({"count", "method", "version", "model_version"} <= set(p) for p in pairs)
    assert len({(p["src"], p["tgt"]) for p in pairs}) == len(pairs)
    # left out of the default export: flagged pairs and pairs below the default threshold
    # (the content model keeps the sample's menus out of the store altogether)
    from services.sentence_align.pair_threshold import default_threshold

    kept = {(p["src"], p["tgt"]) for p in pairs}
    left_out = [p for p in stored if (p["src"], p["tgt"]) not in kept]
    assert len(stored) > len(pairs) and left_out
    assert all(p.get("flag") or float(p["score"]) < default_threshold() for p in left_out)
    assert "left out" in output  # standard error
    src = (work / "corpus.en").read_text("utf-8").splitlines()
    assert en_de and src == [p["src"] for p in en_de]
    assert re.search(rf"^\s*{len(en_de) + 1}$", output, re.M)  # header and pairs, counted by wc


def check_align(work: Path, stdout: str) -> None:
    pairs = [json.loads(line) for line in (work / "museum.jsonl").read_text("utf-8").splitlines()]
    assert len(pairs) >= 5 and all(set(p) == {"src", "tgt", "score"} for p in pairs)
    assert any("Öffnungszeiten" in p["tgt"] and "Opening hours" in p["src"] for p in pairs)
    assert stdout.splitlines() == (work / "museum.jsonl").read_text("utf-8").splitlines()[:3]


def check_words(work: Path, stdout: str) -> None:
    default = (work / "links.txt").read_text("utf-8").splitlines()
    assert len(default) == 2
    # the identical words of each pair, and "passed away" ~ "died" from WordNet/lemma evidence
    assert {"0-0", "1-1", "2-2"} <= set(default[0].split())
    assert {"0-0", "2-2", "3-3", "4-4"} <= set(default[1].split())
    model = json.loads((work / "my-model.json").read_text("utf-8"))
    assert model["format"] == "paramine-word-model"
    own = [line for line in stdout.splitlines() if re.fullmatch(r"(\d+-\d+ ?)+", line)]
    assert len(own) == 2 and "0-0" in own[0].split()


def check_train_tree(work: Path, stdout: str) -> None:
    model = json.loads((work / "tree-model.json").read_text("utf-8"))
    assert model, "the trained model file is empty"


def check_thesaurus(work: Path, stdout: str) -> None:
    assert "wlsp:" in stdout and "14 new observations" in stdout
    similarity = [line for line in stdout.splitlines() if re.fullmatch(r"-?\d+(\.\d+)?", line)]
    assert len(similarity) == 1 and float(similarity[0]) > 0  # 先生 and 教師 share contexts
    rows = (work / "similarity.csv").read_text("utf-8").splitlines()
    assert rows[0] == "class_a,class_b,label_a,label_b,similarity,round" and len(rows) > 1
    with np.load(work / "similarity.npz") as data:
        size = len(data["class_ids"])
        assert data["values"].shape == (size, size) and size == 32


def check_nothing(work: Path, stdout: str) -> None:
    return None


CHECKS: dict[str, Callable[[Path, str], None]] = {
    "warc": check_warc,
    "corpus": check_corpus,
    "align": check_align,
    "words": check_words,
    "train-tree": check_train_tree,
    "thesaurus": check_thesaurus,
    "compose": check_nothing,
    "kubernetes": check_nothing,
}


# -- tests -----------------------------------------------------------------------------------


def test_every_workflow_has_a_section_and_every_marked_block_a_check() -> None:
    text = README.read_text(encoding="utf-8")
    assert [heading for heading in WORKFLOW_HEADINGS if heading not in text] == []
    assert set(readme_blocks()) == set(CHECKS) == set(SETUP)


def environment(work: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PARAMINE_DATABASE_URL": f"sqlite:///{work / 'paramine.db'}",
        "PARAMINE_METRICS_DIR": str(work / "metrics"),
    }
    for name in ("PARAMINE_REDIS_URL", "PARAMINE_API_KEY", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(name, None)
    return env


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_readme_block_runs_as_written(name: str, tmp_path: Path) -> None:
    block = readme_blocks()[name]
    work = REPO if SETUP[name] is in_repo else tmp_path
    env = environment(tmp_path)
    if name in DEPLOYING and os.environ.get("PARAMINE_TEST_DEPLOY") != "1":
        pytest.skip(
            f"README block {name!r} deploys real infrastructure; set PARAMINE_TEST_DEPLOY=1"
        )
    if block.needs:
        probe = subprocess.run(block.needs, shell=True, env=env, capture_output=True, timeout=60)
        if probe.returncode != 0:
            pytest.skip(f"README block {name!r} needs `{block.needs}`, which fails here")
    SETUP[name](work)
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + block.script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        f"README block {name!r} failed:\n{result.stdout}\n{result.stderr}"
    )
    CHECKS[name](work, result.stdout + result.stderr)
