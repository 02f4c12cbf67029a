"""skillpack serve, raw wire: both protocol eras, the request envelope, error codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_wire import META, VERSION, Server, check, modern_params

from tests.conftest import EXAMPLES

SKILLS = EXAMPLES / "skills"
EXT = "io.modelcontextprotocol/skills"


@pytest.fixture
def server() -> Server:
    with Server(SKILLS) as s:
        yield s


def test_discover_declares_resources_and_the_skills_extension(server: Server) -> None:
    result = server.modern("server/discover")
    assert result["supportedVersions"] == [VERSION]
    assert result["capabilities"]["resources"] == {}
    assert result["capabilities"]["extensions"] == {EXT: {"directoryRead": True}}
    check("skills", "SkillsCapability", result["capabilities"]["extensions"][EXT])
    assert result["resultType"] == "complete"
    assert result["ttlMs"] == 300000 and result["cacheScope"] == "public"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"]
    assert "serverInfo" not in result and "protocolVersion" not in result
    assert "acme-skills 1.0.0" in result["instructions"]
    code, stderr = server.close()
    assert code == 0
    assert "serving 5 skills" in stderr


@pytest.mark.parametrize(
    ("meta", "missing"),
    [
        (None, "_meta"),
        ({}, "protocolVersion"),
        ({"io.modelcontextprotocol/protocolVersion": VERSION}, "clientCapabilities"),
        (
            {
                "io.modelcontextprotocol/protocolVersion": 20260728,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
            "must be a string",
        ),
        ({**META, "io.modelcontextprotocol/clientCapabilities": []}, "must be an object"),
        ("not an object", "_meta must be an object"),
    ],
)
def test_incomplete_request_meta_is_invalid_params(
    server: Server, meta: object, missing: str
) -> None:
    params = {} if meta is None else {"_meta": meta}
    response = server.request("skills/list", params)
    assert response["error"]["code"] == -32602
    assert missing in response["error"]["message"]


def test_unknown_protocol_version_is_32022_with_supported_and_requested(server: Server) -> None:
    for requested in ("1900-01-01", "2025-11-25"):
        meta = {**META, "io.modelcontextprotocol/protocolVersion": requested}
        response = server.request("server/discover", {"_meta": meta})
        assert response["error"]["code"] == -32022
        assert response["error"]["data"] == {"supported": [VERSION], "requested": requested}
        check("core", "UnsupportedProtocolVersionError", response)


def test_every_modern_result_has_result_type_and_cache_fields_where_required(
    server: Server,
) -> None:
    cacheable = ["server/discover", "resources/list", "resources/templates/list", "skills/list"]
    for method in cacheable:
        result = server.modern(method)
        assert result["resultType"] == "complete"
        assert isinstance(result["ttlMs"], int) and result["cacheScope"] == "public", method
    uri = "skill://pdf-processing/SKILL.md"
    for method, result in [
        ("resources/read", server.modern("resources/read", uri=uri)),
        ("skills/get", server.modern("skills/get", uri=uri)),
    ]:
        assert result["ttlMs"] == 300000 and result["cacheScope"] == "public", method
    directory = server.modern("resources/directory/read", uri="skill://pdf-processing")
    assert directory["resultType"] == "complete"
    # not required by SEP-2640, but MCP Inspector 2.12 refuses the result without them
    assert directory["ttlMs"] == 300000 and directory["cacheScope"] == "public"


def test_ttl_and_cache_scope_options() -> None:
    with Server(SKILLS, "--ttl-ms", "0", "--cache-scope", "private") as server:
        for method in ("skills/list", "resources/list", "server/discover"):
            result = server.modern(method)
            assert (result["ttlMs"], result["cacheScope"]) == (0, "private")


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_legacy_initialize_negotiates_and_declares_the_extension(version: str) -> None:
    with Server(SKILLS) as server:
        assert server.request("ping")["result"] == {}  # legacy clients may ping first
        result = server.initialize(version)
        assert result["protocolVersion"] == version
        assert result["capabilities"]["extensions"][EXT] == {"directoryRead": True}
        assert result["capabilities"]["resources"] == {}
        assert result["serverInfo"]["name"] == "skillpack"
        assert "acme-skills" in result["instructions"]
        assert "resultType" not in result
        # legacy requests carry no _meta envelope
        listing = server.request("skills/list", {})["result"]
        assert [s["frontmatter"]["name"] for s in listing["skills"]][:2] == [
            "refunds",
            "brand-assets",
        ]
        assert "resultType" not in listing and "ttlMs" not in listing
        for skill in listing["skills"]:
            check("skills", "Skill", skill)
        read = server.request("resources/read", {"uri": "skill://git-workflow/SKILL.md"})
        assert read["result"]["contents"][0]["text"].startswith("---\nname: git-workflow\n")
        assert server.request("ping")["result"] == {}
        # a modern request on the same process is still served statelessly
        assert server.modern("skills/list")["resultType"] == "complete"


def test_legacy_initialize_with_an_unknown_version_gets_the_latest_legacy_one(
    server: Server,
) -> None:
    assert server.initialize("2099-01-01")["protocolVersion"] == "2025-11-25"
    assert server.initialize(VERSION)["protocolVersion"] == "2025-11-25"


def test_legacy_not_found_codes(server: Server) -> None:
    server.initialize()
    read = server.request("resources/read", {"uri": "skill://nope/SKILL.md"})
    assert read["error"]["code"] == -32002
    assert read["error"]["data"] == {"uri": "skill://nope/SKILL.md"}
    get = server.request("skills/get", {"uri": "skill://nope/SKILL.md"})
    assert get["error"]["code"] == -32602  # the extension's code, in both eras


def test_modern_not_found_codes_carry_the_uri(server: Server) -> None:
    for method, uri in [
        ("resources/read", "skill://nope/SKILL.md"),
        ("resources/read", "skill://pdf-processing"),  # a directory is not a file
        ("skills/get", "skill://nope/SKILL.md"),
        ("skills/get", "skill://pdf-processing/references/FORMS.md"),  # a file, not a skill
        ("resources/directory/read", "skill://pdf-processing/SKILL.md"),
        ("resources/directory/read", "skill://pdf-processing/"),  # no trailing slash
        ("resources/directory/read", "skill://nope"),
    ]:
        error = server.modern_error(method, uri=uri)
        assert error["code"] == -32602, (method, uri, error)
        assert error["data"] == {"uri": uri}
        assert uri in error["message"]


def test_unknown_methods_and_wrong_param_types(server: Server) -> None:
    error = server.modern_error("completion/complete")
    assert error["code"] == -32601
    assert server.modern_error("skills/nope")["code"] == -32601
    for method, params in [
        ("resources/read", {"uri": 5}),
        ("resources/read", {}),
        ("skills/get", {"uri": None}),
        ("resources/directory/read", {"uri": ["skill://a"]}),
        ("skills/list", {"cursor": 3}),
        ("resources/list", {"cursor": "garbage"}),
        ("resources/templates/list", {"cursor": "templates:1"}),
    ]:
        assert server.modern_error(method, **params)["code"] == -32602, (method, params)
    response = server.request("skills/list", [1, 2])
    assert response["error"]["code"] == -32602  # params must be an object
    initialize = server.request("initialize", {"protocolVersion": 2025})
    assert initialize["error"]["code"] == -32602


def test_initialize_and_ping_are_not_methods_of_the_2026_era(server: Server) -> None:
    """With the 2026-07-28 envelope, the legacy-only methods do not exist (-32601), and
    answering them changes nothing: the process is still not in a legacy era."""
    for method, params in [
        ("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}),
        ("ping", {}),
    ]:
        error = server.modern_error(method, **params)
        assert error["code"] == -32601, (method, error)
    # no handshake happened: a request without the envelope is still refused
    assert server.request("skills/list", {})["error"]["code"] == -32602
    # without the envelope, both are still the legacy methods
    assert server.request("ping")["result"] == {}
    assert server.initialize()["protocolVersion"] == "2025-11-25"


def test_no_directory_read_option() -> None:
    with Server(SKILLS, "--no-directory-read") as server:
        result = server.modern("server/discover")
        assert result["capabilities"]["extensions"] == {EXT: {}}
        error = server.modern_error("resources/directory/read", uri="skill://pdf-processing")
        assert error["code"] == -32601
        assert server.initialize()["capabilities"]["extensions"][EXT] == {}


def test_notifications_get_no_response(server: Server) -> None:
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    server.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "user"},
        }
    )
    server.send({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}})
    server.send({"jsonrpc": "2.0", "id": 99, "result": {}})  # a stray response
    # the next answer is the one to the next request
    assert server.modern("skills/list")["skills"]


def test_string_ids_are_echoed(server: Server) -> None:
    response = server.request("skills/list", modern_params(), id="abc-1")
    assert response["id"] == "abc-1"


def test_help_and_usage_errors(cli, tmp_path: Path) -> None:
    help_text = cli("serve", "--help")
    assert help_text.returncode == 0
    for option in ("--prefix", "--ttl-ms", "--cache-scope", "--page-size", "--no-directory-read"):
        assert option in help_text.stdout
    assert "serve" in cli("--help").stdout
    missing = cli("serve", tmp_path / "nope.skp")
    assert missing.returncode == 2
    # a missing path is USE001 in every command (it was SRV001 here)
    assert "USE001" in missing.stderr and "nope.skp" in missing.stderr
    assert missing.stdout == ""
    bad_prefix = cli("serve", "--prefix", "/x/", SKILLS)
    assert bad_prefix.returncode == 2 and "SRV005" in bad_prefix.stderr
    assert cli("serve", "--page-size", "0", SKILLS).returncode == 2
    assert cli("serve", "--cache-scope", "shared", SKILLS).returncode == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    none = cli("serve", empty)
    assert none.returncode == 2 and "SRV004" in none.stderr


def test_host_snippets_start_skillpack_serve() -> None:
    import json

    snippets = sorted((EXAMPLES / "hosts").glob("*.json"))
    assert {p.name for p in snippets} >= {"claude-desktop.json", "vscode.json", "cursor.json"}
    for path in snippets:
        config = json.loads(path.read_text("utf-8"))
        servers = config.get("mcpServers") or config["servers"]
        for server in servers.values():
            args = server["args"]
            assert "serve" in args, path
            if server["command"] != "skillpack":
                assert args[:3] == ["-m", "skillpack", "serve"], path


def test_the_typer_app_forwards_serve(tmp_path: Path) -> None:
    """``skillpack.cli.run(["serve", ...])`` (the typer app) reaches the same server."""
    import subprocess
    import sys

    from tests.conftest import cli_env

    def typer_app(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        code = "import sys; from skillpack.cli import run; sys.exit(run(sys.argv[1:]))"
        return subprocess.run([sys.executable, "-c", code, *args], input=stdin,
                              capture_output=True, env=cli_env(), timeout=60)  # fmt: skip

    served = typer_app(
        "serve", "-q", str(SKILLS), stdin=b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    )
    assert served.returncode == 0, served.stderr
    assert served.stdout == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    helped = typer_app("serve", "--help")
    assert helped.returncode == 0 and b"--no-directory-read" in helped.stdout
    wrong = typer_app("serve", "--bogus", str(SKILLS))
    assert wrong.returncode == 2 and b"--bogus" in wrong.stderr


def test_uris_match_after_rfc3986_normalization_and_nothing_else(tmp_path: Path) -> None:
    """resources/read, skills/get and directory reads find a file by any spelling RFC 3986
    calls the same (scheme case, percent-encoding case, encoded unreserved characters),
    and still refuse everything the bundle does not publish (issue 10 §6)."""
    from tests.lintutil import skill_md, write

    write(tmp_path / "notes" / "SKILL.md", skill_md("notes"))
    write(tmp_path / "notes" / "refs" / "café.md", "accents\n")
    with Server(tmp_path) as server:
        canonical = server.modern("resources/read", uri="skill://notes/refs/caf%C3%A9.md")
        assert canonical["contents"][0]["text"] == "accents\n"
        for spelling in (
            "skill://notes/refs/caf%c3%a9.md",
            "SKILL://notes/refs/caf%C3%a9.md",
            "Skill://%6Eotes/%72efs/caf%C3%A9.md",  # encoded unreserved letters
        ):
            result = server.modern("resources/read", uri=spelling)
            assert result["contents"] == canonical["contents"], spelling
        skill = server.modern("skills/get", uri="SKILL://notes/%53KILL.md")
        assert skill["skill"]["uri"] == "skill://notes/SKILL.md"
        listing = server.modern("resources/directory/read", uri="skill://notes/%72efs")
        assert [r["uri"] for r in listing["resources"]] == ["skill://notes/refs/caf%C3%A9.md"]
        for method, uri in [
            ("resources/read", "skill://notes/refs/../SKILL.md"),  # dot segments match nothing
            ("resources/read", "skill://notes/refs/%2E%2E/SKILL.md"),
            ("resources/read", "skill://notes/refs%2Fcaf%C3%A9.md"),  # an encoded '/' stays one
            ("resources/read", "skill://NOTES/SKILL.md"),  # the authority is not case-folded
            ("resources/read", "skill://notes/SKILL.md%00"),
            ("resources/read", "skill://notes/refs/caf%C3%A9.md/"),
            ("resources/read", "file:///etc/passwd"),
            ("resources/read", "skill://notes/../../etc/passwd"),
            ("skills/get", "skill://notes/refs/caf%c3%a9.md"),  # a file, not a skill
            ("resources/directory/read", "skill://notes/refs/caf%c3%a9.md"),
        ]:
            error = server.modern_error(method, uri=uri)
            assert error["code"] == -32602, (method, uri, error)
            assert error["data"] == {"uri": uri}
        assert (
            "is not a directory resource"
            in server.modern_error(
                "resources/directory/read", uri="skill://notes/refs/caf%c3%a9.md"
            )["message"]
        )
        assert (
            "is a directory resource"
            in server.modern_error("resources/read", uri="SKILL://notes/refs")["message"]
        )


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=30).filter(lambda s: "\x00" not in s), st.data())
def test_served_uris_are_in_normal_form(path: str, data: st.DataObject) -> None:
    """Every URI a bundle publishes is its own normal form, and any spelling of it with
    the scheme or the hex digits in another case, or an unreserved character encoded,
    normalizes back to it."""
    import re

    from skillpack._internal.uri import file_uri, normalize_uri

    uri = file_uri("notes", path)
    assert normalize_uri(uri) == uri

    def respell(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("%"):
            return text.lower() if data.draw(st.booleans()) else text
        return f"%{ord(text):02x}" if data.draw(st.booleans()) else text

    body = re.sub(r"%[0-9A-F]{2}|[A-Za-z0-9~._-]", respell, uri[len("skill://") :])
    scheme = data.draw(st.sampled_from(["skill://", "SKILL://", "Skill://"]))
    assert normalize_uri(scheme + body) == uri
