"""Wide pages: exact tree alignment vs the work-bounded decoder (restricted spans).

The exact decoder costs O(|T1||T2|(deg T1 + deg T2)^2): a page pair with one list of 2,000
items took 225 s for its two passes, past the task's 120 s limit, and ended as a dead letter.
``align_trees`` now estimates the work of a pass (``decoder.decoding_work``) and, above
``DEFAULT_MAX_WORK``, restricts deleted nodes' spans to the widest sibling count that fits
(``decoder.affordable_span``; exact decoding of that restricted model). This run measures on
list pages made of real sentences what that costs and what it changes.

Pages: the 1-1 gold beads of Text+Berg de-fr (``../shared/data/textberg-bleualign-de-fr``,
dev and test0..6, taken in order and cycled) as list items, German page against French page,
every 50th item missing on the French side; shape ``flat`` is one ``ul`` of ``li`` on both
sides, ``grouped`` wraps the French items in ``div`` groups of 10 (so the German side's
deleted counterparts span 10 siblings). Per case, on the folded trees with the shipped
default model: the exact and the bounded Viterbi pass (CPU seconds of this process, cost and
whether the node pairs are the same), then ``align_page_texts`` (both passes, what the worker
runs) with the bound: CPU seconds and the share of list items whose chunk pair is exactly the
item and its translation (missing items count as correct when left unpaired); for cases whose
exact pass is under a minute, also ``align_page_texts`` exact. Run:
``.venv/bin/python -m benchmarks.tree_align.wide``.
"""

from __future__ import annotations

import html
import os
import platform
import time

from benchmarks.common import KIT, RESULTS, notes, publish
from services.html.parse import block_tree, parse_html
from services.html.tag_tree import TagTree
from services.sentence_align.aligners.beads import parse_beads
from services.tree_align.align import align_page_texts
from services.tree_align.decoder import (
    DEFAULT_MAX_WORK,
    TreeAlignment,
    affordable_span,
    align_trees,
    decoding_work,
)
from services.tree_align.model import default_model
from shared.errors import InputTooLarge

DATA = KIT / "textberg-bleualign-de-fr"
RESULT = RESULTS / "tree_align_wide.md"
SIZES = (500, 1_000, 2_000)
SHAPES = ("flat", "grouped")
MISSING_EVERY = 50
GROUP = 10
EXACT_PAGES_UNDER = 60.0  # CPU seconds of one exact pass below which align_page_texts runs exact


def one_to_one_pairs() -> list[tuple[str, str]]:
    pairs = []
    for doc in ["dev", *(f"test{k}" for k in range(7))]:
        de = (DATA / f"{doc}.de").read_text(encoding="utf-8").splitlines()
        fr = (DATA / f"{doc}.fr").read_text(encoding="utf-8").splitlines()
        for bead in parse_beads((DATA / f"{doc}.defr").read_text(encoding="utf-8").splitlines()):
            if len(bead.src) == len(bead.tgt) == 1:
                pairs.append((" ".join(de[bead.src[0]].split()), " ".join(fr[bead.tgt[0]].split())))
    return pairs


def pages(items: list[tuple[str, str]], shape: str) -> tuple[str, str]:
    def li(text: str) -> str:
        return f"<li>{html.escape(text)}</li>"

    german = "".join(li(de) for de, _ in items)
    kept = [li(fr) for k, (_, fr) in enumerate(items) if k % MISSING_EVERY != MISSING_EVERY - 1]
    if shape == "grouped":
        kept = [
            "<div>" + "".join(kept[k : k + GROUP]) + "</div>" for k in range(0, len(kept), GROUP)
        ]
    frame = "<html><body><h1>Liste</h1><ul>{}</ul><p>Impressum</p></body></html>"
    return frame.format(german), frame.format("".join(kept))


def item_accuracy(items: list[tuple[str, str]], found: list[tuple[str, str]]) -> float:
    pairs = set(found)
    paired_src = {src for src, _ in found}
    correct = 0
    for k, (de, fr) in enumerate(items):
        missing = k % MISSING_EVERY == MISSING_EVERY - 1
        correct += (de not in paired_src) if missing else ((de, fr) in pairs)
    return correct / len(items)


def timed_pages(
    src: TagTree, tgt: TagTree, max_work: float | None
) -> tuple[float, list[tuple[str, str]]]:
    started = time.process_time()
    found = align_page_texts(src, tgt, max_work=max_work)
    return time.process_time() - started, [(p.src_text, p.tgt_text) for p in found]


def main() -> None:
    if not DATA.is_dir():
        raise SystemExit(f"data kit {DATA} is absent")
    model = default_model()
    warm = block_tree(parse_html("<p>warm</p>"))
    align_trees(warm, warm, model)  # load the compiled code outside the timing
    source = one_to_one_pairs()
    lines = [
        "# tree_align: wide pages, exact vs work-bounded decoding",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` on {platform.machine()}, Python "
        f"{platform.python_version()}; 2 cores shared, load average (1 min) "
        f"{os.getloadavg()[0]:.1f} at the start; CPU seconds of one process. Method: see the "
        "docstring of `benchmarks/tree_align/wide.py`. "
        f"{len(source)} one-to-one Text+Berg sentence pairs; bound {DEFAULT_MAX_WORK:.0e}.",
        "",
        "| items | shape | folded nodes de / fr | work exact | span | exact pass | bounded pass "
        "| cost gap | same pairs | pages exact | pages bounded | items right exact "
        "| items right bounded |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in SIZES:
        items = [source[k % len(source)] for k in range(size)]
        for shape in SHAPES:
            src_html, tgt_html = pages(items, shape)
            src, tgt = block_tree(parse_html(src_html)), block_tree(parse_html(tgt_html))
            span = affordable_span(src, tgt, DEFAULT_MAX_WORK)
            head = (
                f"| {size:,} | {shape} | {src.size:,} / {tgt.size:,} "
                f"| {decoding_work(src, tgt):.2g} | {span or 'exact'} "
            )
            started = time.process_time()
            try:
                exact: TreeAlignment | None = align_trees(src, tgt, model, max_work=None)
            except InputTooLarge as refused:  # the exact span tables' memory
                exact, refusal = None, str(refused).split("needs ")[-1]
            exact_s = time.process_time() - started
            started = time.process_time()
            try:
                bounded = align_trees(src, tgt, model)
            except InputTooLarge as refused:  # the worker would align the flat text
                lines.append(head + f"| {exact_s:.1f} s | refused: {refused} |" + " |" * 6)
                print(lines[-1], flush=True)
                continue
            bounded_s = time.process_time() - started
            pages_s, found = timed_pages(
                parse_html(src_html), parse_html(tgt_html), DEFAULT_MAX_WORK
            )
            if exact is None:
                exact_cells = f"refused: {refusal}", "n/a", "n/a", "not run", "not run"
            else:
                same = exact.pairs.tolist() == bounded.pairs.tolist()
                exact_cells = (
                    f"{exact_s:.1f} s",
                    f"{bounded.cost - exact.cost:+.3f}",
                    ("no", "yes")[same],
                    "not run",
                    "not run",
                )
                if exact_s < EXACT_PAGES_UNDER:
                    exact_pages_s, exact_found = timed_pages(
                        parse_html(src_html), parse_html(tgt_html), None
                    )
                    exact_cells = (
                        *exact_cells[:3],
                        f"{exact_pages_s:.1f} s",
                        f"{item_accuracy(items, exact_found):.3f}",
                    )
            lines.append(
                head + f"| {exact_cells[0]} | {bounded_s:.1f} s | {exact_cells[1]} "
                f"| {exact_cells[2]} | {exact_cells[3]} | {pages_s:.1f} s | {exact_cells[4]} "
                f"| {item_accuracy(items, found):.3f} |"
            )
            print(lines[-1], flush=True)
    lines += [
        "",
        notes("columns-work-exact"),
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
