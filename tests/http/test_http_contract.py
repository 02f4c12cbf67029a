"""The Streamable HTTP contract of ``skillpack serve --http``, request by request, against
a real server on 127.0.0.1 (statuses, headers, the eras, sessions, limits, the log).

The header cases of the official harness's http-header-validation scenario (which
probes them with tools/list, a method this server does not have) are made here on
``skills/list`` and ``resources/read``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from mcp_wire import UNENCODABLE, check

from tests.conftest import write_skill
from tests.http.conftest import (
    META,
    HttpServer,
    initialize,
    modern_headers,
    rpc,
    session_headers,
    start_server,
)

JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
README = "skill://pdf-processing/SKILL.md"


def _error(response: Any, status: int, code: int, request_id: Any = None) -> dict[str, Any]:
    assert response.status == status, (response.status, response.body)
    assert response.headers["content-type"] == "application/json"
    message = response.json()
    assert message["error"]["code"] == code, message
    if request_id is None:
        assert "id" not in message
    else:
        assert message["id"] == request_id  # error responses carry the request id
    assert b"Traceback" not in response.body
    error: dict[str, Any] = message["error"]
    return error


# -- 2026-07-28 ------------------------------------------------------------------------


def test_modern_requests_are_answered_statelessly(server: HttpServer) -> None:
    discover = server.modern("server/discover", request_id="d-1")
    assert discover.status == 200 and discover.headers["content-type"] == "application/json"
    message = discover.json()
    assert message["id"] == "d-1"
    check("core", "JSONRPCResultResponse", message)
    assert message["result"]["supportedVersions"] == ["2026-07-28"]
    assert "mcp-session-id" not in discover.headers  # no sessions in this era
    listing = server.modern("skills/list").json()["result"]
    assert listing["resultType"] == "complete" and listing["ttlMs"] == 300000
    read = server.modern("resources/read", {"uri": README}).json()["result"]
    assert read["contents"][0]["text"].startswith("---\nname: pdf-processing\n")


def test_modern_error_statuses(server: HttpServer) -> None:
    _error(server.modern("skills/nope", request_id=7), 404, -32601, 7)
    for removed in ("initialize", "ping", "resources/subscribe", "logging/setLevel"):
        _error(server.modern(removed, request_id=8), 404, -32601, 8)
    error = _error(server.modern("resources/read", {"uri": "skill://x/y.md"}), 400, -32602, 1)
    assert error["data"] == {"uri": "skill://x/y.md"}
    _error(server.modern("skills/list", {"cursor": "bogus"}), 400, -32602, 1)
    # missing or incomplete _meta, with a 2026-07-28 header
    for params in ({}, {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}):
        body = rpc("skills/list", params, 3)
        _error(server.request("POST", body, modern_headers("skills/list")), 400, -32602, 3)
    incomplete = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    response = server.request(
        "POST", rpc("skills/list", incomplete, 4), modern_headers("skills/list")
    )
    _error(response, 400, -32602, 4)


def test_the_protocol_version_header_must_equal_meta_and_is_checked_first(
    server: HttpServer,
) -> None:
    old = {**META, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}
    body = rpc("skills/list", {"_meta": old}, 5)
    # header 2026-07-28, _meta 1900-01-01: a mismatch, before the version is looked at
    error = _error(server.request("POST", body, modern_headers("skills/list")), 400, -32020, 5)
    assert error["data"] == {"header": "MCP-Protocol-Version"}
    # both 1900-01-01: an unsupported version
    headers = {**modern_headers("skills/list"), "MCP-Protocol-Version": "1900-01-01"}
    error = _error(server.request("POST", body, headers), 400, -32022, 5)
    assert error["data"] == {"supported": ["2026-07-28"], "requested": "1900-01-01"}
    # no header at all, with the envelope
    headers = {
        k: v for k, v in modern_headers("skills/list").items() if k != "MCP-Protocol-Version"
    }
    _error(server.request("POST", rpc("skills/list", {"_meta": META}, 6), headers), 400, -32020, 6)


def test_mcp_method_header(server: HttpServer) -> None:
    """The cases of the harness's http-header-validation, on skills/list."""
    body = rpc("skills/list", {"_meta": META}, 9)
    base = {k: v for k, v in modern_headers("skills/list").items() if k != "Mcp-Method"}
    for value in ("resources/list", "SKILLS/LIST"):  # mismatched, case-mismatched value
        error = _error(server.request("POST", body, {**base, "Mcp-Method": value}), 400, -32020, 9)
        assert error["data"] == {"header": "Mcp-Method"}
    _error(server.request("POST", body, base), 400, -32020, 9)  # missing
    for name in ("mcp-method", "MCP-METHOD"):  # header names are case-insensitive
        assert server.request("POST", body, {**base, name: "skills/list"}).status == 200
    # optional whitespace around a value is not part of it
    assert server.request("POST", body, {**base, "Mcp-Method": "  skills/list\t"}).status == 200


def test_mcp_name_header_for_resources_read(server: HttpServer) -> None:
    params = {"uri": README, "_meta": META}
    body = rpc("resources/read", params, 10)
    base = {k: v for k, v in modern_headers("resources/read", params).items() if k != "Mcp-Name"}
    _error(server.request("POST", body, base), 400, -32020, 10)  # missing
    other = {**base, "Mcp-Name": "skill://brand-assets/SKILL.md"}
    error = _error(server.request("POST", body, other), 400, -32020, 10)
    assert error["data"] == {"header": "Mcp-Name"}
    assert server.request("POST", body, {**base, "Mcp-Name": f"  {README}  "}).status == 200
    encoded = "=?base64?" + base64.b64encode(README.encode()).decode() + "?="
    assert server.request("POST", body, {**base, "Mcp-Name": encoded}).status == 200
    for bad in ("=?base64?c2tpbGw6Ly8?=", "=?base64?c2t!!!pbGw=?="):  # bad padding, alphabet
        _error(server.request("POST", body, {**base, "Mcp-Name": bad}), 400, -32020, 10)


def test_notifications_and_client_responses_get_202(server: HttpServer) -> None:
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": META}},
        {"jsonrpc": "2.0", "id": 99, "result": {}},
    ):
        headers = modern_headers(str(message.get("method", "")))
        if "method" not in message:
            headers.pop("Mcp-Method")
        response = server.request("POST", message, headers)
        assert (response.status, response.body) == (202, b""), message


@pytest.mark.parametrize("era", ["no-session", "session"])
def test_legacy_notifications_and_client_responses_get_202(
    server: HttpServer, era_headers: dict[str, dict[str, str]], era: str
) -> None:
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 99, "result": {}},
        {"jsonrpc": "2.0", "id": "r", "error": {"code": -1, "message": "no"}},
        {"jsonrpc": "2.0", "error": {"code": -32700, "message": "parse error"}},
    ):
        response = server.request("POST", message, era_headers[era])
        assert (response.status, response.body) == (202, b""), message


# -- legacy -----------------------------------------------------------------------------


def test_legacy_sessions(server: HttpServer) -> None:
    session, result = initialize(server, "2025-06-18")
    assert result["protocolVersion"] == "2025-06-18" and "resultType" not in result
    assert session.isascii() and session.isprintable() and len(session) >= 32
    assert initialize(server)[0] != session  # unguessable, one per initialize
    headers = session_headers(session, "2025-06-18")
    notified = server.request(
        "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers
    )
    assert notified.status == 202
    listing = server.request("POST", rpc("skills/list", {}, 2), headers)
    assert listing.status == 200
    assert "resultType" not in listing.json()["result"]  # legacy shapes
    # a JSON-RPC error travels with 200 in the legacy era
    missing = server.request("POST", rpc("resources/read", {"uri": "skill://x/y.md"}, 3), headers)
    assert missing.status == 200 and missing.json()["error"]["code"] == -32002
    # no session, or an unknown one
    legacy = {**JSON, "MCP-Protocol-Version": "2025-06-18"}
    _error(server.request("POST", rpc("skills/list", {}, 4), legacy), 400, -32600, 4)
    unknown = session_headers("0" * 32, "2025-06-18")
    _error(server.request("POST", rpc("skills/list", {}, 5), unknown), 404, -32600, 5)
    _error(
        server.request("POST", rpc("skills/list", {}, 5), session_headers("not-hex")),
        404,
        -32600,
        5,
    )
    # initialize always opens a new session, even sent with an existing one
    again = server.request(
        "POST", rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}), headers
    )
    assert again.status == 200 and again.headers["mcp-session-id"] not in ("", session)
    # DELETE ends it; later requests with it get 404
    assert server.request("DELETE", None, headers).status == 204
    _error(server.request("POST", rpc("skills/list", {}, 6), headers), 404, -32600, 6)
    _error(server.request("DELETE", None, headers), 404, -32600)
    _error(server.request("DELETE", None, JSON), 400, -32600)


def test_a_session_takes_only_the_version_it_negotiated(server: HttpServer) -> None:
    """The legacy revisions: the client sends the negotiated version in
    MCP-Protocol-Version, and an invalid or unsupported one is a 400. In a session only
    the negotiated version is supported: its answers are shaped by it."""
    session, _ = initialize(server, "2025-11-25")
    listing = rpc("skills/list", {}, 7)
    assert server.request("POST", listing, session_headers(session, "2025-11-25")).status == 200
    no_header = {k: v for k, v in session_headers(session).items() if k != "MCP-Protocol-Version"}
    assert server.request("POST", listing, no_header).status == 200  # the session knows it
    for other in ("2025-03-26", "2025-06-18", "2026-07-28", "1900-01-01", " 2025-11-25x"):
        response = server.request("POST", listing, session_headers(session, other))
        error = _error(response, 400, -32600, 7)
        assert "2025-11-25" in error["message"], error
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    response = server.request("POST", notification, session_headers(session, "2025-03-26"))
    _error(response, 400, -32600)
    # optional whitespace around the value is not part of it
    assert server.request("POST", listing, session_headers(session, " 2025-11-25\t")).status == 200
    # DELETE too: refused with another version, and the session lives on
    _error(server.request("DELETE", None, session_headers(session, "2025-06-18")), 400, -32600)
    assert server.request("POST", listing, session_headers(session)).status == 200
    assert server.request("DELETE", None, session_headers(session)).status == 204
    # an ended session is 404 whatever the header says
    response = server.request("POST", listing, session_headers(session, "2025-03-26"))
    _error(response, 404, -32600, 7)
    # a session negotiated at 2025-03-26 (whose clients send no header) takes its own
    old, _ = initialize(server, "2025-03-26")
    assert server.request("POST", listing, session_headers(old, "2025-03-26")).status == 200
    _error(server.request("POST", listing, session_headers(old, "2025-11-25")), 400, -32600, 7)
    assert server.request("DELETE", None, session_headers(old, "2025-03-26")).status == 204


def test_a_modern_request_on_a_session_connection_is_still_stateless(server: HttpServer) -> None:
    session, _ = initialize(server)
    headers = {**session_headers(session), **modern_headers("skills/list")}
    response = server.request("POST", rpc("skills/list", {"_meta": META}, 1), headers)
    assert response.json()["result"]["resultType"] == "complete"


def test_ping_without_a_session(server: HttpServer) -> None:
    response = server.request("POST", rpc("ping", None, 11), JSON)
    assert response.status == 200 and response.json() == {"jsonrpc": "2.0", "id": 11, "result": {}}


def test_sessions_are_bounded_and_expire(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--max-sessions", "2", "--session-idle", "1")
    try:
        first, _ = initialize(running)
        second, _ = initialize(running)
        full = running.request("POST", rpc("initialize", {"protocolVersion": "2025-11-25"}), JSON)
        _error(full, 503, -32600, 1)
        assert full.headers["retry-after"]
        assert running.request("DELETE", None, session_headers(first)).status == 204
        third, _ = initialize(running)  # the slot it freed
        time.sleep(1.5)  # longer than --session-idle
        response = running.request("POST", rpc("skills/list", {}, 2), session_headers(second))
        _error(response, 404, -32600, 2)
        initialize(running)  # expired sessions make room
        del third
    finally:
        assert running.stop() == 0


# -- everywhere -------------------------------------------------------------------------


def test_http_level_refusals(server: HttpServer) -> None:
    body = rpc("skills/list", {"_meta": META})
    headers = modern_headers("skills/list")
    get = server.request("GET", None, {"Accept": "text/event-stream"})
    _error(get, 405, -32600)
    assert get.headers["allow"] == "POST, DELETE, OPTIONS"
    for method in ("PUT", "PATCH", "HEAD"):
        response = server.request(method, b"{}", headers)
        assert response.status == 405
        assert response.headers["allow"] == "POST, DELETE, OPTIONS"
    options = server.request("OPTIONS", None, {})  # not a CORS preflight: the methods
    assert (options.status, options.body) == (204, b"")
    assert options.headers["allow"] == "POST, DELETE, OPTIONS"
    assert "content-length" not in options.headers
    assert "access-control-allow-origin" not in options.headers
    for accept in ("text/event-stream", "text/html", "application/json;q=0, text/plain"):
        _error(server.request("POST", body, {**headers, "Accept": accept}), 406, -32600)
    no_accept = {k: v for k, v in headers.items() if k != "Accept"}
    assert server.request("POST", body, no_accept).status == 200
    assert server.request("POST", body, {**headers, "Accept": "*/*"}).status == 200
    for content_type in ("text/plain", "application/x-www-form-urlencoded"):
        response = server.request("POST", body, {**headers, "Content-Type": content_type})
        _error(response, 415, -32600)
    no_type = {k: v for k, v in headers.items() if k != "Content-Type"}
    _error(server.request("POST", body, no_type), 415, -32600)
    charset = {**headers, "Content-Type": "application/json; charset=utf-8"}
    assert server.request("POST", body, charset).status == 200
    for path in ("/", "/mcp/", "/other", "/MCP"):
        _error(server.request("POST", body, headers, path=path), 404, -32600)
    assert server.request("POST", body, headers, path="/mcp?x=1").status == 200  # not the path


@pytest.fixture(scope="module")
def era_headers(server: HttpServer) -> dict[str, dict[str, str]]:
    """The headers of each way a message can arrive: 2026-07-28 headers, none (a legacy
    client before or without a session), and in a legacy session."""
    session, _ = initialize(server)
    return {
        "modern": modern_headers("skills/list"),
        "no-session": JSON,
        "session": session_headers(session),
    }


@pytest.mark.parametrize("era", ["modern", "no-session", "session"])
@pytest.mark.parametrize(
    ("data", "code", "request_id"),
    [
        (b"{not json", -32700, None),
        (b"\xff\xfe{}", -32700, None),
        (b"", -32700, None),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":NaN}}', -32700, None),
        (b"[" * 50_000 + b"]" * 50_000, -32700, None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"skills/list"}]', -32600, None),
        (b"42", -32600, None),
        # JSON objects that are neither a request, a notification nor a response
        (b"{}", -32600, None),
        (b'{"foo":1}', -32600, None),
        (b'{"jsonrpc":"2.0","method":5}', -32600, None),
        (b'{"jsonrpc":"2.0","id":3,"method":5}', -32600, 3),
        (b'{"jsonrpc":"2.0","id":"x"}', -32600, "x"),
        (b'{"jsonrpc":"1.0","method":"notifications/initialized"}', -32600, None),
        (b'{"method":"notifications/initialized"}', -32600, None),
        (b'{"jsonrpc":"2.0","method":"notifications/initialized","params":5}', -32600, None),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","result":{}}', -32600, None),
        (b'{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1}}', -32600, 4),
        (b'{"jsonrpc":"2.0","id":5,"error":"no"}', -32600, 5),
    ],
)
def test_malformed_bodies_and_batches_are_400(
    server: HttpServer,
    era_headers: dict[str, dict[str, str]],
    era: str,
    data: bytes,
    code: int,
    request_id: Any,
) -> None:
    """Whatever the era: a notification or response that is not well formed is not
    accepted (202 is only for well-formed ones), and no request is answered 200."""
    response = server.request("POST", data, era_headers[era])
    _error(response, 400, code, request_id)


@pytest.mark.parametrize("era", ["modern", "no-session", "session"])
@pytest.mark.parametrize(("data", "code", "field", "request_id"), UNENCODABLE)
def test_a_string_utf8_cannot_encode_is_400_naming_its_field(
    server: HttpServer,
    era_headers: dict[str, dict[str, str]],
    era: str,
    data: bytes,
    code: int,
    field: str,
    request_id: Any,
) -> None:
    """A lone surrogate (``"\\ud800"``) in the id, the method, the params or anywhere in
    a request: 400 with -32600 (-32602 in params) naming the field, never 500, and the
    id only when it can be sent back."""
    response = server.request("POST", data, era_headers[era])
    error = _error(response, 400, code, request_id)
    assert error["data"] == {"field": field}
    check("core", "JSONRPCErrorResponse", response.json())
    assert server.modern("skills/list").status == 200
    assert "internal error" not in server.stderr()


def test_a_large_file_streams_with_its_digest(tmp_path: Path) -> None:
    blob = bytes(range(256)) * 4096  # 1 MiB, not UTF-8: a base64 blob, streamed in chunks
    write_skill(tmp_path / "tree", "big", files={"assets/blob.bin": blob})
    running = start_server("-q", tmp_path / "tree")
    try:
        uri = "skill://big/assets/blob.bin"
        with contextlib.closing(running.connect()) as conn:  # one keep-alive connection
            response = running.modern("resources/read", {"uri": uri}, conn=conn)
            assert response.status == 200
            assert response.headers.get("transfer-encoding") == "chunked"
            item = response.json()["result"]["contents"][0]
            assert (
                hashlib.sha256(base64.b64decode(item["blob"])).digest()
                == hashlib.sha256(blob).digest()
            )
            assert running.modern("server/discover", conn=conn).status == 200
    finally:
        assert running.stop() == 0


def test_a_changed_file_is_never_sent(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    write_skill(tree, "notes", files={"notes.md": "the original\n"})
    running = start_server(tree)
    try:
        (tree / "notes" / "notes.md").write_text("changed after the start\n")
        response = running.modern("resources/read", {"uri": "skill://notes/notes.md"})
        error = _error(response, 500, -32603, 1)
        assert error["data"] == {"uri": "skill://notes/notes.md"}
        assert b"changed after" not in response.body
        running.wait_for(r"INT001 skill://notes/notes.md")
    finally:
        running.stop()


def test_access_log_text_and_json(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--log-format", "json")
    try:
        running.modern("skills/list")
        running.request("POST", b"{}", modern_headers("x"), path="/mcp?secret=hunter2")
        line = running.wait_for(r'"rpc":"skills/list"')
        entry = json.loads(line)
        assert entry["status"] == 200 and entry["method"] == "POST" and entry["path"] == "/mcp"
        assert entry["era"] == "modern" and entry["bytes"] > 100 and entry["ms"] >= 0
        running.wait_for(r'"status":400')
        assert "hunter2" not in running.stderr()  # the query string is never logged
    finally:
        assert running.stop() == 0
    quiet = start_server(examples_skp, "-q")
    try:
        quiet.modern("skills/list")
        assert quiet.stop() == 0
        assert not [line for line in quiet.lines if "POST /mcp" in line]
    finally:
        quiet.stop()
