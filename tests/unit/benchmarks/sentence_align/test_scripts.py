"""The Bible-corpus benchmark's reading and scoring helpers, on a corpus file made here."""

from __future__ import annotations

from benchmarks.sentence_align.scripts import documents as bible_documents
from benchmarks.sentence_align.scripts import parse_bible, verse_end_recall
from services.sentence_align.aligners.splitter import split_sentences


def corpus(verses: dict[str, str]) -> str:
    segs = "".join(f'<seg id="{key}" type="verse">{text}</seg>' for key, text in verses.items())
    return f"<cesDoc><text><body><div>{segs}</div></body></text></cesDoc>"


def test_books_pair_by_verse_id_and_empty_verses_are_left_out() -> None:
    src = parse_bible(corpus({"b.MAR.1.1": " Ա  բ: ", "b.MAR.1.2": "Գ:", "b.MAR.1.3": "Դ:"}))
    tgt = parse_bible(
        corpus({"b.MAR.1.1": "A b.", "b.MAR.1.2": "", "b.MAR.1.3": "D.", "b.JOH.1.1": "X."})
    )
    assert src["MAR"][(1, 1)] == "Ա բ:"
    [(src_verses, tgt_verses, gold)] = bible_documents(src, tgt)
    assert src_verses == ["Ա բ:", "Դ:"] and tgt_verses == ["A b.", "D."]
    assert [(b.src, b.tgt) for b in gold] == [((0,), (0,)), ((1,), (1,))]


def test_verse_end_recall_counts_cuts_at_punctuated_verse_ends() -> None:
    books = parse_bible(
        corpus({"b.MAR.1.1": "Սա առաջինն է:", "b.MAR.1.2": "Սա երկրորդն է:", "b.MAR.1.3": "Վերջ:"})
    )
    recall, per_verse, expected = verse_end_recall(books, "hy")
    assert (recall, per_verse, expected) == (1.0, 1.0, 2)
    # the same text read as another language: ':' is no terminator there
    assert verse_end_recall(books, "uk")[0] == 0.0
    assert split_sentences("Սա առաջինն է: Սա երկրորդն է:", "hy") == [
        "Սա առաջինն է:",
        "Սա երկրորդն է:",
    ]
