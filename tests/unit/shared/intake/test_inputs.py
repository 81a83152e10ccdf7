"""Crawler inputs: decoding, directory pairing, JSONL, .lett with URL-pattern pairing."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path

import pytest

from shared.errors import InvalidInput
from shared.intake.ingest import build_job
from shared.intake.inputs import (
    PairingOptions,
    PairSource,
    decode_html,
    pair_pages,
    read_page_pairs,
)
from shared.intake.url_language import strip_language
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


def test_a_pair_given_twice_is_kept_once(tmp_path: Path) -> None:
    page = {"kind": "translation", "src": {"url": "a", "lang": "en", "html": "<p>x</p>"},
            "tgt": {"url": "b", "lang": "fr", "html": "<p>y</p>"}}  # fmt: skip
    other = {**page, "tgt": {"url": "c", "lang": "fr", "html": "<p>z</p>"}}
    manifest = tmp_path / "pairs.jsonl"
    manifest.write_text("".join(json.dumps(line) + "\n" for line in (page, other, page)))
    job = build_job(read_page_pairs([manifest]))
    assert [pair.tgt.url for pair in job.pairs] == ["b", "c"] and not job.refused


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


def test_a_url_key_group_that_did_not_match_pairs_nothing() -> None:
    # the key of an optional group that took no part was None for every such URL, so every
    # source page was paired with one target page; the language given in capitals
    pages: list[Page | InvalidInput] = [
        Page(url="https://x.org/en/page1", lang="en", html="a"),
        Page(url="https://x.org/en/about", lang="en", html="b"),
        Page(url="https://x.org/de/page1", lang="de", html="c"),
        Page(url="https://x.org/de/impressum", lang="de", html="d"),
    ]
    options = PairingOptions("EN", "DE", url_key=r"^https://x\.org/\w\w/(?P<key>page\d)?")
    pairs = list(pair_pages(pages, options))
    assert [(p.src.url, p.tgt.url) for p in pairs] == [
        ("https://x.org/en/page1", "https://x.org/de/page1")
    ]
    with pytest.raises(InvalidInput, match="no group"):
        list(pair_pages(pages, PairingOptions("en", "de", url_key=r"page\d")))


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


def test_an_upper_case_gz_suffix_is_read_as_gzip(tmp_path: Path) -> None:
    # x.jsonl.GZ was taken for JSONL (the name is matched in lower case) but opened as plain
    # text (the .gz test was case-sensitive there), so its one record was refused
    record = {"src": {"lang": "en", "html": "<p>a</p>"}, "tgt": {"lang": "de", "html": "<p>b</p>"}}
    upper = tmp_path / "x.jsonl.GZ"
    upper.write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    job = build_job(read_page_pairs([upper]))
    assert (len(job.pairs), job.refused) == (1, [])


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


@pytest.mark.parametrize(
    "label", ["base64", "rot13", "hex", "undefined", "idna", "cp037", "unicode_escape"]
)
def test_a_label_naming_no_text_encoding_is_ignored(label: str) -> None:
    # any Python codec was taken: base64/rot13/hex raised LookupError (a 500 at the gateway, a
    # traceback that stopped a whole .lett or WARC batch), EBCDIC garbled the page
    body = "<p>Ein Satz über München.</p>" * 5
    page = f'<meta charset="{label}">{body}'.encode() + b"\xa0"
    assert "Ein Satz über München." in decode_html(page)
    assert "Ein Satz über München." in decode_html(page, declared=label)


def test_labels_the_standard_reads_as_a_superset() -> None:
    page = '<meta charset="gb2312"><p>中文网页，欢迎光临。</p>'.encode("gbk")
    assert "中文网页，欢迎光临。" in decode_html(page)


# -- a bad item is refused alone; the rest of the input flows on --------------------------
def _kinds(items: list[PairSource | InvalidInput]) -> tuple[int, list[str]]:
    return (
        sum(isinstance(item, PairSource) for item in items),
        [str(item) for item in items if isinstance(item, InvalidInput)],
    )


def _warc(records: list[tuple[str, str]]) -> bytes:
    from tests.docs.test_docs_blocks import warc_record

    return b"".join(gzip.decompress(warc_record(url, html.encode())) for url, html in records)


WARC_PAGES = [
    (f"http://x.org/{lang}/{n}", f'<html lang="{lang}"><p>{text}</p></html>')
    for n, (en, de) in enumerate([("Nine cats.", "Neun Katzen."), ("Ten dogs.", "Zehn Hunde.")])
    for lang, text in (("en", en), ("de", de))
]


def test_an_unreadable_page_in_a_directory_refuses_its_pair_only(tmp_path: Path) -> None:
    # one undecodable page raised out of the reader: exit 2, the good pairs not processed
    for name in ("museum.en.html", "museum.de.html"):
        (tmp_path / name).write_bytes((REPO / "samples" / "crawl" / name).read_bytes())
    (tmp_path / "p1.en.html").write_text("<p>Hello.</p>", encoding="utf-8")
    (tmp_path / "p1.de.html").write_bytes(bytes(range(256)) * 40)
    pairs, errors = _kinds(list(read_page_pairs([tmp_path])))
    assert pairs == 1 and len(errors) == 1 and "p1.en.html + p1.de.html" in errors[0]


def test_directory_pages_are_paired_or_refused_never_dropped(tmp_path: Path) -> None:
    # region-tagged names were ignored, x.EN overwrote x.en, and a third page beside a
    # pc/mobile pair vanished, all without a word
    for name in (
        "about.en-gb.html", "about.de-de.html", "x.EN.html", "x.en.html", "x.de.html",
        "y.en.html", "y.ja-pc.html", "y.ja-mobile.html", "z.ja-pc.html", "z.ja-mobile.html",
    ):  # fmt: skip
        (tmp_path / name).write_text("<p>Text.</p>", encoding="utf-8")
    items = list(read_page_pairs([tmp_path]))
    pairs = {(p.src.lang, p.tgt.lang, p.kind) for p in items if isinstance(p, PairSource)}
    assert pairs == {("en-gb", "de-de", "translation"), ("en", "de", "translation"),
                     ("ja", "ja", "pc-mobile")}  # fmt: skip
    _, errors = _kinds(items)
    assert len(errors) == 2
    assert any("a second en version" in error for error in errors)
    assert any("y.*.html: 3 version(s)" in error for error in errors)


def test_a_deeply_nested_jsonl_line_is_refused_alone(tmp_path: Path) -> None:
    good = json.dumps({"src": {"url": "u1", "lang": "en", "html": "<p>a</p>"},
                       "tgt": {"url": "u2", "lang": "de", "html": "<p>b</p>"}})  # fmt: skip
    (tmp_path / "m.jsonl").write_text(f"{good}\n{'[' * 100_000}\n{good}\n", encoding="utf-8")
    pairs, errors = _kinds(list(read_page_pairs([tmp_path / "m.jsonl"])))
    assert pairs == 2 and len(errors) == 1 and "m.jsonl:2" in errors[0]


@pytest.mark.parametrize("name", ["m.jsonl", "m.jsonl.gz"])
def test_a_jsonl_file_with_a_byte_order_mark_is_read_whole(tmp_path: Path, name: str) -> None:
    # the mark stayed on the first line, and its record was refused as not JSON
    good = json.dumps({"src": {"url": "u1", "lang": "en", "html": "<p>a</p>"},
                       "tgt": {"url": "u2", "lang": "de", "html": "<p>b</p>"}})  # fmt: skip
    data = f"{good}\n{good}\n".encode("utf-8-sig")
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert _kinds(list(read_page_pairs([tmp_path / name]))) == (2, [])


def test_a_warc_page_with_a_refused_field_is_refused_alone(tmp_path: Path) -> None:
    # a 5,000-character URL failed Page's schema outside the reader's try: nothing processed
    long_url = "http://x.org/en/2?utm=" + "a" * 5_000
    records = [*WARC_PAGES, (long_url, '<html lang="en"><p>Long.</p></html>')]
    (tmp_path / "crawl.warc").write_bytes(_warc(records))
    options = PairingOptions(src_lang="en", tgt_lang="de")
    pairs, errors = _kinds(list(read_page_pairs([tmp_path / "crawl.warc"], options)))
    assert pairs == 2 and len(errors) == 1 and "utm=aaa" in errors[0]


def test_a_truncated_warc_is_reported(tmp_path: Path) -> None:
    # fastwarc stopped at the cut without a word: the tail's pages were lost unseen
    plain = _warc(WARC_PAGES)
    (tmp_path / "cut.warc").write_bytes(plain[: len(plain) - 40])
    options = PairingOptions(src_lang="en", tgt_lang="de")
    pairs, errors = _kinds(list(read_page_pairs([tmp_path / "cut.warc"], options)))
    assert pairs == 1 and len(errors) == 1 and "cut short" in errors[0]
    from tests.docs.test_docs_blocks import warc_record

    compressed = b"".join(warc_record(url, html.encode()) for url, html in WARC_PAGES)
    (tmp_path / "full.warc.gz").write_bytes(compressed)
    (tmp_path / "cut.warc.gz").write_bytes(compressed[: len(compressed) - 30])
    assert _kinds(list(read_page_pairs([tmp_path / "full.warc.gz"], options))) == (2, [])
    # a small cut .warc.gz lost every page: gzip's full read raised with all it had gathered
    pairs, errors = _kinds(list(read_page_pairs([tmp_path / "cut.warc.gz"], options)))
    assert pairs == 1 and len(errors) == 1 and "not readable to the end" in errors[0]


@pytest.mark.parametrize(
    "head",
    [
        # a commented-out declaration before the page's own
        '<!-- <meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"> -->'
        '<meta charset="utf-8">',
        # "charset=" in the text of a description, not a content-type
        '<meta name="description" content="Umlaute in charset=koi8-r"><meta charset="utf-8">',
        # a label holding a NUL: ignored, as any unknown label (it refused the page)
        '<meta charset="utf-8\x00">',
    ],
)
def test_only_a_real_meta_declaration_decides_the_encoding(head: str) -> None:
    # both read strictly without error, so the page came out as mojibake ("MÃ¼nchen")
    page = f"<html><head>{head}</head><body><p>Grüße aus München.</p></body></html>"
    assert "Grüße aus München." in decode_html(page.encode("utf-8"))


def test_the_http_equiv_content_type_declaration_is_read() -> None:
    head = '<meta http-equiv="content-type" content="text/html; charset=Shift_JIS">'
    page = f"<html><head>{head}</head><body><p>日本語のページ</p></body></html>"
    assert "日本語のページ" in decode_html(page.encode("shift_jis"))


def _warc_response(url: str, http_headers: bytes, body: bytes) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n" + http_headers
    http += b"\r\n" + body
    headers = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
        "WARC-Date: 2026-01-12T10:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{zlib.crc32(url.encode()):012d}>\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
    ).encode()
    return headers + http + b"\r\n\r\n"


def _chunked(data: bytes, cut: int) -> bytes:
    parts = [data[:cut], data[cut:]]
    return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"


def test_warc_bodies_are_read_without_their_http_codings(tmp_path: Path) -> None:
    # fastwarc undoes neither: the chunk sizes ("32", "0") were read as page text, and a
    # gzipped body was refused as text in no detectable encoding
    def page(lang: str, text: str) -> bytes:
        return f'<html lang="{lang}"><body><p>{text}</p></body></html>'.encode()

    en, de = page("en", "Our museum is open every day."), page("de", "Unser Museum ist offen.")
    records = [
        _warc_response("http://x.org/en/a", b"Transfer-Encoding: chunked\r\n", _chunked(en, 40)),
        _warc_response("http://x.org/de/a", b"Content-Encoding: gzip\r\n", gzip.compress(de)),
        _warc_response("http://x.org/en/b", b"Content-Encoding: br\r\n", b"\x0b\x02\x80"),
        # a crawler that decoded the body and kept the header: read as it is
        _warc_response("http://x.org/de/b", b"Transfer-Encoding: chunked\r\n", page("de", "Ja.")),
    ]
    (tmp_path / "crawl.warc").write_bytes(b"".join(records))
    items = list(read_page_pairs([tmp_path / "crawl.warc"], PairingOptions("en", "de")))
    (pair,) = [item for item in items if isinstance(item, PairSource)]
    assert (pair.src.html, pair.tgt.html) == (en.decode(), de.decode())
    (refused,) = [str(item) for item in items if isinstance(item, InvalidInput)]
    assert "http://x.org/en/b: Content-Encoding br is not supported" in refused


def test_a_lett_line_cut_short_is_refused_and_a_carriage_return_splits_no_line(
    tmp_path: Path,
) -> None:
    # a line with fewer than 5 fields vanished without a word, and a raw "\r" in the text
    # field split its line in two (universal newlines)
    def line(lang: str, url: str, html: str, text: str) -> str:
        encoded = base64.b64encode(html.encode()).decode()
        return f"{lang}\ttext/html\tutf-8\t{url}\t{encoded}\t{text}\n"

    lett = tmp_path / "crawl.lett"
    lett.write_text(
        line("en", "http://x.org/en/a", "<p>Hello.</p>", "Hello.\rAgain")
        + line("de", "http://x.org/de/a", "<p>Hallo.</p>", "Hallo.")
        + "en\ttext/html\tutf-8\n"
        + "\n",
        encoding="utf-8",
        newline="",
    )
    items = list(read_page_pairs([lett], PairingOptions("en", "de")))
    assert sum(isinstance(item, PairSource) for item in items) == 1
    assert [str(item) for item in items if isinstance(item, InvalidInput)] == [
        f"{lett}:3: 3 of 5 or 6 fields"
    ]
