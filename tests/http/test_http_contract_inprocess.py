"""The HTTP contract without a socket: :class:`Contract`, the Host/Origin rules, the
``Accept`` rule and the session table, called with plain values on the example bundle."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillpack.server.content import VerifiedReader
from skillpack.server.handlers import Methods, ServeOptions
from skillpack.server.index import Index
from skillpack.server.protocol import Protocol
from skillpack.server.sources import load_mounts
from skillpack.server.transports import http
from tests.http.conftest import META


def _log(message: str) -> None:
    pass


@pytest.fixture(scope="module")
def methods(examples_skp: Path) -> Iterator[Methods]:
    mounts = load_mounts([examples_skp], [""], lint=False, log=_log)
    yield Methods(Index(mounts), ServeOptions(), VerifiedReader(_log))
    for mount in mounts:
        mount.source.close()


def _contract(methods: Methods, **settings: object) -> http.Contract:
    values: dict[str, object] = {"host": "127.0.0.1", "port": 8080, **settings}
    return http.Contract(
        http.HttpSettings(**values),  # type: ignore[arg-type]
        Protocol(methods, _log, sticky=False),
        http.legacy_protocols(lambda v: Protocol(methods, _log, legacy_version=v, sticky=False)),
        http.SessionTable(),
    )


def _headers(**extra: str) -> list[tuple[bytes, bytes]]:
    base = {
        "host": "127.0.0.1:8080",
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "skills/list",
        **extra,
    }
    return [(k.encode(), v.encode()) for k, v in base.items()]


def _answer(
    contract: http.Contract, headers: list[tuple[bytes, bytes]], body: object
) -> http.Reply:
    checked = contract.check("POST", "/mcp", headers)
    assert isinstance(checked, http.Request), checked
    return contract.respond(checked, json.dumps(body).encode())


def test_a_request_is_answered_without_a_socket(methods: Methods) -> None:
    contract = _contract(methods)
    body = {"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {"_meta": META}}
    reply = _answer(contract, _headers(), body)
    assert reply.status == 200 and reply.era == "modern" and reply.rpc == "skills/list"
    assert len(json.loads(b"".join(reply.body))["result"]["skills"]) == 5


def test_duplicate_security_headers_are_refused(methods: Methods) -> None:
    contract = _contract(methods)
    twice = [*_headers(), (b"host", b"evil.example.com")]
    refused = contract.check("POST", "/mcp", twice)
    assert isinstance(refused, http.Reply) and refused.status == 400
    assert isinstance(
        contract.check("POST", "/mcp", [*_headers(), (b"x-any", b"2"), (b"x-any", b"3")]),
        http.Request,
    )


@pytest.mark.parametrize(
    ("settings", "host", "ok"),
    [
        ({}, "127.0.0.1:8080", True),
        ({}, "127.0.0.1", False),  # not on the default port
        ({"port": 80}, "localhost", True),
        ({"port": 443, "tls": True}, "localhost", True),
        ({"port": 443, "tls": True}, "localhost:80", False),
        ({"host": "[::1]"}, "[::1]:8080", True),
        ({"host": "0.0.0.0"}, "0.0.0.0:8080", True),
        ({"host": "0.0.0.0"}, "192.168.1.5:8080", False),
        ({"allow_hosts": ("skills.example.com",)}, "skills.example.com:9999", True),
        ({"allow_hosts": ("skills.example.com:443",)}, "skills.example.com", False),
        ({"allow_hosts": ("*",)}, "anything.example:1", True),
    ],
)
def test_host_rules(settings: dict[str, object], host: str, ok: bool) -> None:
    values: dict[str, object] = {"host": "127.0.0.1", "port": 8080, **settings}
    rules = http._HostRules(http.HttpSettings(**values))  # type: ignore[arg-type]
    assert rules.host_ok(host.encode()) is ok


@pytest.mark.parametrize(
    ("accept", "ok"),
    [
        ("application/json", True),
        ("application/json, text/event-stream", True),
        ("text/event-stream, application/*;q=0.1", True),
        ("*/*", True),
        ("text/event-stream", False),
        ("application/json;q=0", False),
        ("application/json;q=bogus", False),
        ("application/jsonx", False),
    ],
)
def test_accept(accept: str, ok: bool) -> None:
    assert http._accepts_json(accept.encode()) is ok


def test_session_table(monkeypatch: pytest.MonkeyPatch) -> None:
    table = http.SessionTable(capacity=2, idle_s=60)
    first, second = table.create("2025-11-25"), table.create("2025-03-26")
    assert first and second and first != second
    assert table.create("2025-11-25") is None  # full of live sessions
    assert table.touch(second.encode()) == "2025-03-26"
    assert table.end(first.encode()) and not table.end(first.encode())
    assert table.touch(first.encode()) is None
    third = table.create("2024-11-05")
    assert third is not None and table.touch(third.encode()) == "2024-11-05"
    assert table.touch(b"../" + b"0" * 29) is None and table.touch(b"") is None
    later = time.monotonic() + 61
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert table.touch(second.encode()) is None  # expired
    assert table.create("2025-11-25") is not None  # an expired slot is reused


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_the_session_table_is_shared_with_forked_workers() -> None:
    table = http.SessionTable(capacity=8)
    table.share_between_processes()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a worker opens a session
        os.close(read)
        os.write(write, (table.create("2025-06-18") or "").encode())
        os._exit(0)
    os.close(write)
    session = os.read(read, 64)
    os.close(read)
    assert os.waitpid(pid, 0)[1] == 0
    assert table.touch(session) == "2025-06-18"  # seen by the parent (another worker)


def test_a_bug_is_a_500_with_a_json_rpc_error_and_one_log_line(
    methods: Methods, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    contract = _contract(methods)

    def broken(*request: object) -> None:
        raise RuntimeError("a bug")

    # a bug under the contract (in the Protocol the request is handed to)
    monkeypatch.setattr(contract.stateless, "handle_message", broken)
    monkeypatch.setattr(contract.stateless, "handle_request", broken)
    logged: list[str] = []
    app = http.App(contract, None, log=logged.append)
    sent: list[dict[str, object]] = []
    body = {"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {"_meta": META}}

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": _headers()}
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 500
    error = json.loads(sent[1]["body"])["error"]  # type: ignore[arg-type]
    assert error == {"code": -32603, "message": "Internal error"}
    assert logged == ["internal error: RuntimeError: a bug"]
