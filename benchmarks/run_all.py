"""``make bench``: every accuracy and speed benchmark, one after another, each in its own process.

Each benchmark writes its own ``benchmarks/results/<name>.md``. They run one at a time (the
machine has two cores; two timed runs side by side would measure each other). The pipeline
load test is not part of this run: it needs Redis and PostgreSQL and takes about 20 minutes
(``make load``).
Benchmarks that need ``../shared/data`` fail with a clear message when the kit is absent; the
run goes on and the summary lists what failed.

    python -m benchmarks.run_all [NAME ...]   # NAME: <stage>.<script>; default: all of them
"""

from __future__ import annotations

import subprocess
import sys
import time

BENCHMARKS = (
    "sentence_align.aligners",
    "sentence_align.languages",
    "sentence_align.bam_anchors",
    "sentence_align.long",
    "sentence_align.web_mobile",
    "tree_align.content",
    "tree_align.pages",
    "tree_align.speed",
    "paraphrase.word_align",
    "page_match.matching",
    "paraphrase.ending_paraphrases",
    "thesaurus.extraction",
    "thesaurus.livedoor",
    "thesaurus.speed",
    "system.langid",
    "system.clean_corpus",
    "sentence_align.pair_score",
)


def main(argv: list[str] | None = None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(BENCHMARKS)
    unknown = sorted(set(names) - set(BENCHMARKS))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        return 2
    failed: list[str] = []
    for name in names:
        print(f"== benchmarks.{name}", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", f"benchmarks.{name}"])
        print(f"== benchmarks.{name}: exit {code} after {time.perf_counter() - started:.0f} s")
        if code != 0:
            failed.append(name)
    print(f"{len(names) - len(failed)} benchmarks ran, {len(failed)} failed: {failed or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
