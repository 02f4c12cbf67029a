"""``skillpack pull oci://...(:TAG|@sha256:...) [-o FILE] [signature options]``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import AcceptOpt, PolicyOpt
from skillpack.cli.registry_options import (
    DEFAULT_TIMEOUT,
    InsecureOpt,
    OfflineOpt,
    PasswordStdinOpt,
    TimeoutOpt,
    UsernameOpt,
    flags,
)
from skillpack.cli.signing_options import with_policy_options
from skillpack.signing.policy import SignaturePolicy

app = CommandApp()


@app.command(
    "pull",
    epilog="Exit status: 0 pulled, verified and written; 1 a digest, the bundle or its "
    "signature does not check out, or writing the file fails (nothing is written); "
    "2 usage, credentials or a registry error, or a path that cannot be a file.",
)
@with_policy_options
def pull(
    reference: Annotated[
        str,
        typer.Argument(
            metavar="REFERENCE", help="oci://REGISTRY/REPOSITORY:TAG or ...@sha256:DIGEST."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Where to write the bundle (default: NAME-VERSION.skp here; - for stdout).",
            show_default=False,
        ),
    ] = None,
    username: UsernameOpt = None,
    password_stdin: PasswordStdinOpt = False,
    insecure_registry: InsecureOpt = False,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    offline: OfflineOpt = False,
    accept: AcceptOpt = None,
    policy_file: PolicyOpt = None,
    *,
    policy: SignaturePolicy,
) -> None:
    """Fetch a bundle from an OCI registry, verify it, and only then write it.

    The manifest is checked against the digest asked for (and the registry's
    Docker-Content-Digest), the archive against the manifest, then the whole bundle as
    'skillpack verify' does, and the content scan runs over every file (an error it
    finds refuses, ADM001, unless --accept SKILL:CODE). With signature options (the
    same as verify's), its signature referrers are fetched and one must verify: none is
    SIG001. Then FILE and FILE.sigstore.json (the verified signature; without options,
    the first one) are written atomically (with -o -, the bundle goes to stdout and no
    signature is written). Fetched content is kept in the cache (SKILLPACK_CACHE_DIR,
    else ~/.cache/skillpack/oci): a digest pulled once needs no network again.
    """
    from skillpack._internal.fsutil import Output
    from skillpack.errors import display_path
    from skillpack.fetch import fetch_verified
    from skillpack.fetch.pulled import default_output, write_pulled
    from skillpack.policy.admission import parse_accepts
    from skillpack.policy.file import load_policy, signature_policy
    from skillpack.registry.reference import parse_reference

    admission = load_policy(policy_file, Path.cwd(), os.environ)
    admission = admission.with_accepts(parse_accepts(accept))
    named = str(parse_reference(reference))
    admission.check_source(named)
    policy = signature_policy(admission, named, policy) or policy
    if output is not None:
        Output(output, what="the pulled bundle")  # a path that cannot be written: refused now
    options = flags(username, password_stdin, insecure_registry, timeout).client_options()
    with fetch_verified(
        reference,
        options=options,
        policy=policy,
        offline=offline,
        signatures=True,
        admission=admission,
    ) as pulled:
        target = output if output is not None else default_output(pulled)
        written = write_pulled(pulled, target)
    if pulled.stale:
        print("note: the cached copy had changed since it was fetched: fetched again",
              file=sys.stderr)  # fmt: skip
    for note in pulled.notes:
        print(f"note: {note}", file=sys.stderr)
    for line in pulled.scanned:
        print(f"scan: {line}", file=sys.stderr)
    # with -o -, stdout carries the bundle: what was done goes to stderr
    report = sys.stderr if str(target) == "-" else sys.stdout
    source = "from the cache" if pulled.fetch.from_cache else "from the registry"
    print(f"pulled {pulled.reference} ({source})", file=report)
    print(pulled.summary(), file=report)
    for path in written.written:
        print(f"wrote {'stdout' if str(path) == '-' else display_path(path)}", file=report)
    if written.removed is not None:
        print(
            f"removed {display_path(written.removed)}: not a signature of this bundle "
            "(pulled without one)",
            file=report,
        )
