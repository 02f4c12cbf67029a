"""Key mode, for air-gapped users: a local EC key signs the same DSSE statement.

``skillpack keygen`` writes ``skillpack.key`` (PEM PKCS#8, mode 0600; encrypted when
``SKILLPACK_KEY_PASSWORD`` is set) and ``skillpack.pub`` (PEM SubjectPublicKeyInfo).
A key-mode signature is a Sigstore bundle v0.3 whose verification material is
``{"publicKey": {"hint": <hex sha256 of the PEM public key>}, "tlogEntries": []}`` --
the shape OpenSSF model-signing writes for keys -- around a DSSE envelope, verified
here with ``cryptography`` (sigstore-python cannot verify public-key bundles).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from skillpack._internal.fsutil import Output
from skillpack.errors import display_path
from skillpack.signing.dsse import BUNDLE_MEDIA_TYPE, SignatureFile, not_a_bundle, pae
from skillpack.signing.errors import failed, unusable
from skillpack.signing.statement import PAYLOAD_TYPE, BundleStatement

PRIVATE_KEY_NAME = "skillpack.key"
PUBLIC_KEY_NAME = "skillpack.pub"
PASSWORD_ENV = "SKILLPACK_KEY_PASSWORD"

_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "secp256r1": hashes.SHA256,
    "secp384r1": hashes.SHA384,
    "secp521r1": hashes.SHA512,
}


def _password() -> bytes | None:
    value = os.environ.get(PASSWORD_ENV)
    return value.encode() if value else None


def _hash_for(key: ec.EllipticCurvePublicKey) -> hashes.HashAlgorithm:
    return _HASHES[key.curve.name]()


def key_hint(key: ec.EllipticCurvePublicKey) -> str:
    """The public-key hint in a key-mode bundle: hex sha256 of the PEM SPKI."""
    pem = key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(pem).hexdigest()


def generate_keypair(out_dir: Path) -> tuple[Path, Path]:
    """Write a new P-256 key pair into ``out_dir``; never overwrite either file."""
    key_path, pub_path = Path(out_dir) / PRIVATE_KEY_NAME, Path(out_dir) / PUBLIC_KEY_NAME
    for path in (key_path, pub_path):
        if path.exists():
            raise unusable(
                "SIG033",
                "refusing to overwrite an existing key file",
                display_path(path),
                hint="move it away first, or pass --out-dir DIR",
            )
    key = ec.generate_private_key(ec.SECP256R1())
    password = _password()
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password)
        if password
        else serialization.NoEncryption()
    )
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    key_file = Output(key_path, what="the private key", mode=0o600, exclusive=True)
    pub_file = Output(pub_path, what="the public key", mode=0o644, exclusive=True)
    try:
        key_file.stage_bytes(private_pem)
        pub_file.stage_bytes(public_pem)
        key_file.commit()
        try:
            pub_file.commit()
        except BaseException:
            key_path.unlink()
            raise
    except FileExistsError as exc:  # created by someone else in the meantime
        raise unusable(
            "SIG033", "refusing to overwrite an existing key file", str(exc.filename)
        ) from None
    finally:
        key_file.discard()
        pub_file.discard()
    return key_path, pub_path


def _read(path: Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise unusable(
            "SIG034", f"cannot read key file: {exc.strerror}", display_path(path)
        ) from None


def _supported(key: object, path: Path) -> None:
    if not isinstance(key, ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey) or (
        key.curve.name not in _HASHES
    ):
        raise unusable(
            "SIG034",
            "unsupported key: skillpack signs with EC keys on P-256, P-384 or P-521",
            display_path(path),
            hint="create one with 'skillpack keygen'",
        )


def load_private_key(path: Path) -> ec.EllipticCurvePrivateKey:
    data = _read(path)
    try:
        key = serialization.load_pem_private_key(data, password=_password())
    except TypeError as exc:  # encrypted without a password, or a password not needed
        raise unusable(
            "SIG034", f"cannot load private key: {exc}", display_path(path),
            hint=f"set {PASSWORD_ENV} to the key's password",
        ) from None  # fmt: skip
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise unusable(
            "SIG034",
            f"not a PEM private key (or a wrong password): {exc}",
            display_path(path),
        ) from None
    _supported(key, path)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


def load_public_key(path: Path) -> ec.EllipticCurvePublicKey:
    data = _read(path)
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise unusable(
            "SIG034", f"not a PEM public key: {exc}", display_path(path),
            hint=f"pass the {PUBLIC_KEY_NAME} that 'skillpack keygen' wrote",
        ) from None  # fmt: skip
    _supported(key, path)
    assert isinstance(key, ec.EllipticCurvePublicKey)
    return key


def sign_with_key(statement: BundleStatement, key: ec.EllipticCurvePrivateKey) -> bytes:
    """A key-mode Sigstore bundle v0.3 (JSON bytes) over ``statement``."""
    payload = statement.to_bytes()
    signature = key.sign(pae(PAYLOAD_TYPE, payload), ec.ECDSA(_hash_for(key.public_key())))
    hint = key_hint(key.public_key())
    bundle = {
        "mediaType": BUNDLE_MEDIA_TYPE,
        "verificationMaterial": {"publicKey": {"hint": hint}, "tlogEntries": []},
        "dsseEnvelope": {
            "payload": base64.b64encode(payload).decode(),
            "payloadType": PAYLOAD_TYPE,
            "signatures": [{"sig": base64.b64encode(signature).decode(), "keyid": ""}],
        },
    }  # fmt: skip
    return (json.dumps(bundle, indent=2) + "\n").encode()


def verify_with_key(signature: SignatureFile, key: ec.EllipticCurvePublicKey) -> tuple[str, bytes]:
    """Check a key-mode bundle's DSSE signature; return (payload type, payload)."""
    from pydantic import ValidationError
    from sigstore_models.bundle.v1 import Bundle as BundleModel

    where = signature.where
    try:
        model = BundleModel.from_json(signature.data)
    except ValidationError as exc:
        raise not_a_bundle(where, [str(e["msg"]) for e in exc.errors()[:5]]) from None
    hint = model.verification_material.public_key
    envelope = model.dsse_envelope
    if hint is None or envelope is None:
        raise failed("SIG014", "not a key-mode DSSE signature", where)
    if hint.hint and hint.hint != key_hint(key):
        raise failed(
            "SIG013",
            "signed with a different key",
            where,
            details=[f"signature key hint: {hint.hint}", f"your public key:    {key_hint(key)}"],
        )
    if len(envelope.signatures) != 1:
        count = len(envelope.signatures)
        raise failed("SIG006", f"expected one DSSE signature, found {count}", where)
    try:
        key.verify(
            envelope.signatures[0].sig,
            pae(envelope.payload_type, envelope.payload),
            ec.ECDSA(_hash_for(key)),
        )
    except InvalidSignature:
        raise failed(
            "SIG013", "signature does not verify with the given public key", where
        ) from None
    return envelope.payload_type, envelope.payload
