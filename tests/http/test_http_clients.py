"""``skillpack serve --http`` through real MCP clients over Streamable HTTP.

* MCP Inspector 2.12 CLI ``--verify`` (every file's size and sha256), legacy and modern
  eras; skipped without node/npm;
* FastMCP 4.2.3 ``Client`` with ``StreamableHttpTransport`` and ``SkillsClientExtension``:
  ``read_skill`` on every skill;
* the official ``mcp`` 2.3.0 SDK client on the URL, in auto, legacy and 2026-07-28 modes.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, cli_env
from tests.http.conftest import HttpServer

CLIENTS = REPO / "tests" / "clients"
EXPECTED = {  # the examples' skills, by SKILL.md URI -> number of files
    "skill://acme/billing/refunds/SKILL.md": 2,
    "skill://brand-assets/SKILL.md": 3,
    "skill://git-workflow/SKILL.md": 2,
    "skill://git-workflow/commit-messages/SKILL.md": 1,
    "skill://pdf-processing/SKILL.md": 3,
}


@pytest.fixture(scope="session")
def inspector() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not found")
    proc = subprocess.run(
        ["bash", str(CLIENTS / "install.sh")], capture_output=True, text=True, timeout=600
    )
    binary = CLIENTS / "node_modules" / ".bin" / "mcp-inspector"
    assert proc.returncode == 0 and binary.exists(), f"npm install failed: {proc.stderr[-2000:]}"
    return binary


def _inspect(inspector: Path, tmp_path: Path, url: str, era: str, *method: str) -> Any:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    proc = subprocess.run(
        [
            str(inspector),
            "--cli",
            url,
            "--transport",
            "http",
            *method,
            "--protocol-era",
            era,
            "--format",
            "json",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=cli_env({"HOME": str(home)}),
    )
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    text = proc.stdout.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # --verify prints one JSON object per skill
        return [json.loads(line) for line in text.splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_verifies_every_file_over_http(
    inspector: Path, tmp_path: Path, server: HttpServer, era: str
) -> None:
    reports = _inspect(inspector, tmp_path, server.url, era, "--method", "skills/list", "--verify")
    assert {r["uri"]: len(r["files"]) for r in reports} == EXPECTED
    for report in reports:
        assert report["ok"] is True and report["outcome"] == "verified", report
        assert report["conformance"] == [] and report["frontmatter"] == []
        assert {f["status"] for f in report["files"]} == {"verified"}


@pytest.mark.slow
def test_inspector_directory_read_over_http(
    inspector: Path, tmp_path: Path, server: HttpServer
) -> None:
    for era in ("legacy", "modern"):
        got = _inspect(
            inspector,
            tmp_path,
            server.url,
            era,
            "--method",
            "resources/directory/read",
            "--uri",
            "skill://pdf-processing",
        )
        assert [c["name"] for c in got["result"]["resources"]] == [
            "SKILL.md",
            "references",
            "scripts",
        ]


def test_fastmcp_read_skill_over_http(server: HttpServer) -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport
    from fastmcp.skills.client import SkillsClientExtension

    async def run() -> dict[str, int]:
        read: dict[str, int] = {}
        transport = StreamableHttpTransport(server.url)
        async with Client(transport, extensions=[SkillsClientExtension()]) as client:
            entries = await client.list_skills_mcp()
            for entry in entries.skills:
                skill = await client.read_skill(entry.uri)  # verifies size + sha256 + frontmatter
                assert skill.name == entry.frontmatter.root["name"]
                read[entry.uri] = len(entry.resources)
        return read

    assert asyncio.run(run()) == EXPECTED
    server.wait_for(r"POST /mcp 200 \d+ \S+ rpc=skills/list era=modern")


@pytest.mark.parametrize("mode", ["auto", "legacy", "2026-07-28"])
def test_mcp_sdk_streamable_http_client(mode: str, server: HttpServer) -> None:
    import mcp_types as types
    from mcp import Client
    from mcp_types.methods import validate_server_result
    from pydantic import TypeAdapter

    async def raw(client: Client, method: str, **request_params: Any) -> dict[str, Any]:
        request = types.Request[dict[str, Any], str](method=method, params=request_params)
        result: dict[str, Any] = await client.session.send_request(
            request, TypeAdapter(dict[str, Any])
        )
        return result

    async def run() -> None:
        async with Client(server.url, mode=mode) as client:
            modern = mode != "legacy"
            assert (client.protocol_version == "2026-07-28") is modern
            if mode != "2026-07-28":
                assert client.server_info is not None and client.server_info.name == "skillpack"
                assert client.instructions and "acme-skills 1.0.0" in client.instructions
            listed = await client.list_resources()
            uris = [r.uri for r in listed.resources]
            assert "skill://pdf-processing/scripts/extract.py" in uris
            for uri in uris:
                read = await client.read_resource(uri)
                assert str(read.contents[0].uri) == uri
            skills = await raw(client, "skills/list")
            assert sorted(s["uri"] for s in skills["skills"]) == sorted(EXPECTED)
            if modern:
                for method, result in [
                    ("resources/list", await raw(client, "resources/list")),
                    ("resources/read", await raw(client, "resources/read", uri=uris[0])),
                    ("server/discover", await raw(client, "server/discover")),
                ]:
                    validate_server_result(method, "2026-07-28", result)

    asyncio.run(run())
