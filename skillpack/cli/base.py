"""What every typer command shares: its app, its command class, its usage errors.

A command module holds one ``app = CommandApp()`` and one ``@app.command(NAME)``
function; :mod:`skillpack.cli.app` imports the module only when NAME is invoked.

typer (as installed) coerces every parameter value through a pydantic ``TypeAdapter``,
the ``--help`` flag included: importing pydantic and building the adapters costs about
0.1 s per run, most of a pre-commit hook's time. :class:`Command` and :class:`Group`
give the parameters skillpack uses (``str``, ``int``, ``float``, ``bool``, ``Path``,
lists of them and ``Literal`` choices, without typer's path checks) a plain coercion
with the same results before typer asks for one; any other parameter keeps typer's.

Usage errors (an unknown option, a missing argument, a bad choice) are
:class:`~skillpack.errors.UsageError` values (``USE000``, exit 2) worded as argparse
words them, so that ``skillpack serve`` (argparse, no typer) reads the same.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import typer
from typer import _click as click
from typer._click import exceptions as click_errors
from typer.core import TyperCommand, TyperGroup

from skillpack.errors import EXIT_INTERRUPTED, UsageError

#: every command's help options and settings
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


class CommandApp(typer.Typer):
    """The typer app of one command module: plain help, no completion, no rich, and
    :class:`Command` as the command class."""

    def __init__(self) -> None:
        super().__init__(
            add_completion=False,
            pretty_exceptions_enable=False,
            rich_markup_mode=None,
            context_settings=CONTEXT_SETTINGS,
        )

    def command(self, name: str | None = None, **settings: Any) -> Callable[[Any], Any]:
        settings.setdefault("cls", Command)
        return super().command(name, **settings)


# --- coercion without pydantic ----------------------------------------------------------
class _Plain:
    """Coerces one parameter's value like typer's adapter does, for plain types."""

    def __init__(self, convert: Callable[[Any], Any]) -> None:
        self.convert = convert

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:
            return () if multi else None
        if multi:
            if isinstance(value, str):
                raise click_errors.BadParameter("Value must be an iterable.", ctx, param)
            return [self._one(item, param, ctx) for item in value]
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            return self.convert(value)
        except ValueError as exc:
            raise click_errors.BadParameter(str(exc), ctx, param) from None


_TRUE = ("1", "true", "t", "yes", "y", "on")
_FALSE = ("0", "false", "f", "no", "n", "off", "")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ValueError(f"invalid bool value: {value!r}")


def _number(kind: type[int] | type[float]) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if isinstance(value, kind) and not isinstance(value, bool):
            return value
        try:
            return kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"invalid {kind.__name__} value: {value!r}") from None

    return convert


def _choice(choices: Sequence[str]) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if value in choices:
            return value
        shown = ", ".join(repr(c) for c in choices)
        raise ValueError(f"invalid choice: {value!r} (choose from {shown})")

    return convert


def _converter(annotation: Any) -> Callable[[Any], Any] | None:
    if annotation is str:
        return str
    if annotation is bool:
        return _to_bool
    if annotation in (int, float):
        return _number(annotation)
    if isinstance(annotation, type) and issubclass(annotation, Path):
        return lambda value: value if isinstance(value, annotation) else annotation(value)
    if get_origin(annotation) is Literal and all(isinstance(a, str) for a in get_args(annotation)):
        return _choice(get_args(annotation))
    return None


def _plain_coercion(param: click.Parameter) -> _Plain | None:
    """A plain coercion for ``param``, or None to leave it to typer."""
    descriptor = getattr(param, "type_descriptor", None)
    info = getattr(descriptor, "parameter_info", None)
    if descriptor is None or info is None or descriptor.file_annotation is not None:
        return None
    constrained = (
        info.parser is not None
        or info.min is not None
        or info.max is not None
        or info.exists
        or not info.file_okay
        or not info.dir_okay
        or info.writable
        or info.readable is False
        or info.resolve_path
        or info.allow_dash
        or info.path_type is not None
        or not info.case_sensitive
    )
    if constrained:
        return None
    annotation = descriptor.annotation
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation) or (None,)
    convert = _converter(annotation)
    if convert is not None and getattr(param, "metavar", None) == "FILE":
        convert = _a_file(convert)
    return _Plain(convert) if convert is not None else None


def _a_file(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A FILE option's value: a path ending in '/' names a directory, which a file option
    never writes to (``Path`` would drop the '/': ``-o dist/`` would write a file
    ``dist``, or replace the file there)."""

    def check(value: Any) -> Any:
        if isinstance(value, str) and len(value) > 1 and value.endswith(("/", os.sep)):
            raise ValueError(f"{value!r} ends with '/': it names a directory, not a FILE")
        return convert(value)

    return check


def _install_plain_coercion(params: list[click.Parameter]) -> list[click.Parameter]:
    for param in params:
        if getattr(param, "_runtime_param", False) is None:  # typer has not built one yet
            plain = _plain_coercion(param)
            if plain is not None:
                param._runtime_param = plain  # type: ignore[attr-defined]
    return params


class Command(TyperCommand):
    """A typer command whose plain parameters are coerced without pydantic, and whose
    help names arguments as argparse does (``BUNDLE``, ``[PATH]...``), like ``serve``'s."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return _install_plain_coercion(super().get_params(ctx))

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with _named_context(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # Ctrl-C: say so, exit 130 (not a traceback, not silence)
            print("interrupted", file=sys.stderr)
            raise typer.Exit(EXIT_INTERRUPTED) from None

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
                if param.nargs != 1:
                    pieces[-1] += "..."
        return pieces

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            if getattr(param, "hidden", False):
                continue
            if param.param_type_name == "argument":
                arguments.append((_argument_name(param), getattr(param, "help", None) or ""))
            else:
                record = param.get_help_record(ctx)
                if record is not None:
                    options.append(record)
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        if options:
            with formatter.section("Options"):
                formatter.write_dl(options)


def _argument_name(param: click.Parameter) -> str:
    return str(param.metavar or (param.name or "ARGUMENT").upper())


class Group(TyperGroup):
    """A typer group whose plain parameters are coerced without pydantic."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return _install_plain_coercion(super().get_params(ctx))

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with _named_context(ctx):
            return super().parse_args(ctx, args)


@contextlib.contextmanager
def _named_context(ctx: click.Context) -> Iterator[None]:
    """Usage errors of the option parser carry no context: give them the command's, so
    that their hint names the right ``--help``."""
    try:
        yield
    except click_errors.UsageError as exc:
        if exc.ctx is None:
            exc.ctx = ctx
        raise


# --- usage errors -----------------------------------------------------------------------
def _param_name(param: Any) -> str:
    if getattr(param, "param_type_name", "") == "option":
        return "/".join(sorted(param.opts, key=len))
    return str(param.metavar or param.name or "ARGUMENT").upper()


def usage_error(exc: click_errors.ClickException) -> UsageError:
    """A click/typer usage error as skillpack's ``USE000``, worded as argparse does."""
    ctx = getattr(exc, "ctx", None)
    command = ctx.command_path if ctx is not None else "skillpack"
    hint = f"see '{command} --help'"
    message = exc.format_message()
    if isinstance(exc, click_errors.NoSuchOption):
        message = f"unrecognized arguments: {exc.option_name}"
        if exc.possibilities:
            hint = f"did you mean {' or '.join(sorted(exc.possibilities))}? {hint}"
    elif isinstance(exc, click_errors.MissingParameter) and exc.param is not None:
        message = f"the following arguments are required: {_param_name(exc.param)}"
    elif isinstance(exc, click_errors.BadParameter) and exc.param is not None:
        message = f"argument {_param_name(exc.param)}: {exc.message}"
    elif isinstance(exc, click_errors.BadOptionUsage):
        if "requires an argument" in exc.message:
            message = f"argument {exc.option_name}: expected one argument"
        else:
            message = f"argument {exc.option_name}: {exc.message}"
    elif message.startswith("Got unexpected extra argument"):
        extra = message.partition("(")[2].rpartition(")")[0]
        message = f"unrecognized arguments: {extra}"
    elif message == "Missing command.":
        message = "no command given"
        hint = f"run '{command} --help' to list the commands"
    return UsageError("USE000", message, hint=hint)
