"""Sentence splitting for Japanese/Chinese and European languages (docs/methods.md §2),
and for languages of other scripts that separate words with spaces (Hindi, Arabic, ...).

Japanese and Chinese: a sentence ends after 。！？ (or their half-width forms ｡ ! ?) when
no bracket 「」『』（）() is open, with the closing quotes and brackets right after the
terminator (“……。” is one sentence, as European closing quotes are), and a closing
quote after an ellipsis or a dash (……” ——”, an utterance broken off) ends one too.
European languages: a rule-based splitter that ends a sentence at . ! ? (plus closing
quotes/brackets) before whitespace and a capital, digit or opening quote, except after
known abbreviations, initials and ordinal numbers. The same rule serves scripts with
their own terminators (the danda । of Indic scripts, Arabic ؟, Urdu ۔, Armenian ։,
Ethiopic ።, Myanmar ။, Khmer ។, the Greek question mark ;, the Armenian full stop typed as
:); a script without case never
starts a sentence with a lowercase letter, so any word after a terminator does.
Line breaks are whitespace unless ``newline_is_boundary`` is set (the lines of a web page:
``<br>`` lines, ``<pre>``); then a line still continues the previous one when it starts with
a lowercase word after a line of three words or more without final punctuation: pages
hard-wrap sentences with ``<br>`` ("...started to work as a job-order producer in<br>a
medicine-technical sector": 22 of the 104 line breaks inside chunks of the albatec crawl's
de/en pages, all joined by this rule, and none of the others),
while address, contact, menu and list lines are short or start with a capital, a digit, a
symbol or a marker ("a)", "ii."). Japanese and Chinese have no case to tell: there a line
continues the previous one only when that line ends with a comma (、，), which never ends
a sentence, or leaves a bracket 「『（ open; the lines are joined without a space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.text import base_lang

_CJK_LANGS = frozenset({"ja", "zh"})  # base_lang codes (jpn, zho, cmn are ja and zh)
_CJK_TERMINATORS = frozenset("。！？｡!?")
_CJK_OPEN = "「『（("
_CJK_CLOSE = "」』）)"
_CJK_COMMAS = frozenset("、，､")
# Closing quotes and brackets that stay with the sentence a terminator ends.
_CJK_TRAILING = frozenset("”’\"'」』）)")
# A closing quote after an ellipsis or a dash ends the sentence too (……” ——”), unless a
# comma, a terminator or another closer follows it (the sentence goes on, or ends there).
_CJK_QUOTE_ENDS = frozenset("”’")
_CJK_PAUSES = frozenset("…—⋯")
_QUOTE_GOES_ON = _CJK_TERMINATORS | _CJK_TRAILING | _CJK_COMMAS
# Chinese (traditional-style quoting included): only （） are brackets, 「」『』 are quotes.
_ZH_OPEN = "（("
_ZH_CLOSE = "）)"
_ZH_QUOTE_ENDS = frozenset("”’」』")

# Abbreviations that take a period but rarely end a sentence, per language (lowercase,
# without the final period). Kept short on purpose: frequent forms only.
_ABBREVIATION_LIST = """
    etc vs cf ca bzw z.b d.h u.a usw vgl nr st dr prof mr mrs ms jr sr no fig e.g i.e approx
    dept inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec m mme mlle mm env
    p ex cie ste av bd chap vol éd ed hr hrn frl evtl ggf inkl jh jhs mio mrd sog tel u.ä
    z.t zit bspw abs art ff str abb geb tab kap hrsg
"""
_COMMON_ABBREVIATIONS = frozenset(_ABBREVIATION_LIST.split())
_MONTH_LIST = """
    januar februar märz april mai juni juli august september oktober november dezember
    janvier février mars avril juin juillet août septembre octobre novembre décembre
    january february march may june july october december
"""
_MONTHS = frozenset(_MONTH_LIST.split())
# Words before a German ordinal ("der 2. Weltkrieg", "im 19. Jahrhundert", "zum 3. Mal").
_ORDINAL_LIST = """
    der die das dem den des am im vom zum zur beim ab bis seit um ihr ihre ihrem ihren
    sein seine seinem seinen dieser diese dieses diesem diesen jeder jede jedes jedem jeden
"""
_ORDINAL_CONTEXT = frozenset(_ORDINAL_LIST.split())
# Languages that write a date as day.month. ("am 24.12."): elsewhere "2.5." is a decimal
# number that ends a sentence.
_DAY_MONTH_LANGS = frozenset({"de", "cs", "sk", "pl", "fi", "da", "nb", "no", "hr", "sl", "sr"})

# A candidate boundary: terminator run, optional closing quotes/brackets, then whitespace.
# French sets a space (often no-break) before a closing guillemet: « Bonjour. » Il partit.
# German closes with “ and ‘ („Ja.“ Dann ...); before a word they open, and need no rule.
# German also quotes »so« and ‹so›: an unspaced « ‹ › after the stop closes the sentence
# ("»Ja.« Dann"), a spaced « opens the next one in French.
# The run is matched from its first character only (the lookbehind): tried from every
# position of a long run of dots with no space after it, splitting was quadratic
# (tuning_history.md, the splitter).
# Scripts of other regions end sentences with their own marks, which the same rule reads
# like ! and ?: the danda । ॥ (Hindi, Bengali, Marathi, Nepali, Punjabi and other Indic
# scripts), the Arabic question mark ؟ (Arabic, Persian, Urdu), the Urdu full stop ۔, the
# Armenian full stop ։, the Ethiopic full stop and question mark ። ፧ (Amharic, Tigrinya),
# the Myanmar section mark ။, the Khmer khan ។ ៕ and the Mongolian full stop ᠃. Two ASCII
# look-alikes are terminators in one language only: Greek writes its question mark as ;
# (U+037E, or the ASCII semicolon it is equivalent to), and Armenian text typed on a Latin
# keyboard writes its full stop ։ as : (Armenian's colon is ․; measured in
# benchmarks/results/sentence_align_scripts.md).
_OTHER_TERMINATORS = "\u0964\u0965\u061f\u06d4\u0589\u1362\u1367\u104b\u17d4\u17d5\u1803\u037e"
_TERMINATORS = ".!?…" + _OTHER_TERMINATORS
_BOUNDARY = r"(?<![{t}])([{t}]+)((?:[ \u00a0\u202f]?[\"'»”’“‘)\]]|[«‹›])*)(\s+)"
_EURO_BOUNDARY = re.compile(_BOUNDARY.format(t=_TERMINATORS))
_LANGUAGE_BOUNDARY = {
    "el": re.compile(_BOUNDARY.format(t=_TERMINATORS + ";")),
    "hy": re.compile(_BOUNDARY.format(t=_TERMINATORS + ":")),
}
# A sentence starts at a word, after opening quotes, brackets or a dialogue dash.
_SENTENCE_START = re.compile(r"(?:[\"'«»“‘„‚‹›(\[¿¡–—]\s?)*\w")
_WORD = re.compile(r"\w+")
# from the start of a whitespace run only (tried from each of its characters, a long run of
# spaces without a line break made the search quadratic)
_LINE_BREAK = re.compile(r"(?<![^\S\n])[^\S\n]*\n\s*")
# Page lines (newline_is_boundary): what ends a line as a unit, and the first word of a line
# that continues a hard-wrapped sentence. Georgian has lowercase letters and no capitals at
# a sentence's start; scripts without case have no lowercase letters at all.
_LINE_ENDERS = frozenset(".!?…:;" + _OTHER_TERMINATORS)
_CLOSERS = "\"'»«”’“‘›‹)] \t\u00a0\u202f"  # closing quotes and brackets, spaced or not
_LOWERCASE_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*[,;.!?]?")
_UNCASED_LANGS = frozenset({"ka", "kat", "geo"})


def _unclosed_brackets(text: str, opening: str = _CJK_OPEN, closing: str = _CJK_CLOSE) -> set[int]:
    """Positions of opening brackets that nothing closes: read as literal characters, else an
    unclosed 「 kept every later sentence of the block in one."""
    open_positions: list[int] = []
    for index, char in enumerate(text):
        if char in opening:
            open_positions.append(index)
        elif char in closing and open_positions:
            open_positions.pop()
    return set(open_positions)


def _open_brackets(text: str, already_open: int = 0) -> int:
    """How many opening brackets are left unclosed after ``text``, ``already_open`` before
    it (the count of :func:`_unclosed_brackets`, read on as lines are joined)."""
    for char in text:
        if char in _CJK_OPEN:
            already_open += 1
        elif char in _CJK_CLOSE and already_open:
            already_open -= 1
    return already_open


def _inside_latin(text: str, index: int) -> bool:
    """An ASCII ! or ? inside Latin text ("Yahoo!ニュース", "?id=3" in a URL): after an
    ASCII character and before neither a space nor the end, it ends no sentence."""
    if text[index] not in "!?":
        return False
    after = text[index + 1 : index + 2]
    return index > 0 and text[index - 1].isascii() and after != "" and not after.isspace()


def _split_cjk(text: str, chinese: bool = False) -> list[str]:
    """Japanese (``chinese`` False): no boundary inside 「」『』（）; Chinese: 「」『』 are
    quotation marks, as “” ‘’ are in simplified text (一個句子。」 ends the quoted sentence,
    and a quote may hold several), only （） are brackets."""
    opening, closing = (_ZH_OPEN, _ZH_CLOSE) if chinese else (_CJK_OPEN, _CJK_CLOSE)
    quote_ends = _ZH_QUOTE_ENDS if chinese else _CJK_QUOTE_ENDS
    sentences: list[str] = []
    literal = _unclosed_brackets(text, opening, closing)
    depth = 0
    start = 0
    index = 0
    while index < len(text):
        char = text[index]
        if char in opening and index not in literal:
            depth += 1
        elif char in closing:
            depth = max(0, depth - 1)
        elif (
            char in quote_ends
            and depth == 0
            and index > 0
            and text[index - 1] in _CJK_PAUSES
            and text[index + 1 : index + 2] not in _QUOTE_GOES_ON
        ):
            # An utterance broken off (……” or ——”) ends its sentence at the quote.
            sentences.append(text[start : index + 1])
            start = index + 1
        elif char in _CJK_TERMINATORS and depth == 0 and not _inside_latin(text, index):
            # Keep runs such as ！？ together with the sentence they end, and the closing
            # quotes and brackets after them (。” ends the sentence after the quote, even
            # with a space between: 。 ”).
            while index + 1 < len(text) and text[index + 1] in _CJK_TERMINATORS:
                index += 1
            while index + 1 < len(text) and (
                text[index + 1] in _CJK_TRAILING
                or (text[index + 1] == " " and text[index + 2 : index + 3] in _CJK_TRAILING)
            ):
                index += 1
            sentences.append(text[start : index + 1])
            start = index + 1
        index += 1
    sentences.append(text[start:])
    return sentences


def _previous_token(text: str, end: int) -> str:
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end]


def _is_day_and_month(parts: list[str]) -> bool:
    """``["24", "12"]``: a day 1-31 and a month 1-12 of at most two digits each."""
    if len(parts) != 2 or not all(part.isdigit() and len(part) <= 2 for part in parts):
        return False
    return 1 <= int(parts[0]) <= 31 and 1 <= int(parts[1]) <= 12


def _is_european_boundary(text: str, match: re.Match[str], lang: str) -> bool:
    # matched in place (no copy of the rest of the text: a copy per candidate boundary made
    # splitting quadratic in the length of a long block)
    start = _SENTENCE_START.match(text, match.end())
    if start is None:
        return False
    first_letter = text[start.end() - 1]
    if first_letter.islower():
        return False
    if match.group(1) != ".":
        return True  # ! ? … and runs like "..." before a capital end a sentence
    token = _previous_token(text, match.start()).lstrip("\"'«“‘([")
    word = token.lower()
    if word in _COMMON_ABBREVIATIONS or (lang == "de" and word.endswith("str")):
        return False  # "-str." is -straße in German street names ("Hauptstr. 5")
    if len(token) == 1 and token.isalpha() and not (token == "I" and base_lang(lang) == "en"):
        return False  # an initial: "J. Smith" (English "I." is the pronoun: "so was I. At")
    parts = token.split(".")
    if "." in token and all(len(part) <= 2 and not part.isdigit() for part in parts):
        return False  # "z.B.", "U.S."
    if lang in _DAY_MONTH_LANGS and _is_day_and_month(parts):
        return False  # a German date "am 24.12. Abends": the period ends the month
    # other numbers ("$3.50.", "Version 2.0.", "3.14.") end the sentence like any word
    if token.isdigit() and len(token) <= 2:
        # Ordinals ("am 3. Mai", "der 2. Weltkrieg"): a short number + period before a
        # month name, or after an article or preposition in German, is no sentence end.
        next_word = _WORD.match(text, start.end() - 1)
        if next_word is not None and next_word.group(0).lower() in _MONTHS:
            return False
        if lang == "de" and _previous_word(text, match.start() - len(token)) in _ORDINAL_CONTEXT:
            return False
    return True


def _previous_word(text: str, end: int) -> str:
    """The lowercase word ending before the whitespace that ends at ``end``."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return _previous_token(text, end).lower()


def _split_european(text: str, lang: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    boundary = _LANGUAGE_BOUNDARY.get(lang, _EURO_BOUNDARY)
    for match in boundary.finditer(text):
        if _is_european_boundary(text, match, lang):
            sentences.append(text[start : match.end(2)])
            start = match.end()
    sentences.append(text[start:])
    return sentences


@dataclass
class _JoinedLine:
    """A page line with the hard-wrapped lines joined to it, and what :func:`_continues` and
    :func:`_cjk_continues` ask of it, kept up to date as lines join (asked of the whole joined
    text each time, 40,000 short lines took two minutes)."""

    parts: list[str]
    words: int  # whitespace-separated words
    last: str  # last character before trailing whitespace
    last_before_closers: str  # last character before trailing closing quotes and brackets
    open_brackets: int  # CJK brackets nothing has closed

    @classmethod
    def start(cls, line: str) -> _JoinedLine:
        return cls(
            [line],
            len(line.split()),
            line.rstrip()[-1:],
            line.rstrip(_CLOSERS)[-1:],
            _open_brackets(line),
        )

    def join_cjk(self, line: str) -> None:
        """Append ``line`` without the whitespace between (CJK text runs on)."""
        self.parts[-1] = self.parts[-1].rstrip()
        self.parts.append(line.lstrip())
        self.words += len(line.split()) - 1  # the words either side of the joint are one
        self._update_ends(line)

    def join_cased(self, line: str) -> None:
        """Append ``line`` after a space."""
        self.parts.append(" " + line)
        self.words += len(line.split())
        self._update_ends(line)

    def _update_ends(self, line: str) -> None:
        # the joint is whitespace (a closer too): only a line without other characters, which
        # never joins, would leave the earlier ends in place
        self.last = line.rstrip()[-1:] or self.last
        self.last_before_closers = line.rstrip(_CLOSERS)[-1:] or self.last_before_closers
        self.open_brackets = _open_brackets(line, self.open_brackets)

    def text(self) -> str:
        return "".join(self.parts)


def _page_lines(text: str, cased: bool, cjk: bool) -> list[str]:
    """The text's lines, a hard-wrapped sentence's lines joined (:func:`_continues`,
    :func:`_cjk_continues`)."""
    lines: list[_JoinedLine] = []
    for line in text.splitlines():
        if lines and cjk and _cjk_continues(lines[-1], line):
            lines[-1].join_cjk(line)
        elif lines and cased and _continues(lines[-1], line):
            lines[-1].join_cased(line)
        else:
            lines.append(_JoinedLine.start(line))
    return [line.text() for line in lines]


def _cjk_continues(previous: _JoinedLine, line: str) -> bool:
    """Whether a Japanese or Chinese ``line`` continues ``previous``: that line ends with a
    comma or leaves a bracket open ("彼は「今日は" + "晴れだ」と言った。")."""
    if not line.strip():
        return False
    return previous.last in _CJK_COMMAS or previous.open_brackets > 0


def _continues(previous: _JoinedLine, line: str) -> bool:
    """Whether ``line`` continues the sentence of ``previous``: that line has three words or
    more and no final punctuation (menu items, headings and labels are short), and this one
    starts with a lowercase word (not "a)", "ii.", "www.example.org" or "info@example.org")."""
    if previous.words < 3 or previous.last_before_closers in _LINE_ENDERS:
        return False
    first = line.split(maxsplit=1)[0] if line.strip() else ""
    return _LOWERCASE_WORD.fullmatch(first) is not None and first[0].islower()


def split_sentences(text: str, lang: str, *, newline_is_boundary: bool = False) -> list[str]:
    """Split ``text`` into sentences with the rules for language ``lang`` (ISO 639 code).

    Empty or whitespace-only pieces are dropped; each sentence is stripped.
    """
    code = base_lang(lang)
    cjk = code in _CJK_LANGS
    blocks = _page_lines(text, code not in _UNCASED_LANGS, cjk) if newline_is_boundary else [text]
    sentences: list[str] = []
    for block in blocks:
        if not newline_is_boundary and "\n" in block:
            # A line break inside a chunk is layout, not a boundary: CJK text runs on without
            # spaces, European text gets a space.
            block = _LINE_BREAK.sub("" if cjk else " ", block)
        pieces = _split_cjk(block, code == "zh") if cjk else _split_european(block, code)
        sentences.extend(piece.strip() for piece in pieces if piece.strip())
    return sentences
