"""The /ui/ viewer on a temp SQLite store: jobs, pair view, filters, escaping, tables."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from services.gateway import viewer
from services.gateway.viewer import bead_type
from services.paraphrase.handler import recompute_phrase_table
from shared.store import Store
from tests.unit.gateway.sample_store import (
    BIG_LARGE,
    HOSTILE,
    JOB,
    OTHER_PAIR,
    PAIR,
    save_tiny_snapshot,
)


def beads_on(html: str, side: str) -> list[tuple[str, str]]:
    """(data-bead, colour class) of every bead in one side's section."""
    section = html.split(f'id="{side}"', 1)[1].split("</section>", 1)[0]
    return re.findall(r'class="bead (c\d)" data-bead="(\d+)"', section)


@pytest.mark.parametrize(
    ("bead", "expected"),
    [
        ("[0]:[0]", "1-1"),
        ("[0, 1]:[2]", "2-1"),
        ("[0]:[0, 1]", "1-2"),
        ("[4]:[5, 6, 7]", "1-3"),
        ("article:0.8", "article"),
    ],
)
def test_bead_type(bead: str, expected: str) -> None:
    assert bead_type(bead) == expected


def test_jobs_page_lists_the_job_with_counts_and_escapes_its_source(client: TestClient) -> None:
    page = client.get("/ui/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f'href="/ui/jobs/{JOB}"' in page.text
    row = page.text.split(f">{JOB}</a>", 1)[1].split("</tr>", 1)[0]
    assert re.findall(r'class="num">(\d+)<', row) == ["2", "3"]
    assert HOSTILE not in page.text and "&lt;script&gt;" in page.text
    assert client.get("/ui", follow_redirects=False).headers["location"] == "/ui/"


def test_each_job_row_counts_its_own_sentence_pairs(client: TestClient, store_url: str) -> None:
    # every row showed the sentence pairs of the whole store (the count's subquery was not
    # correlated to its job)
    store = Store(store_url)
    store.record_job("job-other", [(OTHER_PAIR, "https://e.org/en/x", "https://e.org/de/x")], "x")
    page = client.get("/ui/").text
    counts = {
        job: re.findall(r'class="num">(\d+)<', page.split(f">{job}</a>", 1)[1].split("</tr>")[0])
        for job in (JOB, "job-other")
    }
    assert counts == {JOB: ["2", "3"], "job-other": ["1", "0"]}


def test_job_page_lists_page_pairs(client: TestClient) -> None:
    page = client.get(f"/ui/jobs/{JOB}")
    assert page.status_code == 200
    assert re.findall(r'class="pair-link" href="/ui/pairs/([^"]+)"', page.text) == [
        PAIR,
        OTHER_PAIR,
    ]
    assert client.get("/ui/jobs/nope").status_code == 404


def test_pair_page_shows_both_sides_with_matching_beads(client: TestClient) -> None:
    page = client.get(f"/ui/pairs/{PAIR}")
    assert page.status_code == 200
    src, tgt = beads_on(page.text, "src-side"), beads_on(page.text, "tgt-side")
    assert src == tgt == [("c0", "0"), ("c1", "1"), ("c2", "2")]
    assert "Öffnungszeiten." in page.text and "Zwei Sätze. Hier." in page.text
    # crawled text is escaped, never markup
    assert "<script>alert" not in page.text and "<img src=x" not in page.text
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page.text
    assert "3 of 3 beads shown" in page.text

    # the tree-node alignment: one row per stored node pair, with xpaths, beads inside, escaped
    nodes = re.findall(r'<tr class="node" data-chunk="(\d+)">(.*?)</tr>', page.text, re.S)
    assert [chunk for chunk, _ in nodes] == ["0", "1"]
    assert "/html/body/div[2]/p[1]" in nodes[0][1] and "/html/body/main/div/p" in nodes[1][1]
    beads_inside = [re.findall(r'class="num">([^<]*)<', row)[1] for _, row in nodes]
    assert beads_inside == ["2", "1"]
    # each bead names the node pair it was aligned inside
    assert re.findall(r'data-bead="(\d+)" data-chunk="(\d+)"', page.text)[:3] == [
        ("0", "0"),
        ("1", "0"),
        ("2", "1"),
    ]
    assert "Tree-node alignment (2 aligned node pairs)" in page.text


def test_pair_page_filters_by_score_and_bead_type(client: TestClient) -> None:
    by_score = client.get(f"/ui/pairs/{PAIR}", params={"min_score": 0.5}).text
    assert [b for _, b in beads_on(by_score, "src-side")] == ["0", "2"]
    by_type = client.get(f"/ui/pairs/{PAIR}", params={"bead": "1-2"}).text
    assert [b for _, b in beads_on(by_type, "tgt-side")] == ["2"]
    assert "1 of 3 beads shown" in by_type
    assert '<option value="1-2" selected>' in by_type
    assert client.get(f"/ui/pairs/{PAIR}", params={"min_score": 2}).status_code == 422


def test_pair_lookup_redirects_to_the_pair(client: TestClient) -> None:
    found = client.get("/ui/pair", params={"id": f" {PAIR} "}, follow_redirects=False)
    assert found.status_code == 303 and found.headers["location"] == f"/ui/pairs/{PAIR}"
    odd = client.get("/ui/pair", params={"id": "a/../b?c"}, follow_redirects=False)
    assert odd.headers["location"] == "/ui/pairs/a%2F..%2Fb%3Fc"


def test_pair_without_sentences_and_unknown_pair(client: TestClient) -> None:
    empty = client.get(f"/ui/pairs/{OTHER_PAIR}")
    assert empty.status_code == 200 and "0 of 0 beads shown" in empty.text
    assert "No tree alignment is stored for this pair" in empty.text
    assert client.get("/ui/pairs/unknown").status_code == 404


def test_static_files_are_a_fixed_list(client: TestClient) -> None:
    script = client.get("/ui/static/viewer.js")
    assert script.status_code == 200 and 'classList.add("active")' in script.text
    assert client.get("/ui/static/viewer.css").status_code == 200
    assert client.get("/ui/static/..%2Fviewer.py").status_code == 404
    assert client.get("/ui/static/app.py").status_code == 404


PHRASE_ROW = r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>"


def test_the_paraphrase_search_covers_the_whole_table(
    client: TestClient, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the page cut the table to its first 1,000 entries (alphabetical), then searched those
    Store(store_url).add_paraphrase_observations(BIG_LARGE)
    recompute_phrase_table(Store(store_url))
    monkeypatch.setattr(viewer, "PHRASES_SHOWN", 1)
    page = client.get("/ui/paraphrases", params={"q": "house"}).text
    found = re.findall(PHRASE_ROW, page.split('id="phrases"', 1)[1])
    matching = int(re.search(r"1 of (\d+) matching pairs shown", page).group(1))  # type: ignore[union-attr]
    assert len(found) == 1 and "house" in found[0][1] + found[0][2] and matching > 1


def test_paraphrase_page_searches_the_phrase_table(client: TestClient, store_url: str) -> None:
    Store(store_url).add_paraphrase_observations(BIG_LARGE)
    recompute_phrase_table(Store(store_url))
    page = client.get("/ui/paraphrases")
    assert page.status_code == 200
    phrases = re.findall(PHRASE_ROW, page.text.split('id="phrases"', 1)[1])
    assert ("en", "big", "large") in phrases
    searched = client.get("/ui/paraphrases", params={"q": "house"}).text
    found = re.findall(PHRASE_ROW, searched.split('id="phrases"', 1)[1])
    assert found and all("house" in a or "house" in b for _, a, b in found)
    none = client.get("/ui/paraphrases", params={"q": HOSTILE}).text
    assert "No phrase paraphrases for" in none and "<script>alert" not in none


def test_thesaurus_page_shows_the_chosen_thesaurus(client: TestClient, store_url: str) -> None:
    # it always showed the newest snapshot of any thesaurus, and its downloads too
    save_tiny_snapshot(store_url)
    save_tiny_snapshot(store_url, name="zzz")
    assert "thesaurus <b>zzz</b>" in client.get("/ui/thesaurus").text
    page = client.get("/ui/thesaurus", params={"thesaurus": "tiny"}).text
    assert "thesaurus <b>tiny</b>" in page and "format=csv&amp;thesaurus=tiny" in page
    assert '<option value="tiny" selected>' in page and '<option value="zzz">' in page


def test_thesaurus_page_without_and_with_a_snapshot(client: TestClient, store_url: str) -> None:
    assert "No similarity snapshot yet" in client.get("/ui/thesaurus").text
    save_tiny_snapshot(store_url)
    page = client.get("/ui/thesaurus", params={"q": "犬", "a": "犬", "b": "車"}).text
    assert "thesaurus <b>tiny</b>" in page
    words = page.split('id="words"', 1)[1]
    assert "<td>犬</td>" in words and "<td>猫</td>" not in words and "animals" in words
    assert "<b>0.5000</b>" in page and "estimation round 1" in page


def test_long_lists_are_paged_not_cut_or_sent_whole(
    client: TestClient, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the jobs page showed the newest 200 and nothing of the rest; a page pair of 50,000
    # beads was one 31 MB page. Pages of 2 here, every row reachable by "next" links.
    for name in ("JOBS_PER_PAGE", "PAIRS_PER_PAGE", "BEADS_PER_PAGE"):
        monkeypatch.setattr(viewer, name, 2)
    store = Store(store_url)
    for k in range(3):
        store.record_job(f"job-extra-{k}", [(f"pp-extra-{k}", "https://e.org/a", "")], "x")

    def follow(path: str, found: str) -> list[str]:
        seen: list[str] = []
        while path:
            html = client.get(path).text
            seen += re.findall(found, html)
            following = re.search(r'rel="next" href="([^"]+)"', html)
            path = following.group(1).replace("&amp;", "&") if following else ""
            if path.startswith("?"):
                path = base.split("?", 1)[0] + path
        return seen

    base = "/ui/"
    jobs = follow(base, r'href="/ui/jobs/([^"]+)"')
    assert sorted(jobs) == sorted([JOB, *(f"job-extra-{k}" for k in range(3))])
    base = f"/ui/pairs/{PAIR}"
    beads = follow(base, r'(?s)id="src-side".*?</section>')
    positions = [p for section in beads for p in re.findall(r'data-bead="(\d+)"', section)]
    assert positions == ["0", "1", "2"]  # three beads on pages of two
    monkeypatch.setattr(viewer, "BEADS_PER_PAGE", 1)
    base = f"/ui/pairs/{PAIR}?min_score=0.5"  # beads 0 and 2; the filter goes with the links
    beads = follow(base, r'(?s)id="src-side".*?</section>')
    positions = [p for section in beads for p in re.findall(r'data-bead="(\d+)"', section)]
    assert positions == ["0", "2"]
