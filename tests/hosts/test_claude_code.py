"""A real agent host, Claude Code 2.1.328 (tests/hosts, node 22), run offline against
``skillpack serve`` over stdio and over HTTP, with a loopback stand-in for the Messages
API (:mod:`tests.hosts.messages_api`) that records every request and answers with
scripted tool calls.

Claude Code never calls ``skills/list``: what its model learns of the skills is the
server's instructions (which it puts in the first request) and what its tools return.
So: the first request names every skill of the bundle with its ``SKILL.md`` URI; a
scripted ``ReadMcpResourceTool`` call returns the verified ``SKILL.md`` (the
``tool_result`` the next request carries holds the bundle's bytes); and a scripted
``load_skill`` call (the server's tool, ``mcp__skills__load_skill``) does too.

Skipped where tests/hosts/node_modules is not installed (tests/hosts/install.sh).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLES, REPO, run_cli
from tests.hosts.messages_api import MessagesApi, text, tool_use

HOSTS = Path(__file__).resolve().parent / "node_modules"
CLAUDE = HOSTS / ".bin" / "claude"
NODE_BIN = HOSTS / "node" / "bin"
SERVER = "skills"  #: the name the MCP configuration gives the server

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (CLAUDE.exists() and NODE_BIN.is_dir()),
        reason="Claude Code is not installed (tests/hosts/install.sh)",
    ),
]

READ = "skill://pdf-processing/SKILL.md"
LOADED = "brand-assets"
SCRIPT = [
    [tool_use("ReadMcpResourceTool", {"server": SERVER, "uri": READ}, "toolu_read")],
    [tool_use(f"mcp__{SERVER}__load_skill", {"name": LOADED}, "toolu_load")],
    [text("done with the skills")],
]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "acme-skills.skp"
    built = run_cli("build", EXAMPLES, "-o", out)
    assert built.returncode == 0, built.stderr
    return out


def skill_files(bundle: Path) -> dict[str, bytes]:
    """Every file of the bundle by its URI, as the archive holds it."""
    with zipfile.ZipFile(bundle) as archive:
        return {f"skill://{n}": archive.read(n) for n in archive.namelist()
                if not n.startswith(".skillpack/")}  # fmt: skip


def skill_names(files: dict[str, bytes]) -> dict[str, str]:
    """SKILL.md URI -> the frontmatter name, read from the bytes themselves."""
    names = {}
    for uri, data in files.items():
        if uri.endswith("/SKILL.md"):
            found = re.search(rb"^name: *(\S+)$", data, re.MULTILINE)
            assert found, uri
            names[uri] = found[1].decode()
    return names


def host_env(home: Path, api: MessagesApi) -> dict[str, str]:
    """Only what the host needs: no credentials or settings of the machine's own."""
    return {
        "PATH": f"{NODE_BIN}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "ANTHROPIC_BASE_URL": api.url,
        "ANTHROPIC_API_KEY": "sk-ant-test-dummy",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "NO_COLOR": "1",
    }


def run_claude(home: Path, api: MessagesApi, server: dict[str, Any]) -> dict[str, Any]:
    """``claude --print`` with only this MCP server; its JSON result."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {SERVER: server}}), encoding="utf-8")
    proc = subprocess.run(
        [str(CLAUDE), "--print", "--output-format", "json", "--mcp-config", str(config),
         "--strict-mcp-config", f"--allowedTools=mcp__{SERVER}__load_skill",
         "Which skills can you use here?"],
        cwd=home, env=host_env(home, api), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outcome: dict[str, Any] = json.loads(proc.stdout)
    return outcome


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def tool_result(request: Any, use_id: str) -> Any:
    """The content of the ``tool_result`` for ``use_id`` in a request's messages."""
    for message in request["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == use_id:
                    assert not block.get("is_error"), block
                    return block["content"]
    raise AssertionError(f"no tool_result for {use_id}")


def stdio_server(*extra: str, bundle: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "skillpack", "serve", *extra, str(bundle)],
            "env": {"PYTHONPATH": str(REPO)}}  # fmt: skip


@pytest.fixture(scope="module")
def http_url(bundle: Path) -> Iterator[str]:
    from tests.http.conftest import start_server

    running = start_server(bundle)
    try:
        yield running.url
    finally:
        assert running.stop() == 0


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_claude_code_learns_the_skills_and_reads_them_verified(
    transport: str, bundle: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    files = skill_files(bundle)
    if transport == "stdio":
        server = stdio_server(bundle=bundle)
    else:
        server = {"type": "http", "url": request.getfixturevalue("http_url")}
    with MessagesApi(SCRIPT) as api:
        outcome = run_claude(tmp_path / "home", api, server)
    assert outcome["result"] == "done with the skills"
    first, after_read, after_load = api.agent_requests[:3]
    # the first request names every skill of the bundle with its SKILL.md URI
    (instructions,) = (s for s in strings(first) if "served by skillpack" in s)
    names = skill_names(files)
    assert len(names) == 5
    for uri, name in names.items():
        assert f'- "{name}" {uri} "' in instructions, (name, uri)
    assert f"mcp__{SERVER}__load_skill" in json.dumps(first)  # the tool is offered
    # ReadMcpResourceTool returned the verified SKILL.md, byte for byte
    read = json.loads(tool_result(after_read, "toolu_read"))
    (contents,) = read["contents"]
    assert contents["uri"] == READ and contents["text"].encode() == files[READ]
    # and so did the server's own tool
    loaded = tool_result(after_load, "toolu_load")
    assert loaded[0]["type"] == "text"
    assert loaded[0]["text"].encode() == files[f"skill://{LOADED}/SKILL.md"]
    assert f"skill://{LOADED}/assets/palette.json" in loaded[1]["text"]


def test_with_extension_only_claude_code_sees_no_skill(bundle: Path, tmp_path: Path) -> None:
    """The contrast: a server that speaks only the extension tells Claude Code no skill
    (what this host got before issue 23), and offers no tool."""
    script = [[tool_use("ReadMcpResourceTool", {"server": SERVER, "uri": READ}, "toolu_read")],
              [text("done")]]  # fmt: skip
    with MessagesApi(script) as api:
        run_claude(tmp_path / "home", api, stdio_server("--extension-only", bundle=bundle))
    first = api.agent_requests[0]
    (instructions,) = (s for s in strings(first) if "served by skillpack" in s)
    assert "skill://" not in instructions
    assert f"mcp__{SERVER}__load_skill" not in json.dumps(first)
    # resources still work
    read = json.loads(tool_result(api.agent_requests[1], "toolu_read"))
    assert read["contents"][0]["text"].encode() == skill_files(bundle)[READ]
