"""Benchmark of Web-vs-mobile article pairing (SimArticle) and sentence pairing on livedoor news.

Real Japanese articles (livedoor news corpus, read in place from its tarball) play the Web side.
Each "mobile" article is a seeded, rule-based compressed rewrite of some first-paragraph
sentences of one Web article (clauses and adverbials dropped, endings shortened). Mobile
articles whose Web source is withheld test precision. Run from the repository root:
``.venv/bin/python -m benchmarks.sentence_align.web_mobile``.
"""

from __future__ import annotations

import os
import random
import re
import tarfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date as Date

from benchmarks.common import KIT, RESULTS, publish
from services.sentence_align.aligners.anchors import char_similarity
from services.sentence_align.aligners.articles import (
    DEFAULT_THRESHOLD,
    Article,
    ArticlePair,
    first_paragraph_sentences,
    pair_articles,
    pair_sentences,
)
from services.sentence_align.aligners.splitter import split_sentences

TARBALL = KIT / "livedoor-news-corpus" / "ldcc-text.tar.gz"
RESULT = RESULTS / "web_mobile.md"
SEED = int(os.environ.get("PARAMINE_SEED", "20240607"))
MIN_DAY_ARTICLES = 10  # calendar days with fewer Web articles are left out of the day setting
MOBILE_SHARE = 0.5  # share of a day's Web articles that get a mobile version
ORPHAN_SHARE = 0.1  # share whose mobile version is kept but whose Web article is withheld
_ARTICLE_NAME = re.compile(r"^text/([^/]+)/\1-(\d+)\.txt$")

# Compression rules (seeded choice of which optional rules fire on a sentence).
_PARENTHESES = re.compile(r"（[^（）]*）|\([^()]*\)")
_LEADING_ADVERBIAL = re.compile(
    r"^(また|さらに|なお|一方|しかし|ところで|実は|そして|さて|まず|ちなみに|特に|現在|今回|今後"
    r"|\d+日)、?"
)
_ENDINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"することを発表した。$", "を発表。"),
        (r"することを明らかにした。$", "へ。"),
        (r"ことが(明らかになった|わかった|分かった)。$", "が判明。"),
        (r"を行った。$", "を実施。"),
        (r"を行う。$", "を実施へ。"),
        (r"と発表した。$", "と発表。"),
        (r"と(話して|語って)いる。$", "と語る。"),
        (r"と(語った|話した|述べた|明かした|コメントした)。$", "と語る。"),
        (r"している。$", "中。"),
        (r"([\u4e00-\u9fff]{2,})(した|しました|された|されました|する|します)。$", r"\1。"),
        (r"(と|に)なりました。$", "に。"),
        (r"(でした|です|だった|である|だ)。$", "。"),
        (r"しました。$", "した。"),
    )
)
MOBILE_CLAUSE_LENGTH = 50  # two-clause sentences longer than this may lose their first clause


def load_articles() -> list[Article]:
    """Every livedoor article as a Web article (line 1 URL, 2 date, 3 title, then body)."""
    articles = []
    with tarfile.open(TARBALL, "r:gz") as archive:
        for member in archive:
            match = _ARTICLE_NAME.match(member.name)
            handle = archive.extractfile(member) if member.isfile() and match else None
            if handle is None or match is None:
                continue
            url, date, title, body = handle.read().decode("utf-8").split("\n", 3)
            article_id = f"{match.group(1)}-{match.group(2)}"
            articles.append(Article(article_id, date.strip(), title.strip(), body, (), url))
    return articles


def compress_sentence(sentence: str, rng: random.Random) -> str:
    """Mobile-style rewrite: drop parentheses, adverbials and clauses; shorten the ending."""
    text = _PARENTHESES.sub("", sentence).strip().lstrip("\u3000")
    text = _LEADING_ADVERBIAL.sub("", text)
    clauses = text.split("、")
    if len(clauses) >= 3 and rng.random() < 0.7:
        text = f"{clauses[0]}、{clauses[-1]}"  # drop the middle clauses
    elif len(clauses) == 2 and len(text) > MOBILE_CLAUSE_LENGTH and rng.random() < 0.5:
        text = clauses[1]  # drop the first clause
    for pattern, replacement in _ENDINGS:
        shortened = pattern.sub(replacement, text)
        if shortened != text:
            text = shortened
            break
    return text if text.endswith(("。", "！", "？")) else text + "。"


@dataclass(frozen=True)
class MobileCase:
    mobile: Article
    web_id: str | None  # None: the Web source was withheld (any pairing is wrong)
    gold_sentences: tuple[tuple[str, str], ...]  # (mobile sentence, its Web source sentence)


def make_mobile(web: Article, rng: random.Random) -> MobileCase | None:
    sentences = first_paragraph_sentences(web.body)
    if not sentences:
        return None
    count = min(len(sentences), rng.choices((1, 2, 3), weights=(0.35, 0.45, 0.2))[0])
    chosen = sorted(rng.sample(range(len(sentences)), count))
    compressed = [(compress_sentence(sentences[k], rng), sentences[k]) for k in chosen]
    compressed = [(m, w) for m, w in compressed if len(m) > 1]
    body = "".join(m for m, _ in compressed)
    if not compressed or len(split_sentences(body, "ja")) != len(compressed):
        return None
    mobile = Article(f"m:{web.id}", web.date, "", body)
    return MobileCase(mobile, web.id, tuple(compressed))


@dataclass(frozen=True)
class Corpus:
    web: list[Article]
    cases: list[MobileCase]


def build_corpus(articles: Sequence[Article], day_of: Callable[[Article], str]) -> Corpus:
    """Day batches: Web articles of each day, mobile rewrites of half of them, some orphans."""
    rng = random.Random(SEED)
    by_day: defaultdict[str, list[Article]] = defaultdict(list)
    for article in articles:
        by_day[day_of(article)].append(replace(article, date=day_of(article)))
    web: list[Article] = []
    cases: list[MobileCase] = []
    for day in sorted(by_day):
        batch = by_day[day]
        if len(batch) < MIN_DAY_ARTICLES:
            continue
        order = rng.sample(range(len(batch)), len(batch))
        n_mobile = round(len(batch) * MOBILE_SHARE)
        orphans = set(order[n_mobile : n_mobile + round(len(batch) * ORPHAN_SHARE)])
        for k in order[:n_mobile] + sorted(orphans):
            case = make_mobile(batch[k], rng)
            if case is not None:
                cases.append(case if k not in orphans else replace(case, web_id=None))
        web.extend(article for k, article in enumerate(batch) if k not in orphans)
    return Corpus(web, cases)


def calendar_day(article: Article) -> str:
    return article.date[:10]


def iso_week(article: Article) -> str:
    year, week, _ = Date.fromisoformat(article.date[:10]).isocalendar()
    return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class PairingScores:
    pairs: int
    correct: int
    gold: int

    @property
    def precision(self) -> float:
        return self.correct / self.pairs if self.pairs else 0.0

    @property
    def recall(self) -> float:
        return self.correct / self.gold if self.gold else 0.0


def score_pairs(pairs: Sequence[ArticlePair], cases: Sequence[MobileCase]) -> PairingScores:
    gold = {case.mobile.id: case.web_id for case in cases}
    correct = sum(1 for pair in pairs if gold.get(pair.mobile_id) == pair.web_id)
    return PairingScores(len(pairs), correct, sum(1 for case in cases if case.web_id))


SentencePairer = Callable[[Article, Article], list[tuple[str, str]]]


def by_nouns(web: Article, mobile: Article) -> list[tuple[str, str]]:
    return [(p.mobile_sentence, p.web_sentence) for p in pair_sentences(web, mobile)]


def by_position(web: Article, mobile: Article) -> list[tuple[str, str]]:
    # Peer: the k-th mobile sentence comes from the k-th sentence of the first paragraph.
    web_sentences = first_paragraph_sentences(web.body)
    mobile_sentences = split_sentences(mobile.body, "ja")
    return [
        (m, web_sentences[min(k, len(web_sentences) - 1)]) for k, m in enumerate(mobile_sentences)
    ]


def by_characters(web: Article, mobile: Article) -> list[tuple[str, str]]:
    # Peer: highest character-overlap similarity (BAM's filter), ties to the earlier sentence.
    web_sentences = first_paragraph_sentences(web.body)
    pairs = []
    for sentence in split_sentences(mobile.body, "ja"):
        scores = [char_similarity(sentence, w) for w in web_sentences]
        pairs.append((sentence, web_sentences[scores.index(max(scores))]))
    return pairs


def sentence_accuracy(
    pairer: SentencePairer, web: dict[str, Article], cases: Sequence[MobileCase]
) -> tuple[int, int]:
    correct = total = 0
    for case in cases:
        if case.web_id is None:
            continue
        gold = dict(case.gold_sentences)
        for mobile_sentence, web_sentence in pairer(web[case.web_id], case.mobile):
            total += 1
            correct += gold.get(mobile_sentence) == web_sentence
    return correct, total


THRESHOLDS = (0.0, 10.0, 15.0, 20.0, 25.0, 30.0, DEFAULT_THRESHOLD, 40.0)


def _article_rows(
    name: str, corpus: Corpus
) -> tuple[list[str], dict[tuple[str, float], PairingScores]]:
    # One pairing per weighting with no threshold; a threshold keeps the best pairs >= it.
    mobile = [case.mobile for case in corpus.cases]
    lines = []
    table: dict[tuple[str, float], PairingScores] = {}
    for label, weights in (
        ("SimArticle a=b=3", {}),
        ("peer: NN only (a=b=0)", {"a": 0.0, "b": 0.0}),
    ):
        start = time.perf_counter()
        best = pair_articles(corpus.web, mobile, threshold=0.0, **weights)
        seconds = time.perf_counter() - start
        for threshold in THRESHOLDS:
            s = score_pairs([p for p in best if p.score >= threshold], corpus.cases)
            table[label, threshold] = s
            mark = " (paper)" if threshold == DEFAULT_THRESHOLD and not weights else ""
            lines.append(
                f"| {name} | {label} | {threshold:g}{mark} | {s.pairs} | {s.precision:.1%} | "
                f"{s.recall:.1%} | {seconds:.0f} |"
            )
    return lines, table


def _length_note(corpus: Corpus) -> str:
    web_chars = sum(len(a.body) for a in corpus.web) / max(len(corpus.web), 1)
    mobile_chars = sum(len(c.mobile.body) for c in corpus.cases) / max(len(corpus.cases), 1)
    return (
        f"mean Web body {web_chars:.0f} characters (paper: about 250), "
        f"mean mobile body {mobile_chars:.0f} (paper: about 50)"
    )


def _reading(
    table: dict[tuple[str, float], PairingScores], accuracy: dict[str, float]
) -> list[str]:
    at_paper = table["SimArticle a=b=3", DEFAULT_THRESHOLD]
    at_ten = table["SimArticle a=b=3", 10.0]
    best = table["SimArticle a=b=3", 0.0]
    nn_best = table["peer: NN only (a=b=0)", 0.0]
    nouns = accuracy["most shared nouns in the first paragraph (paper)"]
    return [
        "## Reading (calendar-day batches)",
        "",
        f"- At the paper's threshold 35: precision {at_paper.precision:.1%}, recall"
        f" {at_paper.recall:.1%} (paper: 481 correct of 605 mobile articles, about 80%).",
        "  The threshold is stricter here: livedoor has no editor keywords (ours are 5 tf-idf",
        "  nouns), and a short mobile rewrite rarely shares enough distinct nouns to reach 35.",
        "- SimArticle checked against the seed (section 3.1) and docs/methods.md §2: a*K + b*T "
        "+ NN",
        "  with K = W's keywords found in M, T = nouns of W's title found in M, NN = distinct",
        "  nouns of W's body also in M, a = b = 3.0, same-day candidates only; the code",
        "  (`articles._score`) does exactly that, so it was not changed. Every term counts",
        "  words of M, so the score is bounded by the mobile text: a 60-character mobile body",
        "  without a title (ours; the seed does not say whether its mobile articles had",
        "  headlines, which would add to T and NN) reaches 35 only when nearly all its nouns",
        "  are in W's title and keywords.",
        "  The curve above (precision and recall per threshold) is the honest summary; e.g.",
        f"  threshold 10 gives {at_ten.precision:.1%} precision at {at_ten.recall:.1%} recall"
        " on calendar days.",
        f"- Best same-day match without a threshold finds {best.recall:.1%} of the sources",
        f"  (NN alone: {nn_best.recall:.1%}); its precision {best.precision:.1%} is capped by the",
        "  mobile articles whose Web source was withheld.",
        f"- Sentence pairing: {nouns:.1%} (paper 92.8%). The rule-based rewrites keep most nouns,",
        "  so this test is easier than real journalist-written mobile articles.",
    ]


def main() -> None:
    articles = load_articles()
    settings = {"calendar day": calendar_day, "ISO week (bucketed days)": iso_week}
    corpora = {name: build_corpus(articles, day_of) for name, day_of in settings.items()}
    lines = [
        "# Web vs mobile: SimArticle article pairing and noun-overlap sentence pairing",
        "",
        f"Run: `.venv/bin/python -m benchmarks.sentence_align.web_mobile` (seed {SEED}).",
        "",
        "## Method and data",
        "",
        f"Web side: the {len(articles)} livedoor news articles (read from the tarball in place;",
        "line 2 gives the date). livedoor has no keywords, so each Web article's keywords are",
        "its top-5 tf-idf nouns within its day batch (`articles.batch_keywords`).",
        f"Days with fewer than {MIN_DAY_ARTICLES} articles are dropped. Two groupings: the",
        "calendar day (small batches: livedoor publishes few articles a day) and the ISO week",
        "(bucketed days, larger and harder candidate sets, closer to the paper's 100+ a day).",
        f"Mobile side: for {MOBILE_SHARE:.0%} of each batch's Web articles, a compressed",
        "rewrite of 1-3 first-paragraph sentences (seeded): parentheses and leading adverbials",
        "dropped, the first clause dropped with p=0.5 when a sentence has 2+ commas, endings",
        "shortened (〜することを発表した → 〜を発表, 〜ことが明らかになった → 〜が判明,",
        "〜を行った → 〜を実施, polite/copula endings cut).",
        f"A further {ORPHAN_SHARE:.0%} of each batch get a mobile version but their Web article",
        "is withheld: pairing them is always wrong.",
        "Article precision = correct pairs / pairs output; recall = correct / mobile articles",
        "whose Web source is present. Sentence accuracy = mobile sentences paired with the Web",
        "sentence they were rewritten from, on the gold article pairs.",
        "",
    ]
    for name, corpus in corpora.items():
        batches = len({a.date for a in corpus.web})
        lines.append(
            f"- {name}: {batches} batches, {len(corpus.web)} Web articles, "
            f"{len(corpus.cases)} mobile articles "
            f"({sum(1 for c in corpus.cases if c.web_id is None)} with the Web source withheld), "
            f"{sum(len(c.gold_sentences) for c in corpus.cases)} mobile sentences; "
            f"{_length_note(corpus)}."
        )
    lines += [
        "",
        "## Article pairing (paper: 481 correct pairs above 35 among 605 mobile articles)",
        "",
        "| batches | pairing | threshold | pairs | precision | recall | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    tables = {}
    for name, corpus in corpora.items():
        rows, tables[name] = _article_rows(name, corpus)
        lines += rows
    corpus = corpora["calendar day"]
    web_by_id = {article.id: article for article in corpus.web}
    lines += [
        "",
        "## Sentence pairing on the gold article pairs (paper: 92.8% of 500 sampled pairs)",
        "",
        "| pairing | correct | mobile sentences | accuracy |",
        "|---|---|---|---|",
    ]
    accuracy = {}
    for label, pairer in (
        ("most shared nouns in the first paragraph (paper)", by_nouns),
        ("peer: same position in the first paragraph", by_position),
        ("peer: highest character overlap (BAM similarity)", by_characters),
    ):
        correct, total = sentence_accuracy(pairer, web_by_id, corpus.cases)
        accuracy[label] = correct / max(total, 1)
        lines.append(f"| {label} | {correct} | {total} | {accuracy[label]:.1%} |")
    lines += ["", *_reading(tables["calendar day"], accuracy)]
    # No example sentences here: the committed report must not quote (or rewrite) articles.
    lines += ["", "Machine: 2 cores shared with other engineers; timings are noisy.", ""]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
