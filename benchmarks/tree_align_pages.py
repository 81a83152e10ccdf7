"""Benchmark: sentence alignment inside tree-aligned text pairs vs on flat page text.

Data: the Text+Berg de-fr gold (../shared/data/textberg-bleualign-de-fr, test0..test6; dev
is not used) placed into two different page templates per language at run time by
``benchmarks.tree_align_pagegen`` (navigation, sidebars, boxes and ads on one side only,
different wrappers, reordered blocks; 500-5,000 elements per page). Nothing is written to
disk but the report.

Paths, with the same sentence aligner (``align_sentences(method="length")``):
- flat (the paper's Type I): all text chunks of each page in document order, one alignment;
- tree (Type III): ``align_page_texts`` pairs text chunks, sentences aligned inside each pair;
  with the shipped default model and with the untrained initial model.
Sentences inside a chunk are recovered by matching the known gold sentences (text not made of
gold sentences, such as menus and ads, goes through the project's sentence splitter), so both
paths see identical sentence boundaries and only the pairing differs.

Scores: strict P/R/F1 over beads with sentences on both sides, a bead counting as correct when
both sides' texts equal a gold bead's (Sennrich & Volk / vecalign "strict"). Text-node
accuracy: each article or one-sided-box text leaf is correct when the chunk pair it ends up
in holds the same paragraph on the other side (or, for a paragraph or box present on one side
only, when it is left unpaired); node-level accuracy uses the raw one-to-one leaf pairs.
Run: ``.venv/bin/python -m benchmarks.tree_align_pages``.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks._report import publish
from benchmarks.tree_align_pagegen import (
    GeneratedPage,
    paragraphs_from_beads,
    source_page,
    target_page,
)
from services.sentence_align.align import align_sentences
from services.sentence_align.beads import parse_beads
from services.sentence_align.splitter import split_sentences
from services.tree_align.align import (
    CONFIDENT_COST,
    DEFAULT_REFINEMENTS,
    REFINE_CONFIDENT_COST,
    ChunkComponent,
    align_two_pass,
    chunk_components,
)
from services.tree_align.decoder import TreeAlignment, align_trees
from services.tree_align.html_tree import TagTree, block_tree, page_text, parse_html, text_chunks
from services.tree_align.lexical import DEFAULT_LEXICAL_WEIGHT, DEFAULT_WORD_OFFSET
from services.tree_align.model import default_model, initial_model

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "textberg-bleualign-de-fr"
RESULT = REPO / "benchmarks" / "results" / "tree_align_pages.md"
DOCS = [f"test{k}" for k in range(7)]
SEED = 7
SCALE = 3  # menu and footer sizes of the templates
StringBead = tuple[str, str]


def norm(text: str) -> str:
    return " ".join(text.split())


class Segmenter:
    """Split chunk text at known gold sentence boundaries; other text by the splitter."""

    def __init__(self, sentences: Sequence[str], lang: str) -> None:
        self.lang = lang
        self.by_first: dict[str, list[str]] = {}
        for sentence in {norm(s) for s in sentences if norm(s)}:
            self.by_first.setdefault(sentence.split(" ", 1)[0], []).append(sentence)
        for candidates in self.by_first.values():
            candidates.sort(key=len, reverse=True)

    def __call__(self, text: str) -> list[str]:
        words = norm(text).split(" ")
        out: list[str] = []
        unknown: list[str] = []
        k = 0
        while k < len(words):
            match = self._match(words, k)
            if match is None:
                unknown.append(words[k])
                k += 1
                continue
            if unknown:
                out.extend(split_sentences(" ".join(unknown), self.lang))
                unknown = []
            out.append(match)
            k += match.count(" ") + 1
        if unknown:
            out.extend(split_sentences(" ".join(unknown), self.lang))
        return out

    def _match(self, words: list[str], k: int) -> str | None:
        for candidate in self.by_first.get(words[k], []):
            size = candidate.count(" ") + 1
            if " ".join(words[k : k + size]) == candidate:
                return candidate
        return None


def string_beads(src: Sequence[str], tgt: Sequence[str]) -> list[StringBead]:
    beads = align_sentences(list(src), list(tgt), method="length")
    return [
        (" ".join(src[i] for i in bead.src), " ".join(tgt[j] for j in bead.tgt))
        for bead in beads
        if bead.src and bead.tgt
    ]


@dataclass
class Scores:
    correct: int = 0
    output: int = 0
    gold: int = 0

    def add(self, gold: list[StringBead], test: list[StringBead]) -> None:
        self.correct += sum((Counter(gold) & Counter(test)).values())
        self.output += len(test)
        self.gold += len(gold)

    def prf(self) -> tuple[float, float, float]:
        p = self.correct / self.output if self.output else 0.0
        r = self.correct / self.gold if self.gold else 0.0
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)


@dataclass
class NodeScores:
    chunk_correct: int = 0
    node_correct: int = 0
    judged: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # chunk-level errors by kind


def error_kind(expected: str | None, found: set[str | None]) -> str:
    """What went wrong with one text leaf (chunk level)."""
    if expected is None:
        other = "a paragraph" if any(r and r.startswith("para") for r in found) else "other text"
        return f"one-sided text (box, ad, title) paired with {other}"
    if not found:
        return "paragraph left unpaired"
    return "paragraph paired with other text"


def role_of(page: GeneratedPage, tree: TagTree, leaf: int) -> str | None:
    roles = page.roles.get(norm(tree.texts[leaf]), set())
    return next(iter(roles)) if len(roles) == 1 and "nav" not in roles else None


def judge_nodes(
    pages: tuple[GeneratedPage, GeneratedPage],
    trees: tuple[TagTree, TagTree],
    alignment: TreeAlignment,
    components: list[ChunkComponent],
    scores: NodeScores,
) -> None:
    """Chunk-level and node-level correctness of article and one-sided text leaves."""
    src, tgt = trees
    chunks = (text_chunks(src), text_chunks(tgt))
    partner = (
        {int(x): int(y) for x, y in alignment.pairs},
        {int(y): int(x) for x, y in alignment.pairs},
    )
    paired_with: tuple[dict[int, set[int]], dict[int, set[int]]] = ({}, {})
    for component in components:
        leaves = (
            {leaf for k in component.src_chunks for leaf in chunks[0][k].leaves},
            {leaf for k in component.tgt_chunks for leaf in chunks[1][k].leaves},
        )
        for side in (0, 1):
            for leaf in leaves[side]:
                paired_with[side][leaf] = leaves[1 - side]
    present = [
        {role_of(pages[side], trees[side], leaf) for leaf in trees[side].text_leaves()}
        for side in (0, 1)
    ]
    for side in (0, 1):
        tree, other = trees[side], trees[1 - side]
        for leaf in tree.text_leaves():
            role = role_of(pages[side], tree, leaf)
            if role is None:
                continue
            expected = role if role.startswith("para") and role in present[1 - side] else None
            scores.judged += 1
            found = {role_of(pages[1 - side], other, n) for n in paired_with[side].get(leaf, set())}
            if (expected is None and not found) or (expected is not None and found == {expected}):
                scores.chunk_correct += 1
            else:
                scores.errors[error_kind(expected, found)] += 1
            mate = partner[side].get(leaf)
            mate_role = role_of(pages[1 - side], other, mate) if mate is not None else None
            if (expected is None and mate is None) or (
                expected is not None and mate_role == expected
            ):
                scores.node_correct += 1


def load(doc: str) -> tuple[list[str], list[str], list[tuple[tuple[int, ...], tuple[int, ...]]]]:
    de = (DATA / f"{doc}.de").read_text(encoding="utf-8").splitlines()
    fr = (DATA / f"{doc}.fr").read_text(encoding="utf-8").splitlines()
    beads = parse_beads((DATA / f"{doc}.defr").read_text(encoding="utf-8").splitlines())
    return de, fr, [(bead.src, bead.tgt) for bead in beads]


@dataclass(frozen=True)
class Variant:
    """One way of running the tree path."""

    name: str
    model: str = "default"  # or "initial"
    fold_inline: bool = True
    attach_wrapped: bool = True
    band: float | None = None
    max_gap: int | None = None  # None: chunk_components' default
    link_cost: float | None = None  # None: chunk_components' default
    lexical: bool = True  # the second pass with the page-trained lexical Pr_text
    confident_cost: float = CONFIDENT_COST
    lexical_weight: float = DEFAULT_LEXICAL_WEIGHT
    word_offset: float = DEFAULT_WORD_OFFSET
    gap_threshold: float | None = None  # None: chunk_components' default
    refinements: int = DEFAULT_REFINEMENTS
    refine_cost: float = REFINE_CONFIDENT_COST


VARIANTS = (
    Variant("tree, default model"),
    Variant("tree, default model, length Pr_text only (one pass)", lexical=False),
    Variant("tree, initial model", "initial"),
    Variant("tree, default model, band 0.3 (pruned)", band=0.3),
    Variant("tree, default model, no wrapper attachment", attach_wrapped=False),
    Variant("tree, default model, no gap filling", max_gap=0),
    Variant("tree, initial model, inline markup kept", "initial", fold_inline=False, lexical=False),
)


def run_variant(
    variant: Variant,
    pages: tuple[GeneratedPage, GeneratedPage],
    full: tuple[TagTree, TagTree],
    segment: tuple[Segmenter, Segmenter],
) -> tuple[list[StringBead], TreeAlignment, list[ChunkComponent], tuple[TagTree, TagTree], float]:
    """Beads, alignment, chunk components, trees and the alignment's seconds (both passes)."""
    trees = (block_tree(full[0]), block_tree(full[1])) if variant.fold_inline else full
    labels = sorted(set(trees[0].label_names) | set(trees[1].label_names))
    model = default_model() if variant.model == "default" else initial_model(labels)
    started = time.perf_counter()
    if variant.lexical:
        alignment, model = align_two_pass(
            trees[0], trees[1], model, band=variant.band,
            confident_cost=variant.confident_cost, weight=variant.lexical_weight,
            word_offset=variant.word_offset, refinements=variant.refinements,
            refine_cost=variant.refine_cost,
        )  # fmt: skip
    else:
        alignment = align_trees(trees[0], trees[1], model, band=variant.band)
    seconds = time.perf_counter() - started
    components = chunk_components(
        *trees, alignment, model, attach_wrapped=variant.attach_wrapped, max_gap=variant.max_gap,
        gap_threshold=variant.gap_threshold, link_cost=variant.link_cost,
    )  # fmt: skip
    chunks = (text_chunks(trees[0]), text_chunks(trees[1]))
    output: list[StringBead] = []
    for component in components:
        src_text = " ".join(chunks[0][k].text for k in component.src_chunks)
        tgt_text = " ".join(chunks[1][k].text for k in component.tgt_chunks)
        output.extend(string_beads(segment[0](src_text), segment[1](tgt_text)))
    return output, alignment, components, trees, seconds


@dataclass
class Tally:
    """Scores of the flat path and of every variant over the documents run."""

    variants: Sequence[Variant]
    flat: Scores = field(default_factory=Scores)
    tree: dict[str, Scores] = field(default_factory=dict)
    nodes: dict[str, NodeScores] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    rows: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for v in self.variants:
            self.tree[v.name], self.nodes[v.name], self.seconds[v.name] = (
                Scores(), NodeScores(), 0.0,
            )  # fmt: skip


def run_document(doc: str, seed: int, tally: Tally, part: tuple[int, int] = (0, 1)) -> None:
    """Generate one document's page pair and score the flat path and every variant on it.

    ``part`` (k, n): only the k-th of n consecutive equal runs of the document's beads.
    """
    de, fr, beads = load(doc)
    size = -(-len(beads) // part[1])
    beads = beads[part[0] * size : (part[0] + 1) * size]
    rng = random.Random(seed)
    paragraphs = paragraphs_from_beads(beads, rng)
    pages = (
        source_page(de, paragraphs, rng, scale=SCALE),
        target_page(fr, paragraphs, rng, scale=SCALE),
    )
    full = (parse_html(pages[0].html), parse_html(pages[1].html))
    gold = [
        (" ".join(norm(de[i]) for i in s), " ".join(norm(fr[j]) for j in t))
        for s, t in beads
        if s and t
    ]
    segment = (Segmenter(de, "de"), Segmenter(fr, "fr"))
    flat_src = [s for chunk in page_text(full[0]) for s in segment[0](chunk)]
    flat_tgt = [s for chunk in page_text(full[1]) for s in segment[1](chunk)]
    tally.flat.add(gold, string_beads(flat_src, flat_tgt))
    for variant in tally.variants:
        output, alignment, components, trees, seconds = run_variant(variant, pages, full, segment)
        tally.seconds[variant.name] += seconds
        tally.tree[variant.name].add(gold, output)
        judge_nodes(pages, trees, alignment, components, tally.nodes[variant.name])
    elements = [int((t.kinds == 0).sum()) for t in full]
    folded = [block_tree(t).size for t in full]
    tally.rows.append(
        f"| {doc} | {len(gold)} | {elements[0]} / {elements[1]} | "
        f"{full[0].size} / {full[1].size}"
        f" | {folded[0]} / {folded[1]} |"
    )


def main() -> None:
    if not DATA.exists():
        raise SystemExit(f"data kit {DATA} is absent")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dev",
        nargs="*",
        metavar="WEIGHT:CONFIDENT:OFFSET:GAP:REFINEMENTS:REFINE_COST",
        help="score the dev document (seeds 7, 8) with these lexical settings; print only",
    )
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=[SEED, SEED + 1], help="dev page seeds"
    )
    parser.add_argument(
        "--parts",
        type=int,
        default=1,
        help="cut the dev document into this many page pairs (4: ~105 beads each, test-sized)",
    )
    args = parser.parse_args()
    if args.dev is not None:
        settings = [tuple(float(v) for v in setting.split(":")) for setting in args.dev]
        dev(settings, args.seeds, args.parts)
        return
    tally = Tally(VARIANTS)
    for k, doc in enumerate(DOCS):
        run_document(doc, SEED + k, tally)
        print(doc, "done", flush=True)
    write_report(tally.flat, tally.tree, tally.nodes, tally.seconds, tally.rows)


def dev(settings: Sequence[tuple[float, ...]], seeds: Sequence[int], parts: int = 1) -> None:
    """Dev-document scores (page seeds ``seeds``) of the one-pass path and lexical settings.

    ``parts`` > 1: the dev document is cut into that many page pairs per seed (pages the
    size of the test documents, where Model 1 trains on fewer words), scores summed.
    """
    variants = [Variant("one pass", lexical=False)] + [
        Variant(
            f"lexical w={w} confident<{c} offset {o} gap<{g} refine {int(r)}x<{rc}",
            lexical_weight=w,
            confident_cost=c,
            word_offset=o,
            gap_threshold=g,
            refinements=int(r),
            refine_cost=rc,
        )
        for w, c, o, g, r, rc in settings
    ]
    for seed in seeds:
        tally = Tally(variants)
        for k in range(parts):
            run_document("dev", seed, tally, (k, parts))
        for variant in variants:
            nodes = tally.nodes[variant.name]
            print(
                f"seed {seed} | {variant.name} | strict F1 {tally.tree[variant.name].prf()[2]:.3f}"
                f" | text-node acc. {nodes.chunk_correct / max(nodes.judged, 1):.3f}"
                f" ({nodes.judged - nodes.chunk_correct} errors: {dict(nodes.errors)})"
                f" | {tally.seconds[variant.name]:.2f} s",
                flush=True,
            )


ERROR_ANALYSIS = (
    "Error analysis of the length-only Pr_text (dev document, seed 7: 41 errors of 350 judged",
    "leaves; test: 78 of 797, 44 of them one-sided box texts paired with the other side's",
    "look-alike box, same template and texts of similar length). The lexical second pass",
    "(services/tree_align/lexical.py: IBM Model 1 both ways, trained on the first pass's",
    "confident chunk pairs, per-word calibrated likelihood ratio) removes those: dev seeds 7/8",
    "text-node accuracy 0.883/0.951 -> 1.000/1.000, strict F1 0.656/0.682 -> 0.815/0.792.",
    "Gap filling between consecutive pairs then used the lexical Pr_text with threshold 20",
    "(dev seeds 7-14: accuracy 0.9904 -> 0.9950). On the whole dev document the remaining",
    "errors are 1-2 per page; test pages are smaller (33-243 beads against 422), so Model 1",
    "trains on fewer words. Dev cut into 8 test-sized page pairs (--parts 8, seeds 7-14,",
    "3,437 judged leaves) shows the test's error kinds: 0.9791 (72 errors) before.",
    "Chosen there: leaf pairs of lexical cost >= 2 (later 1.5) link no chunks (texts the tag model",
    "paired against the lexical evidence, mostly menus and boxes) and gaps of up to 8 chunks",
    "(a paragraph beside a one-sided box of four chunks) are filled: 0.9863 (47; seeds 7-10",
    "38 -> 19 errors, 11-14 34 -> 28); and a gap pair may cost up to 0.6 per word of its",
    "texts (long paragraphs of words the page-trained Model 1 does not know score 20-45,",
    "above the threshold of 20): 0.9881 (41); and a gap pair needs 3 words a side (the",
    "1-2 word titles of two one-sided boxes in a gap were joined): 0.9913 (30); with that,",
    "the gap threshold rechecked: 0 (and 0.7 per word) 0.9930 (24). Those errors were mostly",
    "paragraphs in gaps of more than 8 chunks (or at the page ends) and second translated",
    "paragraphs in a gap that took only its best pair. That setting being saturated, a harder",
    "dev one: 20 seeds (7-26) with the dev document cut into 4, 8 and 12 page pairs (12: ~35",
    "beads, the smallest test page), 25,173 judged leaves: 34 / 58 / 165 errors (accuracy",
    "0.9954 / 0.9931 / 0.9822). A gap now takes all its pairs in order (a monotone dynamic",
    "program, no 2x2 spans): 21 / 48 / 130; long gaps and those at the page ends are filled",
    "next to their pairs (windows of 8 chunks): 25 / 44 / 34; gap pairs need 6 words a side",
    "(not 3; short one-sided box texts and captions by the article paired): 21 / 34 / 30",
    "(0.9972 / 0.9960 / 0.9968; the old setting 24 -> 17 errors). The remaining dev errors:",
    "paragraphs paired with a neighbour (gold paragraphs whose sentences are grouped",
    "differently on the two sides), short one-sided texts paired, short paragraphs unpaired.",
    "Error analysis of those (dev): most paragraphs paired with other text and many unpaired",
    "ones were pairs shifted by one next to a paragraph split in two on one side (its half",
    "paired with the neighbour's translation, the neighbour's own translation unpaired",
    "beside). Windows of two consecutive pairs and up to two unpaired chunks beside them are",
    "now re-paired on their summed lexical Pr_text cost, every chunk paired before staying",
    "paired (align.py _repair_pairs): 85 -> 69 errors on seeds 7-26, held-out seeds 27-46",
    "123 -> 98 (--parts 4 / 8 / 12: 14 / 39 / 45).",
    "Align s counts both passes (and the Model 1 training) for the two-pass rows; the first",
    "row also compiles the numba code when its on-disk cache is stale.",
)


def write_report(
    flat: Scores,
    tree_scores: dict[str, Scores],
    node_scores: dict[str, NodeScores],
    seconds: dict[str, float],
    rows: list[str],
) -> None:
    fp, fr_, ff = flat.prf()
    lines = [
        "# tree_align: sentence alignment with and without the tree"
        " (generated pages, Text+Berg gold)",
        "",
        f"Run `{time.strftime('%Y-%m-%d %H:%M')}` on {platform.machine()}, "
        f"Python {platform.python_version()};",
        "2 cores shared by ~6 engineers, timings noisy. Method and data: see the docstring of",
        "`benchmarks/tree_align_pages.py` (pages generated at run time from test0..test6, seed 7).",
        "",
        "| document | gold beads (both sides) | elements de / fr | nodes de / fr"
        " | folded nodes de / fr |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "| path | strict P | strict R | strict F1 | F1 gain vs flat | text-node acc. (chunk)"
        " | text-node acc. (node) | align s (all docs) |",
        "|---|---|---|---|---|---|---|---|",
        f"| flat page text (Type I) | {fp:.3f} | {fr_:.3f} | {ff:.3f} | | | | |",
    ]
    for name, scores in tree_scores.items():
        p, r, f = scores.prf()
        nodes = node_scores[name]
        lines.append(
            f"| {name} (Type III) | {p:.3f} | {r:.3f} | {f:.3f} | {100 * (f - ff):+.1f} | "
            f"{nodes.chunk_correct / max(nodes.judged, 1):.3f} | "
            f"{nodes.node_correct / max(nodes.judged, 1):.3f} | {seconds[name]:.2f} |"
        )
    best = VARIANTS[0].name  # the shipped configuration (align_page_texts defaults)
    gain = 100 * (tree_scores[best].prf()[2] - ff)
    accuracy = node_scores[best].chunk_correct / max(node_scores[best].judged, 1)
    errors = node_scores[VARIANTS[0].name].errors
    lines += [
        "",
        f"Chunk-level text-node errors of the shipped configuration ({sum(errors.values())} of "
        f"{node_scores[VARIANTS[0].name].judged} judged leaves):",
        "",
        *(f"- {kind}: {count}" for kind, count in errors.most_common()),
    ]
    lines += [
        "",
        "Goal: F1 gain >= +7 points and text-node accuracy >= 98%. "
        f"Shipped configuration ({best}): "
        f"gain {gain:+.1f} points ({'met' if gain >= 7 else 'NOT met'}), text-node accuracy "
        f"{100 * accuracy:.1f}% ({'met' if accuracy >= 0.98 else 'NOT met'}).",
        "",
        "Caveats: the shipped default model was trained (tree_align_default_model.py) on",
        "pseudo-word pages from the same two generated templates (1 EM step, mixed half-and-half",
        "with the initial model), so it has seen these templates' tags; the initial-model row",
        "shows the tree alignment without that. Settings were chosen on the dev document only",
        "(dev.de/dev.fr, the same page generator, seeds 7 and 8, 7-14 for the lexical pass's",
        "gap threshold and a recheck of its weights, 7-14 with the document cut into 8 page",
        "pairs for the link cost and gap size, 7-26 with it cut into 4, 8 and 12 for the gap",
        "filling in order, its long and end gaps and its word minimum; the dev numbers are in",
        "comments beside each setting in services/tree_align). The text model of the shipped",
        "file (cognate anchors) was switched after its EM training; its tag and deletion",
        "parameters are unchanged.",
        "Sentence boundaries are given by the gold sentences in both paths (see docstring).",
        "",
        "Text-node accuracy (chunk) is the headline metric: a leaf is correct when the chunk pair",
        "it ends up in holds its own paragraph on the other side (or nothing, for one-sided text).",
        "It does not penalise equivalent alignments: a paragraph split in two on one side",
        "counts as correct whichever half the leaf alignment picked. The node-level column",
        "scores the raw one-to-one leaf pairs, where a split paragraph can only be half right.",
        "",
        *ERROR_ANALYSIS,
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
