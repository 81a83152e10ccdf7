"""Real page pairs for the tree_align benchmark: the albatec-al.de English–German pages.

Pages: ``../shared/data/bitextor-albatec-lett`` (read in place, nothing written), pairs by
its URL scheme (``url-pattern-pairs.tsv``). Gold, by a rule checked by hand on the pages of
:data:`PAGES` (every pair it gives there read side by side and found to be a translation;
pages where it is not, such as About Albania whose paragraphs are partly reordered, are left
out): the text blocks (folded trees) at the same XPath on both pages whose texts differ and
have 6 words or more, other than the breadcrumb. The gold is paragraph pairs, so these pages
are scored per paragraph, not per sentence.
"""

from __future__ import annotations

import base64
import csv
import gzip
from dataclasses import dataclass

from benchmarks.common import KIT
from services.html.parse import block_tree, parse_html, text_chunks

DATA = KIT / "bitextor-albatec-lett"
PAGES = ("4", "9", "13", "15", "16", "20")  # page ids whose rule-made gold was checked
MIN_WORDS = 6


@dataclass(frozen=True)
class RealPair:
    name: str
    html: tuple[bytes, bytes]  # English, German
    gold: list[tuple[str, str]]  # paragraph pairs (block texts)


def real_pairs() -> list[RealPair]:
    """The checked albatec page pairs with their gold paragraph pairs (none: data absent)."""
    if not DATA.exists():
        return []
    pages: dict[str, bytes] = {}
    with gzip.open(DATA / "v2.lett.gz", "rt", encoding="utf-8") as lett:
        for line in lett:
            fields = line.rstrip("\n").split("\t")
            pages[fields[3]] = base64.b64decode(fields[4])
    result = []
    with (DATA / "url-pattern-pairs.tsv").open(encoding="utf-8") as table:
        for row in csv.DictReader(table, delimiter="\t"):
            if row["page_id"] not in PAGES:
                continue
            html = (pages[row["en_url"]], pages[row["de_url"]])
            blocks = []
            for page in html:
                tree = block_tree(parse_html(page))
                blocks.append({tree.xpath(c.block): c.text for c in text_chunks(tree)})
            gold = [
                (text, blocks[1][xpath])
                for xpath, text in blocks[0].items()
                if xpath in blocks[1]
                and blocks[1][xpath] != text
                and len(text.split()) >= MIN_WORDS
                and not text.startswith("You are here")
            ]
            result.append(RealPair(row["en_url"].rsplit("/", 1)[-1], html, gold))
    return result


def score_real(pair: RealPair, chunks: list[tuple[str, str]]) -> tuple[int, int, int]:
    """(gold paragraph pairs found, output chunk pairs holding gold text, gold pairs): a gold
    pair is found when one output pair holds both of its texts and no other gold text."""
    keys = [("".join(a.split()), "".join(b.split())) for a, b in pair.gold]
    found = 0
    output = 0
    for src_text, tgt_text in chunks:
        texts = ("".join(src_text.split()), "".join(tgt_text.split()))
        src = {k for k, (a, _) in enumerate(keys) if a in texts[0]}
        tgt = {k for k, (_, b) in enumerate(keys) if b in texts[1]}
        if not src and not tgt:
            continue
        output += 1
        found += len(src) == 1 and src == tgt
    return found, output, len(pair.gold)


def score_sentences(pair: RealPair, sentence_pairs: list[tuple[str, str]]) -> tuple[int, int]:
    """(sentence pairs inside one gold paragraph pair on both sides, sentence pairs with a
    side inside a gold paragraph): the other pairs paired paragraph text with other text."""
    keys = [("".join(a.split()), "".join(b.split())) for a, b in pair.gold]
    right = judged = 0
    for src_text, tgt_text in sentence_pairs:
        texts = ("".join(src_text.split()), "".join(tgt_text.split()))
        src = {k for k, (a, _) in enumerate(keys) if texts[0] and texts[0] in a}
        tgt = {k for k, (_, b) in enumerate(keys) if texts[1] and texts[1] in b}
        if src or tgt:
            judged += 1
            right += bool(src & tgt)
    return right, judged
