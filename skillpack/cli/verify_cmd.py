"""``skillpack verify BUNDLE``: every file against the lock, and with signature options,
the signature and every signed claim. BUNDLE may be an ``oci://`` reference: fetched
into the cache (digests checked), then verified the same way, the signature among its
referrers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import FormatOpt
from skillpack.cli.registry_options import (
    DEFAULT_TIMEOUT,
    InsecureOpt,
    OfflineOpt,
    PasswordStdinOpt,
    SourceArg,
    TimeoutOpt,
    UsernameOpt,
    flags,
)
from skillpack.cli.signing_options import with_policy_options
from skillpack.signing.policy import SignaturePolicy

app = CommandApp()

#: what to pass for the signature to be checked, in messages
CHECK_OPTIONS = "give --cert-identity/--repository or --key"


@app.command("verify")
@with_policy_options
def verify(
    source: SourceArg,
    output_format: FormatOpt = "text",
    username: UsernameOpt = None,
    password_stdin: PasswordStdinOpt = False,
    insecure_registry: InsecureOpt = False,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    offline: OfflineOpt = False,
    require_signature: Annotated[
        bool,
        typer.Option(
            "--require-signature",
            help="Fail unless a signature verifies under the given identity or key "
            "(CI: as serve --require-signature).",
        ),
    ] = False,
    *,
    policy: SignaturePolicy,
) -> None:
    """Check every file of a bundle against its lock, and who signed it.

    Who signed it is checked when signature options are given.
    Keyless signatures are checked offline against the trusted root shipped with
    sigstore (or --trust-config FILE; --online refreshes it through TUF), then the
    statement: payload and predicate type, archive sha256, lock digest, every file.
    Exit 1 naming the first check that failed. An oci:// BUNDLE is fetched into the
    cache first (manifest and archive digests checked; registry options as for pull),
    its signature one of its referrers. Without identity or key options the signature
    is not checked, and verify says so; --require-signature makes that a failure.
    """
    from skillpack.cli.oci import is_reference
    from skillpack.cli.output import echo_json, plural
    from skillpack.errors import display_path

    if require_signature and not policy.requested:
        from skillpack.signing.errors import unusable

        raise unusable(
            "SIG020",
            "--require-signature: no signer to check the signature against",
            hint="pass --cert-identity ID --cert-oidc-issuer URL (or --repository "
            "OWNER/REPO for GitHub Actions), or --key PUBLIC_KEY",
        )
    if is_reference(source):
        _verify_pulled(
            source,
            policy,
            flags(username, password_stdin, insecure_registry, timeout),
            offline=offline,
            as_json=output_format == "json",
        )
        return
    bundle = Path(source)

    if require_signature or policy.requested or policy.signature is not None:
        from skillpack.signing.verify import verify_signed_bundle

        signed = verify_signed_bundle(bundle, policy)
        if output_format == "json":
            statement = signed.statement
            echo_json(
                {
                    "bundle": display_path(signed.archive),
                    "name": statement.bundle_name,
                    "version": statement.bundle_version,
                    "archive-digest": statement.archive_digest,
                    "lock-digest": statement.lock_digest,
                    "files": len(statement.files),
                    "signature": _signature_json(signed),
                    "signature-status": "verified",
                }
            )
        else:
            print(signed.summary())
        return
    from skillpack.bundle.verify import verify_bundle
    from skillpack.signing.policy import default_signature_path

    report = verify_bundle(bundle)
    beside = default_signature_path(bundle)
    present = beside.is_file()
    if output_format == "json":
        echo_json(
            {
                "bundle": display_path(report.path),
                "name": report.name,
                "version": report.version,
                "archive-digest": report.archive_digest,
                "lock-digest": report.lock_digest,
                "skills": report.skills,
                "files": report.files,
                "signature": None,
                "signature-status": "not-checked" if present else "absent",
                "signature-file": display_path(beside) if present else None,
            }
        )
        return
    print(
        f"OK {display_path(report.path)}: {report.name} {report.version}, "
        f"{plural(report.skills, 'skill')}, {plural(report.files, 'file')} verified"
    )
    print(f"  archive {report.archive_digest}")
    print(f"  lock    {report.lock_digest}")
    if present:
        print(f"  signature: present ({display_path(beside)}), not checked ({CHECK_OPTIONS})")
    else:
        print("  signature: none")


def _verify_pulled(
    reference: str, policy: SignaturePolicy, registry: Any, *, offline: bool, as_json: bool
) -> None:
    from skillpack.cli.oci import fetch_verified
    from skillpack.cli.output import echo_json, plural

    # without signature options the referrers are fetched best effort, only to say
    # whether the bundle has a signature (as verify says of a file beside a local one)
    pulled = fetch_verified(
        reference, policy, registry.client_options(), offline=offline, signatures=True
    )
    for note in pulled.notes:
        print(f"note: {note}", file=sys.stderr)
    referrers = len(pulled.fetched.signature_paths)
    if as_json:
        unchecked = "not-checked" if referrers else "absent"
        echo_json(
            {
                "bundle": pulled.reference,
                "name": pulled.name,
                "version": pulled.version,
                "archive-digest": pulled.archive_digest,
                "lock-digest": pulled.lock_digest,
                "skills": pulled.skills,
                "files": pulled.files,
                "signature": None if pulled.verified is None else _signature_json(pulled.verified),
                "signature-status": unchecked if pulled.verified is None else "verified",
                "signature-referrers": referrers,
            }
        )
        return
    print(pulled.summary())
    print(f"  archive {pulled.archive_digest}")
    print(f"  lock    {pulled.lock_digest}")
    if pulled.verified is not None:  # a verified one's summary names the signer
        return
    if referrers:
        found = plural(referrers, "signature referrer")
        print(f"  signature: present ({found}), not checked ({CHECK_OPTIONS})")
    else:
        print("  signature: none")


def _signature_json(signed: Any) -> dict[str, Any]:
    from skillpack.errors import display_path

    return {
        "file": display_path(signed.signature),
        "mode": signed.mode,
        "signer": signed.signer,
        "issuer": signed.issuer,
        "signed-at": signed.signed_at.isoformat() if signed.signed_at else None,
    }
