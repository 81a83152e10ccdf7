"""What ``paramine process`` leaves in its output folder, and how to look at each: the job's
sentence pairs (JSONL, TSV, Moses; each distinct pair once, flagged pairs and pairs below
the pair classifier's default threshold left out, as ``paramine export`` gives them), the
paraphrase stage's phrase tables (PPDB), the thesaurus stage's (noun, を, verb) counts and,
when a thesaurus has a similarity snapshot, its matrix.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from shared.exports import jsonl_lines, tsv_lines, write_lines, write_moses
from shared.store import SentencePairQuery, Store, display_url


@dataclass(frozen=True)
class Output:
    """One output of a run: what it is, where, how many entries, a command to look at it."""

    what: str
    where: str
    count: int | None  # None: not a count of entries (the store)
    look: str


@dataclass(frozen=True)
class JobOutputs:
    """Every output of a run, and what the sentence-pair exports left out."""

    outputs: list[Output]
    exported: int  # distinct, unflagged sentence pairs
    stored: int  # stored sentence-pair rows they stand for
    flagged: dict[str, int]  # flag → stored rows left out
    moses: list[str]


def _quoted(path: Path) -> str:
    return shlex.quote(str(path))


def write_job_outputs(
    store: Store, job_id: str, out: Path, *, program: str = "paramine"
) -> JobOutputs:
    """Write a job's outputs into ``out`` (replacing an earlier run's sentence_pairs.*);
    ``program``: how the user runs paramine (the look commands use it)."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("sentence_pairs.*"):  # an earlier run's Moses files of other pairs
        if stale.is_file():
            stale.unlink()
    from services.sentence_align.classifier.pair_threshold import default_threshold

    # the pairs ``paramine export --job`` gives: below the pair classifier's threshold left out
    query = SentencePairQuery(job_id=job_id, default_min_score=default_threshold())
    jsonl, tsv = out / "sentence_pairs.jsonl", out / "sentence_pairs.tsv"
    rows = list(store.iter_sentence_pairs(query))
    exported = write_lines(jsonl_lines(rows), jsonl)
    write_lines(tsv_lines(rows), tsv)
    corpora = write_moses(rows, out / "sentence_pairs")
    outputs = [
        Output("sentence pairs (JSONL)", str(jsonl), exported, f"head -n 3 {_quoted(jsonl)}"),
        Output("sentence pairs (TSV)", str(tsv), exported, f"head -n 5 {_quoted(tsv)}"),
    ]
    outputs += [
        Output(
            f"Moses {corpus.src_lang}-{corpus.tgt_lang}",
            f"{corpus.src}, {corpus.tgt}",
            corpus.pairs,
            f"paste {_quoted(corpus.src)} {_quoted(corpus.tgt)} | head",
        )
        for corpus in corpora
    ]
    outputs += [_paraphrases(store, out), _cooccurrences(store, out)]
    similarity = _similarity(store, out)
    if similarity is not None:
        outputs.append(similarity)
    outputs.append(
        Output(
            "store (every job)",
            display_url(store.url),
            None,
            f"{program} export | head",
        )
    )
    return JobOutputs(
        outputs,
        exported,
        sum(int(row["count"]) for row in rows),
        store.flag_counts(query),
        [str(path) for corpus in corpora for path in (corpus.src, corpus.tgt)],
    )


def _paraphrases(store: Store, out: Path) -> Output:
    from services.paraphrase import repository
    from services.paraphrase.handler import recompute_phrase_table
    from services.paraphrase.phrases import format_ppdb

    path = out / "paraphrases.ppdb"
    # embedded mode has no periodic task: the run brings the phrase-table snapshot up to date
    recompute_phrase_table(store)
    table = format_ppdb(repository.latest_phrase_table(store.engine))
    count = write_lines((line + "\n" for line in table), path)
    return Output("phrase paraphrases (PPDB, store)", str(path), count, f"head {_quoted(path)}")


def _cooccurrences(store: Store, out: Path) -> Output:
    from services.thesaurus import repository

    store.ensure_schema()
    repository.ensure_schema(store.engine)
    counts = repository.cooccurrence_counts(store.engine)
    path = out / "cooccurrences.tsv"
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0].noun, item[0].verb))
    lines = ["noun\tparticle\tverb\tcount\n"]
    lines += [f"{pair.noun}\tを\t{pair.verb}\t{count}\n" for pair, count in ranked]
    write_lines(lines, path)
    return Output("thesaurus (noun, を, verb) counts (store)", str(path), len(ranked),
                  f"cat {_quoted(path)}")  # fmt: skip


def _similarity(store: Store, out: Path) -> Output | None:
    from services.thesaurus.repository import latest_similarity
    from shared.exports import similarity_csv_lines

    matrix = latest_similarity(store.engine)
    if matrix is None:
        return None
    path = out / "similarity.csv"
    count = write_lines(similarity_csv_lines(matrix), path) - 1
    return Output(
        f"class similarity ({matrix.thesaurus}, newest snapshot)",
        str(path),
        count,
        f"head {_quoted(path)}",
    )
