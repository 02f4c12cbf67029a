"""The standard-library argument parser of ``skillpack serve``, in the style of every
other command (which are typer commands, :mod:`skillpack.cli`).

``serve`` stays free of typer so that a host spawning it gets its first answer fast;
its parser still speaks like the rest of ``skillpack``:

* usage errors are :class:`~skillpack.errors.UsageError` values (``USE000``, exit 2,
  ``hint: see 'skillpack serve --help'``), never argparse's own usage dump, worded as
  the typer commands word them (``invalid int value: 'x'``), an unrecognized option
  reported before a missing argument;
* the help reads like typer's: ``Usage: skillpack serve [OPTIONS] SOURCE...``, the
  description and epilog wrapped to the same width (a paragraph whose first line is
  ``\b`` kept as written, as click keeps it), ``Arguments`` and ``Options`` sections,
  sentence-case help, defaults as ``[default: 30.0]``.

The options several commands share, ``serve`` among them, are rows of
:mod:`skillpack._internal.options` tables.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from skillpack._internal.options import sentence
from skillpack.errors import UsageError

HELP = "Show this message and exit."


def _usage_name(action: argparse.Action) -> str:
    name = str(action.metavar or action.dest).upper()
    if action.nargs == "+":
        return f"{name}..."
    if action.nargs == "*":
        return f"[{name}]..."
    if action.nargs == "?":
        return f"[{name}]"
    return name


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help laid out as typer lays out the other commands' help."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        width = min(shutil.get_terminal_size().columns, 80) - 2  # click's width
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
        """Paragraphs (split by blank lines) in the help style, wrapped and indented as
        click does; one whose first line is ``\\b`` kept line by line."""
        import textwrap  # only for --help (serve's start-up)

        paragraphs = []
        for paragraph in text.strip("\n").split("\n\n"):
            lines = paragraph.splitlines()
            if lines and lines[0] == "\b":
                paragraphs.append("\n".join(f"  {line}" for line in lines[1:]))
            else:
                paragraphs.append(
                    textwrap.fill(
                        sentence(" ".join(lines)),
                        self._width,
                        initial_indent="  ",
                        subsequent_indent="  ",
                        break_on_hyphens=False,
                    )
                )
        return "\n\n".join(paragraphs)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        """``--workflow-ref, --ref REF`` (the metavar once, as click writes it)."""
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        metavar = self._format_args(action, self._get_default_metavar_for_optional(action))
        return f"{', '.join(action.option_strings)} {metavar}"

    def _split_lines(self, text: str, width: int) -> list[str]:
        """An option's help wrapped, its spaces kept (the two before ``[default: ...]``)."""
        import textwrap

        return textwrap.wrap(text.strip(), width)

    def start_section(self, heading: str | None) -> None:
        super().start_section(heading[:1].upper() + heading[1:] if heading else heading)

    def _expand_help(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._VersionAction):
            return "Show the version."
        text = sentence(super()._expand_help(action))
        default = getattr(action, "shown_default", action.default)
        if action.option_strings and action.nargs != 0 and default not in (None, [], ()):
            text += f"  [default: {default}]"  # as typer shows it
        return text

    def _metavar_formatter(
        self, action: argparse.Action, default_metavar: str
    ) -> Callable[[int], tuple[str, ...]]:
        if action.metavar is None and action.choices is not None:
            choices = "|".join(str(c) for c in action.choices)
            return lambda size: (f"<{choices}>",) * size
        return super()._metavar_formatter(action, default_metavar)


def show_default(action: argparse.Action, value: object) -> argparse.Action:
    """Show ``value`` in the help as the default of an option whose own default is None
    (the caller applies ``value`` after parsing, and can tell the option was not given)."""
    action.shown_default = value  # type: ignore[attr-defined]
    return action


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are ``USE000`` usage errors and whose help looks
    like the typer commands' help."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs["add_help"] = False
        super().__init__(**kwargs)
        self._positionals.title = "Arguments"
        self._optionals.title = "Options"
        #: positional arguments argparse would report missing before any unrecognized
        #: option; click reports the option first, so they are checked after parsing
        self._required_positionals: list[argparse.Action] = []

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if not action.option_strings and action.required:
            action.required = False
            self._required_positionals.append(action)
        return action

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed = super().parse_args(args, namespace)  # unrecognized arguments first
        missing = [
            str(action.metavar or action.dest)
            for action in self._required_positionals
            if getattr(parsed, action.dest) in (None, [])
        ]
        if missing:
            self.error(f"the following arguments are required: {', '.join(missing)}")
        return parsed

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
