"""The signature options of verify, sign and build, generated from the tables in
:mod:`skillpack.signing.options` (which ``serve`` reads through argparse): a command
decorated with :func:`with_policy_options` or :func:`with_signing_options` receives
one ``policy`` or ``signing`` value."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from skillpack.cli.options import typer_option
from skillpack.signing.options import POLICY_OPTIONS, SIGNING_OPTIONS, Option
from skillpack.signing.policy import SignaturePolicy, SigningOptions

F = TypeVar("F", bound=Callable[..., Any])


def _typer_parameter(option: Option) -> inspect.Parameter:
    annotation: Any = bool if option.kind is bool else option.kind | None
    return inspect.Parameter(
        option.field,
        inspect.Parameter.KEYWORD_ONLY,
        default=False if option.kind is bool else option.default,
        annotation=Annotated[annotation, typer_option(option)],
    )


def _with_options(
    options: tuple[Option, ...], argument: str, build: Callable[[Mapping[str, Any]], Any]
) -> Callable[[F], F]:
    """Add ``options`` to a typer command; the command gets ``argument=build(values)``.
    An option whose field the command already has as a parameter is left out (the
    command's own parameter keeps its meaning, the value gets the field's default)."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command, eval_str=True)
        params = [p for p in signature.parameters.values() if p.name != argument]
        taken = {p.name for p in params}
        added = [o for o in options if o.field not in taken]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {o.field: kwargs.pop(o.field) for o in added if o.field in kwargs}
            return command(*args, **kwargs, **{argument: build(values)})

        extra = [_typer_parameter(o) for o in added]
        wrapper.__signature__ = signature.replace(parameters=[*params, *extra])  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def with_policy_options(command: F) -> F:
    """Give a typer command the verification options as one ``policy: SignaturePolicy``."""
    return _with_options(POLICY_OPTIONS, "policy", lambda v: SignaturePolicy(**v))(command)


def with_signing_options(command: F) -> F:
    """Give a typer command the signing options as one ``signing: SigningOptions``."""
    return _with_options(SIGNING_OPTIONS, "signing", lambda v: SigningOptions(**v))(command)
