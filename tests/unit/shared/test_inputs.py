"""Crawler inputs: decoding, directory pairing, JSONL, .lett with URL-pattern pairing."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import pytest

from shared.errors import InvalidInput
from shared.ingest import build_job
from shared.inputs import (
    PairingOptions,
    PairSource,
    decode_html,
    pair_pages,
    read_page_pairs,
    strip_language,
)
from shared.schemas import Page
from tests.conftest import REPO, kit_path


def test_decode_respects_bom_meta_and_detection() -> None:
    assert decode_html("<p>é</p>".encode("utf-8-sig")) == "<p>é</p>"
    shift_jis = '<meta charset="shift_jis"><p>日本語</p>'.encode("shift_jis")
    assert "日本語" in decode_html(shift_jis)
    assert "日本語" in decode_html("<p>日本語のページです。</p>".encode("euc-jp"))


def test_sample_directory_gives_translation_and_pc_mobile_pairs() -> None:
    pairs = [p for p in read_page_pairs([REPO / "samples" / "crawl"]) if isinstance(p, PairSource)]
    kinds = {(p.src.lang, p.tgt.lang, p.kind) for p in pairs}
    assert ("en", "de", "translation") in kinds and ("ja", "ja", "pc-mobile") in kinds
    assert len(pairs) == 4


def test_jsonl_bad_lines_become_errors_and_the_rest_flows(tmp_path: Path) -> None:
    good = {
        "id": "1",
        "kind": "translation",
        "src": {"url": "a", "lang": "en", "html": "<p>x</p>"},
        "tgt": {"url": "b", "lang": "fr", "html": "<p>y</p>"},
    }
    manifest = tmp_path / "pairs.jsonl"
    manifest.write_text(
        json.dumps(good) + "\n{broken\n" + json.dumps({**good, "kind": "poem"}) + "\n"
    )
    job = build_job(read_page_pairs([manifest]))
    assert len(job.pairs) == 1 and len(job.refused) == 2
    assert "pairs.jsonl:2" in str(job.refused[0])


def test_url_language_stripping_pairs_common_schemes() -> None:
    assert strip_language("https://x.org/en/about", "en") == strip_language(
        "https://x.org/de/about", "de"
    )
    assert strip_language("https://x.org/a?lang=en", "en") == strip_language(
        "https://x.org/a?lang=fr", "fr"
    )
    assert strip_language("https://en.x.org/a", "en") == strip_language("https://fr.x.org/a", "fr")
    pages = [
        Page(url="https://x.org/en/a", lang="en", html="a"),
        Page(url="https://x.org/de/a", lang="de", html="b"),
        Page(url="https://x.org/de/b", lang="de", html="c"),
    ]
    pairs = list(pair_pages(pages, PairingOptions("en", "de")))
    assert [(p.src.url, p.tgt.url) for p in pairs] == [("https://x.org/en/a", "https://x.org/de/a")]


def test_real_lett_file_pairs_by_url_key() -> None:
    lett = kit_path("bitextor-albatec-lett/v2.lett.gz")
    gold_file = kit_path("bitextor-albatec-lett/url-pattern-pairs.tsv")
    gold = set()
    for line in gold_file.read_text().splitlines()[1:]:
        fields = line.split("\t")
        if fields[1] and fields[2]:
            gold.add((fields[1], fields[2]))
    options = PairingOptions("en", "de", url_key=r"/(\d+)-\d-")
    found = {
        (p.src.url, p.tgt.url)
        for p in read_page_pairs([lett], options)
        if isinstance(p, PairSource)
    }
    assert found and found <= gold
    assert len(found) >= len(gold) - 1


def test_missing_and_unknown_inputs_are_refused(tmp_path: Path) -> None:
    odd = tmp_path / "x.bin"
    odd.write_bytes(gzip.compress(b"x"))
    results = list(read_page_pairs([tmp_path / "none", odd]))
    assert all(isinstance(r, InvalidInput) for r in results) and len(results) == 2


def test_a_missing_or_broken_file_is_refused_and_the_batch_goes_on(tmp_path: Path) -> None:
    # A missing .jsonl/.warc or a truncated .gz raised out of the reader, losing the whole
    # batch; now each is one refusal and the sample directory's pairs still come through.
    truncated = tmp_path / "m.jsonl.gz"
    record = {"src": {"lang": "en", "html": "<p>a</p>"}, "tgt": {"lang": "de", "html": "<p>b</p>"}}
    data = gzip.compress((json.dumps(record) + "\n").encode() * 50)
    truncated.write_bytes(data[: len(data) // 2])
    inputs = [tmp_path / "typo.jsonl", tmp_path / "typo.warc.gz", truncated]
    job = build_job(read_page_pairs([*inputs, REPO / "samples" / "crawl"]))
    assert len(job.pairs) == 4
    assert [str(error).split(":")[0] for error in job.refused] == [str(p) for p in inputs]
    assert "not readable to the end" in str(job.refused[-1])


def test_a_page_without_exactly_one_counterpart_is_refused(tmp_path: Path) -> None:
    for lang in ("en", "de", "fr"):
        (tmp_path / f"about.{lang}.html").write_text(f"<p>About us ({lang}).</p>")
    (tmp_path / "contact.en.html").write_text("<p>Contact.</p>")
    refused = [str(r) for r in read_page_pairs([tmp_path]) if isinstance(r, InvalidInput)]
    assert len(refused) == 2
    assert "3 version(s) (de, en, fr)" in refused[0] and "1 version(s) (en)" in refused[1]


def test_a_lett_line_that_cannot_be_read_is_refused_by_its_line(tmp_path: Path) -> None:
    def page(text: str) -> str:
        return base64.b64encode(f"<html><body><p>{text}</p></body></html>".encode()).decode()

    lett = tmp_path / "x.lett"
    lett.write_text(
        f"en\ttext/html\tcharset=utf-8\thttp://x.org/en/a\t{page('Hello.')}\t\n"
        f"de\ttext/html\tcharset=utf-8\thttp://x.org/de/a\t{page('Hallo.')}\t\n"
        "en\ttext/html\tcharset=utf-8\thttp://x.org/en/b\t!!!notbase64\t\n"
        f"de\ttext/html\tcharset=utf-8\thttp://x.org/de/b\t{page('Tschüss.')}\t\n"
    )
    results = list(read_page_pairs([lett], PairingOptions("en", "de")))
    assert [r.src.url for r in results if isinstance(r, PairSource)] == ["http://x.org/en/a"]
    assert [str(r).split(": ")[0] for r in results if isinstance(r, InvalidInput)] == [f"{lett}:3"]


def test_a_meta_declared_utf16_on_ascii_bytes_is_read_as_utf8() -> None:
    # Decoding the bytes as UTF-16 gave CJK nonsense whenever their length was even.
    for body in ("Hello world", "Hello world!"):
        page = f'<html><head><meta charset="utf-16"></head><body><p>{body}</p></body></html>'
        assert body in decode_html(page.encode("ascii"))


def test_batches_whose_pairs_are_all_refused_get_their_own_jobs(tmp_path: Path) -> None:
    # With the id derived from the accepted pairs only, every such batch shared one job.
    first = build_job(read_page_pairs([tmp_path / "a.jsonl"]))
    second = build_job(read_page_pairs([tmp_path / "b.jsonl"]))
    assert not first.pairs and not second.pairs
    assert first.job_id != second.job_id
    assert build_job(read_page_pairs([tmp_path / "a.jsonl"])).job_id == first.job_id


def test_a_declared_encoding_survives_a_stray_byte() -> None:
    # strict decoding sent the page to detection, which read all of it as a one-byte codec
    body = "<p>Über uns: wir sind ein kleiner Verlag in München.</p>" * 5
    page = f'<meta charset="utf-8">{body}'.encode() + b"\xa0<p>Ende</p>"
    text = decode_html(page)
    assert "Verlag in München" in text and "\ufffd" in text
    assert "Verlag in München" in decode_html(page.replace(b'<meta charset="utf-8">', b""))


@pytest.mark.parametrize("label", ["iso-8859-1", "latin1", "us-ascii"])
def test_latin1_labels_read_as_windows_1252_as_browsers_do(label: str) -> None:
    # Python's latin-1 turned ’ – € into invisible C1 control characters
    page = f'<meta charset="{label}"><p>It’s – 5 €</p>'.encode("cp1252")
    assert "It’s – 5 €" in decode_html(page)
    assert "It’s – 5 €" in decode_html(page, declared=label)
