"""The help ``paramine --help`` prints, as a terminal user reads it: placeholders in capitals
(``INPUTS...``, ``PATH``, ``TEXT``) where typer writes ``{inputs}`` and ``<list[Path]>``, no type
beside a flag (typer printed ``<bool>`` for each), and an unknown option's suggestion only when
it is close to one that exists.

:func:`tidy_help` walks the click commands typer builds from the application and sets each
parameter's metavar; the docstrings themselves are rendered as Markdown (the root application's
``rich_markup_mode``), so RST-style ````paramine```` shows as code and paragraphs reflow.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

import typer

# Typer's commands and parameters are those of the click it vendors (not the click package):
# they are read by their attributes here. Its usage errors (an unknown option among them).
UsageError: type[Exception] = typer.BadParameter.__mro__[1]
# placeholders by the parameter's annotated type
_PLACEHOLDERS = {"int": "INTEGER", "float": "NUMBER", "str": "TEXT", "Path": "PATH"}
# how close an unknown option must be to a real one to be suggested (difflib's ratio)
SUGGESTION_CUTOFF = 0.8


def commands(command: Any) -> Iterator[Any]:
    """A command and every command under it."""
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from commands(sub)


def tidy_help(root: Any) -> Any:
    """Set the metavars of every parameter under ``root`` (see the module docstring)."""
    for command in commands(root):
        _tidy_help_option(command)
        for param in command.params:
            if param.param_type_name == "argument":
                _tidy_argument(param)
            elif param.param_type_name == "option" and param.metavar is None:
                param.metavar = "" if getattr(param, "is_flag", False) else placeholder(param)
    return root


def placeholder(param: Any) -> str:
    """``[a|b|c]`` for a choice, ``PATH``, ``TEXT``, ``INTEGER``, ``NUMBER`` for the rest."""
    described = param.type_descriptor
    if described.is_choice:
        values = (getattr(choice, "value", choice) for choice in described.choices or ())
        listed = "[" + "|".join(str(value) for value in values) + "]"
        return listed if len(listed) <= 24 else "CHOICE"  # the help text names them
    if described.is_path:
        return "PATH"
    bare = str(param.bare_type())
    return _PLACEHOLDERS.get(bare, bare.upper())


def _tidy_help_option(command: Any) -> None:
    """``--help`` is made as the help is shown: its flag's type left out too."""
    made = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            option.metavar = ""
        return option

    command.get_help_option = help_option


def _tidy_argument(param: Any) -> None:
    name = (param.metavar or param.name or "ARG").upper() + ("..." if param.nargs != 1 else "")
    param.metavar = name
    usage = name if param.required else f"[{name}]"

    def usage_pieces(ctx: Any) -> list[str]:
        return [usage]

    param.get_usage_pieces = usage_pieces
    param.display_type_rich = lambda ctx: None  # the placeholder says it: no <list[Path]>


def close_suggestions(error: Exception) -> Exception:
    """An unknown option's error with only the suggestions close to what was typed
    (``--versio``: ``--version``; click's looser cutoff suggested unrelated options)."""
    name, possibilities = getattr(error, "option_name", None), getattr(error, "possibilities", None)
    if name and possibilities:
        close = difflib.get_close_matches(name, list(possibilities), n=3, cutoff=SUGGESTION_CUTOFF)
        error.possibilities = close  # type: ignore[attr-defined]
    return error


def options(root: Any) -> Iterator[tuple[str, Any]]:
    """(command name, option) of every option under ``root``, for the help tests."""
    for command in commands(root):
        for param in command.params:
            if param.param_type_name == "option":
                yield command.name or "", param
