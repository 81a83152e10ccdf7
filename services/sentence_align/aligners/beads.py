"""Alignment beads: the unit every sentence aligner outputs, and its vecalign text format.

A bead links a run of consecutive source sentences with a run of consecutive target
sentences (docs/methods.md §2 "Beads"). Text form, shared by every aligner and by the
evaluation tools: ``[i, j]:[k]`` with 0-based indices, ``[]`` for the empty side of an
insertion or deletion, optionally followed by a tab and the bead's cost, and by another tab
and its confidence (the bead's posterior probability under the aligner's model, where the
aligner computes one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from shared.errors import InvalidInput

# Bead shapes (source sentences, target sentences) the dynamic programs may use, §2 "Beads".
BEAD_SHAPES: tuple[tuple[int, int], ...] = (
    (1, 1),
    (1, 0),
    (0, 1),
    (2, 1),
    (1, 2),
    (2, 2),
    (3, 1),
    (1, 3),
)


def bead_shapes(max_size: int) -> tuple[tuple[int, int], ...]:
    """``BEAD_SHAPES`` (in that order) plus every x-y shape with x, y >= 1 and x + y <= max_size.

    As in vecalign, insertions and deletions stay single sentences (1-0, 0-1) while the
    many-to-many shapes grow: OCR lines split into several sentences give 2-3, 1-4, 3-3
    beads. The set is symmetric, so swapping the sides maps shapes onto shapes.
    """
    extra = sorted(
        (a, total - a)
        for total in range(2, max_size + 1)
        for a in range(1, total)
        if (a, total - a) not in BEAD_SHAPES
    )
    return BEAD_SHAPES + tuple(extra)


@dataclass(frozen=True)
class Bead:
    """Consecutive source sentences ``src`` aligned to consecutive target sentences ``tgt``."""

    src: tuple[int, ...]
    tgt: tuple[int, ...]
    cost: float = 0.0
    # Posterior probability of the bead (``dp.banded.path_posteriors``), None where the
    # aligner does not compute one; not part of a bead's identity.
    confidence: float | None = field(default=None, compare=False)

    @property
    def shape(self) -> tuple[int, int]:
        """(number of source sentences, number of target sentences), e.g. (2, 1)."""
        return (len(self.src), len(self.tgt))

    def mirrored(self) -> Bead:
        """The same link seen from the other side (source and target swapped)."""
        return Bead(self.tgt, self.src, self.cost, self.confidence)


def unaligned_beads(src: range, tgt: range, confidence: float | None = None) -> list[Bead]:
    """The only alignment when one side is empty: each sentence of ``src`` and ``tgt`` its
    own 1-0 or 0-1 bead (cost 0; ``confidence`` 1.0 from aligners that give one)."""
    return [Bead((i,), (), 0.0, confidence) for i in src] + [
        Bead((), (j,), 0.0, confidence) for j in tgt
    ]


def _format_side(indices: Sequence[int]) -> str:
    return "[" + ", ".join(str(index) for index in indices) + "]"


def format_bead(bead: Bead, *, with_cost: bool = True) -> str:
    """Vecalign text form of a bead: ``[0, 1]:[2]`` plus ``\\t<cost>`` when ``with_cost``
    (and ``\\t<confidence>`` when the bead has one)."""
    text = f"{_format_side(bead.src)}:{_format_side(bead.tgt)}"
    if with_cost:
        text += f"\t{bead.cost:.6f}"
        if bead.confidence is not None:
            text += f"\t{bead.confidence:.4f}"
    return text


def _parse_side(text: str, line: str) -> tuple[int, ...]:
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise InvalidInput(f"not a vecalign bead (expected '[i, j]:[k]'): {line!r}")
    inner = text[1:-1].strip()
    if not inner:
        return ()
    try:
        return tuple(int(part) for part in inner.split(","))
    except ValueError:
        raise InvalidInput(f"bead indices must be integers: {line!r}") from None


def parse_bead(line: str) -> Bead:
    """Read one ``[i, j]:[k]`` line, optionally followed by a tab and a cost, and by another
    tab and a confidence."""
    text, _, numbers = line.strip().partition("\t")
    src_text, colon, tgt_text = text.partition(":")
    if not colon:
        raise InvalidInput(f"not a vecalign bead (expected '[i, j]:[k]'): {line!r}")
    fields = numbers.split("\t") if numbers.strip() else []
    if len(fields) > 2:
        raise InvalidInput(f"a bead line has at most a cost and a confidence: {line!r}")
    try:
        values = [float(value) for value in fields]
    except ValueError:
        raise InvalidInput(f"bead cost or confidence is not a number: {line!r}") from None
    if len(values) == 2 and not 0.0 <= values[1] <= 1.0:
        raise InvalidInput(f"bead confidence must lie in [0, 1]: {line!r}")
    return Bead(
        _parse_side(src_text, line),
        _parse_side(tgt_text, line),
        values[0] if values else 0.0,
        values[1] if len(values) == 2 else None,
    )


def parse_beads(lines: Iterable[str]) -> list[Bead]:
    """Read a vecalign ``.defr``-style file (one bead per line; blank lines are skipped)."""
    return [parse_bead(line) for line in lines if line.strip()]


def check_coverage(beads: Sequence[Bead], n_src: int, n_tgt: int) -> None:
    """Raise ``InvalidInput`` unless the beads cover every sentence exactly once, in order."""
    next_src = next_tgt = 0
    for bead in beads:
        for index in bead.src:
            if index != next_src:
                raise InvalidInput(f"bead {format_bead(bead)} skips or repeats source {next_src}")
            next_src += 1
        for index in bead.tgt:
            if index != next_tgt:
                raise InvalidInput(f"bead {format_bead(bead)} skips or repeats target {next_tgt}")
            next_tgt += 1
    if (next_src, next_tgt) != (n_src, n_tgt):
        raise InvalidInput(
            f"beads cover {next_src}/{n_src} source and {next_tgt}/{n_tgt} target sentences"
        )
