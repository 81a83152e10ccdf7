"""The user docs run as written: every ```sh block of README.md and docs/*.md is executed.

A block is marked ``<!-- test: NAME -->`` (or ``<!-- tested-by: PATH -->`` when another test
runs it: the README's ``make run`` / ``make test``). Each block runs with bash
(``set -euo pipefail``) in a fresh temp directory holding the inputs it names, with
``.venv/bin`` on PATH and PARAMINE_DATABASE_URL on a temp SQLite file. A marker may say
``needs="COMMAND"``: the block is skipped (with the reason) when that probe fails. The
gateway's port 8000 becomes a free port, and a block that names the local Redis and
PostgreSQL gets a Redis database and a PostgreSQL database of its own, so a run never touches
what a user keeps there. Blocks that deploy real infrastructure run only with
PARAMINE_TEST_DEPLOY=1.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from services.export.tmx import read_tmx
from tests.unit.export.test_tmx import assert_tmx_14b

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = (README, *sorted((REPO / "docs").glob("*.md")))
BIN = Path(sys.executable).parent
SH_BLOCK = re.compile(r"```sh\n(.*?)\n```", re.S)
MARKER = re.compile(
    r'<!-- (test|tested-by): ([\w./-]+)(?: needs="([^"]+)")? -->\n```sh\n(.*?)\n```', re.S
)
DEPLOYING = {"compose", "kubernetes"}
SLOW = {"tour-distributed": 900}  # five workers, the scheduler and the gateway start first
README_LIMIT = 12 * 1024
# The block's Redis and PostgreSQL, replaced by ones of the test's own.
USER_REDIS = "redis://127.0.0.1:6379/0"
USER_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
TEST_REDIS = os.environ.get("PARAMINE_TEST_DOCS_REDIS_URL", "redis://127.0.0.1:6379/12")
WORKFLOW_HEADINGS = (
    "## Mine a WARC crawl",
    "## Export a clean corpus",
    "## Align two documents",
    "## Align words and mine phrase paraphrases",
    "## Train the tree model on your own site pairs",
    "## Build the thesaurus from your corpus",
    "## Deploy with compose",
    "## Scale on Kubernetes",
)


@dataclass(frozen=True)
class Block:
    name: str
    needs: str | None
    script: str
    doc: Path


def marked_blocks() -> Iterator[tuple[str, str, str | None, str, Path]]:
    for doc in DOCS:
        for m in MARKER.finditer(doc.read_text(encoding="utf-8")):
            yield m[1], m[2], m[3], m[4], doc


def doc_blocks() -> dict[str, Block]:
    return {
        name: Block(name, needs, script, doc)
        for kind, name, needs, script, doc in marked_blocks()
        if kind == "test"
    }


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
    "tour-process": copy_samples,
    "tour-viewer": copy_samples,
    "tour-distributed": copy_samples,
    "commands-export": copy_samples,
    "commands-align": copy_samples,
    "download": copy_samples,
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


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def tmx_units(path: Path, src: str, tgt: str) -> list[dict[str, str]]:
    data = path.read_bytes()
    assert_tmx_14b(data)
    units = read_tmx(io.BytesIO(data))
    assert units and all(u["src_lang"] == src and u["tgt_lang"] == tgt for u in units)
    return units


def moses_pair(work: Path, prefix: str, src: str, tgt: str) -> list[tuple[str, str]]:
    sources = (work / f"{prefix}.{src}").read_text("utf-8").splitlines()
    targets = (work / f"{prefix}.{tgt}").read_text("utf-8").splitlines()
    assert sources and len(sources) == len(targets)
    return list(zip(sources, targets, strict=True))


def check_tour_process(work: Path, output: str) -> None:
    pairs = moses_pair(work, "corpus", "en", "de")
    assert ("==> corpus.en <==\n" + pairs[0][0]) in output  # head shows the first pair
    units = tmx_units(work / "pairs.tmx", "en", "de")
    assert {(u["src"], u["tgt"]) for u in units} == set(pairs)
    assert (work / "out" / "sentence_pairs.jsonl").exists()


def check_tour_viewer(work: Path, output: str) -> None:
    page = json.loads(next(line for line in output.splitlines() if line.startswith('{"items"')))
    assert 1 <= len(page["items"]) <= 2
    assert all(i["src_lang"] == "en" and i["tgt_lang"] == "de" and i["src"] for i in page["items"])
    assert re.search(r"^1$", output, re.M)  # the viewer's page has its title


def check_tour_distributed(work: Path, output: str) -> None:
    status = json.loads(next(line for line in output.splitlines() if '"state"' in line))
    assert status["state"] == "done" and status["failures"] == []
    assert status["completed"] == status["pairs"] == 4 and status["sentence_pairs"] > 0
    rows = [line for line in output.splitlines() if line.count("\t") >= 4]
    assert rows[0].startswith("src\ttgt\tscore") and len(rows) == 3


def check_commands_export(work: Path, output: str) -> None:
    rows = read_jsonl(work / "pairs.jsonl")
    assert {(r["src_lang"], r["tgt_lang"]) for r in rows} >= {("en", "de"), ("en", "fr")}
    one = moses_pair(work, "pair", "en", "de")
    assert moses_pair(work, "corpus.en-de", "en", "de") == one
    assert (work / "corpus.en-fr.fr").exists()
    strong = (work / "strong.tsv").read_text("utf-8").splitlines()
    assert strong[0] == "src\ttgt" and len(strong) > 1
    turned = read_jsonl(work / "de-en.jsonl")
    assert turned and all((r["src_lang"], r["tgt_lang"]) == ("de", "en") for r in turned)
    assert {(r["tgt"], r["src"]) for r in turned} == set(one)


def check_commands_align(work: Path, output: str) -> None:
    for name in ("rail.jsonl", "rail-flat.jsonl"):
        pairs = read_jsonl(work / name)
        assert pairs and all(set(p) == {"src", "tgt", "score"} for p in pairs), name
    content = read_jsonl(work / "content.jsonl")
    assert [Path(str(c["path"])).name for c in content] == ["museum.en.html", "museum.de.html"]
    assert "Opening hours" in str(content[0]["text"])
    beads = (work / "visit.beads").read_text("utf-8").splitlines()
    assert [b.split("\t")[0] for b in beads] == ["[0]:[0]", "[1]:[1]", "[2]:[2]"]
    assert "1.000" in output  # eval beads: the beads are the gold
    matched = [json.loads(line) for line in output.splitlines() if line.startswith('{"src_url"')]
    assert matched and all(m["by"] in ("url", "content") for m in matched)


def check_download(work: Path, output: str) -> None:
    tmx_units(work / "pairs.tmx", "en", "de")
    table = (work / "ppdb.txt").read_text("utf-8").splitlines()
    assert table and all(line.count(" ||| ") >= 4 for line in table)


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
    from services.sentence_align.classifier.pair_threshold import default_threshold

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
    "tour-process": check_tour_process,
    "tour-viewer": check_tour_viewer,
    "tour-distributed": check_tour_distributed,
    "commands-export": check_commands_export,
    "commands-align": check_commands_align,
    "download": check_download,
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


def test_every_sh_block_is_run_by_a_test() -> None:
    marked = list(marked_blocks())
    blocks = sum(len(SH_BLOCK.findall(doc.read_text(encoding="utf-8"))) for doc in DOCS)
    assert blocks == len(marked), "a ```sh block without a <!-- test: NAME --> marker"
    names = [name for kind, name, *_ in marked if kind == "test"]
    assert len(names) == len(set(names)), "two blocks of one name"
    for kind, path, _, script, _ in marked:
        if kind == "tested-by":  # a block another test runs: that test exists and says so
            first = script.split("#")[0].strip()
            assert first in (REPO / path).read_text(encoding="utf-8"), (path, first)
    assert set(doc_blocks()) == set(CHECKS) == set(SETUP)


def test_every_workflow_has_a_section() -> None:
    text = (REPO / "docs" / "workflows.md").read_text(encoding="utf-8")
    assert [heading for heading in WORKFLOW_HEADINGS if heading not in text] == []


def test_readme_is_short_and_links_the_docs_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= README_LIMIT
    for doc in ("docs/commands.md", "docs/workflows.md", "docs/operations.md"):
        assert f"]({doc})" in text, doc


def test_user_docs_name_no_issue_and_every_relative_link_exists() -> None:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        assert not re.search(r"\bissues? #?\d+", text, re.I), doc.name
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (doc.parent / target).exists(), (doc.name, target)


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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def own_services() -> Iterator[Callable[[str], str]]:
    """Rewrites a block's port 8000, Redis and PostgreSQL into the test's own."""
    port = str(free_port())
    databases: list[str] = []
    stack = contextlib.ExitStack()

    def rewrite(script: str) -> str:
        script = script.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        script = script.replace("--port 8000", f"--port {port}")
        if USER_REDIS in script or USER_POSTGRES in script:
            import redis

            from tests.integration.conftest import fresh_database

            redis.Redis.from_url(TEST_REDIS).flushdb()
            databases.append(stack.enter_context(fresh_database()))
            script = script.replace(USER_REDIS, TEST_REDIS).replace(USER_POSTGRES, databases[0])
        return script

    with stack:
        yield rewrite
        if databases:
            import redis

            redis.Redis.from_url(TEST_REDIS).flushdb()


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_doc_block_runs_as_written(
    name: str, tmp_path: Path, own_services: Callable[[str], str]
) -> None:
    block = doc_blocks()[name]
    work = REPO if SETUP[name] is in_repo else tmp_path
    env = environment(tmp_path)
    where = f"{block.doc.name} block {name!r}"
    if name in DEPLOYING and os.environ.get("PARAMINE_TEST_DEPLOY") != "1":
        pytest.skip(f"{where} deploys real infrastructure; set PARAMINE_TEST_DEPLOY=1")
    if block.needs:
        probe = subprocess.run(block.needs, shell=True, env=env, capture_output=True, timeout=60)
        if probe.returncode != 0:
            pytest.skip(f"{where} needs `{block.needs}`, which fails here")
    SETUP[name](work)
    result = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + own_services(block.script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=SLOW.get(name, 300),
    )
    assert result.returncode == 0, f"{where} failed:\n{result.stdout}\n{result.stderr}"
    CHECKS[name](work, result.stdout + result.stderr)


def exit_code_examples() -> list[tuple[int, str]]:
    text = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    table = text[text.index("## Exit codes") :].split("\n## ", 1)[0]
    return [(int(m[1]), m[2]) for m in re.finditer(r"^\| (\d) \|.*\| `([^`]+)` \|$", table, re.M)]


def test_the_exit_code_table_holds(tmp_path: Path) -> None:
    examples = exit_code_examples()
    assert [code for code, _ in examples] == [0, 1, 2]
    copy_samples(tmp_path)
    for code, command in examples:
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=environment(tmp_path),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == code, (command, result.stdout, result.stderr)
