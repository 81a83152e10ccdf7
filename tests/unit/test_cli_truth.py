"""Runs that tell the truth, through the real ``paramine`` program (a process, as a user runs
it): failures counted and said, options read or refused loudly, errors in one line, help a
terminal user can read, exit codes as documented (0 done, 1 something failed, 2 a usage or
settings error)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.page_match.test_handler import ENGLISH, GERMAN

REPO = Path(__file__).resolve().parents[2]
PARAMINE = str(Path(sys.executable).parent / "paramine")
BINARY_PAGE = "GIF89a" + "".join(chr(c) for c in range(1, 31)) * 40


def run(
    *args: str, cwd: Path, store: str | None = None, check: int | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env["PARAMINE_DATABASE_URL"] = store or f"sqlite:///{cwd / 'store.db'}"
    env["COLUMNS"] = "200"
    done = subprocess.run(
        [PARAMINE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    if check is not None:
        assert done.returncode == check, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return done


def lett(path: Path, pages: list[tuple[str, str, str]]) -> Path:
    """A WMT16 .lett file: lang, mime, encoding, url, base64 html, base64 text."""
    lines = []
    for lang, url, html in pages:
        data = base64.b64encode(html.encode("utf-8", "surrogatepass")).decode()
        lines.append("\t".join([lang, "text/html", "utf-8", url, data, ""]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def crawl(tmp_path: Path) -> Path:
    """A page and its translation, and three pages of binary data (two without a URL)."""
    return lett(
        tmp_path / "crawl.lett",
        [
            ("en", "https://bridge.example/en/rhine.html", ENGLISH),
            ("de", "https://bridge.example/de/rhine.html", GERMAN),
            ("en", "https://bridge.example/img/a.jpg", BINARY_PAGE),
            ("en", "unknown_url", BINARY_PAGE + "a"),
            ("en", "unknown_url", BINARY_PAGE + "b"),
        ],
    )


def test_pages_page_match_refuses_are_counted_said_once_per_reason_and_fail_the_run(
    tmp_path: Path,
) -> None:
    # 27 pages refused by page_match: "failed 0", "failures: []", exit 0
    done = run("process", str(crawl(tmp_path)), "--json", cwd=tmp_path, check=1)
    report = json.loads(done.stdout)
    assert report["stages"]["page_match"]["failed"] == 3  # the two without a URL are two
    assert [(f["stage"], f["count"]) for f in report["failures"]] == [("page_match", 3)]
    assert "binary data" in report["failures"][0]["reason"]
    quiet = run("process", str(crawl(tmp_path)), "-q", cwd=tmp_path, check=1)
    said = [line for line in quiet.stderr.splitlines() if line.startswith("failed")]
    assert said == ["failed 3 pages (page_match): " + report["failures"][0]["reason"]]


def test_process_of_a_folder_reads_the_inputs_inside_and_says_so(tmp_path: Path) -> None:
    # `process samples/` read nothing and listed an output "Moses None-None"
    shutil.copytree(REPO / "samples", tmp_path / "samples")
    done = run("process", "samples", "--json", cwd=tmp_path, check=0)
    report = json.loads(done.stdout)
    assert report["page_pairs"] >= 4
    assert not [o for o in report["outputs"] if "None" in o["what"]]
    said = run("process", "samples", "--out", "o2", cwd=tmp_path, check=0).stderr
    assert "samples/crawl: page pairs" in said and "samples/pages.jsonl: single pages" in said


@pytest.mark.parametrize(
    ("options", "hint"),
    [
        (["--src-lang", "en"], "needs both --src-lang and --tgt-lang"),
        (["--url-key", r"/(\w+)\.html"], "needs both --src-lang and --tgt-lang"),
        (["--src-lang", "de", "--tgt-lang", "DE"], "are both 'de'"),
        (["--src-lang", "qq", "--tgt-lang", "de"], "is not a language"),
    ],
)
def test_missing_or_contradictory_languages_are_refused_with_a_hint(
    tmp_path: Path, options: list[str], hint: str
) -> None:
    # de/de paired each page with itself; --src-lang alone said "no page pair read"
    done = run("process", str(crawl(tmp_path)), "-q", *options, cwd=tmp_path, check=2)
    assert hint in " ".join(done.stderr.replace("│", " ").split())


def test_languages_are_read_in_any_case_or_by_name(tmp_path: Path) -> None:
    # "EN" found nothing (the CLI did not lowercase), "english" neither
    key = ["--url-key", r"bridge\.example/\w+/(\w+)\.html"]
    lower = run("process", str(crawl(tmp_path)), "--json", "--src-lang", "en", "--tgt-lang",
                "de", *key, "--out", "a", cwd=tmp_path)  # fmt: skip
    named = run("process", str(crawl(tmp_path)), "--json", "--src-lang", "EN", "--tgt-lang",
                "german", *key, "--out", "b", cwd=tmp_path)  # fmt: skip
    assert json.loads(lower.stdout)["page_pairs"] == json.loads(named.stdout)["page_pairs"] == 1


def test_a_run_that_pairs_nothing_says_what_it_read(tmp_path: Path) -> None:
    key = ["--url-key", r"bridge\.example/\w+/(\w+)\.html"]
    done = run("process", str(crawl(tmp_path)), "-q", "--src-lang", "en", "--tgt-lang", "fr",
               *key, cwd=tmp_path, check=1)  # fmt: skip
    assert "5 pages read (4 en, 1 de)" in done.stderr or "pages read (1 de, 4 en)" in done.stderr


def test_an_export_of_the_empty_direction_names_the_other_and_either_direction_turns_it(
    tmp_path: Path,
) -> None:
    # single pages stored de→en; `export --src-lang en --tgt-lang de` wrote 0 pairs, exit 0
    sample = lett(
        tmp_path / "two.lett",
        [
            ("de", "https://b.example/de/x.html", GERMAN),
            ("en", "https://b.example/en/x.html", ENGLISH),
        ],
    )
    run("process", str(sample), "-q", cwd=tmp_path, check=0)
    stored = json.loads(run("export", cwd=tmp_path, check=0).stdout.splitlines()[0])
    src, tgt = stored["tgt_lang"], stored["src_lang"]  # the direction not stored
    refused = run("export", "--src-lang", src, "--tgt-lang", tgt, cwd=tmp_path, check=1)
    assert f"holds {tgt}-{src} pairs" in refused.stderr
    turned = run("export", "--src-lang", src, "--tgt-lang", tgt, "--either-direction",
                 cwd=tmp_path, check=0)  # fmt: skip
    first = json.loads(turned.stdout.splitlines()[0])
    assert (first["src_lang"], first["src"]) == (src, stored["tgt"])
    assert "no job 'typo'" in run("export", "--job", "typo", cwd=tmp_path, check=1).stderr


def test_align_pages_detects_the_languages_and_says_so(tmp_path: Path) -> None:
    # a Japanese page was aligned as German without a word
    pages = [
        str(REPO / "samples/crawl/company.en.html"),
        str(REPO / "samples/crawl/company.ja.html"),
    ]
    done = run("align-pages", *pages, cwd=tmp_path, check=0)
    assert "detected --tgt-lang ja" in done.stderr and done.stdout.count('"src"') > 0
    named = run("align-pages", *pages, "--src-lang", "English", "--tgt-lang", "japanese",
                cwd=tmp_path, check=0)  # fmt: skip
    assert named.stdout == done.stdout and "detected" not in named.stderr
    same = run("align-pages", pages[0], pages[0], cwd=tmp_path, check=2)
    assert "both pages are 'en'" in " ".join(same.stderr.replace("│", " ").split())


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sqlite:////proc/paramine-store.db", "cannot create the SQLite store /proc/paramine"),
        ("mysql://user@localhost/db", "names a mysql database"),
        ("sqlite:////sys/paramine/store.db", "cannot create the SQLite store /sys/paramine"),
    ],
)
def test_a_store_that_cannot_be_had_is_one_line_naming_the_setting(
    tmp_path: Path, url: str, says: str
) -> None:
    # a 484-line traceback; ModuleNotFoundError; "invalid input: [Errno 1]"
    done = run("process", str(REPO / "samples/crawl"), "-q", cwd=tmp_path, store=url, check=2)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "PARAMINE_DATABASE_URL" in lines[0] and says in lines[0]


def test_bad_records_and_binary_files_are_one_short_line_each(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    record = {
        "src": {"url": "http://a/x", "lang": "en"},
        "tgt": {"url": "http://a/y", "lang": "de", "html": "<p>y</p>"},
    }
    missing.write_text(json.dumps(record) + "\n")
    listed = tmp_path / "list.jsonl"
    listed.write_text("[1, 2, 3]\n")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 80)
    expected = {
        missing: "missing.jsonl:1: not a page-pair record (src: html: field required)",
        listed: "list.jsonl:1: not a page-pair record (a JSON object per line, not list)",
        binary: "binary.jsonl: binary data, not JSON lines",
    }
    for path, reason in expected.items():
        done = run("process", str(path), "-q", cwd=tmp_path, check=1)
        failed = [line for line in done.stderr.splitlines() if line.startswith("failed")]
        assert len(failed) == 1 and failed[0].endswith(reason), (path, done.stderr)


def test_a_page_nested_too_deeply_is_named(tmp_path: Path) -> None:
    pair = tmp_path / "deep"
    pair.mkdir()
    (pair / "d.en.html").write_text("<html><body>" + "<div>" * 2_000 + "x" + "</div>" * 2_000)
    (pair / "d.de.html").write_text(GERMAN)
    done = run("process", str(pair), "-q", cwd=tmp_path, check=1)
    assert "d.en.html: HTML page nests deeper than" in done.stderr


def test_a_missing_input_is_a_usage_error(tmp_path: Path) -> None:
    done = run("process", "no-such-crawl.warc.gz", cwd=tmp_path, check=2)
    assert "does not exist" in done.stderr


def test_help_reads_as_a_terminal_user_expects(tmp_path: Path) -> None:
    # RST ``paramine``, {inputs}, <bool> on every flag, no --version
    helps = [run(*command, "--help", cwd=tmp_path, check=0).stdout
             for command in (["process"], ["export"], ["align-pages"], [])]  # fmt: skip
    for text in helps:
        assert "``" not in text and "<bool>" not in text and "{" + "inputs}" not in text
    assert "Usage: paramine process [OPTIONS] INPUTS..." in helps[0]
    assert run("--version", cwd=tmp_path, check=0).stdout.startswith("paramine ")


def test_an_unknown_option_suggests_only_a_close_one(tmp_path: Path) -> None:
    # click's loose cutoff suggested --all for --lang
    far = run("export", "--lang", "en", cwd=tmp_path, check=2).stderr
    near = run("export", "--srclang", "en", cwd=tmp_path, check=2).stderr
    assert "No such option: --lang" in far and "--all" not in far
    assert "--src-lang" in near


def test_every_option_of_every_command_is_described() -> None:
    import typer

    from services.cli import app
    from services.cli.help import options, tidy_help

    root = tidy_help(typer.main.get_command(app))
    undescribed = [(name, option.opts) for name, option in options(root) if not option.help]
    assert undescribed == []


def test_a_piped_summary_keeps_each_path_on_one_line(tmp_path: Path) -> None:
    # piped, the tables wrapped at 80 columns mid-path
    env_out = run("process", str(REPO / "samples/crawl"), "--out", "a-long-output-folder-name/x",
                  cwd=tmp_path, check=0).stdout  # fmt: skip
    assert "a-long-output-folder-name/x/sentence_pairs.jsonl" in env_out
