"""The ``paramine`` command line: one entry point for every mode and algorithm."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
eval_app = typer.Typer(no_args_is_help=True, help="Score aligner output against gold.")
app.add_typer(eval_app, name="eval")


def _register_stage_commands() -> None:
    # Each stage contributes its own algorithm commands from services/<stage>/cli.py.
    from services.paraphrase import cli as paraphrase_cli
    from services.sentence_align import cli as sentence_cli
    from services.sentence_align import cli_comparable
    from services.thesaurus import cli as thesaurus_cli
    from services.tree_align import cli as tree_cli

    for module in (tree_cli, sentence_cli, cli_comparable, paraphrase_cli, thesaurus_cli):
        module.register(app, eval_app)


_register_stage_commands()
