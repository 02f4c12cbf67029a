"""Drive ``skillpack serve`` over its real stdio pipes, and check what it says.

Every modern result read through :meth:`Server.modern` is validated against the
official MCP 2026-07-28 JSON Schema (core methods) or skillpack's
``schemas/skills-extension.schema.json`` (skills methods); every error response
against the official ``JSONRPCErrorResponse``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from tests.conftest import MCP_SCHEMA, REPO, VECTORS, cli_env

CORE_SCHEMA = MCP_SCHEMA
SKILLS_SCHEMA = REPO / "schemas" / "skills-extension.schema.json"
VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "skillpack-tests", "version": "0"},
}
#: method -> (schema file, $defs name) of its 2026-07-28 result
RESULT_SCHEMAS = {
    "server/discover": ("core", "DiscoverResult"),
    "resources/list": ("core", "ListResourcesResult"),
    "resources/templates/list": ("core", "ListResourceTemplatesResult"),
    "resources/read": ("core", "ReadResourceResult"),
    "skills/list": ("skills", "ListSkillsResult"),
    "skills/get": ("skills", "GetSkillResult"),
    "resources/directory/read": ("skills", "ReadResourceDirectoryResult"),
    "prompts/list": ("core", "ListPromptsResult"),
    "prompts/get": ("core", "GetPromptResult"),
    "tools/list": ("core", "ListToolsResult"),
    "tools/call": ("core", "CallToolResult"),
}
#: tests/data/vectors (README): URI -> (size, digest), served at skill paths code-review
#: and acme/billing/refunds
VECTOR_FILES = {
    "skill://code-review/SKILL.md": (
        149, "sha256:d2489d6c182e8df9c178563ff9f2eac7998a0c1bb1278c52a7fd5306e4259160"),
    "skill://code-review/references/checklist.md": (
        65, "sha256:dbab2de7bf7db9cc95cb6ce681c3690b26184db39f75b958a0287ca6d9e24e20"),
    "skill://acme/billing/refunds/SKILL.md": (
        130, "sha256:08d7cd5157610065814250e386b3fe428470487e87c31c23584d76c84ac45e1b"),
    "skill://acme/billing/refunds/templates/refund-email.md": (
        24, "sha256:303346af8070259117fcd9cbeb442a149cae197e6606fc279d823d00870cec46"),
}  # fmt: skip
#: the guard against a hung server: not an assertion about speed
HANG_GUARD_S = 60.0


@cache
def _schema(which: str) -> dict[str, Any]:
    path = CORE_SCHEMA if which == "core" else SKILLS_SCHEMA
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


@cache
def validator(which: str, name: str) -> jsonschema.protocols.Validator:
    """A validator for ``$defs[name]`` of the core or skills schema."""
    defs = _schema(which)["$defs"]
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": defs,
        "$ref": f"#/$defs/{name}",
    }
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def check(which: str, name: str, instance: Any) -> None:
    errors = sorted(validator(which, name).iter_errors(instance), key=str)
    assert not errors, f"{name}: " + "; ".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]
    )


def vector_tree(root: Path) -> Path:
    """The spec vectors laid out as served: ``code-review`` and ``acme/billing/refunds``."""
    import shutil

    shutil.copytree(VECTORS / "code-review", root / "code-review")
    shutil.copytree(VECTORS / "refunds", root / "acme" / "billing" / "refunds")
    return root


def modern_params(**params: Any) -> dict[str, Any]:
    return {**params, "_meta": META}


def request_line(request_id: int, method: str = "skills/list", **params: Any) -> bytes:
    """One 2026-07-28 request as the bytes of a line."""
    message = {"jsonrpc": "2.0", "id": request_id, "method": method,
               "params": modern_params(**params)}  # fmt: skip
    return json.dumps(message).encode() + b"\n"


class Server:
    """A ``python -m skillpack serve ARGS`` subprocess with its pipes."""

    def __init__(self, *args: str | os.PathLike[str], cwd: Path | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skillpack", "serve", *map(str, args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=cli_env(),
        )
        assert self.proc.stdin and self.proc.stdout
        self._next_id = 0
        self._pending = b""

    # -- raw I/O --------------------------------------------------------------------

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_bytes(json.dumps(message).encode() + b"\n")

    def recv(self) -> dict[str, Any]:
        """The next line the server writes, parsed (fails if none comes)."""
        assert self.proc.stdout
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + HANG_GUARD_S
        while b"\n" not in self._pending:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, "the server sent no response (hang guard)"
            chunk = os.read(fd, 1 << 20)
            assert chunk, f"the server closed stdout; stderr: {self.stderr_text()}"
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def stderr_text(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        assert self.proc.stderr
        return self.proc.stderr.read().decode("utf-8", "replace")

    # -- requests -------------------------------------------------------------------

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params: Any = None, *, id: Any = None) -> dict[str, Any]:
        """Send one request, return the response (result or error) to it."""
        request_id = self.new_id() if id is None else id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        response = self.recv()
        assert response.get("id") == request_id, response
        if "error" in response:
            check("core", "JSONRPCErrorResponse", response)
        return response

    def modern(self, method: str, **params: Any) -> dict[str, Any]:
        """A 2026-07-28 request that must succeed; its result, schema-checked."""
        response = self.request(method, modern_params(**params))
        assert "result" in response, response
        result: dict[str, Any] = response["result"]
        which, name = RESULT_SCHEMAS[method]
        check(which, name, result)
        check("core", "JSONRPCResultResponse", response)
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "skillpack"
        return result

    def modern_error(self, method: str, **params: Any) -> dict[str, Any]:
        """A 2026-07-28 request that must fail; its error object."""
        response = self.request(method, modern_params(**params))
        assert "error" in response, response
        error: dict[str, Any] = response["error"]
        return error

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        response = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "skillpack-tests", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        result: dict[str, Any] = response["result"]
        return result

    def walk(self, method: str, key: str, **params: Any) -> list[list[Any]]:
        """Every page of a paginated modern list: the ``key`` items of each page."""
        pages: list[list[Any]] = []
        cursor: str | None = None
        while True:
            extra = {"cursor": cursor} if cursor is not None else {}
            result = self.modern(method, **params, **extra)
            pages.append(result[key])
            cursor = result.get("nextCursor")
            if cursor is None:
                return pages
            assert len(pages) < 10_000

    # -- shutdown -------------------------------------------------------------------

    def close(self) -> tuple[int, str]:
        """Close stdin; the exit code and stderr once the server has exited."""
        assert self.proc.stdin
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=HANG_GUARD_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("the server did not exit on EOF") from None
        rest = self.proc.stdout.read() if self.proc.stdout else b""
        assert not rest.strip(), f"unexpected output after EOF: {rest[:200]!r}"
        stderr = self.stderr_text()
        assert "Traceback" not in stderr, stderr
        return self.proc.returncode, stderr

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream and not stream.closed:
                stream.close()


def run_piped(
    args: list[str | os.PathLike[str]], data: bytes
) -> tuple[list[dict[str, Any]], subprocess.CompletedProcess[bytes]]:
    """Pipe ``data`` into ``skillpack serve ARGS`` and collect every response line."""
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack", "serve", *map(str, args)],
        input=data,
        capture_output=True,
        env=cli_env(),
        timeout=HANG_GUARD_S,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode("utf-8", "replace")
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    return lines, proc


NON_UTF8 = b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary"
BOM_TEXT = "\ufeffBOM first, then text\n".encode()


def make_tree(root: Path) -> Path:
    """A skills tree with nesting, a prefix directory, binary, empty, BOM and
    percent-encoded files. Returns ``root``."""
    from tests.conftest import write_skill

    write_skill(
        root,
        "alpha",
        files={
            "references/guide.md": "# Guide\n\nSee the steps.\n",
            "assets/blob.bin": NON_UTF8,
            "assets/empty.txt": b"",
            "assets/bom.txt": BOM_TEXT,
            "scripts/run.py": "print('ok')\n",
            "notes/my notes.md": "spaces in the name\n",
            "notes/über.md": "non-ASCII name\n",
        },
    )
    write_skill(root, "outer", files={"docs/a.md": "a\n"})
    write_skill(root, "outer/inner", files={"x.txt": "inner file\n"})
    write_skill(root, "team/beta", files={"templates/t.md": "template\n"})
    return root
