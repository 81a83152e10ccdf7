"""EM training of the tag-pair model: monotone likelihood on real crawled page pairs."""

from __future__ import annotations

import base64
import csv
import gzip
import itertools

import numpy as np

from services.tree_align.html_tree import TagTree, parse_html, tree_from_nodes
from services.tree_align.model import initial_model
from services.tree_align.train import expected_counts, maximise, train
from tests.conftest import kit_path


def albatec_pairs(limit: int) -> list[tuple[TagTree, TagTree]]:
    lett = kit_path("bitextor-albatec-lett/v2.lett.gz")
    table = kit_path("bitextor-albatec-lett/url-pattern-pairs.tsv")
    pages: dict[str, bytes] = {}
    with gzip.open(lett, "rt", encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            pages[fields[3]] = base64.b64decode(fields[4])
    pairs = []
    with table.open(encoding="utf-8") as rows:
        for row in csv.DictReader(rows, delimiter="\t"):
            if row["en_url"] in pages and row["de_url"] in pages:
                pairs.append((parse_html(pages[row["en_url"]]), parse_html(pages[row["de_url"]])))
    return pairs[:limit]


def test_em_log_likelihood_never_decreases_on_real_pages() -> None:
    pairs = albatec_pairs(3)
    assert len(pairs) == 3
    result = train(pairs, max_iterations=4, tol=-1.0)
    history = result.log_likelihoods
    assert len(history) == 4
    assert all(later >= earlier - 1e-6 for earlier, later in itertools.pairwise(history))
    assert history[-1] > history[0]


def test_m_step_formulas_on_hand_counts() -> None:
    src = tree_from_nodes(["div", "p"], [-1, 0], ["", ""])
    model = initial_model(["div", "p"])
    counts = expected_counts(src, src, model)
    index = model.label_index
    # each node is aligned or deleted: counts per label sum to the number of nodes
    assert np.isclose(counts.pair[index["div"]].sum() + counts.deleted_src[index["div"]], 1.0)
    updated = maximise(model, counts)
    row = counts.pair[index["p"]]
    np.testing.assert_allclose(np.exp(updated.log_tag[index["p"]]), row / row.sum())
    expected_del = counts.deleted_src[index["p"]] / (counts.deleted_src[index["p"]] + row.sum())
    assert np.isclose(np.exp(updated.log_del_src[index["p"]]), expected_del)
