"""What the gateway's viewer and export tests store before they ask: a job with two page pairs
(one with sentence beads and tree-node pairs, one empty), paraphrase observations and a tiny
thesaurus snapshot. Crawled text includes hostile markup to check escaping.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from services.thesaurus import repository
from services.thesaurus.similarity import SimilarityModel
from services.thesaurus.thesauri import Thesaurus
from shared.store import Store

# Two PC/mobile pairs that differ by one word: big → large, the phrase table's one paraphrase.
BIG_LARGE: list[dict[str, Any]] = [
    {
        "id": "o1",
        "kind": "pc-mobile",
        "lang": "en",
        "src_text": "the big dog",
        "tgt_text": "the large dog",
    },
    {
        "id": "o2",
        "kind": "pc-mobile",
        "lang": "en",
        "src_text": "a big house",
        "tgt_text": "a large house",
    },
]


HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"
JOB = "job-viewer"
PAIR = "pp-viewer"
OTHER_PAIR = "pp-empty"


def sentence_row(
    position: int, src: str, tgt: str, score: float, bead: str, chunk: int
) -> dict[str, Any]:
    return {
        "id": f"sp-{position}",
        "pair_id": PAIR,
        "kind": "translation",
        "src_url": "https://example.org/en/page",
        "tgt_url": "https://example.org/de/page",
        "site": "example.org",
        "src_lang": "en",
        "tgt_lang": "de",
        "src_text": src,
        "tgt_text": tgt,
        "score": score,
        "bead": bead,
        "chunk": chunk,
        "position": position,
    }


ROWS = [
    sentence_row(0, "Opening hours.", "Öffnungszeiten.", 0.9, "[0]:[0]", 0),
    sentence_row(1, HOSTILE, "Harmlos.", 0.2, "[1]:[1]", 0),
    sentence_row(2, "One long sentence.", "Zwei Sätze. Hier.", 0.7, "[0]:[0, 1]", 1),
]
NODES = [
    {
        "chunk": 0,
        "src_xpath": "/html/body/div[2]/p[1]",
        "tgt_xpath": "/html/body/main/p[1]",
        "src_text": f"Opening hours. {HOSTILE}",
        "tgt_text": "Öffnungszeiten. Harmlos.",
        "cost": 12.5,
    },
    {
        "chunk": 1,
        "src_xpath": "/html/body/div[2]/p[2]",
        "tgt_xpath": "/html/body/main/div/p",
        "src_text": "One long sentence.",
        "tgt_text": "Zwei Sätze. Hier.",
        "cost": 7.25,
    },
]


def fill(store: Store) -> None:
    store.record_job(
        JOB,
        [
            (PAIR, "https://example.org/en/page", "https://example.org/de/page"),
            (OTHER_PAIR, "https://example.org/en/x", "https://example.org/de/x"),
        ],
        source=HOSTILE,
    )
    store.add_sentence_pairs(ROWS, pair_id=PAIR, stage="sentence_align")
    store.add_node_pairs(PAIR, NODES)


def save_tiny_snapshot(url: str, name: str = "tiny") -> None:
    engine = Store(url).engine
    repository.ensure_schema(engine)
    tree = Thesaurus.build(
        name,
        [("root", None, "root"), ("a", "root", "animals"), ("v", "root", "vehicles")],
        [("犬", "a"), ("猫", "a"), ("車", "v")],
    )
    model = SimilarityModel(
        tree.leaf_ids,
        np.array([[2.0, 0.5], [0.5, np.nan]], dtype=np.float32),
        np.array([[0, 1], [1, -1]], dtype=np.int8),
        np.array([3.0, 1.0]),
        4.0,
    )
    repository.save_snapshot(engine, model, tree, {"note": "test"})
