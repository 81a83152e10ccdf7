"""Command-line entry points for monolingual (BAM) and Web-vs-mobile alignment."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from shared.errors import InvalidInput

if TYPE_CHECKING:
    from services.sentence_align.aligners.articles import Article


def _read_articles(path: Path) -> list[Article]:
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners.articles import parse_article

    articles = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            articles.append(parse_article(json.loads(line)))
        except (json.JSONDecodeError, InvalidInput) as error:
            raise typer.BadParameter(f"{path}:{number}: {error}") from None
    return articles


def align_articles_command(
    web: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Web articles, JSONL")],
    mobile: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="mobile articles, JSONL")
    ],
    a: Annotated[float, typer.Option(help="weight of shared keywords")] = 3.0,
    b: Annotated[float, typer.Option(help="weight of shared title nouns")] = 3.0,
    threshold: Annotated[float, typer.Option(help="minimum SimArticle")] = 35.0,
) -> None:
    """Pair mobile articles with same-day Web articles, then their sentences; print JSONL.

    Input lines are JSON objects with id, date, title, body and optional keywords, url.
    """
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners.articles import pair_articles, pair_sentences

    web_articles, mobile_articles = _read_articles(web), _read_articles(mobile)
    web_by_id = {article.id: article for article in web_articles}
    mobile_by_id = {article.id: article for article in mobile_articles}
    pairs = pair_articles(web_articles, mobile_articles, a=a, b=b, threshold=threshold)
    for pair in pairs:
        sentences = pair_sentences(web_by_id[pair.web_id], mobile_by_id[pair.mobile_id])
        record = asdict(pair) | {"sentences": [asdict(s) for s in sentences]}
        typer.echo(json.dumps(record, ensure_ascii=False))


def _read_sentences(path: Path, presplit: bool, lang: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if presplit:
        return text.splitlines()
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners.splitter import split_sentences

    # BAM merges each text into one paragraph (paper section 2), so paragraph breaks vanish.
    return split_sentences(text, lang)


def align_monolingual_command(
    src: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="one version")],
    tgt: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="another version")],
    presplit: Annotated[bool, typer.Option(help="each input line is one sentence")] = False,
    lang: Annotated[str, typer.Option(help="language of both texts (ISO 639-1)")] = "en",
    threshold_d: Annotated[float | None, typer.Option(help="anchor threshold D")] = None,
    similarity: Annotated[float | None, typer.Option(help="anchor similarity threshold")] = None,
    char_ngram: Annotated[int, typer.Option(help="similarity over character n-grams")] = 2,
    filter_after: Annotated[
        bool, typer.Option(help="filter anchors after selection (paper) instead of during")
    ] = False,
) -> None:
    """Align two versions of one text by BAM anchors + length DP; print vecalign beads."""
    # lazy: paramine imports every command module at start-up
    from services.sentence_align.aligners import anchors
    from services.sentence_align.aligners.beads import format_bead

    options = anchors.AnchorOptions(
        similarity_filter="after" if filter_after else "during", char_ngram=char_ngram
    )
    beads = anchors.align_monolingual(
        _read_sentences(src, presplit, lang),
        _read_sentences(tgt, presplit, lang),
        threshold_d=anchors.DEFAULT_THRESHOLD_D if threshold_d is None else threshold_d,
        similarity_threshold=(
            anchors.DEFAULT_SIMILARITY_THRESHOLD if similarity is None else similarity
        ),
        options=options,
    )
    typer.echo("\n".join(format_bead(bead) for bead in beads))


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this module's commands to the root ``paramine`` app."""
    app.command("align-articles")(align_articles_command)
    app.command("align-monolingual")(align_monolingual_command)
