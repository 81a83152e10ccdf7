"""Page pairs of one site: URL rules first, then content and structure, one-to-one.

For every site (host) and every two languages found there:

1. **URL rule.** Pages whose URLs are equal once their language markers are stripped
   (``/en/``, ``?lang=en``, ``en.``, ``_en``, ``-en``; ``shared.intake.inputs.strip_language``) pair
   by URL (score 1). Same-language pages whose URLs differ only by a mobile marker (``m.``
   host, ``/m/``, ``/mobile/``, ``?mobile=1``) pair as PC/mobile versions.
2. **Content.** The other pages of the two languages are scored pairwise, but only against
   candidates: pages sharing a rare anchor (a number, a name, an image, a link target; an
   inverted index with IDF weights) or of a similar text length, at most
   :data:`CANDIDATES` per page, so a site of 100,000 pages is not quadratic. A pair's score
   is the weighted mean of up to four similarities in [0, 1] (one without evidence, such as
   anchors on pages that have none but the site's menu, is left out):

   * anchors: IDF-weighted overlap of numbers, names, images and links (those on more than
     :data:`BOILERPLATE_SHARE` of the pages weigh nothing);
   * length: ``exp(-|log(L_a / L_b) - mu| / sigma)``, with the languages' log length ratio
     ``mu`` and its spread ``sigma`` estimated on the site (from URL-matched pairs when there
     are enough, else from the two languages' median page lengths);
   * structure: where the content blocks (boilerplate blocks, repeated on many pages of the
     site, left out) break the text; the share of one page's relative break positions found
     within :data:`BREAK_TOLERANCE` on the other (STRAND's insight: translations keep their
     paragraphing), symmetrised;
   * translation: where a bilingual dictionary is installed for the two languages, the
     IDF-weighted share of each page's dictionary words whose translations occur on the other
     page (:class:`Lexicon`), weighted :data:`LEXICON_WEIGHT` times each of the others: the
     one similarity that reads what the pages say (weight chosen on the training part of
     ``benchmarks/page_match/matching.py``; results in ``benchmarks/results/page_match.md``).

   Pairs are taken best first, each page at most once per language pair (one-to-one, as
   WMT16 scores), down to :data:`THRESHOLD` (chosen on the training part of
   ``benchmarks/page_match/matching.py``), or higher where the URL-matched pairs of the site
   show how low a true pair scores there.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from services.lexical.registry import dictionary_for
from services.page_match.features import PageFeatures
from shared.intake.url_language import language_parameters, strip_language

CANDIDATES = 20
DENSE_CELLS = 4_000_000
LENGTH_NEIGHBOURS = 10
BREAK_TOLERANCE = 0.03
THRESHOLD = 0.4
LEXICON_WEIGHT = 16
BOILERPLATE_SHARE = 0.3
MIN_URL_PAIRS_FOR_RATIO = 5
CALIBRATION_QUANTILE = 0.05
MIN_URL_PAIRS_TO_CALIBRATE = 3
_NOT_PARAGRAPHS = frozenset({"title", "h1", "h2", "h3", "h4", "h5", "h6"})
_MOBILE = re.compile(r"(?<=://)(?:m|mobile)\.|/(?:m|mobile|sp)(?=/)|[?&]mobile=1\b")


@dataclass(frozen=True)
class PageMatch:
    """One page pair: the two URLs and languages, how it was found, and its score."""

    src_url: str
    tgt_url: str
    src_lang: str
    tgt_lang: str
    kind: str  # "translation" or "pc-mobile"
    score: float
    by: str  # "url" or "content"

    def as_json(self) -> dict[str, object]:
        return {
            "src_url": self.src_url,
            "tgt_url": self.tgt_url,
            "src_lang": self.src_lang,
            "tgt_lang": self.tgt_lang,
            "kind": self.kind,
            "score": round(self.score, 4),
            "by": self.by,
        }


def match_pages(
    pages: Iterable[PageFeatures],
    threshold: float = THRESHOLD,
    *,
    lexicon_weight: int = LEXICON_WEIGHT,
) -> list[PageMatch]:
    """Page pairs of every site among ``pages`` (a URL seen twice: the later page counts)."""
    by_site: dict[str, dict[str, PageFeatures]] = defaultdict(dict)
    for page in pages:
        by_site[page.host][page.url] = page
    result: list[PageMatch] = []
    for site in sorted(by_site):
        result += match_site(list(by_site[site].values()), threshold, lexicon_weight=lexicon_weight)
    return result


def match_site(
    pages: Sequence[PageFeatures],
    threshold: float = THRESHOLD,
    *,
    lexicon_weight: int = LEXICON_WEIGHT,
    partners: Mapping[str, frozenset[str]] | None = None,
) -> list[PageMatch]:
    """Page pairs of one site: by URL, then by content per language pair, one-to-one.

    ``partners``: for pages whose pairs stand (the stage passes those found by URL), the
    languages of their partners (URL -> languages). Such a page counts for the site's
    statistics (IDF weights, boilerplate, the length ratio, the URL rule's learned
    parameters) and is not matched by content in a language pair it has a partner in; in the
    others it is matched like an open page (on a site in three languages, a page paired with
    its German twin still pairs with its French one when that arrives later). A URL pair of
    two pages that each have a partner in the other's language is not returned (it is
    known); any other URL pair is (a URL twin outranks a content pair)."""
    known = partners or {}
    by_lang: dict[str, list[PageFeatures]] = defaultdict(list)
    seen: set[tuple[str, str]] = set()
    for page in sorted(pages, key=lambda p: p.url):
        # one page of each text and language: copies (one template, no text of their own)
        # say nothing about which twin is theirs
        if page.lang != "und" and (page.lang, page.digest) not in seen:
            seen.add((page.lang, page.digest))
            by_lang[page.lang].append(page)
    matches = _mobile_pairs(by_lang)
    boilerplate = _boilerplate(by_lang)
    language_pairs = list(combinations(sorted(by_lang), 2))
    url_pairs = {(a, b): _url_pairs(by_lang[a], by_lang[b]) for a, b in language_pairs}
    # a page its URL pairs with a twin is not matched by content in another language pair:
    # its URL scheme is known, and a twin missing in that language is missing from the crawl
    taken = {url for found in url_pairs.values() for m in found for url in (m.src_url, m.tgt_url)}
    for first, second in language_pairs:
        found = url_pairs[(first, second)]
        matches += [
            m
            for m in found
            if not (second in known.get(m.src_url, ()) and first in known.get(m.tgt_url, ()))
        ]
        ratio = _length_ratio(found, by_lang[first], by_lang[second])
        partnered = {p.url for p in by_lang[first] if second in known.get(p.url, ())}
        partnered |= {p.url for p in by_lang[second] if first in known.get(p.url, ())}
        matches += _content_pairs(
            by_lang[first],
            by_lang[second],
            found,
            taken | partnered,
            ratio,
            boilerplate,
            threshold,
            lexicon_weight,
        )
    return matches


def _url_pairs(left: Sequence[PageFeatures], right: Sequence[PageFeatures]) -> list[PageMatch]:
    ignore = language_parameters((p.url for p in left), (p.url for p in right))
    # each URL stripped once: its key, and whether it carries a marker (key != bare URL)
    key = {p.url: strip_language(p.url, p.lang, ignore) for p in (*left, *right)}
    marked = {p.url for p in (*left, *right) if key[p.url] != strip_language(p.url, None)}
    twins_of: dict[str, list[PageFeatures]] = defaultdict(list)
    for page in right:
        twins_of[key[page.url]].append(page)
    found = []
    for page in left:
        twins = twins_of.get(key[page.url], [])
        # one twin, and a marker on at least one of the two URLs (often only the pages of
        # the second language carry one: /index.html and /index_fr.html)
        if len(twins) == 1 and (page.url in marked or twins[0].url in marked):
            twin = twins[0]
            found.append(
                PageMatch(page.url, twin.url, page.lang, twin.lang, "translation", 1.0, "url")
            )
    return found


def _mobile_pairs(by_lang: dict[str, list[PageFeatures]]) -> list[PageMatch]:
    found = []
    for lang, pages in sorted(by_lang.items()):
        desktop = {p.url.lower(): p for p in pages if not _MOBILE.search(p.url.lower())}
        for page in pages:
            lower = page.url.lower()
            if _MOBILE.search(lower):
                twin = desktop.get(_MOBILE.sub("", lower))
                if twin is not None:
                    found.append(PageMatch(twin.url, page.url, lang, lang, "pc-mobile", 1.0, "url"))
    return found


@dataclass(frozen=True)
class LengthRatio:
    """The site's log length ratio of the second language to the first, and its spread."""

    mu: float
    sigma: float


def _length_ratio(
    url_pairs: Sequence[PageMatch], left: Sequence[PageFeatures], right: Sequence[PageFeatures]
) -> LengthRatio:
    lengths = {p.url: max(p.text_length, 1) for p in (*left, *right)}
    logs = [math.log(lengths[m.tgt_url] / lengths[m.src_url]) for m in url_pairs]
    if len(logs) >= MIN_URL_PAIRS_FOR_RATIO:
        mu = float(np.median(logs))
        spread = float(np.median(np.abs(np.array(logs) - mu))) * 1.4826
        return LengthRatio(mu, max(spread, 0.1))
    if not left or not right:
        return LengthRatio(0.0, 0.3)
    mu = math.log(
        float(np.median([lengths[p.url] for p in right]))
        / float(np.median([lengths[p.url] for p in left]))
    )
    return LengthRatio(mu, 0.3)


def _boilerplate(by_lang: dict[str, list[PageFeatures]]) -> frozenset[int]:
    # text blocks found on many pages of one language of the site: menus, footers, notices
    repeated: set[int] = set()
    for pages in by_lang.values():
        if len(pages) < 3:
            continue
        counts = Counter(h for page in pages for h in {block[2] for block in page.blocks})
        repeated |= {h for h, n in counts.items() if n >= max(2, BOILERPLATE_SHARE * len(pages))}
    return frozenset(repeated)


def _content_pairs(
    left: Sequence[PageFeatures],
    right: Sequence[PageFeatures],
    url_pairs: Sequence[PageMatch],
    taken: set[str],
    ratio: LengthRatio,
    boilerplate: frozenset[int],
    threshold: float,
    lexicon_weight: int,
) -> list[PageMatch]:
    """Content pairs among the pages the URL rule left unpaired (``taken``: the URLs it
    paired in any language pair, and those with a partner in this one; IDF weights and the
    lexicon count every page of the two languages). A page without text is matched by URL
    only: it has no content to compare."""
    free_left = [i for i, p in enumerate(left) if p.url not in taken and p.text_length > 0]
    free_right = {j for j, p in enumerate(right) if p.url not in taken and p.text_length > 0}
    if not free_left or not free_right:
        return []
    score = _Scorer(left, right, ratio, boilerplate, lexicon_weight)
    floor = max(threshold, score.calibrated_threshold(url_pairs))
    return _assign(score, free_left, free_right, floor)


def _assign(
    score: _Scorer, free_left: Sequence[int], free_right: set[int], threshold: float
) -> list[PageMatch]:
    scored: list[tuple[float, int, int]] = []
    for i in free_left:
        for j in score.candidates(i):
            if j in free_right and (value := score(i, j)) >= threshold:
                scored.append((value, i, j))
    found = []
    for value, i, j in one_to_one(scored, len(score.left), len(score.right)):
        a, b = score.left[i], score.right[j]
        found.append(PageMatch(a.url, b.url, a.lang, b.lang, "translation", value, "content"))
    return found


class _Scorer:
    """The pair score of two pages of the site (see the module docstring) and candidates."""

    def __init__(
        self,
        left: Sequence[PageFeatures],
        right: Sequence[PageFeatures],
        ratio: LengthRatio,
        boilerplate: frozenset[int],
        lexicon_weight: int = LEXICON_WEIGHT,
    ) -> None:
        self.left, self.right, self.ratio = left, right, ratio
        self.lexicon_weight = lexicon_weight
        anchors = [_anchor_set(p) for p in right]
        self.idf = _idf(
            [_anchor_set(p) for p in left] + anchors, singletons=False, common=BOILERPLATE_SHARE
        )
        self.breaks = {p.url: _breaks(p, boilerplate) for p in (*left, *right)}
        self.index = _inverted(anchors)
        self.lexicon = Lexicon.for_pages(left, right)

    def __call__(self, i: int, j: int) -> float:
        a, b = self.left[i], self.right[j]
        parts = [
            length_similarity(a, b, self.ratio),
            break_similarity(self.breaks[a.url], self.breaks[b.url]),
        ]
        anchors = anchor_similarity(a, b, self.idf)
        if anchors is not None:
            parts.append(anchors)
        lexical = None if self.lexicon is None else self.lexicon.similarity(i, j)
        if lexical is not None:
            parts += [lexical] * self.lexicon_weight
        return sum(parts) / len(parts)

    def candidates(self, i: int) -> list[int]:
        chosen = _candidates(self.left[i], self.right, self.index, self.idf, self.ratio)
        if self.lexicon is not None:
            chosen += [j for j in self.lexicon.candidates(i) if j not in chosen]
        return chosen

    def calibrated_threshold(self, url_pairs: Sequence[PageMatch]) -> float:
        """With MIN_URL_PAIRS_TO_CALIBRATE pairs or more found by URL, the CALIBRATION_QUANTILE
        of their content scores: the site's own true pairs say how low a true pair scores
        (0 without them)."""
        if len(url_pairs) < MIN_URL_PAIRS_TO_CALIBRATE:
            return 0.0
        left_at = {p.url: i for i, p in enumerate(self.left)}
        right_at = {p.url: j for j, p in enumerate(self.right)}
        values = [
            self(left_at[m.src_url], right_at[m.tgt_url])
            for m in url_pairs
            if m.src_url in left_at and m.tgt_url in right_at
        ]
        return float(np.quantile(values, CALIBRATION_QUANTILE)) if values else 0.0


def one_to_one(
    scored: Sequence[tuple[float, int, int]], rows: int, columns: int
) -> list[tuple[float, int, int]]:
    """Each page at most once: the assignment of greatest total score (Hungarian method,
    scipy) while the score matrix stays within DENSE_CELLS, else best pair first (greedy)."""
    if not scored:
        return []
    if rows * columns <= DENSE_CELLS:
        matrix = np.zeros((rows, columns))
        for score, i, j in scored:
            matrix[i, j] = max(matrix[i, j], score)
        # kept only where the pair is the best of its row or of its column: a page without
        # its twin in the crawl is otherwise handed whatever is left over
        row_best, column_best = matrix.max(axis=1), matrix.max(axis=0)
        return sorted(
            (float(matrix[i, j]), i, j)
            for i, j in best_assignment(matrix)
            if matrix[i, j] >= row_best[i] or matrix[i, j] >= column_best[j]
        )
    used_rows: set[int] = set()
    used_columns: set[int] = set()
    result = []
    for score, i, j in sorted(scored, key=lambda item: (-item[0], item[1], item[2])):
        if i not in used_rows and j not in used_columns:
            used_rows.add(i)
            used_columns.add(j)
            result.append((score, i, j))
    return result


class Lexicon:
    """Translation evidence of a bilingual dictionary between the pages of two languages
    (Bitextor's DIC idea): the IDF-weighted share of one page's dictionary words whose
    translations occur on the other page, both ways."""

    def __init__(
        self,
        left: Sequence[PageFeatures],
        right: Sequence[PageFeatures],
        translations: dict[str, tuple[str, ...]],
        reverse: dict[str, tuple[str, ...]],
    ) -> None:
        self.left_idf = _idf([p.words for p in left])
        self.right_idf = _idf([p.words for p in right])
        # each page's dictionary words and their translations into the other language
        self.left_known = [frozenset(w for w in p.words if w in translations) for p in left]
        self.right_known = [frozenset(w for w in p.words if w in reverse) for p in right]
        self.left_translated = [
            frozenset(t for w in known for t in translations[w]) for known in self.left_known
        ]
        self.right_translated = [
            frozenset(t for w in known for t in reverse[w]) for known in self.right_known
        ]
        self.translations, self.reverse = translations, reverse
        self.left_pages, self.right_pages = left, right
        self.right_index = _inverted([p.words for p in right])

    @classmethod
    def for_pages(
        cls, left: Sequence[PageFeatures], right: Sequence[PageFeatures]
    ) -> Lexicon | None:
        """The lexicon of the installed dictionaries of the two pages' languages, if any."""
        if not left or not right:
            return None
        dictionary = dictionary_for(left[0].lang, right[0].lang)
        if dictionary is None:
            return None
        return cls(left, right, dictionary.translations, dictionary.reversed().translations)

    def similarity(self, i: int, j: int) -> float | None:
        """Mean of the two directions' weighted translation shares, in [0, 1]; a direction
        whose page holds no dictionary word is left out, and with neither the similarity is
        None (no evidence either way, rather than evidence against the pair)."""
        shares = [
            share
            for share in (
                _weighted_share(
                    self.left_known[i], self.right_pages[j].words, self.translations, self.left_idf
                ),
                _weighted_share(
                    self.right_known[j], self.left_pages[i].words, self.reverse, self.right_idf
                ),
            )
            if share is not None
        ]
        return sum(shares) / len(shares) if shares else None

    def candidates(self, i: int) -> list[int]:
        """The CANDIDATES right pages holding the most IDF weight of left page i's
        translations (rare words only, as for anchors)."""
        weight: dict[int, float] = defaultdict(float)
        limit = max(50, len(self.right_pages) // 20)
        for word in sorted(self.left_translated[i]):  # sorted: sums in a fixed order
            postings = self.right_index.get(word, ())
            if 0 < len(postings) <= limit:
                for j in postings:
                    weight[j] += self.right_idf.get(word, 0.0)
        return sorted(weight, key=lambda j: (-weight[j], j))[:CANDIDATES]


def _weighted_share(
    known: frozenset[str],
    other_words: frozenset[str],
    translations: dict[str, tuple[str, ...]],
    idf: dict[str, float],
) -> float | None:
    total = _idf_weight(known, idf)
    if total <= 0:
        return None
    found = _idf_weight((w for w in known if any(t in other_words for t in translations[w])), idf)
    return found / total


def _idf_weight(items: Iterable[str], idf: dict[str, float]) -> float:
    """The summed IDF weight of the items, exactly (``math.fsum``): a sum over a set in the
    set's (hash-seeded) order rounded differently from run to run and flipped near-ties."""
    return math.fsum(idf.get(item, 0.0) for item in items)


def best_assignment(matrix: np.ndarray) -> list[tuple[int, int]]:
    """The one-to-one cells of greatest total score (Hungarian method, scipy), those > 0."""
    # lazy: scipy.optimize is slow to import and only pages left unpaired by URL need it
    from scipy.optimize import linear_sum_assignment

    rows, columns = linear_sum_assignment(matrix, maximize=True)
    return [(int(i), int(j)) for i, j in zip(rows, columns, strict=True) if matrix[i, j] > 0]


def _anchor_set(page: PageFeatures) -> frozenset[str]:
    return page.anchors | {"img:" + i for i in page.images} | {"link:" + u for u in page.links}


def _idf(
    sets: Sequence[frozenset[str]], *, singletons: bool = True, common: float = 1.0
) -> dict[str, float]:
    """IDF weight of every item; without ``singletons``, 0 for an item on one page only,
    which can be evidence for no pair (an opaque URL's id) and would only dilute the
    similarity of the page that holds it; 0 too for an item on more than a ``common`` share
    of the pages (the site's menu links and logo: shared by every pair, true or not)."""
    counts = Counter(item for items in sets for item in items)
    total = len(sets)
    return {
        item: math.log((total + 1) / (n + 0.5))
        if (singletons or n > 1) and n <= max(2, common * total)
        else 0.0
        for item, n in counts.items()
    }


def _candidates(
    page: PageFeatures,
    right: Sequence[PageFeatures],
    index: dict[str, list[int]],
    idf: dict[str, float],
    ratio: LengthRatio,
) -> list[int]:
    """At most CANDIDATES pages: those sharing the rarest anchors, then length neighbours."""
    weight: dict[int, float] = defaultdict(float)
    for item in sorted(_anchor_set(page)):  # sorted: sums in a fixed order
        postings = index.get(item, ())
        if 0 < len(postings) <= max(50, len(right) // 20):
            for j in postings:
                weight[j] += idf.get(item, 0.0)
    chosen = sorted(weight, key=lambda j: (-weight[j], j))[:CANDIDATES]
    expected = math.log(max(page.text_length, 1)) + ratio.mu
    by_length = sorted(
        range(len(right)), key=lambda j: (abs(math.log(max(right[j].text_length, 1)) - expected), j)
    )
    for j in by_length[:LENGTH_NEIGHBOURS]:
        if j not in chosen:
            chosen.append(j)
    return chosen


def _inverted(anchors: Sequence[frozenset[str]]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = defaultdict(list)
    for j, items in enumerate(anchors):
        for item in items:
            index[item].append(j)
    return index


def anchor_similarity(a: PageFeatures, b: PageFeatures, idf: dict[str, float]) -> float | None:
    """IDF weight of the anchors, images and links the pages share over that of the page
    with fewer (an overlap coefficient: German capitalises every noun, so its pages hold far
    more candidate names than their French twins; a union would dilute the shared ones).
    None when either page has no anchor of weight: nothing to compare, no evidence either
    way."""
    left, right = _anchor_set(a), _anchor_set(b)
    smaller = min(_idf_weight(left, idf), _idf_weight(right, idf))
    if smaller <= 0:
        return None
    return min(1.0, _idf_weight(left & right, idf) / smaller)


def length_similarity(a: PageFeatures, b: PageFeatures, ratio: LengthRatio) -> float:
    """exp(-|log(L_b / L_a) - mu| / sigma): 1 at the site's expected length ratio."""
    observed = math.log(max(b.text_length, 1) / max(a.text_length, 1))
    return math.exp(-abs(observed - ratio.mu) / ratio.sigma)


def _breaks(page: PageFeatures, boilerplate: frozenset[int]) -> np.ndarray:
    # relative positions of the paragraph breaks of the content blocks (no boilerplate, no
    # title or heading: short, and their share of the text differs between scripts)
    lengths = [
        length
        for tag, length, h in page.blocks
        if h not in boilerplate and length > 0 and tag not in _NOT_PARAGRAPHS
    ]
    total = sum(lengths)
    if total == 0 or len(lengths) < 2:
        return np.zeros(0)
    return np.cumsum(lengths[:-1]) / total


def break_similarity(breaks_a: np.ndarray, breaks_b: np.ndarray) -> float:
    """How well the two pages' relative paragraph breaks coincide: for each break the
    distance d to the nearest break of the other page, scored exp(-d / BREAK_TOLERANCE),
    averaged both ways (1 when neither page has a break: nothing tells them apart)."""
    if len(breaks_a) == 0 and len(breaks_b) == 0:
        return 1.0
    if len(breaks_a) == 0 or len(breaks_b) == 0:
        return 0.0
    return (_nearness(breaks_a, breaks_b) + _nearness(breaks_b, breaks_a)) / 2


def _nearness(points: np.ndarray, others: np.ndarray) -> float:
    positions = np.searchsorted(others, points)
    before = others[np.clip(positions - 1, 0, len(others) - 1)]
    after = others[np.clip(positions, 0, len(others) - 1)]
    distance = np.minimum(np.abs(points - before), np.abs(points - after))
    return float(np.mean(np.exp(-distance / BREAK_TOLERANCE)))
