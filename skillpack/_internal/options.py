"""The options several commands share, declared once: :class:`Option` rows in a table
(the signature options, :mod:`skillpack.signing.options`; the registry options,
:mod:`skillpack._internal.registry_flags`), read by ``serve``'s argparse parser
(:func:`add_option_arguments`, :mod:`skillpack._internal.cliparse`) and by the typer
commands (:func:`skillpack.cli.options.typer_option`): the same flags, help (in the one
style, :func:`sentence`), metavar, default and check wherever an option appears.

No argparse or typer here: ``skillpack lint`` (typer) imports this module, ``serve``
(argparse) too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from argparse import ArgumentParser

T = TypeVar("T")

#: the keys that name a signer in ``[[install]]`` tables and policy ``[[source]]``
#: rules, and the ``SignaturePolicy`` fields they set (the verify options, as keys)
SIGNER_KEYS = {
    "key": "key",
    "cert-identity": "cert_identity",
    "cert-oidc-issuer": "cert_oidc_issuer",
    "repository": "repository",
    "workflow-ref": "workflow_ref",
    "workflow-name": "workflow_name",
    "workflow-trigger": "workflow_trigger",
    "workflow-sha": "workflow_sha",
    "trust-config": "trust_config",
    "staging": "staging",
}

#: ``--accept SKILL:CODE`` of install, pull and serve (repeatable)
ACCEPT_FLAG = "--accept"
ACCEPT_HELP = (
    "let in a content-scan finding after review: the rule CODE (SP5xx) for the skill SKILL "
    "(its name or skill path); repeatable"
)
#: ``--policy FILE`` of install, pull and serve
POLICY_FLAG = "--policy"
POLICY_HELP = (
    "the consumer's policy file in place of the user's (SKILLPACK_POLICY, "
    "~/.config/skillpack/policy.toml); every skillpack-policy.toml from the working "
    "directory up to the repository's root still applies (docs/policy.md)"
)


@dataclass(frozen=True)
class Option:
    """An option several commands take, declared once for typer and argparse."""

    field: str  #: the parameter's (and the namespace's) name
    flags: tuple[str, ...]
    help: str
    kind: type = str  #: str, Path, int, float or bool (a flag)
    metavar: str | None = None
    envvar: str | None = None  #: the value's default comes from this variable
    default: Any = None
    #: raises ValueError (its message is the usage error's) for a value out of range
    check: Callable[[Any], None] | None = None


def add_option_arguments(
    parser: ArgumentParser | Any, options: Sequence[Option], skip: Sequence[str] = ()
) -> None:
    """Add ``options`` (but not the fields in ``skip``) to an argparse parser (or argument
    group); an option with an ``envvar`` defaults to that variable, as in typer."""
    import os

    for option in options:
        if option.field in skip:
            continue
        if option.kind is bool:
            parser.add_argument(*option.flags, dest=option.field, action="store_true",
                                help=option.help)  # fmt: skip
            continue
        convert = converter(option.kind, option.check)
        default = os.environ.get(option.envvar) if option.envvar else None
        parser.add_argument(*option.flags, dest=option.field, type=convert,
                            metavar=option.metavar, help=option.help,
                            default=convert(default) if default else option.default)  # fmt: skip


# --- values ------------------------------------------------------------------------------
def converter(
    kind: Callable[[str], T], check: Callable[[T], None] | None = None
) -> Callable[[str], T]:
    """An argparse ``type``: ``kind`` of the text, refused as the typer commands refuse it
    (``invalid int value: 'x'``), then ``check``ed (its ValueError's message)."""

    def convert(text: str) -> T:
        try:
            value = kind(text)
        except ValueError:
            import argparse

            name = getattr(kind, "__name__", "")
            raise argparse.ArgumentTypeError(f"invalid {name} value: {text!r}") from None
        if check is not None:
            try:
                check(value)
            except ValueError as exc:
                import argparse

                raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    return convert


def at_least(minimum: int) -> Callable[[int], None]:
    """A check: ``minimum`` or more."""

    def check(value: int) -> None:
        if value < minimum:
            raise ValueError(f"must be {minimum} or more")

    return check


def positive_seconds(value: float) -> None:
    """A check: a positive, finite number of seconds."""
    if not 0 < value < math.inf:
        raise ValueError("must be a positive number of seconds")


def sentence(text: str) -> str:
    """Help text as every command writes it: a capital first letter, a final period."""
    text = text.strip()
    if not text:
        return text
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower():  # not an identifier such as ttlMs
        text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")", ":")) else text + "."
