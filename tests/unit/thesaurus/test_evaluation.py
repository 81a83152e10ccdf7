"""Tests of the UD gold derivation and the extraction accuracy regression guard."""

from __future__ import annotations

from pathlib import Path

from services.thesaurus.cooccur import Cooccurrence, extract_cooccurrences
from services.thesaurus.evaluation import GoldSentence, load_ud_gold, score_extraction
from tests.conftest import kit_path

CONLLU = """# text = 本を読む。
1\t本\t本\tNOUN\t名詞-普通名詞-一般\t_\t3\tobj\t_\t_
2\tを\tを\tADP\t助詞-格助詞\t_\t1\tcase\t_\t_
3\t読む\t読む\tVERB\t動詞-一般-五段-マ行\t_\t0\troot\t_\t_
4\t。\t。\tPUNCT\t補助記号-句点\t_\t3\tpunct\t_\t_

# text = データを分析し、彼を信じた。
1\tデータ\tデータ\tNOUN\t名詞-普通名詞-一般\t_\t3\tobj\t_\t_
2\tを\tを\tADP\t助詞-格助詞\t_\t1\tcase\t_\t_
3\t分析\t分析\tVERB\t名詞-普通名詞-サ変可能\t_\t8\tadvcl\t_\t_
4\tし\t為る\tAUX\t動詞-非自立可能-サ行変格\t_\t3\taux\t_\t_
5\t、\t、\tPUNCT\t補助記号-読点\t_\t3\tpunct\t_\t_
6\t彼\t彼\tPRON\t代名詞\t_\t8\tobj\t_\t_
7\tを\tを\tADP\t助詞-格助詞\t_\t6\tcase\t_\t_
8\t信じ\t信ずる\tVERB\t動詞-一般-上一段-ザ行\t_\t0\troot\t_\t_
9\tた\tた\tAUX\t助動詞-助動詞-タ\t_\t8\taux\t_\t_


# text = 肉と魚を焼く。
1\t肉\t肉\tNOUN\t名詞-普通名詞-一般\t_\t5\tobj\t_\t_
2\tと\tと\tADP\t助詞-格助詞\t_\t1\tcase\t_\t_
3\t魚\t魚\tNOUN\t名詞-普通名詞-一般\t_\t1\tconj\t_\t_
4\tを\tを\tADP\t助詞-格助詞\t_\t3\tcase\t_\t_
5\t焼く\t焼く\tVERB\t動詞-一般-五段-カ行\t_\t0\troot\t_\t_
6\t。\t。\tPUNCT\t補助記号-句点\t_\t5\tpunct\t_\t_

"""


def test_gold_pairs_from_conllu(tmp_path: Path) -> None:
    path = tmp_path / "tiny.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    gold = load_ud_gold(path)
    assert [g.text for g in gold] == [
        "本を読む。",
        "データを分析し、彼を信じた。",
        "肉と魚を焼く。",
    ]
    assert gold[0].pairs == (Cooccurrence("本", "読む"),)
    assert gold[1].pairs == (Cooccurrence("データ", "分析する"),)
    assert gold[1].skipped == 1  # the pronoun object
    # UD: obj on the first conjunct, を on the last; both are objects of 焼く.
    assert gold[2].pairs == (Cooccurrence("肉", "焼く"), Cooccurrence("魚", "焼く"))
    assert load_ud_gold(path, coordination=False)[2].pairs == ()
    score = score_extraction(gold, [extract_cooccurrences(g.text) for g in gold])
    assert (score.precision, score.recall) == (1.0, 1.0)


def test_aligned_scoring_matches_nouns_cut_differently() -> None:
    gold = [GoldSentence("下野尻を通過する。", (Cooccurrence("下野尻", "通過する"),))]
    cut = [[Cooccurrence("尻", "通過する")]]
    assert score_extraction(gold, cut).true_positives == 0
    assert score_extraction(gold, cut, aligned=True).true_positives == 1
    # The verb must still agree, and a pair is aligned to one gold pair only.
    assert score_extraction(gold, [[Cooccurrence("尻", "通る")]], aligned=True).true_positives == 0
    twice = [[Cooccurrence("尻", "通過する"), Cooccurrence("野尻", "通過する")]]
    aligned = score_extraction(gold, twice, aligned=True)
    assert (aligned.true_positives, aligned.predicted) == (1, 2)


def test_extraction_accuracy_on_ud_japanese_gsd_dev() -> None:
    gold = load_ud_gold(kit_path("ud-japanese-gsd/ja_gsd-ud-dev.conllu"))
    predicted = [extract_cooccurrences(g.text) for g in gold]
    # Measured 0.971 / 0.962 with span alignment, 0.948 / 0.939 token-exact
    # (benchmarks/results/thesaurus_extraction.md); regression guard.
    score = score_extraction(gold, predicted, aligned=True)
    assert score.gold == 312
    assert score.precision >= 0.96
    assert score.recall >= 0.95
    exact = score_extraction(gold, predicted)
    assert exact.precision >= 0.94
    assert exact.recall >= 0.93
