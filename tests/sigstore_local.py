"""A complete, private sigstore instance on loopback, for offline tests.

:class:`LocalSigstore` stands up, in one ``ThreadingHTTPServer`` on ``127.0.0.1``:

* a Fulcio stand-in (``POST /api/v2/signingCert``): an own P-384 root CA that issues
  10-minute leaf certificates for a CSR plus an identity token it issued itself. Leaves
  carry the SAN (e-mail, or the workflow URI for GitHub tokens), the OIDC issuer
  extensions (``1.3.6.1.4.1.57264.1.1`` raw and ``.1.8`` as a DER UTF8String), the GitHub
  workflow extensions for GitHub tokens, SKI/AKI, and an embedded SCT signed by an own
  CT-log key over the precertificate TBS;
* a Rekor v1 stand-in (``POST /api/v1/log/entries``) for ``hashedrekord`` and ``dsse``
  entries: it checks the entry's signature, appends it to an RFC 6962 Merkle tree and
  answers with an inclusion proof, a signed checkpoint and a signed entry timestamp;
* ``GET /.well-known/openid-configuration`` (what ``sigstore.oidc.Issuer`` reads) and
  ``GET /github/token`` (what GitHub Actions' ambient OIDC request hits, so the ambient
  credential path of ``sigstore.oidc.detect_credential`` can run offline).

:meth:`LocalSigstore.trust_config` is the matching ``ClientTrustConfig`` JSON (trusted
root + signing config v0.2), which the real ``sigstore`` library and CLI take with
``--trust-config``. Identity tokens are HS256 JWTs signed with a per-instance secret.

Only public sigstore API and the documented wire protocols are used here.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import secrets
import struct
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
import rfc8785
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID, ObjectIdentifier

DEFAULT_ISSUER = "https://issuer.skillpack.test"
GITHUB_ISSUER = "https://token.actions.githubusercontent.com"

_SCT_OID = ObjectIdentifier("1.3.6.1.4.1.11129.2.4.2")
_OID = "1.3.6.1.4.1.57264.1."
_ISSUER_V1 = ObjectIdentifier(_OID + "1")
_ISSUER_V2 = ObjectIdentifier(_OID + "8")
# GitHub workflow extensions (raw bytes) and their source claims.
_GITHUB_V1 = {
    "2": "event_name",
    "3": "sha",
    "4": "workflow",
    "5": "repository",
    "6": "ref",
}
# Fulcio's v2 extensions (DER UTF8String) for GitHub tokens.
_GITHUB_V2 = {
    "9": lambda c: f"https://github.com/{c['job_workflow_ref']}",
    "12": lambda c: f"https://github.com/{c['repository']}",
    "13": lambda c: c["sha"],
    "14": lambda c: c["ref"],
    "20": lambda c: c["event_name"],
}

_START = "2020-01-01T00:00:00Z"  # validFor.start of every key in the trust config


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _spki(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _key_id(key: ec.EllipticCurvePublicKey) -> bytes:
    """RFC 6962 log id: sha256 of the DER SubjectPublicKeyInfo."""
    return hashlib.sha256(_spki(key)).digest()


def _der(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + content


def _utf8_string(value: str) -> bytes:
    return _der(0x0C, value.encode())


def _key_usage(**granted: bool) -> x509.KeyUsage:
    usages = dict.fromkeys(
        ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
         "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"),
        False,
    )  # fmt: skip
    return x509.KeyUsage(**(usages | granted))


# ---------------------------------------------------------------- Merkle tree (RFC 6962)


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def _node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def tree_root(leaves: list[bytes]) -> bytes:
    """MTH over already-hashed leaves."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return _node_hash(tree_root(leaves[:k]), tree_root(leaves[k:]))


def inclusion_path(index: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n]) of RFC 6962 section 2.1.1, lowest sibling first."""
    if len(leaves) <= 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return [*inclusion_path(index, leaves[:k]), tree_root(leaves[k:])]
    return [*inclusion_path(index - k, leaves[k:]), tree_root(leaves[:k])]


# ---------------------------------------------------------------- the three services


class _CertificateAuthority:
    """The Fulcio stand-in: a root CA and a CT log that countersigns every leaf."""

    def __init__(self, name: str) -> None:
        self.key = ec.generate_private_key(ec.SECP384R1())
        self.ct_key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        subject = x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "skillpack tests"),
                x509.NameAttribute(NameOID.COMMON_NAME, name),
            ]
        )
        pub = self.key.public_key()
        self.root = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(subject)
            .public_key(pub)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=1), critical=True)
            .add_extension(_key_usage(key_cert_sign=True, crl_sign=True), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
            .sign(self.key, hashes.SHA384())
        )

    def issue(
        self,
        public_key: ec.EllipticCurvePublicKey,
        san: x509.GeneralName,
        extensions: Mapping[ObjectIdentifier, bytes],
    ) -> x509.Certificate:
        """A leaf with an embedded SCT: built twice, the second time with the real SCT."""
        now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        serial = x509.random_serial_number()

        def build(sct_list: bytes) -> x509.Certificate:
            builder = (
                x509.CertificateBuilder()
                .subject_name(x509.Name([]))
                .issuer_name(self.root.subject)
                .public_key(public_key)
                .serial_number(serial)
                .not_valid_before(now)
                .not_valid_after(now + dt.timedelta(minutes=10))
                .add_extension(x509.SubjectAlternativeName([san]), critical=True)
                .add_extension(_key_usage(digital_signature=True), critical=True)
                .add_extension(
                    x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CODE_SIGNING]), critical=False
                )
                .add_extension(
                    x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False
                )
                .add_extension(
                    x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()),
                    critical=False,
                )
            )
            for oid, value in sorted(extensions.items(), key=lambda kv: kv[0].dotted_string):
                builder = builder.add_extension(
                    x509.UnrecognizedExtension(oid, value), critical=False
                )
            builder = builder.add_extension(
                x509.UnrecognizedExtension(_SCT_OID, _der(0x04, sct_list)), critical=False
            )
            return builder.sign(self.key, hashes.SHA384())

        placeholder = build(self._sct_list(b"\x00" * 8, 0))
        tbs = placeholder.tbs_precertificate_bytes
        timestamp_ms = int(time.time() * 1000)
        leaf = build(self._sct_list(tbs, timestamp_ms))
        assert leaf.tbs_precertificate_bytes == tbs  # the SCT signs exactly this TBS
        return leaf

    def _sct_list(self, precert_tbs: bytes, timestamp_ms: int) -> bytes:
        """A TLS-encoded SignedCertificateTimestampList holding one v1 precert SCT."""
        issuer_key_hash = _key_id(self.key.public_key())
        signed = (
            struct.pack("!BBQH", 0, 0, timestamp_ms, 1)  # v1, certificate_timestamp, precert
            + issuer_key_hash
            + len(precert_tbs).to_bytes(3, "big")
            + precert_tbs
            + struct.pack("!H", 0)  # no extensions
        )
        signature = self.ct_key.sign(signed, ec.ECDSA(hashes.SHA256()))
        sct = (
            struct.pack("!B", 0)
            + _key_id(self.ct_key.public_key())
            + struct.pack("!QH", timestamp_ms, 0)
            + struct.pack("!BBH", 4, 3, len(signature))  # sha256, ecdsa
            + signature
        )
        entry = struct.pack("!H", len(sct)) + sct
        return struct.pack("!H", len(entry)) + entry


class _TransparencyLog:
    """The Rekor v1 stand-in: an append-only RFC 6962 log of canonical entry bodies."""

    def __init__(self, name: str, seed_entries: int) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.log_id = _key_id(self.key.public_key())
        self.name = name  # the checkpoint signer's name: no spaces
        self.origin = f"{name} - {int.from_bytes(self.log_id[:8], 'big')}"
        self.leaves: list[bytes] = [leaf_hash(secrets.token_bytes(32)) for _ in range(seed_entries)]
        self.bodies: dict[int, bytes] = {}
        self._lock = threading.Lock()

    def append(self, proposed: dict[str, Any]) -> dict[str, Any]:
        body = rfc8785.dumps(_canonical_body(proposed))
        with self._lock:
            index = len(self.leaves)
            self.leaves.append(leaf_hash(body))
            self.bodies[index] = body
            leaves = list(self.leaves)
        integrated = int(time.time())
        root = tree_root(leaves)
        body_b64 = _b64(body)
        promise = rfc8785.dumps(
            {
                "body": body_b64,
                "integratedTime": integrated,
                "logID": self.log_id.hex(),
                "logIndex": index,
            }
        )
        uuid = leaves[index].hex()
        return {
            uuid: {
                "body": body_b64,
                "integratedTime": integrated,
                "logID": self.log_id.hex(),
                "logIndex": index,
                "verification": {
                    "inclusionProof": {
                        "checkpoint": self.checkpoint(len(leaves), root),
                        "hashes": [h.hex() for h in inclusion_path(index, leaves)],
                        "logIndex": index,
                        "rootHash": root.hex(),
                        "treeSize": len(leaves),
                    },
                    "signedEntryTimestamp": _b64(self.key.sign(promise, ec.ECDSA(hashes.SHA256()))),
                },
            }
        }

    def checkpoint(self, size: int, root: bytes) -> str:
        note = f"{self.origin}\n{size}\n{_b64(root)}\n"
        signature = self.key.sign(note.encode(), ec.ECDSA(hashes.SHA256()))
        return f"{note}\n\u2014 {self.name} {_b64(self.log_id[:4] + signature)}\n"


class EntryRejected(ValueError):
    """A proposed log entry whose signature or shape is wrong (HTTP 400)."""


def _verifier_key(pem_b64: str) -> ec.EllipticCurvePublicKey:
    cert = x509.load_pem_x509_certificate(base64.b64decode(pem_b64))
    key = cert.public_key()
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise EntryRejected("verifier is not an EC certificate")
    return key


def _canonical_body(proposed: dict[str, Any]) -> dict[str, Any]:
    """Check a proposed entry's signature; return the body Rekor v1 would store."""
    kind, spec = proposed.get("kind"), proposed.get("spec") or {}
    try:
        if kind == "hashedrekord":
            sig = spec["signature"]
            digest = bytes.fromhex(spec["data"]["hash"]["value"])
            _verifier_key(sig["publicKey"]["content"]).verify(
                base64.b64decode(sig["content"]), digest, ec.ECDSA(Prehashed(hashes.SHA256()))
            )
            return proposed
        if kind == "dsse":
            content = spec["proposedContent"]
            envelope = json.loads(content["envelope"])
            payload = base64.b64decode(envelope["payload"])
            payload_type = envelope["payloadType"]
            pae = b"DSSEv1 %d %s %d %s" % (
                len(payload_type),
                payload_type.encode(),
                len(payload),
                payload,
            )
            verifier = content["verifiers"][0]
            signatures = []
            for s in envelope["signatures"]:
                _verifier_key(verifier).verify(
                    base64.b64decode(s["sig"]), pae, ec.ECDSA(hashes.SHA256())
                )
                signatures.append({"signature": s["sig"], "verifier": verifier})
            return {
                "apiVersion": "0.0.1",
                "kind": "dsse",
                "spec": {
                    "envelopeHash": {
                        "algorithm": "sha256",
                        "value": hashlib.sha256(rfc8785.dumps(envelope)).hexdigest(),
                    },
                    "payloadHash": {
                        "algorithm": "sha256",
                        "value": hashlib.sha256(payload).hexdigest(),
                    },
                    "signatures": sorted(signatures, key=lambda s: s["signature"]),
                },
            }
    except (KeyError, TypeError, ValueError, IndexError, InvalidSignature) as exc:
        raise EntryRejected(f"invalid {kind} entry: {exc!r}") from exc
    raise EntryRejected(f"unsupported entry kind {kind!r}")


# ---------------------------------------------------------------- the instance


@dataclass(frozen=True)
class GitHubWorkflow:
    """The claims of a GitHub Actions OIDC token (what the release workflow gets)."""

    repository: str = "acme/skills"
    workflow_path: str = ".github/workflows/release.yml"
    ref: str = "refs/tags/v1.0.0"
    sha: str = "0123456789abcdef0123456789abcdef01234567"
    event_name: str = "push"
    workflow: str = "release"

    @property
    def identity(self) -> str:
        """The certificate SAN Fulcio gives this workflow run."""
        return f"https://github.com/{self.repository}/{self.workflow_path}@{self.ref}"

    def claims(self) -> dict[str, str]:
        return {
            "sub": f"repo:{self.repository}:ref:{self.ref}",
            "repository": self.repository,
            "job_workflow_ref": f"{self.repository}/{self.workflow_path}@{self.ref}",
            "ref": self.ref,
            "sha": self.sha,
            "event_name": self.event_name,
            "workflow": self.workflow,
        }


class LocalSigstore:
    """Fulcio, CT log, Rekor v1 and an OIDC issuer for tests, on ``127.0.0.1``.

    Use as a context manager, or call :meth:`start` and :meth:`close`.
    """

    def __init__(self, name: str = "skillpack-local", *, seed_entries: int = 5) -> None:
        self.name = name
        self.ca = _CertificateAuthority(name)
        self.log = _TransparencyLog(name, seed_entries)
        self.github = GitHubWorkflow()
        self.github_request_token = secrets.token_urlsafe(16)
        self._jwt_secret = secrets.token_bytes(32)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> LocalSigstore:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name=f"{self.name}-http", daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> LocalSigstore:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def url(self) -> str:
        assert self._server is not None, "LocalSigstore is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- identities

    def token(
        self,
        email: str = "dev@skillpack.test",
        *,
        issuer: str = DEFAULT_ISSUER,
        lifetime: int = 300,
        **claims: Any,
    ) -> str:
        """An identity token for ``email`` from ``issuer`` (audience ``sigstore``)."""
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": issuer,
            "sub": email,
            "email": email,
            "email_verified": True,
            "aud": "sigstore",
            "iat": now,
            "nbf": now,
            "exp": now + lifetime,
        }
        body.update(claims)
        return jwt.encode(body, self._jwt_secret, algorithm="HS256")

    def github_token(self, workflow: GitHubWorkflow | None = None) -> str:
        """The token a GitHub Actions job with ``id-token: write`` receives."""
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": GITHUB_ISSUER,
            "aud": "sigstore",
            "iat": now,
            "nbf": now,
            "exp": now + 300,
            **(workflow or self.github).claims(),
        }
        return jwt.encode(body, self._jwt_secret, algorithm="HS256")

    def github_actions_env(self) -> dict[str, str]:
        """The environment a GitHub Actions job with ``id-token: write`` sees."""
        return {
            "GITHUB_ACTIONS": "true",
            "ACTIONS_ID_TOKEN_REQUEST_URL": f"{self.url}/github/token?api-version=2.0",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": self.github_request_token,
        }

    # -- trust

    def trust_config(self) -> dict[str, Any]:
        """The ``ClientTrustConfig`` (v0.1) for this instance."""
        url = self.url

        def log_entry(key: ec.EllipticCurvePublicKey) -> dict[str, Any]:
            return {
                "baseUrl": url,
                "hashAlgorithm": "SHA2_256",
                "publicKey": {
                    "rawBytes": _b64(_spki(key)),
                    "keyDetails": "PKIX_ECDSA_P256_SHA_256",
                    "validFor": {"start": _START},
                },
                "logId": {"keyId": _b64(_key_id(key))},
            }

        def service(path: str = "") -> dict[str, Any]:
            return {
                "url": url + path,
                "majorApiVersion": 1,
                "validFor": {"start": _START},
                "operator": self.name,
            }

        root_der = self.ca.root.public_bytes(serialization.Encoding.DER)
        return {
            "mediaType": "application/vnd.dev.sigstore.clienttrustconfig.v0.1+json",
            "trustedRoot": {
                "mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1",
                "tlogs": [log_entry(self.log.key.public_key())],
                "certificateAuthorities": [
                    {
                        "subject": {"organization": "skillpack tests", "commonName": self.name},
                        "uri": url,
                        "certChain": {"certificates": [{"rawBytes": _b64(root_der)}]},
                        "validFor": {"start": _START},
                    }
                ],
                "ctlogs": [log_entry(self.ca.ct_key.public_key())],
                "timestampAuthorities": [],
            },
            "signingConfig": {
                "mediaType": "application/vnd.dev.sigstore.signingconfig.v0.2+json",
                "caUrls": [service()],
                "oidcUrls": [service()],
                "rekorTlogUrls": [service()],
                "tsaUrls": [],
                "rekorTlogConfig": {"selector": "ANY"},
                "tsaConfig": {"selector": "ANY"},
            },
        }

    def write_trust_config(self, path: Path) -> Path:
        path.write_text(json.dumps(self.trust_config(), indent=2), encoding="utf-8")
        return path

    # -- request handling (called from the server threads)

    def _sign_certificate(self, authorization: str, body: bytes) -> dict[str, Any]:
        token = authorization.removeprefix("Bearer ").strip()
        claims = jwt.decode(token, self._jwt_secret, algorithms=["HS256"], audience="sigstore")
        request = json.loads(body)
        csr = x509.load_pem_x509_csr(base64.b64decode(request["certificateSigningRequest"]))
        if not csr.is_signature_valid:
            raise ValueError("CSR signature (proof of possession) is invalid")
        key = csr.public_key()
        if not isinstance(key, ec.EllipticCurvePublicKey):
            raise ValueError("only EC keys are supported")
        issuer = claims["iss"]
        extensions = {_ISSUER_V1: issuer.encode(), _ISSUER_V2: _utf8_string(issuer)}
        san: x509.GeneralName
        if issuer == GITHUB_ISSUER:
            san = x509.UniformResourceIdentifier(f"https://github.com/{claims['job_workflow_ref']}")
            for suffix, claim in _GITHUB_V1.items():
                extensions[ObjectIdentifier(_OID + suffix)] = str(claims[claim]).encode()
            for suffix, make in _GITHUB_V2.items():
                extensions[ObjectIdentifier(_OID + suffix)] = _utf8_string(make(claims))
        else:
            san = x509.RFC822Name(claims["email"])
        leaf = self.ca.issue(key, san, extensions)
        pems = [c.public_bytes(serialization.Encoding.PEM).decode() for c in (leaf, self.ca.root)]
        return {"signedCertificateEmbeddedSct": {"chain": {"certificates": pems}}}

    def _openid_configuration(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "authorization_endpoint": f"{self.url}/auth",
            "token_endpoint": f"{self.url}/token",
            "jwks_uri": f"{self.url}/keys",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["HS256"],
        }


def _handler_for(instance: LocalSigstore) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def _reply(self, status: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path == "/.well-known/openid-configuration":
                self._reply(200, instance._openid_configuration())
            elif url.path == "/github/token":
                scheme, _, credential = self.headers.get("Authorization", "").partition(" ")
                audience = parse_qs(url.query).get("audience", [""])[0]
                if scheme.lower() != "bearer" or credential != instance.github_request_token:
                    self._reply(401, {"message": "bad request token"})
                elif audience != "sigstore":
                    self._reply(400, {"message": f"unexpected audience {audience!r}"})
                else:
                    self._reply(200, {"value": instance.github_token()})
            else:
                self._reply(404, {"message": f"no route {url.path}"})

        def do_POST(self) -> None:
            body = self._body()
            path = urlsplit(self.path).path
            try:
                if path == "/api/v2/signingCert":
                    auth = self.headers.get("Authorization", "")
                    self._reply(200, instance._sign_certificate(auth, body))
                elif path == "/api/v1/log/entries":
                    self._reply(201, instance.log.append(json.loads(body)))
                else:
                    self._reply(404, {"message": f"no route {path}"})
            except jwt.PyJWTError as exc:
                self._reply(401, {"code": 401, "message": f"invalid identity token: {exc}"})
            except (ValueError, KeyError, TypeError) as exc:
                self._reply(400, {"code": 400, "message": str(exc)})

    return Handler
