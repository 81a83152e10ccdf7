"""Gateway routes in embedded mode (no Redis, SQLite): articles, paraphrases, thesaurus."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from services.gateway.app import create_app
from services.paraphrase.phrases import PhraseTableEntry
from services.paraphrase.repository import save_phrase_table
from shared.config import Settings, get_settings
from shared.store import Store

WEB_BODY = (
    "強い冬型の気圧配置の影響で、東北地方では12日、各地で大雪となった。"
    "気象庁によると、山形県では24時間で60センチを超える積雪を観測した。"
    "この雪の影響で、JR東日本は新幹線の一部区間で運転を見合わせることを決定した。"
    "高速道路では、東北自動車道の一部区間が通行止めとなった。\n\n"
    "国土交通省は、不要不急の外出を控えるよう呼びかけている。"
)
MOBILE_BODY = (
    "東北地方で12日、大雪。山形県では24時間で60センチを超える積雪を観測。"
    "JR東日本は新幹線の一部区間で運転見合わせを決定。東北自動車道の一部区間が通行止め。"
)
OTHER_WEB = "プロ野球の来季の日程が発表された。開幕戦は3月に東京ドームで行われる。"


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("PARAMINE_DATABASE_URL", f"sqlite:///{tmp_path / 'g.db'}")
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    monkeypatch.delenv("PARAMINE_API_KEY", raising=False)
    get_settings.cache_clear()
    yield TestClient(create_app(Settings()))
    get_settings.cache_clear()


def test_article_batch_pairs_articles_and_sentences(client: TestClient) -> None:
    batch = {
        "web": [
            {
                "id": "w1",
                "date": "2026-01-12",
                "title": "東北で大雪、交通に影響",
                "body": WEB_BODY,
                "keywords": ["大雪", "東北", "新幹線", "通行止め"],
                "url": "https://news.example.jp/w1",
            },
            {"id": "w2", "date": "2026-01-12", "title": "プロ野球の日程", "body": OTHER_WEB},
        ],
        "mobile": [
            {
                "id": "m1",
                "date": "2026-01-12",
                "body": MOBILE_BODY,
                "url": "https://m.news.example.jp/m1",
            }
        ],
    }
    accepted = client.post("/v1/articles", json=batch)
    assert accepted.status_code == 202, accepted.text
    job = client.get(f"/v1/jobs/{accepted.json()['job_id']}").json()
    assert job["state"] == "done" and job["sentence_pairs"] >= 3
    pairs = client.get("/v1/sentence-pairs", params={"job": job["job_id"]}).json()["items"]
    by_mobile = {pair["tgt"]: pair["src"] for pair in pairs}
    assert by_mobile["JR東日本は新幹線の一部区間で運転見合わせを決定。"].startswith(
        "この雪の影響で"
    )
    assert all(pair["src_url"] == "https://news.example.jp/w1" for pair in pairs)
    again = client.post("/v1/articles", json=batch).json()
    assert again["job_id"] == job["job_id"]
    assert client.get(f"/v1/jobs/{job['job_id']}").json()["sentence_pairs"] == job["sentence_pairs"]

    endings = client.get("/v1/paraphrases/endings", params={"noun": "決定"}).json()
    assert set(endings) == {"決定"}
    phrases = client.get("/v1/paraphrases/phrases").json()
    assert all(entry["phrase"] != entry["paraphrase"] for entry in phrases)


def test_similarity_without_snapshot_is_404(client: TestClient) -> None:
    response = client.get("/v1/thesaurus/similarity", params={"a": "人", "b": "男"})
    assert response.status_code == 404 and "snapshot" in response.json()["detail"]


def test_articles_need_both_sides(client: TestClient) -> None:
    assert client.post("/v1/articles", json={"web": [], "mobile": []}).status_code == 422


def test_articles_with_a_repeated_id_are_refused(client: TestClient) -> None:
    # pairs name articles by id; building the queue message refused them with a 500
    article = {"id": "a1", "date": "2010-05-22", "title": "", "body": "大雨"}
    response = client.post("/v1/articles", json={"web": [article], "mobile": [article, article]})
    assert response.status_code == 422 and "unique" in response.text


def test_dead_letters_are_paged_past_the_first_hundred(client: TestClient) -> None:
    store = Store(get_settings().database_url)
    for k in range(150):
        store.record_dead_letter(
            stage="paraphrase", payload={"letter": k}, error_type="X", reason=f"letter {k}",
            attempts=1,
        )  # fmt: skip
    first = client.get("/v1/dead-letters").json()
    rest = client.get("/v1/dead-letters", params={"limit": 100, "offset": 100}).json()
    assert (len(first), len(rest)) == (100, 50)
    reasons = {letter["reason"] for letter in first + rest}
    assert reasons == {f"letter {k}" for k in range(150)}


def test_the_openapi_schema_lists_the_export_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "/v1/exports/sentence-pairs" in paths
    assert not any(path.startswith("/ui") for path in paths)


def test_every_query_parameter_of_the_api_is_described() -> None:
    schema = create_app(Settings()).openapi()
    parameters = [
        (path, method, parameter["name"], parameter.get("description", ""))
        for path, operations in schema["paths"].items()
        if path.startswith("/v1/")
        for method, operation in operations.items()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query"
    ]
    assert len(parameters) > 30  # the routes' parameters were found
    assert [(path, method, name) for path, method, name, text in parameters if not text] == []


def _phrase(phrase: str, paraphrase: str) -> PhraseTableEntry:
    return PhraseTableEntry(phrase, paraphrase, 1, 1.0, 1.0, lang="en", alignment="0-0")


def test_the_phrase_search_finds_a_part_of_either_side_case_ignored(client: TestClient) -> None:
    # q matched only a whole phrase or paraphrase: "bank" did not find "the bank of"
    table = [
        _phrase("the bank of", "the shore of"),
        _phrase("money", "the Bank"),
        _phrase("river", "stream"),
    ]
    engine = Store(get_settings().database_url).engine
    save_phrase_table(engine, table, observations=3, digest="test", model="test")

    def found(q: str) -> list[tuple[str, str]]:
        entries = client.get("/v1/paraphrases/phrases", params={"q": q}).json()
        return [(entry["phrase"], entry["paraphrase"]) for entry in entries]

    assert found("bank") == [("the bank of", "the shore of"), ("money", "the Bank")]
    assert found("BANK") == found("bank")
    assert found("shore") == [("the bank of", "the shore of")]  # the paraphrase side
    assert found("ver") == [("river", "stream")]
    assert found("bank of the") == []
    assert len(client.get("/v1/paraphrases/phrases").json()) == 3


def test_an_unreachable_store_is_503_with_retry_after_and_not_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a TransientError of the store answered 500 with a traceback in the log
    monkeypatch.setenv("PARAMINE_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/none")
    monkeypatch.delenv("PARAMINE_REDIS_URL", raising=False)
    monkeypatch.delenv("PARAMINE_API_KEY", raising=False)
    get_settings.cache_clear()
    with TestClient(create_app(Settings())) as client:
        page = {"url": "https://e.org/a", "lang": "en", "html": "<p>Hallo.</p>"}
        response = client.post("/v1/page-pairs", json={"pairs": [{"src": page, "tgt": page}]})
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
        assert client.get("/healthz").status_code == 200  # alive: no restart for this
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["database"].startswith("error")
    get_settings.cache_clear()


MOBILE = '[{"id": "m", "body": "y"}]'


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/page-pairs", '{"job_id": NaN, "pairs": []}'),
        ("/v1/page-pairs", '{"job_id": "\\ud800", "pairs": []}'),
        ("/v1/page-pairs", '{"pairs": Infinity}'),
        ("/v1/articles", '{"web": [{"id": NaN, "body": "x"}], "mobile": ' + MOBILE + "}"),
        ("/v1/articles", '{"web": [{"id": "w", "body": "\\ud800"}], "mobile": ' + MOBILE + "}"),
    ],
)  # fmt: skip
def test_a_refused_value_gets_a_422_that_does_not_echo_it(
    client: TestClient, path: str, body: str
) -> None:
    # the 422 echoed the refused value: NaN or a lone surrogate made the answer fail (500),
    # and a surrogate inside an article failed building the batch id (500)
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert all("input" not in error for error in response.json()["detail"])


@pytest.mark.parametrize(
    "path",
    [
        "/v1/jobs/a%00b",
        "/v1/sentence-pairs?job=a%00b",
        "/v1/sentence-pairs?site=a%01b",
        "/v1/dead-letters?stage=x%00",
        "/v1/exports/sentence-pairs?job=a%00b",
        "/ui/pairs/a%00b",
    ],
)
def test_a_control_character_in_the_path_or_query_is_a_422(client: TestClient, path: str) -> None:
    # on PostgreSQL a NUL in a filter failed the query: a 500, or an export cut off after its
    # 200 had been sent
    response = client.get(path)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["msg"] == "contains a control character"


def _page(url: str, lang: str = "en") -> dict[str, str]:
    return {"url": url, "lang": lang, "html": "<p>Hello there.</p>"}


def test_refused_pairs_are_kept_whole_and_apart_with_their_id(client: TestClient) -> None:
    # Two parts of one job, each refusing its first pair for the same reason, gave one dead
    # letter holding only the reason: the second refused pair was lost.
    store = Store(get_settings().database_url)
    bad = [
        {"id": f"crawl-{n}", "src": _page(f"https://e.org/{n}", lang="english"), "tgt": _page("")}
        for n in range(2)
    ]
    for pair in bad:
        answer = client.post("/v1/page-pairs", json={"job_id": "crawl-42", "pairs": [pair]})
        assert answer.status_code == 202, answer.text
        assert answer.json()["refused"][0].startswith(f"pairs[0].src.lang (id '{pair['id']}')")
    assert client.get("/v1/jobs/crawl-42").json()["refused"] == 2
    letters = store.list_dead_letters(stage="ingest")
    assert sorted(json.loads(letter["payload"])["input"]["id"] for letter in letters) == [
        "crawl-0",
        "crawl-1",
    ]


def test_a_url_with_a_nul_refuses_its_pair_and_the_rest_flows_on(client: TestClient) -> None:
    good = {"src": _page("https://e.org/en/a"), "tgt": _page("https://e.org/de/a", "de")}
    bad = {"src": _page("https://e.org/en/\x00"), "tgt": _page("https://e.org/de/b", "de")}
    answer = client.post("/v1/page-pairs", json={"pairs": [good, bad]}).json()
    assert answer["accepted"] == 1
    assert answer["refused"] == ["pairs[1].src.url: Value error, url contains a control character"]


def test_a_huge_forbidden_key_is_not_echoed(client: TestClient) -> None:
    key = "k" * 100_000
    pair = {"src": _page("https://e.org/en/a"), "tgt": _page("https://e.org/de/a", "de"), key: 1}
    answer = client.post("/v1/page-pairs", json={"pairs": [pair]})
    assert answer.status_code == 202 and len(answer.content) < 1_000
    batch = {"web": [{"id": "w", "body": "x", key: 1}], "mobile": [{"id": "m", "body": "y"}]}
    refused = client.post("/v1/articles", json=batch)
    assert refused.status_code == 422 and len(refused.content) < 1_000


def test_language_codes_are_one_case(client: TestClient) -> None:
    # "EN" pages got other pair ids than "en" ones and ?src_lang=en did not find them
    german = {"url": "https://e.org/de/a", "lang": "de", "html": "<p>Hallo zusammen.</p>"}
    pages = {"src": _page("https://e.org/en/a", "EN"), "tgt": german}
    lower = {"src": _page("https://e.org/en/a", "en"), "tgt": pages["tgt"]}
    first = client.post("/v1/page-pairs", json={"pairs": [pages]}).json()
    second = client.post("/v1/page-pairs", json={"pairs": [lower]}).json()
    assert first["pair_ids"] == second["pair_ids"]
    found = client.get("/v1/sentence-pairs", params={"src_lang": "EN"}).json()["items"]
    assert found and all(item["src_lang"] == "en" for item in found)
