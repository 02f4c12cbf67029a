"""The signature options, declared once for every command that takes them.

``skillpack verify``, ``skillpack serve --require-signature``, ``skillpack sign`` and
``skillpack build --sign`` all read the same :data:`POLICY_OPTIONS` /
:data:`SIGNING_OPTIONS` tables of :class:`~skillpack._internal.options.Option` rows:
the typer commands through :mod:`skillpack.cli.signing_options`, ``serve`` (argparse:
the serve path stays free of typer) through :func:`add_require_signature_arguments` and
:func:`required_policy`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillpack._internal.options import Option, add_option_arguments
from skillpack.signing.policy import SignaturePolicy

if TYPE_CHECKING:  # the typer commands read the tables without argparse
    import argparse

__all__ = [
    "POLICY_OPTIONS",
    "SIGNING_OPTIONS",
    "Option",
    "add_option_arguments",
    "add_policy_arguments",
    "add_require_signature_arguments",
    "policy_from_args",
    "required_policy",
]

_TRUST_CONFIG = "a sigstore ClientTrustConfig JSON (private sigstore instance)"

POLICY_OPTIONS: tuple[Option, ...] = (
    Option("key", ("--key",), "verify a key-mode signature with this public key "
           "(skillpack.pub)", Path, "PUBLIC_KEY"),
    Option("cert_identity", ("--cert-identity",), "the signer identity the certificate must "
           "name (e-mail, or workflow URI for CI)", metavar="ID"),
    Option("cert_oidc_issuer", ("--cert-oidc-issuer",), "the OIDC issuer that must have "
           "vouched for the identity", metavar="URL"),
    Option("repository", ("--repository",), "GitHub Actions: the repository the workflow ran "
           "in (implies the GitHub issuer)", metavar="OWNER/REPO"),
    Option("workflow_ref", ("--workflow-ref", "--ref"), "GitHub Actions: the git ref the "
           "workflow ran for (refs/tags/v1.0.0)", metavar="REF"),
    Option("workflow_name", ("--workflow-name",), "GitHub Actions: the workflow's name",
           metavar="NAME"),
    Option("workflow_trigger", ("--workflow-trigger",), "GitHub Actions: the triggering event "
           "(push, release, ...)", metavar="EVENT"),
    Option("workflow_sha", ("--workflow-sha",), "GitHub Actions: the commit the workflow ran "
           "at", metavar="SHA"),
    Option("trust_config", ("--trust-config",), f"verify against {_TRUST_CONFIG} instead of "
           "sigstore's production root", Path, "FILE"),
    Option("staging", ("--staging",), "verify against sigstore's staging instance", bool),
    Option("online", ("--online",), "refresh sigstore's trusted root through TUF first "
           "(default: offline, the root shipped with sigstore)", bool),
    Option("signature", ("--signature",), "the signature file (default: BUNDLE.sigstore.json)",
           Path, "FILE"),
)  # fmt: skip

SIGNING_OPTIONS: tuple[Option, ...] = (
    Option("key", ("--key",), "sign with this private key (skillpack.key) instead of keylessly",
           Path, "PRIVATE_KEY"),
    Option("identity_token", ("--identity-token",), "the OIDC identity token for keyless "
           "signing (default: the CI's ambient credential, else the browser flow)",
           metavar="TOKEN", envvar="SIGSTORE_IDENTITY_TOKEN"),
    Option("trust_config", ("--trust-config",), f"sign on {_TRUST_CONFIG}", Path, "FILE"),
    Option("staging", ("--staging",), "sign on sigstore's staging instance", bool),
    Option("output", ("--output", "-o"), "where to write the signature (default: "
           "BUNDLE.sigstore.json)", Path, "FILE"),
)  # fmt: skip


def add_policy_arguments(parser: argparse.ArgumentParser | Any) -> None:
    """Add the verification options to an argparse parser (or argument group)."""
    add_option_arguments(parser, POLICY_OPTIONS)


def policy_from_args(args: argparse.Namespace) -> SignaturePolicy:
    """The :class:`SignaturePolicy` from arguments added by :func:`add_policy_arguments`."""
    return SignaturePolicy(**{o.field: getattr(args, o.field) for o in POLICY_OPTIONS})


def add_require_signature_arguments(parser: argparse.ArgumentParser) -> None:
    """``serve``'s ``--require-signature`` flag and the verification options, as one
    argparse group (the serve path stays free of typer and sigstore)."""
    group = parser.add_argument_group(
        "signature", "refuse to serve a bundle without a valid signature"
    )
    group.add_argument(
        "--require-signature",
        action="store_true",
        help="verify BUNDLE.sigstore.json before serving; exit non-zero if it is missing or bad",
    )
    add_policy_arguments(group)


def required_policy(args: argparse.Namespace) -> SignaturePolicy | None:
    """The policy ``serve`` must enforce, or None without ``--require-signature``.

    Signature options without ``--require-signature`` are an error (SIG020): silently
    serving an unchecked bundle to someone who asked for a signer would be worse."""
    from skillpack.signing.errors import unusable

    policy = policy_from_args(args)
    if not getattr(args, "require_signature", False):
        if policy.requested or policy.signature is not None:
            raise unusable(
                "SIG020", "signature options given without --require-signature",
                hint="add --require-signature to check the bundle's signature before serving",
            )  # fmt: skip
        return None
    return policy.validate()
