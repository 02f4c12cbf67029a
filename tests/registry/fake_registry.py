"""A small in-memory OCI registry for the tests the real one cannot serve: the OCI 1.1
referrers API (distribution 2.8 has none) and registries that misbehave on purpose."""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

INDEX = "application/vnd.oci.image.index.v1+json"


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class FakeRegistry:
    """``referrers_api``: serve ``GET /v2/<name>/referrers/<digest>`` and answer pushes of
    manifests with a subject with ``OCI-Subject``; otherwise 404 there, like 2.8.

    Misbehaviour hooks: ``serve_instead`` (reference -> bytes served for it),
    ``digest_header`` (reference -> Docker-Content-Digest sent for it), ``fail_next``
    (a list of (status, headers) answered before anything else, one per request),
    ``challenge`` (a WWW-Authenticate sent with a 401 to every request without an
    Authorization header), ``page_size`` (referrers per page, with Link headers),
    ``redirect_blobs`` (blob GETs sent to another server, as registries do to storage)."""

    referrers_api: bool = True
    page_size: int = 0
    serve_instead: dict[str, bytes] = field(default_factory=dict)
    digest_header: dict[str, str] = field(default_factory=dict)
    fail_next: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    challenge: str | None = None
    blobs: dict[str, bytes] = field(default_factory=dict)
    manifests: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    log: list[tuple[str, str]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)  #: every Authorization received
    on_request: Callable[[str, str], None] | None = None
    #: blob GETs answered with a 307 to this base URL (``http://host:port``) instead
    redirect_blobs: str | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self._server.server_address[1]}"

    def ref(self, repository: str, tag: str | None = None) -> str:
        return f"oci://{self.host}/{repository}" + (f":{tag}" if tag else "")

    def referrers_of(self, digest: str) -> list[dict[str, Any]]:
        out = []
        for manifest_digest, (data, media_type) in sorted(self.manifests.items()):
            value = json.loads(data)
            subject = value.get("subject") or {}
            if subject.get("digest") != digest:
                continue
            entry: dict[str, Any] = {
                "mediaType": media_type,
                "digest": manifest_digest,
                "size": len(data),
                "artifactType": value.get("artifactType") or value["config"]["mediaType"],
            }
            if value.get("annotations"):
                entry["annotations"] = value["annotations"]
            out.append(entry)
        return out

    def __enter__(self) -> FakeRegistry:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _send(
                self, status: int, body: bytes = b"", headers: dict[str, str] | None = None
            ) -> None:
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _error(self, status: int, code: str, message: str) -> None:
                body = json.dumps({"errors": [{"code": code, "message": message}]}).encode()
                self._send(status, body, {"Content-Type": "application/json"})

            def _body(self) -> bytes:
                length = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(length) if length else b""

            def _handle(self) -> None:
                url = urlsplit(self.path)
                registry.log.append((self.command, url.path))
                if self.headers.get("Authorization"):
                    registry.authorizations.append(self.headers["Authorization"])
                if registry.on_request is not None:
                    registry.on_request(self.command, url.path)
                body = self._body() if self.command in ("PUT", "POST") else b""
                if registry.fail_next:
                    status, headers = registry.fail_next.pop(0)
                    self._send(status, b"", headers)
                    return
                if registry.challenge and not self.headers.get("Authorization"):
                    self._send(401, b"", {"WWW-Authenticate": registry.challenge})
                    return
                path = url.path
                if path == "/v2/":
                    self._send(200, b"{}", {"Content-Type": "application/json"})
                    return
                query = parse_qs(url.query)
                for marker in ("/blobs/uploads/", "/blobs/", "/manifests/", "/referrers/"):
                    name, found, rest = path[len("/v2/") :].rpartition(marker.rstrip("/") + "/")
                    if found:
                        getattr(self, "_" + marker.strip("/").replace("/", "_"))(
                            name, rest, body, query
                        )
                        return
                self._error(404, "NOT_FOUND", "no route")

            do_GET = do_HEAD = do_PUT = do_POST = _handle

            def _blobs_uploads(self, name: str, rest: str, body: bytes, query: Any) -> None:
                if self.command == "POST":
                    location = f"/v2/{name}/blobs/uploads/{uuid.uuid4()}?_state=x"
                    self._send(202, b"", {"Location": location})
                    return
                digest = query.get("digest", [""])[0]
                if sha256(body) != digest:
                    self._error(400, "DIGEST_INVALID", "digest did not match")
                    return
                registry.blobs[digest] = body
                self._send(201, b"", {"Docker-Content-Digest": digest})

            def _blobs(self, name: str, digest: str, body: bytes, query: Any) -> None:
                if registry.redirect_blobs and self.command == "GET":
                    target = f"{registry.redirect_blobs}/v2/{name}/blobs/{digest}"
                    self._send(307, b"", {"Location": target})
                    return
                data = registry.blobs.get(digest)
                if data is None:
                    self._error(404, "BLOB_UNKNOWN", "blob unknown to registry")
                    return
                self._send(200, data, {"Docker-Content-Digest": digest})

            def _manifests(self, name: str, ref: str, body: bytes, query: Any) -> None:
                if self.command == "PUT":
                    digest = sha256(body)
                    media_type = self.headers.get("Content-Type", "")
                    registry.manifests[digest] = (body, media_type)
                    if not ref.startswith("sha256:"):
                        registry.tags[ref] = digest
                    headers = {"Docker-Content-Digest": digest}
                    subject = json.loads(body).get("subject")
                    if registry.referrers_api and subject:
                        headers["OCI-Subject"] = subject["digest"]
                    self._send(201, b"", headers)
                    return
                digest = registry.tags.get(ref, ref)
                if digest not in registry.manifests:
                    self._error(404, "MANIFEST_UNKNOWN", "manifest unknown")
                    return
                data, media_type = registry.manifests[digest]
                data = registry.serve_instead.get(ref, data)
                header = registry.digest_header.get(ref, digest)
                self._send(200, data, {"Content-Type": media_type, "Docker-Content-Digest": header})

            def _referrers(self, name: str, digest: str, body: bytes, query: Any) -> None:
                if not registry.referrers_api:
                    self._send(404, b"404 page not found\n", {"Content-Type": "text/plain"})
                    return
                entries = registry.referrers_of(digest)
                headers = {"Content-Type": INDEX}
                wanted = query.get("artifactType", [""])[0]
                if wanted:
                    entries = [e for e in entries if e.get("artifactType") == wanted]
                    headers["OCI-Filters-Applied"] = "artifactType"
                if registry.page_size:
                    start = int(query.get("start", ["0"])[0])
                    page = entries[start : start + registry.page_size]
                    if start + registry.page_size < len(entries):
                        nxt = f"/v2/{name}/referrers/{digest}?start={start + registry.page_size}"
                        if wanted:
                            nxt += f"&artifactType={wanted}"
                        headers["Link"] = f'<{nxt}>; rel="next"'
                    entries = page
                index = {"schemaVersion": 2, "mediaType": INDEX, "manifests": entries}
                self._send(200, json.dumps(index).encode(), headers)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
