"""The standard-library argument parser of ``skillpack serve``, in the style of every
other command (which are typer commands, :mod:`skillpack.cli`).

``serve`` stays free of typer so that a host spawning it gets its first answer fast;
its parser still speaks like the rest of ``skillpack``:

* usage errors are :class:`~skillpack.errors.UsageError` values (``USE000``, exit 2,
  ``hint: see 'skillpack serve --help'``), never argparse's own usage dump;
* the help reads like typer's: ``Usage: skillpack serve [OPTIONS] SOURCE...``, the
  description indented, ``Arguments`` and ``Options`` sections, sentence-case help.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from skillpack.errors import UsageError

HELP = "Show this message and exit."


def sentence(text: str) -> str:
    """Help text as every command writes it: a capital first letter, a final period."""
    text = text.strip()
    if not text:
        return text
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower():  # not an identifier such as ttlMs
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")", ":")) else text + "."


def _usage_name(action: argparse.Action) -> str:
    name = str(action.metavar or action.dest).upper()
    if action.nargs == "+":
        return f"{name}..."
    if action.nargs == "*":
        return f"[{name}]..."
    if action.nargs == "?":
        return f"[{name}]"
    return name


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help laid out as typer lays out the other commands' help."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        width = min(shutil.get_terminal_size().columns, 80) - 2
        super().__init__(prog, max_help_position=32, width=width, **kwargs)

    def _format_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[Any],
        prefix: str | None,
    ) -> str:
        positionals = [_usage_name(a) for a in actions if not a.option_strings]
        return f"Usage: {self._prog} [OPTIONS] {' '.join(positionals)}".rstrip() + "\n\n"

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(f"  {line}" if line else "" for line in text.splitlines())

    def start_section(self, heading: str | None) -> None:
        super().start_section(heading[:1].upper() + heading[1:] if heading else heading)

    def _expand_help(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._VersionAction):
            return "Show the version."
        return sentence(super()._expand_help(action))

    def _metavar_formatter(
        self, action: argparse.Action, default_metavar: str
    ) -> Callable[[int], tuple[str, ...]]:
        if action.metavar is None and action.choices is not None:
            choices = "|".join(str(c) for c in action.choices)
            return lambda size: (f"<{choices}>",) * size
        return super()._metavar_formatter(action, default_metavar)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are ``USE000`` usage errors and whose help looks
    like the typer commands' help."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs["add_help"] = False
        super().__init__(**kwargs)
        self._positionals.title = "Arguments"
        self._optionals.title = "Options"

    def _add_help(self) -> None:
        """``-h/--help``, last of the options (as typer places it)."""
        if not any(isinstance(a, argparse._HelpAction) for a in self._actions):
            self.add_argument("-h", "--help", action="help", help=HELP)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._add_help()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._add_help()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        raise UsageError("USE000", message, hint=f"see '{self.prog} --help'")
