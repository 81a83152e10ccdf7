"""Tests of the hybrid aligner on the real Text+Berg dev document (tuning data, not test)."""

from __future__ import annotations

from services.sentence_align.beads import parse_beads
from services.sentence_align.evaluate import score_documents
from services.sentence_align.hybrid import align_hybrid
from services.sentence_align.length import align_by_length
from tests.conftest import kit_path


def _dev() -> tuple[list[str], list[str], list]:  # type: ignore[type-arg]
    src = kit_path("textberg-bleualign-de-fr/dev.de").read_text(encoding="utf-8").splitlines()
    tgt = kit_path("textberg-bleualign-de-fr/dev.fr").read_text(encoding="utf-8").splitlines()
    gold = parse_beads(kit_path("textberg-bleualign-de-fr/dev.defr").read_text().splitlines())
    return src, tgt, gold


def test_hybrid_beats_length_only_on_dev() -> None:
    src, tgt, gold = _dev()
    hybrid = score_documents([gold], [align_hybrid(src, tgt, src_lang="de", tgt_lang="fr")])
    length = score_documents([gold], [align_by_length(src, tgt)])
    assert hybrid.f1_strict > length.f1_strict
    assert hybrid.f1_lax > length.f1_lax


def test_hybrid_windows_give_a_complete_alignment() -> None:
    # A window of 50 sentences forces several anchor cuts on the 468-sentence document.
    from dataclasses import replace

    from services.sentence_align._two_pass import anchor_cuts
    from services.sentence_align.beads import check_coverage
    from services.sentence_align.hybrid import HYBRID_SETTINGS

    src, tgt, gold = _dev()
    settings = replace(HYBRID_SETTINGS, window=50)
    beads = align_hybrid(src, tgt, src_lang="de", tgt_lang="fr", settings=settings)
    check_coverage(beads, len(src), len(tgt))
    assert len(anchor_cuts(align_by_length(src, tgt), 50)) > 5
    windowed = score_documents([gold], [beads])
    whole = score_documents([gold], [align_hybrid(src, tgt, src_lang="de", tgt_lang="fr")])
    assert windowed.f1_strict >= whole.f1_strict - 0.02
