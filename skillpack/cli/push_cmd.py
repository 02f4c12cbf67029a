"""``skillpack push BUNDLE oci://REGISTRY/REPOSITORY[:TAG] [--sign ...]``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.registry_options import (
    DEFAULT_TIMEOUT,
    InsecureOpt,
    PasswordStdinOpt,
    TimeoutOpt,
    UsernameOpt,
    flags,
)
from skillpack.cli.signing_options import with_signing_options
from skillpack.signing.policy import SigningOptions

app = CommandApp()


@app.command(
    "push",
    epilog="Exit status: 0 pushed; 1 a bundle or signature that does not check out; "
    "2 usage, credentials or a registry error (REG codes, docs/registry.md).",
)
@with_signing_options
def push(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="The .skp bundle to push.")],
    reference: Annotated[
        str,
        typer.Argument(
            metavar="REFERENCE",
            help="oci://REGISTRY/REPOSITORY[:TAG] (no tag: pushed untagged).",
        ),
    ],
    sign: Annotated[
        bool,
        typer.Option(
            "--sign",
            help="Sign the bundle first, as 'skillpack sign' does (keylessly, or --key), "
            "and push that signature.",
        ),
    ] = False,
    username: UsernameOpt = None,
    password_stdin: PasswordStdinOpt = False,
    insecure_registry: InsecureOpt = False,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    *,
    signing: SigningOptions,
) -> None:
    """Push a bundle to an OCI registry, its signature attached as a referrer.

    The bundle is verified in full, then pushed as an OCI 1.1 artifact (the same bundle
    always gives the same manifest digest). BUNDLE.sigstore.json, when it exists (or
    the signature --sign makes), is pushed as a referrer of it, before the tag is
    moved. Prints the pushed reference by digest, oci://REGISTRY/REPOSITORY@sha256:...,
    on stdout; what was pushed on stderr. Credentials: --username with
    --password-stdin, SKILLPACK_REGISTRY_USERNAME and SKILLPACK_REGISTRY_PASSWORD, or
    the docker configuration (DOCKER_CONFIG, credential helpers).
    """
    from skillpack.errors import display_path
    from skillpack.fetch.publish import push_file
    from skillpack.signing.errors import unusable

    if (signing.requested or signing.output is not None) and not sign:
        raise unusable(
            "SIG020",
            "--key, --trust-config, --staging and --output are signing options",
            hint="add --sign to sign the bundle before pushing it",
        )
    options = flags(username, password_stdin, insecure_registry, timeout).client_options()
    pushed = push_file(bundle, reference, options, signing=signing if sign else None)
    result = pushed.result
    if sign and pushed.signature is not None:
        print(f"signed: wrote {display_path(pushed.signature)}", file=sys.stderr)
    where = result.reference.with_tag(result.tag) if result.tag else "untagged"
    print(
        f"pushed {pushed.name} {pushed.version} ({result.bundle_size} bytes, "
        f"{result.bundle_digest}) to {where}",
        file=sys.stderr,
    )
    if result.signature_digest is not None and pushed.signature is not None:
        print(
            f"  signature {display_path(pushed.signature)} as referrer {result.signature_digest}",
            file=sys.stderr,
        )
    else:
        print("  unsigned: no signature beside the bundle", file=sys.stderr)
    print(result)
