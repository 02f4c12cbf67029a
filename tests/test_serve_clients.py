"""skillpack serve through real MCP clients (see ../shared/spec/clients.md).

* MCP Inspector 2.12 CLI ``--verify`` (checks every file's size and sha256), legacy and
  modern eras, on the example bundle and on a bundle of the spec vectors; skipped
  without node/npm;
* FastMCP 4.2.3 ``Client`` + ``SkillsClientExtension``: ``read_skill`` on every skill;
* the official ``mcp`` 2.3.0 SDK client in auto, legacy and 2026-07-28 modes, its core
  results also checked with ``mcp_types.methods.validate_server_result``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_wire import HANG_GUARD_S, VECTOR_FILES, check, vector_tree

from tests.conftest import EXAMPLES, REPO, cli_env, run_cli

CLIENTS = REPO / "tests" / "clients"
EXT = "io.modelcontextprotocol/skills"
EXPECTED = {  # the examples' skills, by SKILL.md URI -> number of files
    "skill://acme/billing/refunds/SKILL.md": 2,
    "skill://brand-assets/SKILL.md": 3,
    "skill://git-workflow/SKILL.md": 2,
    "skill://git-workflow/commit-messages/SKILL.md": 1,
    "skill://pdf-processing/SKILL.md": 3,
}


def _server_args(*sources: Path | str) -> list[str]:
    return ["-m", "skillpack", "serve", "-q", *map(str, sources)]


# -- MCP Inspector ------------------------------------------------------------------


@pytest.fixture(scope="session")
def inspector() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not found")
    proc = subprocess.run(
        ["bash", str(CLIENTS / "install.sh")], capture_output=True, text=True, timeout=600
    )
    binary = CLIENTS / "node_modules" / ".bin" / "mcp-inspector"
    # node is here: an install that fails is a failure, not a reason to skip
    assert proc.returncode == 0 and binary.exists(), f"npm install failed: {proc.stderr[-2000:]}"
    return binary


def _build(source: Path, out: Path) -> Path:
    built = run_cli("build", source, "-o", out)
    assert built.returncode == 0, built.stderr
    return out


@pytest.fixture(scope="module")
def examples_skp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples as a real bundle: what hosts serve."""
    return _build(EXAMPLES, tmp_path_factory.mktemp("examples") / "acme-skills.skp")


@pytest.fixture(scope="module")
def vectors_skp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = vector_tree(tmp_path_factory.mktemp("vectors") / "tree")
    return _build(root, root.parent / "vectors.skp")


def _inspect(inspector: Path, tmp_path: Path, era: str, source: Path, *method: str) -> Any:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    command = [
        str(inspector),
        "--cli",
        sys.executable,
        *_server_args(source),
        *method,
        "--protocol-era",
        era,
        "--format",
        "json",
        "-q",
    ]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S * 2,
        env=cli_env({"HOME": str(home)}),
    )
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    text = proc.stdout.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # --verify prints one JSON object per skill
        return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_verifies_every_file(
    inspector: Path, tmp_path: Path, examples_skp: Path, era: str
) -> None:
    reports = _inspect(
        inspector, tmp_path, era, examples_skp, "--method", "skills/list", "--verify"
    )
    assert {r["uri"]: len(r["files"]) for r in reports} == EXPECTED
    for report in reports:
        assert report["ok"] is True and report["outcome"] == "verified", report
        assert report["conformance"] == [] and report["frontmatter"] == []
        assert {f["status"] for f in report["files"]} == {"verified"}


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_verifies_the_spec_vectors(
    inspector: Path, tmp_path: Path, vectors_skp: Path, era: str
) -> None:
    reports = _inspect(inspector, tmp_path, era, vectors_skp, "--method", "skills/list", "--verify")
    files = {f["uri"]: (f["actualSize"], f["actualDigest"]) for r in reports for f in r["files"]}
    assert files == VECTOR_FILES
    assert all(r["ok"] for r in reports)


def test_inspector_other_methods(inspector: Path, tmp_path: Path, examples_skp: Path) -> None:
    uri = "skill://pdf-processing/SKILL.md"
    got = _inspect(
        inspector, tmp_path, "modern", examples_skp, "--method", "skills/get", "--uri", uri
    )
    skill = got["result"]["skill"]
    assert skill["uri"] == uri and skill["frontmatter"]["name"] == "pdf-processing"
    directory = _inspect(
        inspector,
        tmp_path,
        "legacy",
        examples_skp,
        "--method",
        "resources/directory/read",
        "--uri",
        "skill://pdf-processing",
    )
    names = [c["name"] for c in directory["result"]["resources"]]
    assert names == ["SKILL.md", "references", "scripts"]
    read = _inspect(
        inspector,
        tmp_path,
        "modern",
        examples_skp,
        "--method",
        "resources/read",
        "--uri",
        "skill://brand-assets/assets/palette.json",
    )
    assert read["result"]["contents"][0]["mimeType"] == "application/json"


def test_inspector_modern_directory_read(
    inspector: Path, tmp_path: Path, examples_skp: Path
) -> None:
    directory = _inspect(
        inspector,
        tmp_path,
        "modern",
        examples_skp,
        "--method",
        "resources/directory/read",
        "--uri",
        "skill://pdf-processing",
    )
    assert "error" not in directory, directory


# -- FastMCP ------------------------------------------------------------------------


def test_fastmcp_read_skill_on_every_skill(examples_skp: Path) -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport
    from fastmcp.skills.client import SkillsClientExtension

    async def run() -> dict[str, int]:
        transport = StdioTransport(
            sys.executable, _server_args(examples_skp), env=cli_env(), keep_alive=False
        )
        read: dict[str, int] = {}
        async with Client(transport, extensions=[SkillsClientExtension()]) as client:
            entries = await client.list_skills_mcp()
            for entry in entries.skills:
                skill = await client.read_skill(entry.uri)  # verifies size + sha256 + frontmatter
                assert skill.name == entry.frontmatter.root["name"]
                read[entry.uri] = len(entry.resources)
        return read

    assert asyncio.run(run()) == EXPECTED


# -- the official mcp SDK -----------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy", "2026-07-28"])
def test_mcp_sdk_client(mode: str, examples_skp: Path) -> None:
    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPDeprecationWarning
    from mcp_types.methods import validate_server_result
    from pydantic import TypeAdapter

    params = StdioServerParameters(
        command=sys.executable, args=_server_args(examples_skp), env=cli_env(), cwd=os.getcwd()
    )

    async def raw(client: Client, method: str, **request_params: Any) -> dict[str, Any]:
        request = types.Request[dict[str, Any], str](method=method, params=request_params)
        result: dict[str, Any] = await client.session.send_request(
            request, TypeAdapter(dict[str, Any])
        )
        return result

    async def run() -> None:
        async with Client(params, mode=mode) as client:
            version = client.protocol_version
            modern = mode != "legacy"
            assert (version == "2026-07-28") is modern
            if mode != "2026-07-28":  # a pinned version adopts a synthesized discover result
                assert client.server_info is not None and client.server_info.name == "skillpack"
                assert client.instructions and "acme-skills 1.0.0" in client.instructions
            if mode == "auto":
                extensions = client.server_capabilities.extensions or {}
                assert extensions[EXT] == {"directoryRead": True}
            listed = await client.list_resources()
            uris = [r.uri for r in listed.resources]
            assert "skill://pdf-processing/scripts/extract.py" in uris
            templates = await client.list_resource_templates()
            assert templates.resource_templates[0].uri_template == "skill://{+path}"
            for uri in uris:
                read = await client.read_resource(uri)
                assert str(read.contents[0].uri) == uri
            skills = await raw(client, "skills/list")
            assert sorted(s["uri"] for s in skills["skills"]) == sorted(EXPECTED)
            got = await raw(client, "skills/get", uri="skill://git-workflow/SKILL.md")
            directory = await raw(client, "resources/directory/read", uri="skill://acme")
            assert directory["resources"][0]["uri"] == "skill://acme/billing"
            if modern:
                check("skills", "ListSkillsResult", skills)
                check("skills", "GetSkillResult", got)
                check("skills", "ReadResourceDirectoryResult", directory)
                for method, result in [
                    ("resources/list", await raw(client, "resources/list")),
                    ("resources/templates/list", await raw(client, "resources/templates/list")),
                    ("resources/read", await raw(client, "resources/read", uri=uris[0])),
                    ("server/discover", await raw(client, "server/discover")),
                ]:
                    validate_server_result(method, version, result)
                discovered = await raw(client, "server/discover")
                assert discovered["capabilities"]["extensions"][EXT] == {"directoryRead": True}
            else:
                with pytest.warns(MCPDeprecationWarning):
                    await client.send_ping()

    asyncio.run(run())
