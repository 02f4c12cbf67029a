"""The DSSE pieces both signing modes share: the pre-authentication encoding and the
certificate-free view of a Sigstore bundle file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillpack.errors import display_path
from skillpack.signing.errors import SignatureError, failed

BUNDLE_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json"


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: what the signature covers."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


@dataclass(frozen=True)
class SignatureFile:
    """A ``.sigstore.json`` file, read but not yet verified."""

    path: Path
    data: bytes
    document: dict[str, Any]

    @property
    def where(self) -> str:
        return display_path(self.path)

    @property
    def is_key_mode(self) -> bool:
        """True for a key-mode bundle (``verificationMaterial.publicKey``)."""
        material = self.document.get("verificationMaterial")
        return isinstance(material, dict) and "publicKey" in material

    @property
    def is_keyless(self) -> bool:
        """True for a bundle carrying a certificate (``verificationMaterial.certificate``
        or ``x509CertificateChain``): a keyless signature."""
        material = self.document.get("verificationMaterial")
        return isinstance(material, dict) and any(
            key in material for key in ("certificate", "x509CertificateChain")
        )


#: a Sigstore bundle is a few kilobytes; a file far larger is not one
MAX_SIGNATURE_BYTES = 1 << 20


def read_signature_file(path: Path) -> SignatureFile:
    where = display_path(path)
    try:
        with Path(path).open("rb") as stream:
            data = stream.read(MAX_SIGNATURE_BYTES + 1)
    except FileNotFoundError:
        raise failed(
            "SIG001",
            "signature file not found",
            where,
            hint="sign the bundle with 'skillpack sign', or pass --signature FILE",
        ) from None
    except OSError as exc:
        raise failed("SIG001", f"cannot read signature file: {exc.strerror}", where) from None
    if len(data) > MAX_SIGNATURE_BYTES:
        raise failed(
            "SIG002",
            f"signature file is larger than {MAX_SIGNATURE_BYTES >> 20} MiB: not a Sigstore bundle",
            where,
        )
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise failed("SIG002", f"signature file is not JSON: {exc}", where) from None
    except RecursionError:
        raise failed(
            "SIG002", "signature file is not a Sigstore bundle (JSON nested too deeply)", where
        ) from None
    if not isinstance(document, dict):
        raise failed("SIG002", "signature file is not a Sigstore bundle (not an object)", where)
    return SignatureFile(Path(path), data, document)


def not_a_bundle(where: str, details: list[str]) -> SignatureError:
    """SIG002: the file parsed as JSON but is not a Sigstore bundle we can use."""
    return failed("SIG002", "signature file is not a valid Sigstore bundle", where, details=details)
