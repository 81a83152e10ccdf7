"""Command-line entry points for monolingual (BAM) and Web-vs-mobile alignment."""

from __future__ import annotations

import typer


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    """Add this module's commands to the root ``paramine`` app."""
