"""Run one oversized-input case in a fresh process and print its outcome and peak memory (JSON)."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path


def page(case: str) -> bytes | str:
    if case == "50mb":
        return "<html><body>" + "<p>" + "word " * 10_000_000 + "</p></body></html>"
    if case == "million_elements":
        return "<html><body>" + "<b>x</b>" * 1_000_000 + "</body></html>"
    if case == "deep_nesting":
        return "<div>" * 100_000 + "deep" + "</div>" * 100_000
    if case == "binary":
        import random

        return random.Random(3).randbytes(5_000_000)
    if case == "dot_run":  # a table of contents' leader dots, no space after them
        return "<p>Contents" + "." * 80_000 + "page 5</p>"
    if case == "br_lines_ja":  # one paragraph of <br> lines after an unclosed bracket
        return "<p>「" + "あいう<br>" * 40_000 + "</p>"
    if case == "br_lines_en":  # a hard-wrapped line followed by lowercase lines
        return "<p>one two three<br>" + "word<br>" * 40_000 + "</p>"
    if case == "wrong_encoding":
        return b'<meta charset="utf-8"><p>' + ("日本語の文です。" * 200_000).encode("shift_jis")
    raise SystemExit(f"unknown case {case}")


# Pages split into sentences as the sentence_align handler splits a chunk, and their language.
SPLIT_CASES = {"dot_run": "en", "br_lines_ja": "ja", "br_lines_en": "en"}


def run(case: str) -> dict[str, object]:
    from shared.errors import InvalidInput

    try:
        if case == "100k_sentences":
            from services.sentence_align.mining.records import sentence_pairs
            from shared.schemas import ChunkPairs

            text = " ".join(f"Sentence number {i} is here." for i in range(100_000))
            context = {
                "pair_id": "pp", "job_id": "j", "kind": "translation", "src_url": "",
                "tgt_url": "", "src_lang": "en", "tgt_lang": "fr",
            }  # fmt: skip
            message = ChunkPairs(context=context, chunks=[{"src_text": text, "tgt_text": text}])
            result: object = len(sentence_pairs(message))
        elif case == "mecab_long":  # MeCab crashed the process (SIGSEGV) on ~190k characters
            from services.thesaurus.cooccur import extract_cooccurrences

            result = len(extract_cooccurrences("本を読んだ。" + "a" * 200_000 + "水を飲む。"))
        elif case == "long_sentence":  # Model 1 on one 25,000-word sentence a side: 20 GB
            from services.sentence_align.aligners.align import align_sentences

            src = " ".join(f"wort{i % 997}" for i in range(25_000))
            tgt = " ".join(f"mot{i % 991}" for i in range(25_000))
            beads = align_sentences([src, "Ende."], [tgt, "Fin."], src_lang="de", tgt_lang="fr")
            result = len(beads)
        elif case in SPLIT_CASES:
            from services.html.parse import page_text, parse_html
            from services.sentence_align.aligners.splitter import split_sentences

            lang = SPLIT_CASES[case]
            (text,) = page_text(parse_html(page(case)))
            result = len(split_sentences(text, lang, newline_is_boundary=True))
        else:
            from services.html.parse import parse_html

            result = parse_html(page(case)).size
        outcome = "ok"
    except InvalidInput as exc:
        outcome, result = "refused", f"{exc.__class__.__name__}: {exc}"
    # VmHWM, this program's own peak (ru_maxrss would carry the parent's across exec)
    status = Path("/proc/self/status").read_text(encoding="ascii")
    peak_mb = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    return {"case": case, "outcome": outcome, "result": result, "peak_mb": peak_mb}


if __name__ == "__main__":
    started = time.perf_counter()
    answer = run(sys.argv[1])
    answer["seconds"] = time.perf_counter() - started
    print(json.dumps(answer))
