"""EM training of the tag-pair model: monotone likelihood on real crawled page pairs."""

from __future__ import annotations

import base64
import csv
import dataclasses
import gzip
import itertools
import math
import random

import numpy as np
import pytest

from services.html.parse import block_tree, parse_html
from services.html.tag_tree import TagTree, tree_from_nodes
from services.tree_align import train as train_module
from services.tree_align.model import TreeModel, initial_model
from services.tree_align.train import ExpectedCounts, expected_counts, maximise, train
from shared.errors import InvalidInput
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


def _template_pairs(seed: int) -> list[tuple[TagTree, TagTree]]:
    rng = random.Random(seed)

    def page(sections: int) -> TagTree:
        body = "".join(
            f"<div><h2>T{i}</h2><p>{'w' * rng.randint(5, 80)}</p></div>" for i in range(sections)
        )
        return block_tree(
            parse_html(
                "<html><head><title>x</title></head><body><ul><li><a>home</a></li><li>news</li>"
                f"</ul>{body}</body></html>"
            )
        )

    return [(page(rng.randint(2, 5)), page(rng.randint(2, 5))) for _ in range(4)]


def test_em_keeps_deletion_probabilities_of_always_aligned_tags_above_zero() -> None:
    # Pr_del(html) falls geometrically to 0.0 (iteration 11 here), and the E step after that
    # was NaN: train ran on and returned NaN log-likelihoods
    result = train(_template_pairs(0), max_iterations=14, tol=-1.0)
    history = result.log_likelihoods
    assert len(history) == 14 and all(math.isfinite(value) for value in history)
    assert all(later >= earlier - 1e-6 for earlier, later in itertools.pairwise(history))
    for log_del in (result.model.log_del_src, result.model.log_del_tgt):
        assert np.all(log_del >= math.log(1e-12) - 1e-9)


def test_training_stops_with_a_clear_error_when_the_likelihood_is_not_finite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pairs = _template_pairs(1)
    first = expected_counts(*pairs[0], initial_model(["html", "body"]))

    def nan_counts(src: TagTree, tgt: TagTree, model: TreeModel) -> ExpectedCounts:
        return dataclasses.replace(first, log_likelihood=math.nan)

    monkeypatch.setattr(train_module, "expected_counts", nan_counts)
    with pytest.raises(InvalidInput, match="not finite"):
        train(pairs, max_iterations=5)
