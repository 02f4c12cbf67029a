"""Security of ``skillpack serve --http``: DNS rebinding (Host/Origin), bearer tokens,
size, time and connection limits, TLS, the refusal to serve a non-loopback address
without a token, graceful SIGTERM, workers, and the missing extra.

Every connection goes to 127.0.0.1. The non-loopback refusal is checked before any
socket is bound: a ``sitecustomize`` in the child refuses (and reports) every bind.
"""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli
from tests.http.conftest import (
    META,
    HttpServer,
    initialize,
    modern_headers,
    rpc,
    session_headers,
    start_server,
)

BODY = rpc("skills/list", {"_meta": META})
HEADERS = modern_headers("skills/list")


def _raw(server: HttpServer, data: bytes, timeout: float = 10.0) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=timeout)
    sock.sendall(data)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _refused(reply: bytes, status: int) -> None:
    """``reply`` is a whole ``status`` response with a JSON-RPC error as its body, after
    which the server closed the connection."""
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), reply[:80]
    lines = head.lower().split(b"\r\n")
    assert b"content-type: application/json" in lines and b"connection: close" in lines
    assert b"content-length: %d" % len(body) in lines
    message = json.loads(body)
    assert message["error"]["code"] == -32600 and "id" not in message


# -- Host and Origin --------------------------------------------------------------------


def test_wrong_host_or_origin_is_refused(server: HttpServer) -> None:
    for headers in (
        {"Host": "evil.example.com"},
        {"Host": f"evil.example.com:{server.port}"},
        {"Host": f"127.0.0.1:{server.port + 1}"},  # another port: another service
        {"Origin": "http://evil.example.com"},
        {"Origin": f"http://127.0.0.1:{server.port + 1}"},
        {"Origin": "null"},
    ):
        response = server.request("POST", BODY, {**HEADERS, **headers})
        assert response.status == 403, (headers, response.status)
    for good in (
        f"127.0.0.1:{server.port}",
        f"localhost:{server.port}",
        f"LOCALHOST:{server.port}",
        f"[::1]:{server.port}",
    ):
        response = server.request(
            "POST", BODY, {**HEADERS, "Host": good, "Origin": f"http://{good}"}
        )
        assert response.status == 200, good


def test_allow_host_and_allow_origin(examples_skp: Path) -> None:
    running = start_server(
        examples_skp,
        "--allow-host",
        "skills.example.com",
        "--allow-host",
        "alias.example:8443",
        "--allow-origin",
        "https://app.example",
    )
    try:
        for headers, status in [
            ({"Host": "skills.example.com"}, 200),
            # an --allow-host name is a Host to answer, never an Origin to trust
            ({"Host": "skills.example.com:443", "Origin": "https://skills.example.com"}, 403),
            ({"Host": "alias.example:8443", "Origin": "https://alias.example:8443"}, 403),
            ({"Host": "skills.example.com", "Origin": "https://app.example"}, 200),
            ({"Host": "alias.example:8443"}, 200),
            ({"Host": "alias.example"}, 403),
            ({"Origin": "https://app.example"}, 200),
            ({"Origin": "https://app.example.evil"}, 403),
        ]:
            response = running.request("POST", BODY, {**HEADERS, **headers})
            assert response.status == status, headers
    finally:
        running.stop()


# -- browsers (CORS) --------------------------------------------------------------------

APP = "https://app.example"
REQUEST_HEADERS = {
    "content-type",
    "accept",
    "authorization",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
}


def _preflight(
    server: HttpServer, origin: str, *, host: str | None = None, path: str | None = None
) -> tuple[bytes, dict[str, str], bytes]:
    """A browser's CORS preflight, as raw bytes: (status line, headers, body)."""
    sock = _raw(
        server,
        f"OPTIONS {path or server.path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{server.port}'}"
        f"\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: POST\r\n"
        "Access-Control-Request-Headers: content-type, mcp-method, mcp-protocol-version, "
        "authorization\r\nConnection: close\r\n\r\n".encode(),
    )
    reply = _read_all(sock)
    sock.close()
    head, _, body = reply.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


@pytest.fixture(scope="module")
def browser_server(
    examples_skp: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    token_file = tmp_path_factory.mktemp("token") / "token"
    token_file.write_text(TOKEN + "\n")
    running = start_server(
        examples_skp, "--allow-origin", APP, "--token-file", token_file, "--max-body-bytes", "4000"
    )
    yield running
    running.stop()


def test_a_preflight_from_an_accepted_origin_needs_no_token(browser_server: HttpServer) -> None:
    for origin in (APP, f"http://127.0.0.1:{browser_server.port}"):  # and the server's own
        status, headers, body = _preflight(browser_server, origin)
        assert status.startswith(b"HTTP/1.1 204 "), status
        assert body == b"" and "content-length" not in headers
        assert headers["access-control-allow-origin"] == origin
        methods = {m.strip() for m in headers["access-control-allow-methods"].split(",")}
        assert {"POST", "DELETE"} <= methods and "GET" not in methods  # no SSE stream
        allowed = {h.strip().lower() for h in headers["access-control-allow-headers"].split(",")}
        assert allowed == REQUEST_HEADERS
        assert int(headers["access-control-max-age"]) > 0
        assert headers["vary"] == "Origin"
        assert "www-authenticate" not in headers
    assert "access-control-allow-credentials" not in headers  # the token is a header


def test_a_preflight_still_checks_host_origin_and_path(browser_server: HttpServer) -> None:
    for origin in ("https://app.example.evil", "null", "http://evil.example"):
        status, headers, _ = _preflight(browser_server, origin)
        assert status.startswith(b"HTTP/1.1 403 "), (origin, status)
        assert not [h for h in headers if h.startswith("access-control-")]
        assert headers["vary"] == "Origin"
    status, headers, _ = _preflight(browser_server, APP, host="evil.example.com")
    assert status.startswith(b"HTTP/1.1 403 ")  # DNS rebinding: the Host comes first
    assert not [h for h in headers if h.startswith("access-control-")]
    status, _, _ = _preflight(browser_server, APP, path="/elsewhere")
    assert status.startswith(b"HTTP/1.1 404 ")
    # an OPTIONS that is not a preflight is an ordinary request: behind the token
    plain = browser_server.request("OPTIONS", None, {"Origin": APP})
    assert plain.status == 401 and plain.headers["access-control-allow-origin"] == APP
    authorized = {"Origin": APP, "Authorization": f"Bearer {TOKEN}"}
    plain = browser_server.request("OPTIONS", None, authorized)
    assert plain.status == 204 and plain.headers["allow"] == "POST, DELETE, OPTIONS"


def test_replies_to_an_accepted_origin_carry_cors_headers(browser_server: HttpServer) -> None:
    authorized = {**HEADERS, "Origin": APP, "Authorization": f"Bearer {TOKEN}"}

    def assert_cors(response: Any) -> None:
        assert response.headers["access-control-allow-origin"] == APP
        exposed = {
            h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")
        }
        assert exposed == {"mcp-session-id", "www-authenticate"}
        assert response.headers["vary"] == "Origin"

    ok = browser_server.request("POST", BODY, authorized)
    assert ok.status == 200
    assert_cors(ok)
    # refusals too, so that a page can read why: no token, a bad message, too large
    missing = browser_server.request("POST", BODY, {**HEADERS, "Origin": APP})
    assert missing.status == 401 and missing.headers["www-authenticate"]
    assert_cors(missing)
    bad = browser_server.request("POST", b"{}", authorized)
    assert bad.status == 400
    assert_cors(bad)
    large = browser_server.request("POST", b"[" + b" " * 5000 + b"]", authorized)
    assert large.status == 413
    assert_cors(large)
    # a legacy session: a page can read its id
    legacy = {**authorized, "MCP-Protocol-Version": "2025-11-25"}
    del legacy["Mcp-Method"]
    opened = browser_server.request(
        "POST", rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}), legacy
    )
    assert opened.status == 200 and opened.headers["mcp-session-id"]
    assert_cors(opened)
    ended = browser_server.request(
        "DELETE", None, {**legacy, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
    )
    assert ended.status == 204
    assert_cors(ended)
    # no Origin (not a browser): no CORS headers
    plain = browser_server.request("POST", BODY, {**HEADERS, "Authorization": f"Bearer {TOKEN}"})
    assert plain.status == 200
    assert not [h for h in plain.headers if h.startswith("access-control-")]
    # a refused Origin: 403, nothing a browser would let the page read
    refused = browser_server.request("POST", BODY, {**authorized, "Origin": "https://evil.example"})
    assert refused.status == 403
    assert not [h for h in refused.headers if h.startswith("access-control-")]


def test_allow_host_star_never_allows_an_origin(examples_skp: Path) -> None:
    """``--allow-host '*'`` answers any Host (behind a proxy), but a page from any site
    must still not read the answers: its Origin is refused, preflight included, and no
    CORS header names it. ``--allow-origin`` alone opens CORS."""
    running = start_server(examples_skp, "--allow-host", "*")
    try:
        for origin in ("https://evil.example", "http://evil.example", "https://skills.example"):
            for host in (f"127.0.0.1:{running.port}", "evil.example", "skills.example"):
                response = running.request(
                    "POST", BODY, {**HEADERS, "Host": host, "Origin": origin}
                )
                assert response.status == 403, (host, origin, response.status)
                assert not [h for h in response.headers if h.startswith("access-control-")]
                status, headers, _ = _preflight(running, origin, host=host)
                assert status.startswith(b"HTTP/1.1 403 "), (host, origin, status)
                assert not [h for h in headers if h.startswith("access-control-")]
        # any Host without an Origin (not a browser) is answered; the server's own
        # address as Origin is a page of this server
        assert running.request("POST", BODY, {**HEADERS, "Host": "evil.example"}).status == 200
        own = f"http://127.0.0.1:{running.port}"
        response = running.request("POST", BODY, {**HEADERS, "Origin": own})
        assert response.status == 200
        assert response.headers["access-control-allow-origin"] == own
    finally:
        running.stop()
    running = start_server(examples_skp, "--allow-host", "*", "--allow-origin", APP)
    try:
        response = running.request("POST", BODY, {**HEADERS, "Host": "x.example", "Origin": APP})
        assert response.status == 200 and response.headers["access-control-allow-origin"] == APP
        status, headers, _ = _preflight(running, APP, host="x.example")
        assert status.startswith(b"HTTP/1.1 204 ") and headers["access-control-allow-origin"] == APP
        evil = running.request("POST", BODY, {**HEADERS, "Origin": "https://evil.example"})
        assert evil.status == 403
    finally:
        running.stop()


def test_any_origin_is_named_not_starred(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--allow-origin", "*")
    try:
        for origin in ("https://one.example", "http://localhost:5173"):
            response = running.request("POST", BODY, {**HEADERS, "Origin": origin})
            assert response.status == 200
            assert response.headers["access-control-allow-origin"] == origin
            status, headers, _ = _preflight(running, origin)
            assert status.startswith(b"HTTP/1.1 204 ")
            assert headers["access-control-allow-origin"] == origin
    finally:
        running.stop()


# -- what clients cannot make the server log ---------------------------------------------


def test_upgrade_and_connect_requests_are_logged_as_requests(token_server: HttpServer) -> None:
    """A client without a token asking for a WebSocket or a tunnel gets a refusal and one
    access log line, not warnings (one of uvicorn's wrongly advises installing a
    WebSocket library: no protocol is switched to here, by design)."""
    port = token_server.port
    upgrade = _raw(
        token_server,
        f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\n"
        "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode(),
    )
    reply = _read_all(upgrade)  # answered, then closed: nothing is switched to
    upgrade.close()
    assert reply.startswith(b"HTTP/1.1 401 "), reply[:80]
    assert b"connection: close" in reply.lower()
    rebinding = _raw(
        token_server,
        b"GET /mcp HTTP/1.1\r\nHost: evil.example\r\nConnection: Upgrade\r\n"
        b"Upgrade: websocket\r\n\r\n",
    )
    reply = _read_all(rebinding)  # refused before anything else, and closed too
    rebinding.close()
    assert reply.startswith(b"HTTP/1.1 403 ") and b"connection: close" in reply.lower()
    for target in ("example.com:443", f"127.0.0.1:{port}"):
        tunnel = _raw(token_server, f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        reply = _read_all(tunnel)
        tunnel.close()
        _refused(reply, 400)
    garbage = _raw(token_server, b"\x16\x03\x01 not http at all\r\n\r\n")  # TLS to plain http
    _refused(_read_all(garbage), 400)
    garbage.close()
    token_server.wait_for(r" GET /mcp 401 ")
    token_server.wait_for(r" CONNECT - 400 ")
    token_server.wait_for(r" - - 400 ")
    time.sleep(0.2)
    text = token_server.stderr()
    for noise in ("uvicorn", "WebSocket", "websockets", "Unsupported upgrade", "Invalid HTTP"):
        assert noise not in text, text
    assert len([line for line in token_server.lines if " CONNECT - 400 " in line]) == 2


# -- bearer tokens ----------------------------------------------------------------------

TOKEN = "s3cr3t-token-for-tests_0123456789"


@pytest.fixture(scope="module")
def token_server(
    examples_skp: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    token_file = tmp_path_factory.mktemp("token") / "token"
    token_file.write_text(TOKEN + "\n")
    running = start_server(examples_skp, "--token-file", token_file)
    yield running
    running.stop()


def test_a_missing_or_wrong_token_gets_401(token_server: HttpServer) -> None:
    missing = token_server.request("POST", BODY, HEADERS)
    assert missing.status == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="skillpack"'
    for value in (f"Bearer {TOKEN}x", "Bearer", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN[:-1]}"):
        wrong = token_server.request("POST", BODY, {**HEADERS, "Authorization": value})
        assert wrong.status == 401, value
        assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    # every path and method is behind the token, including ones that do not exist
    assert token_server.request("GET", None, {}, path="/elsewhere").status == 401
    for scheme in ("Bearer", "bearer"):
        ok = token_server.request("POST", BODY, {**HEADERS, "Authorization": f"{scheme} {TOKEN}"})
        assert ok.status == 200
    token_server.wait_for("bearer token required")
    assert TOKEN not in token_server.stderr()  # never logged


def test_the_token_from_the_environment(examples_skp: Path) -> None:
    running = start_server(examples_skp, env={"SKILLPACK_SERVE_TOKEN": TOKEN})
    try:
        assert running.request("POST", BODY, HEADERS).status == 401
        authorized = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}
        assert running.request("POST", BODY, authorized).status == 200
    finally:
        running.stop()


def test_check_and_vendor_send_the_token(token_server: HttpServer, tmp_path: Path) -> None:
    env = {"SKILLPACK_HTTP_TOKEN": TOKEN}
    checked = run_cli("check", "--url", token_server.url, "--json", env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = run_cli("check", "--url", token_server.url, "--era", "modern")
    assert refused.returncode == 1 and "401" in refused.stdout
    listed = run_cli("vendor", "--url", token_server.url, env=env)
    assert listed.returncode == 0 and "skill://pdf-processing/SKILL.md" in listed.stdout
    refused = run_cli("vendor", "--url", token_server.url, "--into", tmp_path / "out")
    assert refused.returncode == 1 and "401" in refused.stderr
    assert not (tmp_path / "out").exists()


# -- limits -----------------------------------------------------------------------------


def test_an_oversized_body_gets_413(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--max-body-bytes", "2000")
    try:
        padding = {**BODY, "params": {"_meta": META, "pad": "x" * 3000}}
        assert running.request("POST", padding, HEADERS).status == 413
        # without Content-Length (chunked): stopped as it streams in
        sock = _raw(
            running,
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
            + b"".join(b"400\r\n" + b" " * 1024 + b"\r\n" for _ in range(3)),
        )
        reply = _read_all(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 413 "), reply[:80]
        assert running.request("POST", BODY, HEADERS).status == 200  # still serving
    finally:
        running.stop()


def test_a_client_that_never_finishes_its_headers_does_not_stop_others(
    examples_skp: Path,
) -> None:
    running = start_server(examples_skp, "--header-timeout", "1")
    try:
        slow = _raw(running, f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode())
        for _ in range(20):
            assert running.request("POST", BODY, HEADERS).status == 200
        reply = _read_all(slow)  # after the header timeout: 408, then the server closes
        slow.close()
        _refused(reply, 408)
        # a connection that sends nothing at all is closed too
        silent = socket.create_connection((running.host, running.port), timeout=10)
        _refused(_read_all(silent), 408)
        silent.close()
        # each in the access log, as the requests the app answers are
        running.wait_for(r" POST - 408 \d+ \d")
        running.wait_for(r" - - 408 ")
    finally:
        running.stop()


def test_a_later_request_on_a_kept_alive_connection_has_the_header_timeout_too(
    examples_skp: Path,
) -> None:
    """After a request is answered, the next one on the connection is timed again, even
    when its first bytes hold a blank line that does not end its headers (empty lines
    before a request line are allowed)."""
    running = start_server(examples_skp, "--header-timeout", "1")
    try:
        body = json.dumps(BODY).encode()
        whole = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode()
            + b"".join(f"{k}: {v}\r\n".encode() for k, v in HEADERS.items())
            + b"Content-Length: %d\r\n\r\n" % len(body)
            + body
        )
        sock = _raw(running, whole)
        first = b""
        while b"\r\n\r\n" not in first:
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200 "), first[:80]
        sock.sendall(f"\r\n\r\nPOST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode())
        started = time.monotonic()
        rest = _read_all(sock)
        sock.close()
        assert time.monotonic() - started < 8
        reply = rest[rest.index(b"HTTP/1.1 408 ") :]  # after the rest of the first reply
        _refused(reply, 408)
    finally:
        running.stop()


def test_a_body_that_never_arrives_gets_408_and_idle_connections_close(
    examples_skp: Path,
) -> None:
    running = start_server(examples_skp, "--body-timeout", "1", "--keepalive-timeout", "1")
    try:
        sock = _raw(
            running,
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode(),
        )
        reply = _read_all(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 408 "), reply[:80]
        assert b"connection: close" in reply.lower()
        idle = running.connect()
        assert running.request("POST", BODY, HEADERS, conn=idle).status == 200
        assert idle.sock is not None
        idle.sock.settimeout(10)
        assert idle.sock.recv(1) == b""  # closed by the server once idle
        idle.close()
    finally:
        running.stop()


def test_headers_too_large_get_431(server: HttpServer) -> None:
    sock = _raw(
        server,
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Big: ".encode()
        + b"a" * 40_000
        + b"\r\n\r\n",
    )
    reply = _read_all(sock)
    sock.close()
    _refused(reply, 431)
    server.wait_for(r" POST - 431 ")


def test_connections_over_the_limit_get_503(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--max-connections", "2")
    try:
        held = [running.connect(), running.connect()]
        for conn in held:  # each answered, then kept alive
            assert running.request("POST", BODY, HEADERS, conn=conn).status == 200
        extra = socket.create_connection((running.host, running.port), timeout=10)
        reply = _read_all(extra)
        _refused(reply, 503)
        assert b"\r\nretry-after: 1\r\n" in reply
        extra.close()
        running.wait_for(r" - - 503 ")
        held[0].close()
        deadline = time.monotonic() + 10
        while True:  # the closed one frees its slot once the server has seen it go
            try:
                if running.request("POST", BODY, HEADERS).status == 200:
                    break
            except (http.client.HTTPException, OSError):
                pass
            assert time.monotonic() < deadline, "no slot was freed"
            time.sleep(0.05)
        held[1].close()
    finally:
        running.stop()


# -- binding ----------------------------------------------------------------------------


def _no_bind_env(tmp_path: Path) -> dict[str, str]:
    """A child environment whose every socket bind is refused and reported on stderr."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import socket, sys\n"
        "def _refuse(self, address):\n"
        "    sys.stderr.write(f'TEST-BIND {address!r}\\n')\n"
        "    raise OSError(1, 'binding is not allowed in this test')\n"
        "socket.socket.bind = _refuse\n"
    )
    return {"PYTHONPATH": f"{site}{os.pathsep}{REPO}"}


@pytest.mark.parametrize("address", ["0.0.0.0:0", "[::]:0", "192.0.2.10:8080", "example.com:80"])
def test_a_non_loopback_address_without_a_token_is_refused_before_binding(
    examples_skp: Path, tmp_path: Path, address: str
) -> None:
    proc = run_cli("serve", "--http", address, examples_skp, env=_no_bind_env(tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "SRV021" in proc.stderr and "--no-auth" in proc.stderr and "--token-file" in proc.stderr
    assert "TEST-BIND" not in proc.stderr and "listening" not in proc.stderr


def test_no_auth_or_a_token_lets_a_non_loopback_address_through(
    examples_skp: Path, tmp_path: Path
) -> None:
    """Past the refusal the server goes on to bind (here: refused by the test)."""
    env = _no_bind_env(tmp_path)
    for extra, more_env in ((["--no-auth"], {}), ([], {"SKILLPACK_SERVE_TOKEN": TOKEN})):
        proc = run_cli(
            "serve", "--http", "0.0.0.0:0", *extra, examples_skp, env={**env, **more_env}
        )
        assert proc.returncode == 2, proc.stderr
        assert "TEST-BIND ('0.0.0.0', 0)" in proc.stderr and "SRV022" in proc.stderr


def test_usage_errors(examples_skp: Path, tmp_path: Path) -> None:
    for args, code in [
        (["--token-file", "t", examples_skp], "SRV025"),  # HTTP options need --http
        (["--http", "127.0.0.1:0", "--certfile", tmp_path / "c.pem", examples_skp], "SRV023"),
        (["--http", "127.0.0.1:0", "--token-file", tmp_path / "none", examples_skp], "SRV021"),
    ]:
        proc = run_cli("serve", *args)
        assert proc.returncode == 2 and code in proc.stderr, (args, proc.stderr)
    for bad in ("127.0.0.1:99999", "::1:80", "host:", "[::1:80"):
        proc = run_cli("serve", "--http", bad, examples_skp)
        assert proc.returncode == 2 and "--http" in proc.stderr, bad
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        proc = run_cli("serve", "--http", f"127.0.0.1:{busy.getsockname()[1]}", examples_skp)
        assert proc.returncode == 2 and "SRV022" in proc.stderr, proc.stderr
    finally:
        busy.close()


def test_without_the_http_extra_the_option_names_it(examples_skp: Path, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    (shadow / "uvicorn").mkdir(parents=True)
    (shadow / "uvicorn" / "__init__.py").write_text(
        "raise ImportError('No module named uvicorn')\n"
    )
    proc = run_cli(
        "serve",
        "--http",
        "127.0.0.1:0",
        examples_skp,
        env={"PYTHONPATH": f"{shadow}{os.pathsep}{REPO}"},
    )
    assert proc.returncode == 2
    assert "SRV020" in proc.stderr and "pip install 'skillpack[http]'" in proc.stderr


def test_without_httptools_the_h11_parser_keeps_every_limit(
    examples_skp: Path, tmp_path: Path
) -> None:
    """Where httptools does not install, uvicorn parses with h11: the limits skillpack
    adds around uvicorn's protocol (header time and size) and the app's own (body size,
    refusals as JSON-RPC errors) hold there too."""
    shadow = tmp_path / "shadow"
    (shadow / "httptools").mkdir(parents=True)
    (shadow / "httptools" / "__init__.py").write_text(
        "raise ImportError('No module named httptools')\n"
    )
    running = start_server(
        examples_skp,
        "--header-timeout",
        "1",
        env={"PYTHONPATH": f"{shadow}{os.pathsep}{REPO}"},
    )
    try:
        maps = Path(f"/proc/{running.proc.pid}/maps")
        if maps.exists():  # the C parser is not loaded: h11 answers
            assert "httptools" not in maps.read_text()
        assert running.request("POST", BODY, HEADERS).status == 200
        # a client that never finishes its headers: 408 and closed, others still served
        slow = _raw(running, f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode())
        assert running.request("POST", BODY, HEADERS).status == 200
        _refused(_read_all(slow), 408)
        slow.close()
        big = _raw(
            running,
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\nX-Big: ".encode()
            + b"a" * 40_000
            + b"\r\n\r\n",
        )
        _refused(_read_all(big), 431)
        big.close()
        garbage = _raw(running, b"NOT HTTP AT ALL\r\n\r\n")
        _refused(_read_all(garbage), 400)
        garbage.close()
        large = _raw(
            running,
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n".encode()
            + b"".join(f"{k}: {v}\r\n".encode() for k, v in HEADERS.items())
            + b"Content-Length: %d\r\n\r\n{" % (5 * 1024 * 1024),
        )
        _refused(_read_all(large), 413)  # answered from its Content-Length alone
        large.close()
        running.wait_for(r" POST - 408 ")
        running.wait_for(r" POST - 431 ")
    finally:
        running.stop()


# -- TLS --------------------------------------------------------------------------------


def _self_signed(directory: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    certfile, keyfile = directory / "cert.pem", directory / "key.pem"
    certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    keyfile.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certfile, keyfile


def test_tls(examples_skp: Path, tmp_path: Path) -> None:
    certfile, keyfile = _self_signed(tmp_path)
    running = start_server(examples_skp, "--certfile", certfile, "--keyfile", keyfile)
    try:
        assert running.scheme == "https"
        context = ssl.create_default_context(cafile=str(certfile))
        conn = http.client.HTTPSConnection(running.host, running.port, context=context, timeout=10)
        conn.request("POST", "/mcp", body=json.dumps(BODY), headers=HEADERS)
        reply = conn.getresponse()
        assert reply.status == 200 and b'"skills"' in reply.read()
        conn.close()
        # plain HTTP on the TLS port gets no MCP answer
        try:
            plain = _read_all(
                _raw(running, f"GET /mcp HTTP/1.1\r\nHost: {running.host}\r\n\r\n".encode())
            )
        except OSError:
            plain = b""
        assert not plain.startswith(b"HTTP/1.1")
        checked = run_cli(
            "check", "--url", running.url, "--era", "modern", env={"SSL_CERT_FILE": str(certfile)}
        )
        assert checked.returncode == 0, checked.stdout
    finally:
        running.stop()
    (tmp_path / "other").mkdir()
    _, other_key = _self_signed(tmp_path / "other")
    proc = run_cli(
        "serve",
        "--http",
        "127.0.0.1:0",
        "--certfile",
        certfile,
        "--keyfile",
        other_key,
        examples_skp,
    )
    assert proc.returncode == 2 and "SRV023" in proc.stderr, proc.stderr


# -- shutdown and workers ---------------------------------------------------------------


def test_sigterm_answers_the_request_in_flight(examples_skp: Path) -> None:
    running = start_server(examples_skp)
    body = json.dumps(BODY).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{running.port}\r\n"
        "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
        f"Mcp-Method: skills/list\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock = _raw(running, head + body[:10])
    time.sleep(0.5)  # the request is in flight: its headers are in, its body is not
    running.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    sock.sendall(body[10:])
    reply = _read_all(sock)
    sock.close()
    assert reply.startswith(b"HTTP/1.1 200 "), reply[:200]
    assert b'"skills"' in reply
    assert running.proc.wait(timeout=30) == 0
    with pytest.raises(OSError):  # no longer listening
        socket.create_connection((running.host, running.port), timeout=2).close()


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _wait_children(pid: int, count: int) -> list[int]:
    deadline = time.monotonic() + 20
    while len(children := _children(pid)) != count:
        assert time.monotonic() < deadline, f"{pid} has children {children}, not {count}"
        time.sleep(0.05)
    return children


def test_workers_share_sessions_and_are_restarted(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--workers", "2")
    try:
        running.wait_for("2 workers")
        workers = _wait_children(running.proc.pid, 2)
        session, _ = initialize(running)
        for index in range(20):  # a new connection each time: either worker answers
            response = running.request(
                "POST", rpc("skills/list", {}, index), session_headers(session)
            )
            assert response.status == 200, response.body
        os.kill(workers[0], signal.SIGKILL)
        running.wait_for("starting it again")
        assert workers[0] not in _wait_children(running.proc.pid, 2)
        for _ in range(10):
            assert running.request("POST", BODY, HEADERS).status == 200
        assert running.request("DELETE", None, session_headers(session)).status == 204
        response = running.request("POST", rpc("skills/list", {}, 99), session_headers(session))
        assert response.status == 404  # ended for every worker
        children = _children(running.proc.pid)
    finally:
        code = running.stop()
    assert code == 0
    assert children and not [child for child in children if Path(f"/proc/{child}").exists()]


def test_serve_help_lists_the_http_options() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=True,
    )
    for option in (
        "--http",
        "--token-file",
        "--no-auth",
        "--allow-host",
        "--workers",
        "--certfile",
    ):
        assert option in proc.stdout


def test_the_defaults_serve_help_shows_are_the_ones_applied() -> None:
    """Each HTTP option's default in ``serve --help`` is the value the transport and its
    server apply (one source, read by both, so the help cannot drift from them)."""
    from skillpack.server.transports import http, http_defaults, http_serve

    proc = subprocess.run(
        [sys.executable, "-m", "skillpack", "serve", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "400"},
        check=True,
    )
    shown: dict[str, str] = {}
    flag = ""
    for line in proc.stdout.splitlines():  # an option's help may wrap: its block of lines
        if line.strip().startswith("--"):
            flag = line.split()[0]
        if flag and "[default: " in line:
            shown[flag] = line.rsplit("[default: ", 1)[1].split("]")[0]
    limits = http_serve.Limits()
    settings = http.HttpSettings(host="127.0.0.1", port=1)
    sessions = http.SessionTable()
    applied = {
        "--path": settings.path,
        "--max-body-bytes": settings.max_body_bytes,
        "--max-sessions": sessions.capacity,
        "--session-idle": sessions.idle_s,
        "--header-timeout": limits.header_timeout,
        "--max-connections": limits.max_connections,
        "--keepalive-timeout": limits.keepalive_timeout,
        "--grace": limits.grace,
        "--body-timeout": http_defaults.BODY_TIMEOUT_S,
        "--workers": http_defaults.WORKERS,
        "--log-format": http_defaults.LOG_FORMAT,
    }
    for flag, value in applied.items():
        assert shown.get(flag) == str(value), (flag, shown.get(flag), value)
