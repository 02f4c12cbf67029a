"""``skillpack check --url`` and ``skillpack vendor --url``: the checker and the verifying
client over Streamable HTTP, against ``skillpack serve --http``."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli
from tests.http.conftest import HttpServer


def test_check_url_passes_in_both_eras(server: HttpServer) -> None:
    proc = run_cli("check", "--url", server.url, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["summary"] == {"pass": 14, "warn": 0, "fail": 0, "skip": 0}
    assert {(s["era"], s["status"]) for s in report["scenarios"]} == {
        ("modern", "pass"),
        ("legacy", "pass"),
    }
    # the legacy run opened a session and ended it
    server.wait_for(r"DELETE /mcp 204")


def test_check_url_fails_on_a_server_that_is_not_there() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = run_cli("check", "--url", f"http://127.0.0.1:{port}/mcp")
    assert proc.returncode == 1
    assert "connect" in proc.stdout and "cannot reach" in proc.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--url", "http://127.0.0.1:9/mcp", "--", "python", "server.py"], "CLI004", "not both"),
        ([], "CLI002", "no server given"),
        (["--url", "ftp://127.0.0.1/mcp"], "CLI005", "is not an http:// or https:// URL"),
    ],
)
def test_check_needs_exactly_one_server(args: list[str], code: str, message: str) -> None:
    proc = run_cli("check", *args)
    assert proc.returncode == 2 and code in proc.stderr and message in proc.stderr


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_vendor_url_writes_every_verified_file(
    server: HttpServer, tmp_path: Path, era: str
) -> None:
    into = tmp_path / "vendor"
    proc = run_cli("vendor", "--era", era, "--url", server.url, "--into", into)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "vendored 5 skills" in proc.stdout and "every file verified" in proc.stdout
    config = (into / "skillpack.toml").read_text()
    assert f"# origin: {server.url}" in config
    source = EXAMPLES / "skills"
    expected = {
        p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*") if p.is_file()
    }
    got = {
        p.relative_to(into).as_posix(): p.read_bytes()
        for p in into.rglob("*")
        if p.is_file() and p.name != "skillpack.toml"
    }
    assert got == expected


def test_vendor_url_lists(server: HttpServer) -> None:
    proc = run_cli("vendor", "--url", server.url)
    assert proc.returncode == 0, proc.stderr
    assert "skill://pdf-processing/SKILL.md\t3 files" in proc.stdout
