"""Rows of sentence_align: each aligner per document, in corpus mode, and with FreeDict."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmarks.sentence_align.textberg import (
    Row,
    evaluate,
    evaluate_batch,
    galechurch_aligner,
    nltk_aligner,
    paramine_aligner,
)
from services.lexical.dictionary import BilingualDictionary, load_freedict
from services.sentence_align.aligners.beads import Bead
from services.sentence_align.aligners.gold import DocumentPair

# FreeDict German-French (Debian's dict-freedict-deu-fra and -fra-deu, CC BY-SA 3.0): a
# bilingual dictionary from Wiktionary (WikDict), neither neural nor MT; rows marked
# "+ FreeDict" seed Model 1 with its pairs (services/lexical/dictionary.py).
FREEDICT = Path("/usr/share/dictd")
WITH_DICTIONARY = "+ FreeDict"


def freedict() -> BilingualDictionary | None:
    """The German-French FreeDict pairs, or None when the Debian packages are absent."""
    return load_freedict(FREEDICT, "de", "fr")


def corpus_row(
    method: str, documents: Sequence[DocumentPair], dictionary: BilingualDictionary | None = None
) -> Row:
    """``method`` in corpus mode: one align_corpus call for all documents (one length model
    and one Model 1 trained on the pooled confident beads; no gold used)."""
    from services.sentence_align.aligners.align import align_corpus

    def align_all(docs: Sequence[DocumentPair]) -> list[list[Bead]]:
        pairs = [(doc.src, doc.tgt) for doc in docs]
        return align_corpus(
            pairs, method=method, src_lang="de", tgt_lang="fr", dictionary=dictionary
        )

    mark = f" {WITH_DICTIONARY}" if dictionary is not None else ""
    return evaluate_batch(f"paramine {method}{mark} (corpus mode)", align_all, documents)


def dictionary_rows(documents: Sequence[DocumentPair]) -> list[Row]:
    """Hybrid with the FreeDict dictionary, per document and (several documents) in corpus
    mode; none when the dictionary is not installed."""
    dictionary = freedict()
    if dictionary is None:
        return []
    rows = [corpus_row("hybrid", documents, dictionary)] if len(documents) > 1 else []
    seeded = paramine_aligner("hybrid", dictionary)
    return [*rows, evaluate(f"paramine hybrid {WITH_DICTIONARY}", seeded, documents)]


def rows_for(documents: Sequence[DocumentPair]) -> list[Row]:
    """Per-document rows of every aligner; corpus-mode rows when there are several documents."""
    corpus = [corpus_row(method, documents) for method in ("hybrid", "lexicon")]
    return [
        *dictionary_rows(documents),
        *(corpus if len(documents) > 1 else []),
        evaluate("paramine hybrid", paramine_aligner("hybrid"), documents),
        evaluate("paramine lexicon", paramine_aligner("lexicon"), documents),
        evaluate("paramine length", paramine_aligner("length"), documents),
        evaluate("galechurch", galechurch_aligner, documents),
        evaluate("nltk gale_church", nltk_aligner, documents),
    ]
