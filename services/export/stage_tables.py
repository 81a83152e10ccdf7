"""The stages' tables as text: the paraphrase stage's phrase table in PPDB's format and the
thesaurus stage's (noun, を, verb) counts."""

from __future__ import annotations

from collections.abc import Iterator

from services.paraphrase import repository as paraphrases
from services.paraphrase.handler import recompute_phrase_table
from services.paraphrase.phrases import format_ppdb
from services.thesaurus import repository as thesaurus
from shared.store import Store


def ppdb_lines(store: Store, lang: str | None = None, *, recompute: bool = False) -> Iterator[str]:
    """The newest phrase table snapshot's PPDB lines (one language's with ``lang``), read
    now; ``recompute``: the snapshot brought up to date first (embedded mode has no periodic
    task that does it)."""
    if recompute:
        recompute_phrase_table(store)
    entries = paraphrases.latest_phrase_table(store.engine, lang=lang)
    return (line + "\n" for line in format_ppdb(entries))


def cooccurrence_lines(store: Store) -> list[str]:
    """Every stored (noun, を, verb) count as TSV, the most frequent first, header first."""
    store.ensure_schema()
    thesaurus.ensure_schema(store.engine)
    counts = thesaurus.cooccurrence_counts(store.engine)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].noun, item[0].verb))
    lines = ["noun\tparticle\tverb\tcount\n"]
    lines += [f"{pair.noun}\tを\t{pair.verb}\t{count}\n" for pair, count in ranked]
    return lines
