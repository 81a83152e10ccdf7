"""Training and validation data of the pair classifier (:mod:`pair_model`) from the data kit's
sentence-alignment gold, with synthetic wrong pairs made the way bicleaner makes them.

Gold (read in place from the kit, nothing copied): Text+Berg German-French (Bleualign's dev
and test documents), MAC-Dev Chinese-English, the SpanAlign English-Japanese sample. Parts,
fixed before anything was chosen: training = Text+Berg dev, test0-2, MAC-Dev 001-003,
SpanAlign, each also read the other way round; validation (nothing is chosen on it) =
Text+Berg test3-6, MAC-Dev 004-006. (The albatec pages' gold is paragraph pairs, not
sentence pairs: not used.)

Each document is aligned with the default aligner (hybrid, the installed dictionary), as the
pipeline aligns a page pair. Its labelled pairs:

- the aligner's pairs (1-0 and 0-1 beads are no pairs), correct when the gold has the same
  bead: these are what a user is given, the rows calibration and threshold are read off;
- the gold pairs (correct), with the aligner's posterior where it output the same bead;
- wrong pairs made from each gold pair: its target shifted by one and by two, a random
  target of the same document, a sentence added or dropped, a sentence paired with a menu
  item or caption, an untranslated copy (a side paired with itself, a caption doubled).
  A made pair that is a gold bead is not made. Their posterior is drawn from the aligner's
  posteriors of the document (the DP never saw them), so it tells them from nothing.

The rows are computed on pseudo-pages (runs of 8-60 source sentences: the pipeline scores
one page pair's pairs with a Model 1 of that page), twice: with the language pair's
dictionary and without one (its features NaN, Model 1 without its seeds), so the trees also
serve language pairs without an installed dictionary; and each training document is also
read the other way round. Two things issue 50 lists are not features: the content model's
block kind (sentence_align's input carries none) and repetition across a site (the gold has
no sites); repetition within the page is. Random choices use a fixed seed (``PARAMINE_SEED``
overrides).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from services.lexical.registry import dictionary_for
from services.sentence_align.aligners.align import align_sentences
from services.sentence_align.aligners.beads import Bead, parse_beads
from services.sentence_align.classifier.pair_features import Candidate, page_features, separator
from services.sentence_align.classifier.pair_model import LabelledRows, PairModel, fit_pair_model
from shared.errors import InvalidInput

if TYPE_CHECKING:
    from services.lexical.dictionary import BilingualDictionary

SEED = int(os.environ.get("PARAMINE_SEED", "0"))
TEXTBERG = "textberg-bleualign-de-fr"
MAC = "mac-dev-zh-en-bertalign"
SPANALIGN = "spanalign-sample-en-ja"
TRAINING = ("textberg dev", "textberg test0", "textberg test1", "textberg test2",
            "mac 001", "mac 002", "mac 003", "spanalign sample")  # fmt: skip
VALIDATION = ("textberg test3", "textberg test4", "textberg test5", "textberg test6",
              "mac 004", "mac 005", "mac 006")  # fmt: skip
FOLDS = 3
PAGE_SENTENCES = (8, 60)  # source sentences of a pseudo-page (a page pair's text)
# Menu items and captions a page holds beside its text (none of the test pairs' texts).
MENU_ITEMS = {
    "de": ("Startseite", "Kontakt", "Impressum", "Datenschutz", "Mehr erfahren", "Weiterlesen",
           "Zum Warenkorb", "Suche", "Anmelden", "Bildergalerie", "Foto: Archiv", "Newsletter"),
    "fr": ("Accueil", "Contact", "Mentions légales", "En savoir plus", "Lire la suite",
           "Panier", "Rechercher", "Se connecter", "Galerie photos", "Photo : archives",
           "Plan du site", "Partager"),
    "en": ("Home", "Contact us", "Privacy policy", "Read more", "Learn more", "Shopping cart",
           "Search", "Sign in", "Photo gallery", "Photo: archive", "Newsletter", "Share"),
    "zh": ("首页", "联系我们", "隐私政策", "阅读更多", "购物车", "搜索", "登录", "图片库",
           "返回顶部", "分享", "网站地图", "新闻中心"),
    "ja": ("ホーム", "お問い合わせ", "プライバシーポリシー", "続きを読む", "カート", "検索",
           "ログイン", "写真ギャラリー", "ページの先頭へ", "シェア", "サイトマップ",
           "ニュース一覧"),
}  # fmt: skip

Progress = Callable[[str], None]


@dataclass(frozen=True)
class GoldDocument:
    """A document pair of the kit with its gold beads."""

    name: str
    src_lang: str
    tgt_lang: str
    src: list[str]
    tgt: list[str]
    gold: list[Bead]

    @property
    def pair(self) -> str:
        return f"{self.src_lang}-{self.tgt_lang}"


@dataclass(frozen=True)
class Labelled:
    """A candidate pair with its label and where it came from ("aligner", "gold", or the
    kind of wrong pair made)."""

    candidate: Candidate
    label: int
    origin: str
    at: int  # the first source sentence of the bead it came from


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInput(f"cannot read gold file {path}: {error}") from None


def kit_document(kit: Path, name: str) -> GoldDocument:
    """One document of :data:`TRAINING` or :data:`VALIDATION` from the kit folder ``kit``."""
    corpus, part = name.split(" ", 1)
    if corpus == "textberg":
        folder = kit / TEXTBERG
        return GoldDocument(
            name, "de", "fr", _lines(folder / f"{part}.de"), _lines(folder / f"{part}.fr"),
            parse_beads(_lines(folder / f"{part}.defr")),
        )  # fmt: skip
    if corpus == "mac":
        folder = kit / MAC
        return GoldDocument(
            name, "zh", "en", _lines(folder / "zh" / part), _lines(folder / "en" / part),
            parse_beads(_lines(folder / "gold" / f"{part}.align")),
        )  # fmt: skip
    if corpus == "spanalign":
        folder = kit / SPANALIGN
        one_based = parse_beads(_lines(folder / "sample.pair"))
        gold = [Bead(tuple(k - 1 for k in b.src), tuple(k - 1 for k in b.tgt)) for b in one_based]
        return GoldDocument(
            name, "en", "ja", _lines(folder / "sample.l1"), _lines(folder / "sample.l2"), gold
        )
    raise InvalidInput(f"unknown gold document {name!r}")


def kit_documents(kit: Path, names: Sequence[str]) -> list[GoldDocument]:
    """The documents ``names`` (:data:`TRAINING`, :data:`VALIDATION`) from ``kit``."""
    if not kit.is_dir():
        raise InvalidInput(f"no data kit at {kit} (give --kit or set PARAMINE_KIT_DATA)")
    return [kit_document(kit, name) for name in names]


def aligned(document: GoldDocument, dictionary: BilingualDictionary | None) -> list[Bead]:
    """The default aligner's beads of the document (hybrid, as the pipeline runs it)."""
    return align_sentences(
        document.src, document.tgt, src_lang=document.src_lang, tgt_lang=document.tgt_lang,
        dictionary=dictionary,
    )  # fmt: skip


def bead_candidate(document: GoldDocument, bead: Bead, posterior: float | None) -> Candidate:
    """The texts of a bead's two sides (sentences joined as the pipeline joins them) and the
    sentences either side of it."""
    return Candidate(
        separator(document.src_lang).join(document.src[k] for k in bead.src),
        separator(document.tgt_lang).join(document.tgt[k] for k in bead.tgt),
        len(bead.src),
        len(bead.tgt),
        posterior,
        *_around(document.src, bead.src),
        *_around(document.tgt, bead.tgt),
    )


def _around(sentences: Sequence[str], run: Sequence[int]) -> tuple[str, str]:
    before = sentences[run[0] - 1] if run[0] > 0 else ""
    after = sentences[run[-1] + 1] if run[-1] + 1 < len(sentences) else ""
    return before, after


def labelled_pairs(
    document: GoldDocument, beads: Sequence[Bead], seed: int = SEED
) -> list[Labelled]:
    """The aligner's pairs, the gold pairs and the wrong pairs made from them (module
    docstring), in that order."""
    rng = random.Random(f"{seed}:{document.name}")
    gold = {(b.src, b.tgt) for b in document.gold if b.src and b.tgt}
    output = [b for b in beads if b.src and b.tgt]
    posteriors = [b.confidence for b in output if b.confidence is not None] or [1.0]
    by_cells = {(b.src, b.tgt): b.confidence for b in output}
    result = [
        Labelled(
            bead_candidate(document, b, b.confidence),
            int((b.src, b.tgt) in gold),
            "aligner",
            b.src[0],
        )
        for b in output
    ]

    def made(bead: Bead, origin: str) -> None:
        if (bead.src, bead.tgt) not in gold and bead.src and bead.tgt:
            candidate = bead_candidate(document, bead, rng.choice(posteriors))
            result.append(Labelled(candidate, 0, origin, bead.src[0]))

    n, m = len(document.src), len(document.tgt)
    for bead in document.gold:
        if not (bead.src and bead.tgt):
            continue
        posterior = by_cells.get((bead.src, bead.tgt), rng.choice(posteriors))
        result.append(Labelled(bead_candidate(document, bead, posterior), 1, "gold", bead.src[0]))
        for shift in (-1, 1, rng.choice((-2, 2))):
            tgt = tuple(k + shift for k in bead.tgt)
            if tgt[0] >= 0 and tgt[-1] < m:
                made(Bead(bead.src, tgt), f"shift {abs(shift)}")
        far = [k for k in range(m) if abs(k - bead.tgt[0]) > 3]
        if far:
            made(Bead(bead.src, (rng.choice(far),)), "random")
        if rng.random() < 0.5 and bead.src[-1] + 1 < n:
            made(Bead((*bead.src, bead.src[-1] + 1), bead.tgt), "added")
        elif bead.tgt[-1] + 1 < m:
            made(Bead(bead.src, (*bead.tgt, bead.tgt[-1] + 1)), "added")
        if len(bead.src) > 1:
            made(Bead(bead.src[1:] if rng.random() < 0.5 else bead.src[:-1], bead.tgt), "dropped")
        if len(bead.tgt) > 1:
            made(Bead(bead.src, bead.tgt[1:] if rng.random() < 0.5 else bead.tgt[:-1]), "dropped")
        result += _menu_and_copies(document, bead, rng, posteriors)
    return result


def _menu_and_copies(
    document: GoldDocument, bead: Bead, rng: random.Random, posteriors: Sequence[float]
) -> list[Labelled]:
    """A side of the gold pair with a menu item or caption of the other language, two menu
    items that do not translate each other, and (some of the time) an untranslated copy: a
    side paired with itself, a short side doubled."""
    gold = bead_candidate(document, bead, None)
    made: list[Labelled] = []

    def add(src: str, tgt: str, origin: str) -> None:
        candidate = replace(gold, src=src, tgt=tgt, bead_src=1, bead_tgt=1,
                            posterior=rng.choice(posteriors))  # fmt: skip
        made.append(Labelled(candidate, 0, origin, bead.src[0]))

    roll = rng.random()
    if roll < 0.25:
        add(gold.src, rng.choice(_menu(document.tgt_lang)), "menu")
    elif roll < 0.5:
        add(rng.choice(_menu(document.src_lang)), gold.tgt, "menu")
    if rng.random() < 0.3:  # two menu items that are not each other's translation
        src_menu, tgt_menu = _menu(document.src_lang), _menu(document.tgt_lang)
        k = rng.randrange(len(src_menu))
        other = rng.choice([j for j in range(len(tgt_menu)) if j != k])
        add(src_menu[k], tgt_menu[other], "menu")
    roll = rng.random()
    if roll < 0.1:
        add(gold.src, gold.src, "copy")
    elif roll < 0.2:
        add(gold.tgt, gold.tgt, "copy")
    elif roll < 0.25 and len(gold.src) < 40:
        add(gold.src, separator(document.tgt_lang).join((gold.src, gold.src)), "copy")
    return made


def _menu(lang: str) -> tuple[str, ...]:
    return MENU_ITEMS.get(lang, MENU_ITEMS["en"])


def document_rows(
    document: GoldDocument,
    fold: int,
    dictionary: BilingualDictionary | None,
    *,
    beads: Sequence[Bead] | None = None,
) -> list[LabelledRows]:
    """The document's labelled rows, with its dictionary and (when it has one) without.

    The document is cut into pseudo-pages of :data:`PAGE_SENTENCES` source sentences (a
    random size in that range each), whose aligner pairs train the Model 1 of their rows,
    as the pipeline scores the pairs of one page pair with a Model 1 of that page."""
    output = list(beads) if beads is not None else aligned(document, dictionary)
    pairs = labelled_pairs(document, output)
    rng = random.Random(f"{SEED}:{document.name}:pages")
    cuts = [0]
    while cuts[-1] < len(document.src):
        cuts.append(cuts[-1] + rng.randint(*PAGE_SENTENCES))
    page_of = np.searchsorted(np.asarray(cuts), [p.at for p in pairs], side="right") - 1
    order = np.argsort(page_of, kind="stable")
    ordered = [pairs[k] for k in order]
    labels = np.array([float(p.label) for p in ordered])
    from_aligner = np.array([p.origin == "aligner" for p in ordered])
    variants = [dictionary] if dictionary is None else [dictionary, None]
    result = []
    for lexicon in variants:
        blocks = []
        for page in sorted(set(page_of.tolist())):
            members = [pairs[k] for k in order if page_of[k] == page]
            texts = [(p.candidate.src, p.candidate.tgt) for p in members if p.origin == "aligner"]
            blocks.append(
                page_features(
                    [p.candidate for p in members], document.src_lang, document.tgt_lang,
                    lexicon, page=texts,
                )
            )  # fmt: skip
        name = document.name if lexicon is not None else f"{document.name} (no dictionary)"
        result.append(
            LabelledRows(name, document.pair, fold, np.concatenate(blocks), labels, from_aligner)
        )
    return result


def training_rows(kit: Path, *, progress: Progress | None = None) -> list[LabelledRows]:
    """The labelled rows of every :data:`TRAINING` document; folds by language pair, round
    robin over its documents."""
    say = progress or (lambda _: None)
    rows: list[LabelledRows] = []
    seen: dict[str, int] = {}
    for document in kit_documents(kit, TRAINING):
        fold = seen.get(document.pair, 0) % FOLDS
        seen[document.pair] = seen.get(document.pair, 0) + 1
        for way in (document, swapped(document)):
            say(f"aligning and labelling {way.name}")
            rows += document_rows(way, fold, dictionary_for(way.src_lang, way.tgt_lang))
    return rows


def swapped(document: GoldDocument) -> GoldDocument:
    """The document read the other way round (target language first): a page pair's
    languages come in either order."""
    return GoldDocument(
        f"{document.name} (swapped)", document.tgt_lang, document.src_lang, document.tgt,
        document.src, [Bead(b.tgt, b.src) for b in document.gold],
    )  # fmt: skip


def train_pair_model(kit: Path, *, progress: Progress | None = None) -> PairModel:
    """The pair model fitted on the kit's :data:`TRAINING` documents (``fit_pair_model``)."""
    rows = training_rows(kit, progress=progress)
    names = tuple(
        f"{r.name} ({int(r.aligner.sum())} aligner pairs, {len(r.rows)} rows)" for r in rows
    )
    return fit_pair_model(rows, trained_on=names, progress=progress)
