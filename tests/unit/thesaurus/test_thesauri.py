"""Tests of the thesaurus tree, the WLSP and WordNet loaders, and the JSON form."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pytest

from services.thesaurus.thesauri import Thesaurus, load_wlsp, load_wordnet
from shared.errors import InvalidInput
from tests.conftest import kit_path

# Rows in the bunruidb.txt layout (kaisetsu.txt §1.2), written for this test.
WLSP_ROWS = [
    "000001,00001,A,体,関係,事柄,事柄,1.1000,01,01,01,事,事,こと,とこ",
    "000002,00002,A,体,関係,事柄,事柄,1.1000,01,01,02,物事,物事,ものごと,とごのも",
    "000003,00003,A,体,関係,事柄,事柄,1.1000,01,99,99,＊,＊,＊,＊",
    "000004,00004,B,体,関係,事柄,事柄,1.1000,02,01,01,市立（しりつ・いちりつ）,市立,しりつ・いちりつ,つりちい・つりし",
    "000005,00004,1,体,関係,事柄,事柄,1.1000,02,01,01,市立（しりつ）,市立,しりつ,つりし",
    "000006,00005,A,体,活動,言語,言語,1.3101,03,01,01,国語,国語,こくご,ごくこ",
    "000007,00006,A,体,活動,言語,言語,1.3101,03,01,02,−語,−語,ご,ご",
    "000008,00007,B,体,活動,言語,言語,1.3101,03,01,03,言葉・詞,言葉・詞,ことば,ばとこ",
    "000009,00007,1,体,活動,言語,言語,1.3101,03,01,03,言葉,言葉,ことば,ばとこ",
    "000010,00008,A,体,活動,言語,言語,1.3101,04,01,01,事,事,こと,とこ",
    "000011,00009,A,用,活動,言語,言語,2.3101,01,01,01,話す,話す,はなす,すなは",
]


@pytest.fixture
def wlsp_file(tmp_path: Path) -> Path:
    path = tmp_path / "bunruidb.txt"
    path.write_bytes(("\r\n".join(WLSP_ROWS) + "\r\n").encode("cp932"))
    return path


def test_wlsp_class_tree_and_words(wlsp_file: Path) -> None:
    thesaurus = load_wlsp(wlsp_file)
    parent = {
        cid: thesaurus.class_ids[p] if p >= 0 else None
        for cid, p in zip(thesaurus.class_ids, thesaurus.parent, strict=True)
    }
    assert parent["1.1000"] == "1.10" and parent["1.10"] == "1.1" and parent["1.1"] == "1"
    assert parent["1"] == "WLSP" and parent["WLSP"] is None
    assert set(thesaurus.leaf_ids) == {"1.1000", "1.3101"}
    assert "2.3101" not in thesaurus.class_ids  # verbs are left out by default
    by_word = {w: {thesaurus.class_ids[n] for n in nodes} for w, nodes in thesaurus.words.items()}
    assert by_word == {
        "事": {"1.1000", "1.3101"},  # polysemous
        "物事": {"1.1000"},
        "市立": {"1.1000"},
        "国語": {"1.3101"},
        "言葉": {"1.3101"},
    }
    assert thesaurus.labels[thesaurus.node("1.3101")] == "言語"


def test_wlsp_paragraph_leaves_and_koumoku(wlsp_file: Path, tmp_path: Path) -> None:
    koumoku1 = tmp_path / "koumoku1.txt"
    koumoku1.write_text(
        "1.1000,事柄,137\n1.1010,こそあど・他,51\n1.3101,言語,99\n", encoding="utf-8"
    )
    koumoku2 = tmp_path / "koumoku2.txt"
    koumoku2.write_text("1.10,事柄,405\n1.31,言語,993\n", encoding="utf-8")
    thesaurus = load_wlsp(wlsp_file, koumoku1=koumoku1, koumoku2=koumoku2, leaf_level="paragraph")
    assert set(thesaurus.leaf_ids) == {
        "1.1000-01",
        "1.1000-02",
        "1.1010",  # listed in koumoku1, no words: still a leaf (its SIM will be estimated)
        "1.3101-03",
        "1.3101-04",
    }
    assert thesaurus.class_ids[thesaurus.parent[thesaurus.node("1.1000-02")]] == "1.1000"
    assert thesaurus.labels[thesaurus.node("1.1010")] == "こそあど・他"


def test_wlsp_reads_ninjals_shift_jis_class_tables(wlsp_file: Path) -> None:
    # NINJAL's koumoku1/2.txt are Shift_JIS: read as UTF-8 they raised UnicodeDecodeError
    koumoku = kit_path("wlsp-bunrui-goi-hyou-class-tables")
    thesaurus = load_wlsp(
        wlsp_file, koumoku1=koumoku / "koumoku1.txt", koumoku2=koumoku / "koumoku2.txt"
    )
    assert thesaurus.labels[thesaurus.node("1.1000")] == "事柄"
    assert thesaurus.labels[thesaurus.node("1.1010")] == "こそあど・他"
    assert thesaurus.labels[thesaurus.node("1.10")] == "事柄"
    nominal = [cid for cid in thesaurus.leaf_ids if cid.startswith("1.")]
    assert len(nominal) > 100  # every 分類項目 of 体の類 in koumoku1 is a leaf


def test_wlsp_rejects_a_wrong_layout(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("1.1000,事柄,137\n", encoding="cp932")
    with pytest.raises(InvalidInput, match="15 columns"):
        load_wlsp(path)


def test_build_validates_the_tree() -> None:
    with pytest.raises(InvalidInput, match="one root"):
        Thesaurus.build("t", [("a", None, ""), ("b", None, "")], [])
    with pytest.raises(InvalidInput, match="not a leaf"):
        Thesaurus.build("t", [("r", None, ""), ("a", "r", "")], [("語", "r")])
    with pytest.raises(InvalidInput, match="cycle"):
        Thesaurus.build("t", [("r", None, ""), ("a", "b", ""), ("b", "a", "")], [])


def test_tree_arrays_and_json_round_trip(tree: Thesaurus) -> None:
    assert tree.leaf_ids == ("a1", "a2", "a3", "b1", "b2")
    assert list(tree.depth[tree.leaves]) == [2, 2, 2, 2, 2]
    assert tree.word_leaves("銀") == (0, 3)
    names = [tree.class_ids[n] for n in tree.leaf_ancestors(1)]
    assert names == ["P", "P", "P", "Q", "Q"]
    assert set(tree.leaf_ancestors(5)) == {0}
    depth = tree.common_ancestor_depth()
    assert depth[0, 1] == 1 and depth[0, 3] == 0 and depth[2, 2] == 2
    again = Thesaurus.from_json(tree.to_json())
    assert again.class_ids == tree.class_ids and again.words == tree.words
    np.testing.assert_array_equal(again.parent, tree.parent)
    with pytest.raises(InvalidInput):
        Thesaurus.from_json("{}")


def test_sample_thesaurus_ships_and_loads() -> None:
    sample = Path(__file__).resolve().parents[3] / "services" / "thesaurus" / "sample_thesaurus.csv"
    thesaurus = load_wlsp(sample, encoding="utf-8", name="sample")
    assert len(thesaurus.leaves) >= 24
    assert len(thesaurus.words) >= 200
    assert thesaurus.word_leaves("犬")


def test_wordnet_thesaurus_from_the_kit() -> None:
    wordnet = Path("/usr/share/wordnet")
    if not (wordnet / "data.noun").exists():
        pytest.skip("Debian package wordnet-base is not installed (/usr/share/wordnet/data.noun)")
    lemmas = kit_path("omw-wiktionary-jpn/wn-wikt-jpn.tab")
    thesaurus = load_wordnet(wordnet, lemmas)
    assert thesaurus.class_ids[0] == "00001740-n"  # entity
    dog = {thesaurus.class_ids[n] for n in thesaurus.words["犬"]}
    assert "02084071-n#self" in dog or "02084071-n" in dog
    # Every internal node other than the root branches (unary chains were spliced out).
    branching = [len(kids) for node, kids in enumerate(thesaurus.children) if kids and node]
    assert min(branching) >= 2
    # Words only on leaves.
    leaves = set(thesaurus.leaves.tolist())
    assert all(n in leaves for nodes in thesaurus.words.values() for n in nodes)


def test_thesaurus_words_match_in_any_spelling() -> None:
    thesaurus = Thesaurus.build(
        "t", [("r", None, ""), ("a", "r", "")], [(unicodedata.normalize("NFD", "データ"), "a")]
    )
    for query in ("データ", "ﾃﾞｰﾀ", unicodedata.normalize("NFD", "データ")):
        assert thesaurus.word_leaves(query) == (0,)


def test_a_wlsp_file_without_words_is_refused(tmp_path: Path) -> None:
    # an empty file was stored as a one-class thesaurus of no words
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="cp932")
    with pytest.raises(InvalidInput, match=r"no 体の類 .*words"):
        load_wlsp(path)


def test_a_hierarchy_deeper_than_the_rounds_can_tag_is_refused() -> None:
    # estimation tags its rounds 2 * height in int8: a leaf 64 levels deep overflowed it
    # (an error, or a defined similarity stored as "undefined")
    def chain(levels: int) -> list[tuple[str, str | None, str]]:
        return [("c0", None, "")] + [(f"c{k}", f"c{k - 1}", "") for k in range(1, levels + 1)]

    assert Thesaurus.build("ok", chain(63), [("語", "c63")]).max_leaf_depth == 63
    with pytest.raises(InvalidInput, match="64 levels deep; at most 63"):
        Thesaurus.build("deep", chain(64), [("語", "c64")])


@pytest.mark.parametrize("text", ['{"name": "t", "classes": [], "words": []}', "[" * 50_000])
def test_a_malformed_thesaurus_json_is_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput, match="not a thesaurus JSON document"):
        Thesaurus.from_json(text)


def test_unreadable_wordnet_and_omw_files_are_refused_by_line(tmp_path: Path) -> None:
    # a short data.noun line raised IndexError; an OMW file with no nouns stored an empty
    # thesaurus (one class, no words) and exited 0
    (tmp_path / "data.noun").write_text("00001740 03 n 01 entity\n", encoding="utf-8")
    omw = tmp_path / "wn.tab"
    omw.write_text("# header\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="not a WordNet data line"):
        load_wordnet(tmp_path, omw)
    (tmp_path / "data.noun").write_text("00001740 03 n 01 entity 0 000 | x\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no Japanese noun lemmas"):
        load_wordnet(tmp_path, omw)


def test_an_unknown_wlsp_encoding_is_invalid_input(wlsp_file: Path) -> None:
    with pytest.raises(InvalidInput, match="unknown encoding 'nope'"):
        load_wlsp(wlsp_file, encoding="nope")
