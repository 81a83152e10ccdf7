"""Property tests of align_sentences for every method: coverage, identity, mirror."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from services.sentence_align.aligners.align import METHODS, align_segments, align_sentences
from services.sentence_align.aligners.beads import Bead, check_coverage
from services.sentence_align.dp.two_pass import anchor_cuts
from shared.errors import InvalidInput
from tests.conftest import kit_path

VOCABULARY = "der die das haus berg gipfel 1956 la le maison montagne sommet , . ( ) zürich"
words = st.sampled_from(VOCABULARY.split())
sentences = st.lists(words, min_size=1, max_size=12).map(" ".join)
documents = st.lists(sentences, min_size=0, max_size=12)


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=30)
@given(src=documents, tgt=documents)
def test_beads_cover_every_sentence_once_in_order(
    method: str, src: list[str], tgt: list[str]
) -> None:
    beads = align_sentences(src, tgt, method=method, src_lang="de", tgt_lang="fr")
    check_coverage(beads, len(src), len(tgt))


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=30)
@given(doc=st.lists(sentences, min_size=1, max_size=15, unique=True))
def test_document_aligned_with_itself_is_the_identity(method: str, doc: list[str]) -> None:
    beads = align_sentences(doc, doc, method=method, src_lang="de", tgt_lang="de")
    assert [(b.src, b.tgt) for b in beads] == [((k,), (k,)) for k in range(len(doc))]


def _links(beads: list[Bead]) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    # The beads as a set: the order of adjacent 1-0 and 0-1 beads is a convention that no
    # rule can keep under swapping (src-first becomes tgt-first), so only it is ignored.
    return {(bead.src, bead.tgt) for bead in beads}


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=30, derandomize=True)
@given(src=documents, tgt=documents)
def test_swapping_sides_mirrors_the_beads(method: str, src: list[str], tgt: list[str]) -> None:
    forward = align_sentences(src, tgt, method=method, src_lang="de", tgt_lang="fr")
    backward = align_sentences(tgt, src, method=method, src_lang="fr", tgt_lang="de")
    assert _links([bead.mirrored() for bead in backward]) == _links(forward)


def test_empty_sides_become_deletions() -> None:
    assert align_sentences([], ["a", "b"], method="length") == [Bead((), (0,)), Bead((), (1,))]
    assert align_sentences(["a"], [], method="hybrid") == [Bead((0,), ())]
    assert align_sentences([], []) == []


def test_unknown_method_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="unknown sentence alignment method"):
        align_sentences(["a"], ["b"], method="neural")


def test_anchors_method_is_bam_alignment() -> None:
    from services.sentence_align.aligners.anchors import align_monolingual

    src = ["The mountain is high.", "We climbed it in 1956.", "It rained.", "The end."]
    tgt = ["The mountain is very high.", "It rained all day.", "We climbed it.", "End."]
    assert align_sentences(src, tgt, method="anchors") == align_monolingual(src, tgt)


segment_lists = st.lists(
    st.tuples(
        st.lists(sentences, min_size=1, max_size=6), st.lists(sentences, min_size=1, max_size=6)
    ),
    min_size=0,
    max_size=5,
)


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=20, derandomize=True)
@given(segments=segment_lists)
def test_segments_are_aligned_separately_and_covered(
    method: str, segments: list[tuple[list[str], list[str]]]
) -> None:
    aligned = align_segments(segments, method=method, src_lang="de", tgt_lang="fr")
    assert len(aligned) == len(segments)
    for (src, tgt), beads in zip(segments, aligned, strict=True):
        check_coverage(beads, len(src), len(tgt))


def test_segment_with_an_empty_side_is_all_deletions() -> None:
    aligned = align_segments([(["Der Berg."], ["La montagne."]), (["Ende."], [])])
    assert aligned == [[Bead((0,), (0,), aligned[0][0].cost)], [Bead((0,), ())]]


SITE_WORDS = {"kalo": "brum", "meni": "stad", "pore": "vint", "suli": "gake", "tamo": "hert"}
EARLIER = [  # a site's earlier sentence pairs: each source word has one translation
    (" ".join(words) + ".", " ".join(SITE_WORDS[w] for w in words) + ".")
    for words in (["kalo", "meni", "pore"], ["suli", "tamo", "kalo"], ["meni", "suli", "tamo"],
                  ["pore", "kalo", "suli"], ["tamo", "pore", "meni"])
    for _ in range(4)
]  # fmt: skip
PAGE = [(["kalo meni pore suli tamo.", "tamo pore."], ["fip zog lum ratu quen.", "hert vint."])]


@pytest.mark.parametrize("method", ["lexicon", "hybrid"])
def test_extra_pairs_teach_model1_and_are_not_output(method: str) -> None:
    alone = align_segments(PAGE, method=method, src_lang="xx", tgt_lang="yy")
    taught = align_segments(PAGE, method=method, src_lang="xx", tgt_lang="yy", extra=EARLIER)
    assert len(taught) == 1
    check_coverage(taught[0], 2, 2)
    # From the page alone both 1-1 pairs look alike; taught by the site, Model 1 knows that
    # "tamo pore." is "hert vint." and that "fip zog lum ratu quen." translates nothing
    cost = [{(b.src, b.tgt): b.cost for b in beads[0]} for beads in (alone, taught)]
    unrelated, translated = ((0,), (0,)), ((1,), (1,))
    assert cost[1][unrelated] > cost[0][unrelated] + 5
    assert cost[1][translated] < cost[0][translated] - 2


def test_extra_pairs_leave_the_length_method_alone() -> None:
    assert align_segments(PAGE, method="length", extra=EARLIER) == align_segments(
        PAGE, method="length"
    )


def test_length_segments_equal_separate_calls() -> None:
    segments = [(["Der Berg ist hoch.", "Ja."], ["La montagne est haute."]), (["Gut."], ["Bon."])]
    expected = [align_sentences(src, tgt, method="length") for src, tgt in segments]
    assert align_segments(segments, method="length") == expected


@settings(max_examples=200)
@example(  # three deletions first: the source side reached the window two beads earlier
    shapes=[(1, 0)] * 3 + [(1, 1)] * 6, costs=[0, 0, 0, 5, 1, 5, 1, 5, 1] + [0.0] * 51, window=3
)
@given(
    shapes=st.lists(
        st.sampled_from([(1, 1), (1, 1), (1, 1), (1, 3), (3, 1), (1, 0), (0, 1)]), max_size=60
    ),
    costs=st.lists(st.floats(0, 10), min_size=60, max_size=60),
    window=st.integers(1, 8),
)
def test_window_cuts_of_mirrored_beads_are_mirrored(
    shapes: list[tuple[int, int]], costs: list[float], window: int
) -> None:
    # counted on the source side alone, swapping the sides moved the cuts
    beads, i, j = [], 0, 0
    for (x, y), cost in zip(shapes, costs, strict=False):
        beads.append(Bead(tuple(range(i, i + x)), tuple(range(j, j + y)), cost))
        i, j = i + x, j + y
    forward = anchor_cuts(beads, window)
    backward = anchor_cuts([bead.mirrored() for bead in beads], window)
    assert [(b, a) for a, b in backward] == forward


def test_swapping_the_sides_of_a_long_document_mirrors_the_beads() -> None:
    # Over 2,000 sentences the lexical passes run in windows between anchor beads; with
    # cuts placed on the source side alone, Text+Berg dev and test twice (2,918 x 3,130)
    # gave 3 beads (lexicon) and 37 (hybrid) that did not mirror.
    folder = kit_path("textberg-bleualign-de-fr")
    names = ["dev", *(f"test{k}" for k in range(7))] * 2
    de = [s for name in names for s in (folder / f"{name}.de").read_text().splitlines()]
    fr = [s for name in names for s in (folder / f"{name}.fr").read_text().splitlines()]
    forward = align_sentences(de, fr, method="lexicon", src_lang="de", tgt_lang="fr")
    backward = align_sentences(fr, de, method="lexicon", src_lang="fr", tgt_lang="de")
    assert _links([bead.mirrored() for bead in backward]) == _links(forward)


@pytest.mark.parametrize("method", ["length", "hybrid"])
def test_swapping_the_sides_of_a_document_near_the_chunking_size_mirrors_the_beads(
    method: str,
) -> None:
    # Chunked above 2,000 source sentences: 1,990 x 2,130 was aligned whole one way and in
    # chunks the other (hybrid: with the anchored first pass one way only), and 735 links
    # (length) and 464 (hybrid) did not mirror. Now the size of both sides together decides.
    folder = kit_path("textberg-bleualign-de-fr")
    names = ["dev", *(f"test{k}" for k in range(7))] * 2
    de = [s for name in names for s in (folder / f"{name}.de").read_text().splitlines()][:1990]
    fr = [s for name in names for s in (folder / f"{name}.fr").read_text().splitlines()][:2130]
    forward = align_sentences(de, fr, method=method, src_lang="de", tgt_lang="fr")
    backward = align_sentences(fr, de, method=method, src_lang="fr", tgt_lang="de")
    assert _links([bead.mirrored() for bead in backward]) == _links(forward)
