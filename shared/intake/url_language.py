"""Language markers in URLs: what a site adds to a page's URL to say its language.

Sites mark a page's language in many ways (the WMT16 document-alignment training pairs show
most of them, ``benchmarks/results/page_match.md``): a directory (``/en/``, ``/eng/``,
``/english/``, ``/francais/``, ``/en-us/``), a host label (``en.example.org``), a query
parameter (``?lang=en``, ``?hl=fr``, ``?locale=fr_CA``), a file-name suffix (``_en``, ``-eng``,
``.fr``, the Canadian ``_e``/``_f``), a prefix (``en:page``); and often only on the pages of
the other language (``/index_3.html`` and ``/index_3_fr.html``). :func:`strip_language`
removes every marker of one language, so that two translations of a page reduce to one key.

A language's markers come from ``langcodes`` (ISO 639-1 and both ISO 639-2 codes, the
English name and the autonym, accents folded), plus the country codes sites use for a
language (``/jp/``, ``/cn/``, ``/us/``). Pure: no store, queue or web imports.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit

# Country codes that sites use as the language's directory or label.
_COUNTRY_ALIASES = {
    "en": ("us", "uk", "gb"),
    "zh": ("cn", "tw", "hk", "chs", "cht"),
    "ja": ("jp", "jpn"),
    "ko": ("kr", "kor"),
    "da": ("dk",),
    "sv": ("se",),
    "cs": ("cz",),
    "el": ("gr",),
    "et": ("ee",),
    "uk": ("ua",),
    "he": ("il",),
    "vi": ("vn",),
    "sl": ("si",),
    "nb": ("no",),
    "nn": ("no",),
}
_LANGUAGE_KEYS = frozenset({"l", "lc", "ln", "lng", "hl", "locale", "culture", "language"})
_REGION = r"(?:[-_][a-z]{2,4})?"
_INDEX = re.compile(r"(?:index|default|home)\.(?:html?|php\d?|aspx?|jsp|cfm)")


@functools.cache
def language_markers(lang: str) -> frozenset[str]:
    """The tokens that mark ``lang`` in a URL, lower case: its ISO 639-1 code, ISO 639-2
    codes, English name, autonym (accents folded) and country-code aliases."""
    import langcodes  # lazy: its tables stay off the gateway's start, read on first use

    code = lang.replace("_", "-").split("-", 1)[0].lower()
    markers = {code, *_COUNTRY_ALIASES.get(code, ())}
    try:
        language = langcodes.Language.get(code)
        markers |= {language.to_alpha3(), language.to_alpha3(variant="B")}
        names = [language.display_name(), language.autonym()]
    except (LookupError, ValueError):
        names = []
    for name in names:
        folded = unicodedata.normalize("NFKD", name.lower())
        ascii_name = "".join(c for c in folded if c.isascii() and c.isalpha())
        if len(ascii_name) >= 4 and ascii_name != code:
            markers.add(ascii_name)
    return frozenset(m for m in markers if m and m.isascii() and m.isalnum())


@functools.cache
def _patterns(lang: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    markers = sorted(language_markers(lang), key=lambda m: (-len(m), m))
    alternatives = "|".join(map(re.escape, markers))
    segment = re.compile(rf"(?:{alternatives}){_REGION}")
    # a file name's marker: name_en.html, name-eng.htm, name.fr.html, en:name, and the
    # one-letter initial of the language's English name (name_e.htm, name_f.htm)
    initials = {m[0] for m in markers if len(m) >= 4 and m.isalpha()}
    single = "|".join(sorted(initials))
    suffix = rf"(?:{alternatives}){_REGION}" + (f"|{single}" if single else "")
    name_suffix = re.compile(rf"[_.\-](?:{suffix})(?=\.[a-z0-9]{{1,5}}$|$)")
    name_prefix = re.compile(rf"^(?:{alternatives}){_REGION}[:_\-](?=.)")
    return segment, name_suffix, name_prefix


def strip_language(url: str, lang: str | None, ignore: frozenset[str] = frozenset()) -> str:
    """``url`` without its scheme, ``www.``, a directory's index document (``index.html``,
    ``default.aspx``), the query parameters named in ``ignore`` and every marker of ``lang``
    (None: none), lower case, query parameters sorted: two translations of one page reduce to
    one key."""
    parts = urlsplit(url.strip().lower())
    labels = (parts.hostname or "").split(".")
    if labels and labels[0] == "www":
        labels = labels[1:]
    segments = [s for s in parts.path.split("/") if s]
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in ignore]
    if lang:
        segment, name_suffix, name_prefix = _patterns(lang)
        if len(labels) > 2 and segment.fullmatch(labels[0]):
            labels = labels[1:]
        segments = [s for s in segments if not segment.fullmatch(s)]
        segments = [name_suffix.sub("", name_prefix.sub("", s)) for s in segments]
        query = [
            (key, name_suffix.sub("", name_prefix.sub("", value)))
            for key, value in query
            if not (segment.fullmatch(value) and (key in _LANGUAGE_KEYS or "lang" in key))
        ]
    if segments and _INDEX.fullmatch(segments[-1]):
        segments = segments[:-1]
    host = ".".join(labels)
    if parts.port:
        host += f":{parts.port}"
    path = "/" + "/".join(s for s in segments if s)
    return host + path + ("?" + urlencode(sorted(query)) if query else "")


def has_language_marker(url: str, lang: str, ignore: frozenset[str] = frozenset()) -> bool:
    """Whether ``url`` carries a marker of ``lang`` or a parameter of ``ignore`` (see
    :func:`strip_language`)."""
    return strip_language(url, lang, ignore) != strip_language(url, None)


def language_parameters(first: Iterable[str], second: Iterable[str]) -> frozenset[str]:
    """Query parameters a site uses as its own language code (``clang=1`` on every English
    page, ``clang=2`` on every French one): present on at least two URLs of each language,
    one value throughout each language, a different one in the other."""
    values_first, values_second = _parameter_values(first), _parameter_values(second)
    return frozenset(
        key
        for key, seen in values_first.items()
        if key in values_second
        and sum(seen.values()) >= 2
        and sum(values_second[key].values()) >= 2
        and len(seen) == 1
        and len(values_second[key]) == 1
        and set(seen) != set(values_second[key])
    )


def _parameter_values(urls: Iterable[str]) -> dict[str, Counter[str]]:
    values: dict[str, Counter[str]] = defaultdict(Counter)
    for url in urls:
        for key, value in parse_qsl(urlsplit(url.lower()).query, keep_blank_values=True):
            values[key][value] += 1
    return values
