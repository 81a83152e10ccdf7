"""Similarity matrices out: the defined cells as CSV, the full matrices as NPZ."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from services.thesaurus.repository import SimilarityMatrix

SIMILARITY_CSV_HEADER = ("class_a", "class_b", "label_a", "label_b", "similarity", "round")


def similarity_csv_rows(
    class_ids: Sequence[str],
    labels: Sequence[str],
    values: npt.NDArray[Any],
    rounds: npt.NDArray[Any],
) -> Iterator[tuple[str, str, str, str, str, str]]:
    """Defined cells of a symmetric similarity matrix, upper triangle (a ≤ b), as CSV fields.

    ``round`` is 0 when the corpus defined the value, k > 0 for estimation round k.
    """
    # Row by row: all upper-triangle indices at once were two Python lists of L(L+1)/2 ints
    # (what that cost: tuning_history.md, "services/export/similarity.py").
    for i in range(len(class_ids)):
        row = values[i, i:]
        for offset in np.flatnonzero(~np.isnan(row)).tolist():
            j = i + offset
            yield (
                class_ids[i],
                class_ids[j],
                labels[i],
                labels[j],
                repr(float(row[offset])),
                str(int(rounds[i, j])),
            )


def similarity_npz_bytes(
    class_ids: Sequence[str],
    labels: Sequence[str],
    values: npt.NDArray[Any],
    rounds: npt.NDArray[Any],
) -> bytes:
    """The full matrix as NPZ: ``class_ids``, ``labels``, ``values`` (NaN undefined), ``rounds``."""
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        class_ids=np.array(list(class_ids), dtype=str),
        labels=np.array(list(labels), dtype=str),
        values=np.asarray(values, dtype=np.float32),
        rounds=np.asarray(rounds, dtype=np.int8),
    )
    return buffer.getvalue()


def similarity_csv_lines(matrix: SimilarityMatrix) -> Iterator[str]:
    """CSV text of the defined upper-triangle cells, header first."""
    buffer = io.StringIO()
    # CRLF, as RFC 4180: the writer then quotes a field holding a bare CR too (with "\n" it
    # did not, and a label with one split its row in two)
    writer = csv.writer(buffer, lineterminator="\r\n")
    cells = similarity_csv_rows(matrix.class_ids, matrix.labels, matrix.values, matrix.rounds)
    for record in (SIMILARITY_CSV_HEADER, *cells):
        writer.writerow(record)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
