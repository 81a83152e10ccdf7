"""The ``paramine`` command line: one entry point for every mode and algorithm.

One module per concern, each adding its commands to the application built here:
``common`` (the root application, error handling, shared input options), ``processing``
(``process``, ``submit``), ``runtime`` (``worker``, ``serve``, ``scheduler``,
``reconcile``; ``worker_process``: the Celery worker ``worker`` starts), ``pages``
(``align-pages``), ``dead_letters`` (``dead-letters ...``), ``export`` (``export``,
``migrate-store``; what they write comes from ``services.export``); each stage's algorithm
and evaluation commands come from its own ``services/<stage>/cli*.py``. Importing the
package builds the application and nothing else: the environment a worker or the gateway
needs is set by those commands when they run.
"""

from __future__ import annotations

import typer

from services.cli import dead_letters, export, pages, processing, runtime
from services.cli.common import root_app
from services.cli.help import tidy_help
from services.page_match import cli as page_match_cli
from services.paraphrase import cli as paraphrase_cli
from services.sentence_align import cli as sentence_cli
from services.sentence_align import cli_comparable
from services.thesaurus import cli as thesaurus_cli
from services.tree_align import cli as tree_cli

__all__ = ["app", "build_app", "main"]


def build_app() -> typer.Typer:
    """The ``paramine`` application with every command, in the order ``--help`` lists them."""
    app, eval_app, dead_letter_app = root_app()
    app.command()(processing.process)
    runtime.register(app)
    app.command()(processing.submit)
    pages.register(app)
    dead_letters.register(dead_letter_app)
    for module in (
        page_match_cli,
        tree_cli,
        sentence_cli,
        cli_comparable,
        paraphrase_cli,
        thesaurus_cli,
    ):
        module.register(app, eval_app)
    export.register(app)  # export and migrate-store
    return app


app = build_app()


def main() -> None:
    """The ``paramine`` program: the application, its help tidied for a terminal
    (:mod:`services.cli.help`)."""
    tidy_help(typer.main.get_command(app))(prog_name="paramine")
