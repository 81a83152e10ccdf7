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

from services.export.corpus import exported_rows, job_query, left_out
from services.export.formats import write_lines, write_moses, write_pairs
from services.export.similarity import similarity_csv_lines
from services.export.stage_tables import cooccurrence_lines, ppdb_lines
from services.thesaurus.repository import latest_similarity
from shared.store import Store, display_url


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
    query = job_query(job_id)  # the pairs ``paramine export --job`` gives
    jsonl, tsv = out / "sentence_pairs.jsonl", out / "sentence_pairs.tsv"
    rows = exported_rows(store, query)
    listed = list(rows)
    exported = write_pairs(listed, "jsonl", jsonl)
    write_pairs(listed, "tsv", tsv)
    corpora = write_moses(listed, out / "sentence_pairs")
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
    omitted = left_out(store, query, rows)
    return JobOutputs(
        outputs,
        exported,
        omitted.stored,
        omitted.flagged,
        [str(path) for corpus in corpora for path in (corpus.src, corpus.tgt)],
    )


def _paraphrases(store: Store, out: Path) -> Output:
    path = out / "paraphrases.ppdb"
    count = write_lines(ppdb_lines(store, recompute=True), path)
    return Output("phrase paraphrases (PPDB, store)", str(path), count, f"head {_quoted(path)}")


def _cooccurrences(store: Store, out: Path) -> Output:
    path = out / "cooccurrences.tsv"
    count = write_lines(cooccurrence_lines(store), path) - 1  # the header line is no count
    return Output("thesaurus (noun, を, verb) counts (store)", str(path), count,
                  f"cat {_quoted(path)}")  # fmt: skip


def _similarity(store: Store, out: Path) -> Output | None:
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
