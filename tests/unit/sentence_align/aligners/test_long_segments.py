"""Tests of the cuts of long segments at anchor pairs (``long_segments``, issue 50 item 4)."""

from __future__ import annotations

import itertools

import numpy as np

from services.sentence_align.aligners.align import align_segments
from services.sentence_align.aligners.beads import Bead, parse_beads
from services.sentence_align.aligners.hybrid import SEGMENT_SETTINGS
from services.sentence_align.aligners.long_segments import (
    LONG_SEGMENT,
    isolated_token_pairs,
    refine_cuts,
    segment_cuts,
)
from services.sentence_align.dp.two_pass import align_two_pass
from tests.conftest import kit_path

TEXTBERG = "textberg-bleualign-de-fr"
DOCUMENTS = ("dev", *(f"test{k}" for k in range(7)))


def _textberg_one_to_one() -> list[tuple[str, str]]:
    """The sentence pairs of every gold 1-1 bead of Text+Berg dev and test, in text order."""
    pairs: list[tuple[str, str]] = []
    for name in DOCUMENTS:
        src = kit_path(f"{TEXTBERG}/{name}.de").read_text(encoding="utf-8").splitlines()
        tgt = kit_path(f"{TEXTBERG}/{name}.fr").read_text(encoding="utf-8").splitlines()
        gold = parse_beads(kit_path(f"{TEXTBERG}/{name}.defr").read_text().splitlines())
        pairs += [(src[b.src[0]], tgt[b.tgt[0]]) for b in gold if b.shape == (1, 1)]
    return pairs


def _long_paragraph(
    n_src: int, block: tuple[int, int], drop: float, seed: int = 5
) -> tuple[list[str], list[str], list[Bead]]:
    """One paragraph of the real pairs repeated until ``n_src`` source sentences: the
    target lacks the source sentences block[0] .. block[0] + block[1] - 1, and each other
    pair loses one side with probability ``drop`` (seeded); with its gold beads."""
    rng = np.random.default_rng(seed)
    src: list[str] = []
    tgt: list[str] = []
    gold: list[Bead] = []
    start, length = block
    for src_sentence, tgt_sentence in itertools.cycle(_textberg_one_to_one()):
        if len(src) >= n_src:
            break
        draw = rng.random()
        if start <= len(src) < start + length or draw < drop / 2:
            gold.append(Bead((len(src),), ()))
            src.append(src_sentence)
        elif draw < drop:
            gold.append(Bead((), (len(tgt),)))
            tgt.append(tgt_sentence)
        else:
            gold.append(Bead((len(src),), (len(tgt),)))
            src.append(src_sentence)
            tgt.append(tgt_sentence)
    return src, tgt, gold


def _correct_share(beads: list[Bead], gold: list[Bead]) -> float:
    expected = {(bead.src, bead.tgt) for bead in gold}
    pairs = [bead for bead in beads if bead.src and bead.tgt]
    return sum((bead.src, bead.tgt) in expected for bead in pairs) / len(pairs)


def test_short_segments_are_not_cut() -> None:
    src = [f"Satz {k} über Zermatt ." for k in range(LONG_SEGMENT)]
    tgt = [f"Phrase {k} sur Zermatt ." for k in range(LONG_SEGMENT)]
    assert segment_cuts(src, tgt) == []
    segments = [(src, tgt), (src[:3], tgt[:5])]
    assert refine_cuts(segments) == [(0, 0), (LONG_SEGMENT, LONG_SEGMENT), (1003, 1005)]


def test_tokens_pair_only_where_isolated_on_both_sides() -> None:
    filler_src, filler_tgt = ["und dann ."] * 300, ["et puis ."] * 300
    # "Zinal" twice on each side, 301 sentences apart: each occurrence isolated, paired with
    # the one at about the same relative position. "Tracuit" twice on the source within 3
    # sentences: not isolated there.
    src = ["Zinal .", *filler_src, "Zinal .", "Tracuit .", "x .", "Tracuit ."]
    tgt = ["Zinal .", *filler_tgt, "Zinal .", "Tracuit ."]
    pairs = isolated_token_pairs(src, tgt).tolist()
    assert pairs == [[0, 0], [301, 301]]


def test_cuts_mirror_when_the_sides_are_swapped() -> None:
    src, tgt, _ = _long_paragraph(1600, (600, 150), 0.02)
    cuts = segment_cuts(src, tgt)
    assert cuts
    assert segment_cuts(tgt, src) == [(j, i) for i, j in cuts]
    # Inside the segment, increasing on both sides, at least a piece apart.
    assert all(0 < i < len(src) and 0 < j < len(tgt) for i, j in cuts)
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in itertools.pairwise(cuts))


def test_long_paragraph_with_a_missing_block_stays_aligned() -> None:
    # 3,000 source sentences of real Text+Berg pairs (the 1-1 gold pairs, repeated in order),
    # 700 missing on the target side, 2% of the other pairs with one side missing.
    src, tgt, gold = _long_paragraph(3000, (1000, 700), 0.02)
    whole = align_two_pass(
        src, tgt, "de", "fr", SEGMENT_SETTINGS, segments=[(0, 0), (len(src), len(tgt))]
    )
    # Without the cut, the segment's one window drifts past the block.
    assert _correct_share(whole, gold) < 0.5
    [cut] = align_segments([(src, tgt)], src_lang="de", tgt_lang="fr")
    assert [i for bead in cut for i in bead.src] == list(range(len(src)))
    assert [j for bead in cut for j in bead.tgt] == list(range(len(tgt)))
    assert _correct_share(cut, gold) >= 0.95
