"""``skillpack verify BUNDLE``: every file against the lock, and with signature options,
the signature and every signed claim. BUNDLE may be an ``oci://`` reference: fetched
into the cache (digests checked), then verified the same way, the signature among its
referrers."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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

if TYPE_CHECKING:
    from skillpack.signing.verify import VerifiedBundle

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
    from skillpack.fetch import is_reference

    if require_signature:
        policy.validate()  # no signer given: SIG020, worded as serve's
    if is_reference(source):
        report = _verify_pulled(
            source,
            policy,
            flags(username, password_stdin, insecure_registry, timeout),
            offline=offline,
        )
    else:
        report = _verify_file(Path(source), policy, checked=require_signature)
    _print(report, output_format == "json")


@dataclass(frozen=True)
class _Report:
    """What verify found, one shape for a file and an ``oci://`` bundle, signed or not."""

    where: str  #: the path, or the reference by digest
    name: str
    version: str
    skills: int
    files: int
    archive_digest: str
    lock_digest: str
    verified: VerifiedBundle | None  #: the signature checked
    signature_file: Path | None = None  #: beside a file, not checked
    referrers: int | None = None  #: an oci:// bundle's signature referrers


def _verify_file(bundle: Path, policy: SignaturePolicy, *, checked: bool) -> _Report:
    from skillpack.errors import display_path
    from skillpack.fetch.verified import checks
    from skillpack.signing.policy import default_signature_path

    if checked or checks(policy):
        from skillpack.bundle.reader import open_bundle
        from skillpack.signing.verify import verify_signed_bundle

        signed = verify_signed_bundle(bundle, policy)  # the archive's bytes first: SIG010
        statement = signed.statement
        with open_bundle(bundle, mode="fast") as opened:  # the skills: verified by now
            skills = len(opened.manifest.skills)
        return _Report(
            display_path(bundle),
            statement.bundle_name,
            statement.bundle_version,
            skills,
            len(statement.files),
            statement.archive_digest,
            statement.lock_digest,
            signed,
        )
    from skillpack.bundle.verify import verify_bundle

    found = verify_bundle(bundle)
    beside = default_signature_path(bundle)
    return _Report(
        display_path(found.path),
        found.name,
        found.version,
        found.skills,
        found.files,
        found.archive_digest,
        found.lock_digest,
        None,
        beside if beside.is_file() else None,
    )


def _verify_pulled(
    reference: str, policy: SignaturePolicy, registry: Any, *, offline: bool
) -> _Report:
    from skillpack.fetch import fetch_verified

    # without signature options the referrers are fetched best effort, only to say
    # whether the bundle has a signature (as verify says of a file beside a local one)
    with fetch_verified(
        reference,
        options=registry.client_options(),
        policy=policy,
        offline=offline,
        signatures=True,
    ) as pulled:
        for note in pulled.notes:
            print(f"note: {note}", file=sys.stderr)
        assert pulled.archive_digest is not None  # a full open
        return _Report(
            pulled.reference,
            pulled.name,
            pulled.version,
            pulled.skills,
            pulled.files,
            pulled.archive_digest,
            pulled.lock_digest,
            pulled.verified,
            referrers=len(pulled.fetch.signature_paths),
        )


def _print(report: _Report, as_json: bool) -> None:
    from skillpack.cli.output import echo_json, plural
    from skillpack.errors import display_path
    from skillpack.fetch import signer_line

    present = report.signature_file is not None or bool(report.referrers)
    status = "verified" if report.verified else "not-checked" if present else "absent"
    if as_json:
        echo_json(
            {
                "bundle": report.where,
                "name": report.name,
                "version": report.version,
                "archive-digest": report.archive_digest,
                "lock-digest": report.lock_digest,
                "skills": report.skills,
                "files": report.files,
                "signature": None if report.verified is None else _signature_json(report.verified),
                "signature-status": status,
                "signature-file": (
                    display_path(report.signature_file) if report.signature_file else None
                ),
                "signature-referrers": report.referrers,
            }
        )
        return
    print(
        f"OK {report.where}: {report.name} {report.version}, "
        f"{plural(report.skills, 'skill')}, {plural(report.files, 'file')} verified"
    )
    print(f"  archive {report.archive_digest}")
    print(f"  lock    {report.lock_digest}")
    if report.verified is not None:
        print(f"  signature: verified, {signer_line(report.verified)}")
    elif report.signature_file is not None:
        shown = display_path(report.signature_file)
        print(f"  signature: present ({shown}), not checked ({CHECK_OPTIONS})")
    elif report.referrers:
        found = plural(report.referrers, "signature referrer")
        print(f"  signature: present ({found}), not checked ({CHECK_OPTIONS})")
    else:
        print("  signature: none")


def _signature_json(signed: VerifiedBundle) -> dict[str, Any]:
    from skillpack.errors import display_path

    return {
        "file": display_path(signed.signature),
        "mode": signed.mode,
        "signer": signed.signer,
        "issuer": signed.issuer,
        "signed-at": signed.signed_at.isoformat() if signed.signed_at else None,
    }
