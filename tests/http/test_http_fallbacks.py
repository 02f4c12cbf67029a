"""Skills for hosts without the Skills extension (issue 23) over Streamable HTTP: the
instructions, the prompts and the ``load_skill`` tool of a real ``serve --http``
subprocess, in both eras, return exactly the bundle's bytes; the budget holds for 1,000
skills; ``--extension-only`` turns them off; a tampered bundle never starts.

The stdio side of the same is tests/test_serve_fallbacks.py, whose decoding helpers this
module shares."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp_wire import check

from tests.conftest import EXAMPLES, run_cli, write_skill
from tests.http.conftest import HttpServer, initialize, rpc, session_headers, start_server
from tests.test_serve_fallbacks import BUDGET, archived, entries

FIRST = "Agent Skills from the bundle acme-skills 1.0.0 (5 skills), served by skillpack."


def result(server: HttpServer, method: str, **params: Any) -> dict[str, Any]:
    response = server.modern(method, params)
    assert response.status == 200, (method, response.status, response.body[:300])
    message = response.json()
    assert "result" in message, message
    out: dict[str, Any] = message["result"]
    return out


def listed(server: HttpServer, method: str, key: str) -> list[dict[str, Any]]:
    """Every item of a paginated modern list."""
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        page = result(server, method, **({"cursor": cursor} if cursor else {}))
        items.extend(page[key])
        cursor = page.get("nextCursor")
        if not cursor:
            return items


def test_instructions_prompts_and_tool_return_the_bundle_bytes(
    server: HttpServer, examples_skp: Path
) -> None:
    files = archived(examples_skp)
    discovered = result(server, "server/discover")
    assert discovered["capabilities"]["prompts"] == {}
    assert discovered["capabilities"]["tools"] == {}
    assert discovered["instructions"].startswith(FIRST)
    skills = listed(server, "skills/list", "skills")
    assert len(skills) == 5
    # every skill is named, with its URI and description, as quoted data
    assert {(s["frontmatter"]["name"], s["uri"], s["frontmatter"]["description"])
            for s in skills} == set(entries(discovered["instructions"]))  # fmt: skip
    prompts = listed(server, "prompts/list", "prompts")
    assert [p["name"] for p in prompts] == [s["frontmatter"]["name"] for s in skills]
    (tool,) = result(server, "tools/list")["tools"]
    assert tool["name"] == "load_skill" and tool["annotations"]["readOnlyHint"] is True
    check("core", "Tool", tool)
    for skill in skills:
        name = skill["frontmatter"]["name"]
        got = result(server, "prompts/get", name=name)
        resource = got["messages"][0]["content"]["resource"]
        assert resource["uri"] == skill["uri"]
        assert resource["text"].encode() == files[skill["uri"]]
        called = result(server, "tools/call", name="load_skill", arguments={"name": name})
        assert called["isError"] is False
        assert called["content"][0]["text"].encode() == files[skill["uri"]]
        root = skill["uri"].removesuffix("SKILL.md")
        for entry in skill["resources"]:
            if entry["uri"] == skill["uri"]:
                continue
            path = entry["uri"].removeprefix(root)
            arguments = {"name": name, "file": path}
            one = result(server, "tools/call", name="load_skill", arguments=arguments)
            (block,) = one["content"]
            data = (
                block["text"].encode()
                if block["type"] == "text"
                else base64.b64decode(block["resource"]["blob"])
            )
            assert data == files[entry["uri"]], entry["uri"]


def test_the_name_header_must_match_the_tool_or_prompt(server: HttpServer) -> None:
    """SEP-2243: ``Mcp-Name`` repeats the body's tool or prompt name; a mismatch is refused
    before anything is read."""
    for method, params in [
        ("tools/call", {"name": "load_skill", "arguments": {"name": "refunds"}}),
        ("prompts/get", {"name": "refunds"}),
    ]:
        response = server.modern(method, params, headers={"Mcp-Name": "brand-assets"})
        assert response.status == 400, (method, response.status)
        assert "result" not in response.json()


def test_a_legacy_session_gets_the_instructions_prompts_and_tool(
    server: HttpServer, examples_skp: Path
) -> None:
    files = archived(examples_skp)
    session, initialized = initialize(server)
    assert initialized["instructions"].startswith(FIRST)
    assert len(entries(initialized["instructions"])) == 5
    assert {"prompts", "tools"} <= set(initialized["capabilities"])
    headers = session_headers(session)

    def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = server.request("POST", rpc(method, params), headers)
        assert response.status == 200, (method, response.status, response.body[:300])
        body = response.body.decode()
        if body.startswith(("event:", "data:")):  # an SSE answer: its one data line
            body = next(line[5:] for line in body.splitlines() if line.startswith("data:"))
        message: dict[str, Any] = json.loads(body)["result"]
        return message

    tools = call("tools/list", {})
    assert "ttlMs" not in tools and tools["tools"][0]["name"] == "load_skill"
    got = call("prompts/get", {"name": "brand-assets"})
    text = got["messages"][0]["content"]["resource"]["text"]
    assert text.encode() == files["skill://brand-assets/SKILL.md"]
    called = call("tools/call", {"name": "load_skill", "arguments": {"name": "brand-assets"}})
    assert called["content"][0]["text"] == text


def test_extension_only_offers_none_of_them_over_http(examples_skp: Path) -> None:
    running = start_server(examples_skp, "--extension-only")
    try:
        discovered = result(running, "server/discover")
        assert set(discovered["capabilities"]) == {"resources", "extensions"}
        assert "skill://" not in discovered["instructions"]
        for method, params in [
            ("tools/list", {}),
            ("prompts/list", {}),
            ("prompts/get", {"name": "refunds"}),
            ("tools/call", {"name": "load_skill", "arguments": {"name": "refunds"}}),
        ]:
            message = running.modern(method, params).json()
            assert message["error"]["code"] == -32601, (method, message)
        assert len(listed(running, "skills/list", "skills")) == 5
    finally:
        running.stop()


@pytest.fixture(scope="module")
def thousand(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("thousand")
    for number in range(1000):
        said = f"Reviews invoices and refunds for team {number}. " * 4
        write_skill(root / "skills", f"skill-{number:04d}", description=said)
    out = root / "thousand.skp"
    built = run_cli("build", root / "skills", "-o", out, "--no-lint", timeout=600)
    assert built.returncode == 0, built.stderr
    return out


def test_the_budget_holds_for_1000_skills_over_http(thousand: Path) -> None:
    running = start_server(thousand)
    try:
        instructions = result(running, "server/discover")["instructions"]
        description = result(running, "tools/list")["tools"][0]["description"]
        skills = {s["uri"]: s for s in listed(running, "skills/list", "skills")}
        assert len(skills) == 1000
        for text in (instructions, description):
            assert len(text) <= BUDGET
            shown = entries(text)
            assert 20 <= len(shown) < 1000
            for name, uri, said in shown:
                assert skills[uri]["frontmatter"]["name"] == name
                assert skills[uri]["frontmatter"]["description"] == said
        assert f"{1000 - len(entries(instructions))} more of the 1000 skills" in instructions
        assert len(listed(running, "prompts/list", "prompts")) == 1000
    finally:
        running.stop()


def test_a_tampered_bundle_never_starts_over_http(tmp_path: Path) -> None:
    from tests._bundles import rewrite, set_entry

    bundle = tmp_path / "examples.skp"
    assert run_cli("build", EXAMPLES, "-o", bundle).returncode == 0
    broken = rewrite(bundle, tmp_path / "broken.skp",
                     set_entry("pdf-processing/SKILL.md", b"---\nname: x\n---\n"))  # fmt: skip
    with pytest.raises(AssertionError, match=r"exited \(1\)") as raised:
        start_server(broken).stop()
    assert "BND009" in str(raised.value) and "pdf-processing/SKILL.md" in str(raised.value)
