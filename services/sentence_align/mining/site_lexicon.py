"""What the sentence aligner keeps of a site: its earlier sentence pairs, trained on once.

A page pair is a few dozen sentences, too little text for Model 1, while its site's other
pages share its names and words (docs/methods.md §2, "Lexicon-based model": Moore 2002
trains on the whole corpus being aligned). The sentence_align stage therefore aligns each
page pair together with up to ``Settings.site_pairs`` of the site's earlier sentence pairs.
Retraining Model 1 on all of them for every page pair cost most of the stage's time; here
they are trained on once per *snapshot* (:func:`learn_site`), and each page pair's Model 1
adds the snapshot's expected counts to its own (``dp.two_pass.KeptText``; incremental EM,
Neal & Hinton 1998: a data point's statistics are kept from its last E-step).

A snapshot holds the pairs of the site's first ``k`` page pairs in the ingest order, ``k``
a checkpoint (:func:`checkpoint`) at most the number of page pairs before the one being
aligned: 1, 2, 4, 8, 16, then every ``SNAPSHOT_EVERY``. It depends on the ingest order
only, never on which pairs happened to be stored first, so a crawl gives the same corpus
whatever the schedule (``shared.delivery.ordering``), and one snapshot serves the page
pairs up to the next checkpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from services.lexical import model1
from services.sentence_align.aligners import length
from services.sentence_align.aligners.align import pooled_settings
from services.sentence_align.aligners.lexical_settings import LexicalSettings
from services.sentence_align.dp.two_pass import (
    KeptText,
    confident_pairs,
    segments_length_pass,
    text_cues,
)

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

# Snapshots after the site's first 1, 2, 4, 8 and 16 page pairs, then after every this many.
SNAPSHOT_EVERY = 16


def checkpoint(earlier: int) -> int:
    """The number of the site's first page pairs a page pair learns from when ``earlier``
    page pairs of its site came before it: the largest checkpoint not above ``earlier``
    (0 when none came before)."""
    if earlier < SNAPSHOT_EVERY:
        return 1 << (earlier.bit_length() - 1) if earlier else 0
    return earlier - earlier % SNAPSHOT_EVERY


def learn_site(
    pairs: Sequence[tuple[str, str]],
    src_lang: str | None,
    tgt_lang: str | None,
    settings: LexicalSettings,
    dictionary: BilingualDictionary | None = None,
) -> KeptText:
    """The site's sentence pairs as the two-pass aligner keeps them: each pair a segment of
    its own, the length pass and its confident pairs as in ``dp.two_pass.align_two_pass``,
    Model 1's expected counts both ways (``model1.expected_counts``) and each side's token
    counts."""
    src = [pair[0] for pair in pairs]
    tgt = [pair[1] for pair in pairs]
    cums = (length.cumulative_lengths(src), length.cumulative_lengths(tgt))
    cuts = [(k, k) for k in range(len(pairs) + 1)]
    first, _ = segments_length_pass(src, tgt, cums, cuts, settings)
    training = confident_pairs(first, settings.confident_share, settings.max_training_beads)
    src_side, tgt_side = model1.encode(src, src_lang), model1.encode(tgt, tgt_lang)
    cues = text_cues(src_side, tgt_side, settings, dictionary)
    forward = model1.expected_counts(
        src_side, tgt_side, training, cues,
        iterations=settings.em_iterations, cue_weight=settings.cue_weight,
    )  # fmt: skip
    backward = None
    if settings.both_directions:
        backward = model1.expected_counts(
            tgt_side, src_side, [(y, x) for x, y in training],
            {(e, f): value for (f, e), value in cues.items()},
            iterations=settings.em_iterations, cue_weight=settings.cue_weight,
        )  # fmt: skip
    return KeptText(
        tuple((s, t) for s, t in pairs),
        model1.KeptSide.of(src_side),
        model1.KeptSide.of(tgt_side),
        forward,
        backward,
    )


def learn_site_text(
    pairs: Sequence[tuple[str, str]],
    *,
    method: str = "hybrid",
    src_lang: str | None = None,
    tgt_lang: str | None = None,
    dictionary: BilingualDictionary | None = None,
) -> KeptText | None:
    """A site's earlier sentence pairs trained on once with ``method``'s settings, for
    ``align_segments(site=...)`` of its page pairs; None for methods without Model 1 or
    without pairs."""
    if method not in ("lexicon", "hybrid") or not pairs:
        return None
    return learn_site(pairs, src_lang, tgt_lang, pooled_settings(method, refine=False), dictionary)
