"""Real and fake registries for the registry tests.

- :class:`DistributionRegistry`: Debian's ``docker-registry`` (CNCF distribution 2.8) as a
  plain subprocess on 127.0.0.1 with a free port, storage in a temporary directory and a
  config file written here (never Debian's default config, which listens on all
  interfaces): anonymous, htpasswd (basic) or token auth.
- :class:`TokenServer`: a small token server issuing RS256 JWTs the registry trusts,
  granting scopes by a test policy.
- bcrypt for the htpasswd file from libcrypt (glibc's libxcrypt), the ``bcrypt`` module
  or Apache's ``htpasswd``, whichever is there: no new dependency.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import datetime
import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

REGISTRY_BINARY = "/usr/bin/docker-registry"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def closed_port() -> int:
    """A loopback port nothing listens on (bound and released)."""
    return free_port()


# -- bcrypt ------------------------------------------------------------------------------


def bcrypt_hash(password: str) -> str | None:
    """A ``$2b$`` bcrypt hash of ``password``, or None when nothing here can make one."""
    salt_chars = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    salt = "".join(secrets.choice(salt_chars) for _ in range(21)) + "."  # 22 chars
    for name in ("libcrypt.so.1", "libcrypt.so.2", "libcrypt.so"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.crypt.restype = ctypes.c_char_p
        lib.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        out = lib.crypt(password.encode(), f"$2b$05${salt}".encode())
        if out and out.startswith(b"$2b$05$") and len(out) == 60:
            return out.decode()
    try:
        import bcrypt  # type: ignore[import-not-found]

        return str(bcrypt.hashpw(password.encode(), bcrypt.gensalt(5)).decode())
    except ImportError:
        pass
    htpasswd = shutil.which("htpasswd")
    if htpasswd:
        out = subprocess.run(
            [htpasswd, "-nbB", "-C", "5", "u", password], capture_output=True, text=True
        ).stdout.strip()
        return out.partition(":")[2] or None
    return None


# -- the token server ---------------------------------------------------------------------


def libtrust_kid(public_der: bytes) -> str:
    """The key id distribution derives from a public key (libtrust's format)."""
    encoded = base64.b32encode(hashlib.sha256(public_der).digest()[:30]).decode().rstrip("=")
    return ":".join(encoded[i : i + 4] for i in range(0, len(encoded), 4))


@dataclass
class TokenServer:
    """Issues RS256 tokens for ``service``: users are name -> (password, actions)."""

    directory: Path
    service: str = "skillpack-test-registry"
    issuer: str = "skillpack-test-issuer"
    users: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    refresh_tokens: dict[str, str] = field(default_factory=dict)  # token -> user
    anonymous: frozenset[str] = frozenset()
    requests: list[dict[str, Any]] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import NameOID

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "skillpack test tokens")])
        now = datetime.datetime.now(datetime.UTC)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256())
        )
        self.cert_path = self.directory / "token-cert.pem"
        self.cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        self._key = key  # an object, not PEM: loading an RSA key is slow, once is enough
        self.kid = libtrust_kid(
            key.public_key().public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        self._server: ThreadingHTTPServer | None = None

    @property
    def realm(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/token"

    def token_for(self, user: str | None, scopes: list[str]) -> tuple[str, list[dict[str, Any]]]:
        import jwt

        allowed = self.users[user][1] if user is not None else self.anonymous
        access = []
        for scope in scopes:
            kind, _, rest = scope.partition(":")
            name, _, actions = rest.rpartition(":")
            granted = [a for a in actions.split(",") if a in allowed]
            if kind == "repository" and granted:
                access.append({"type": "repository", "name": name, "actions": granted})
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": user or "",
            "aud": self.service,
            "exp": now + 300,
            "nbf": now - 10,
            "iat": now,
            "jti": secrets.token_hex(8),
            "access": access,
        }
        token = jwt.encode(claims, self._key, algorithm="RS256", headers={"kid": self.kid})
        self.issued.append(token)
        return token, access

    def __enter__(self) -> TokenServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _grant(self, user: str | None, scopes: list[str], record: dict[str, Any]) -> None:
                token, access = server.token_for(user, scopes)
                record.update(user=user, granted=access)
                server.requests.append(record)
                self._answer(200, {"token": token, "access_token": token, "expires_in": 300})

            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query)
                scopes = [s for v in query.get("scope", []) for s in v.split(" ") if s]
                record: dict[str, Any] = {"method": "GET", "scopes": scopes}
                header = self.headers.get("Authorization", "")
                user = None
                if header.startswith("Basic "):
                    name, _, password = base64.b64decode(header[6:]).decode().partition(":")
                    if name not in server.users or server.users[name][0] != password:
                        record.update(user=name, refused=True)
                        server.requests.append(record)
                        self._answer(401, {"details": "bad credentials"})
                        return
                    user = name
                self._grant(user, scopes, record)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                form = parse_qs(self.rfile.read(length).decode())
                scopes = [s for v in form.get("scope", []) for s in v.split(" ") if s]
                record: dict[str, Any] = {"method": "POST", "scopes": scopes}
                refresh = form.get("refresh_token", [""])[0]
                user = server.refresh_tokens.get(refresh)
                if form.get("grant_type") != ["refresh_token"] or user is None:
                    record.update(refused=True)
                    server.requests.append(record)
                    self._answer(401, {"error": "invalid_grant"})
                    return
                self._grant(user, scopes, record)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


# -- the distribution registry ----------------------------------------------------------------


@dataclass
class DistributionRegistry:
    """A running ``docker-registry`` on 127.0.0.1."""

    directory: Path
    auth: str = ""  # YAML of the auth section, indented by two spaces, or ""
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def storage(self) -> Path:
        return self.directory / "storage"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def ref(self, repository: str, tag: str | None = None) -> str:
        return f"oci://{self.host}/{repository}" + (f":{tag}" if tag else "")

    def blob_data(self, digest: str) -> Path:
        hex_ = digest.partition(":")[2]
        return self.storage / "docker/registry/v2/blobs/sha256" / hex_[:2] / hex_ / "data"

    def _config(self) -> str:
        return (
            "version: 0.1\n"
            "log:\n  level: error\n  accesslog:\n    disabled: true\n"
            "storage:\n"
            f"  filesystem:\n    rootdirectory: {self.storage}\n"
            "  delete:\n    enabled: true\n"
            "  maintenance:\n    uploadpurging:\n      enabled: false\n"
            f"http:\n  addr: 127.0.0.1:{self.port}\n  secret: {secrets.token_hex(16)}\n"
            "health:\n  storagedriver:\n    enabled: false\n"
            + (f"auth:\n{self.auth}" if self.auth else "")
        )

    def __enter__(self) -> DistributionRegistry:
        self.storage.mkdir(parents=True, exist_ok=True)
        log_path = self.directory / "registry.log"
        for _ in range(5):
            self.port = free_port()
            config = self.directory / "config.yml"
            config.write_text(self._config(), encoding="utf-8")
            with log_path.open("ab") as log:
                self.process = subprocess.Popen(
                    [REGISTRY_BINARY, "serve", str(config)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                )
            if self._wait_up(10.0):
                return self
            self._stop()
        raise RuntimeError(f"docker-registry did not start:\n{log_path.read_text()[-2000:]}")

    def _wait_up(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"http://{self.host}/v2/", timeout=1):
                    return True
            except urllib.error.HTTPError as exc:
                if exc.code == 401:
                    return True
            except OSError:
                pass
            time.sleep(0.02)
        return False

    def _stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def __exit__(self, *exc: object) -> None:
        self._stop()


@contextlib.contextmanager
def htpasswd_registry(directory: Path, users: dict[str, str]) -> Iterator[DistributionRegistry]:
    lines = []
    for name, password in users.items():
        hashed = bcrypt_hash(password)
        if hashed is None:
            raise LookupError("no bcrypt implementation (libcrypt, bcrypt or htpasswd)")
        lines.append(f"{name}:{hashed}\n")
    path = directory / "htpasswd"
    path.write_text("".join(lines), encoding="utf-8")
    auth = f"  htpasswd:\n    realm: skillpack-test\n    path: {path}\n"
    with DistributionRegistry(directory, auth=auth) as registry:
        yield registry


@contextlib.contextmanager
def token_registry(directory: Path, tokens: TokenServer) -> Iterator[DistributionRegistry]:
    auth = (
        "  token:\n"
        f"    realm: {tokens.realm}\n"
        f"    service: {tokens.service}\n"
        f"    issuer: {tokens.issuer}\n"
        f"    rootcertbundle: {tokens.cert_path}\n"
    )
    with DistributionRegistry(directory, auth=auth) as registry:
        yield registry
