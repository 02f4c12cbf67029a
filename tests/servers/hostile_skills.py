"""A hostile stdio MCP server for testing the gates of ``check`` and ``vendor``.

    python tests/servers/hostile_skills.py MODE [SPEC.json]

Modes that never serve a usable answer (for ``check``):

  silent          reads requests and never answers
  garbage         answers every request with lines that are not JSON
  not-jsonrpc     answers every request with JSON that is not JSON-RPC (no "jsonrpc",
                  no "result": ``{"id": 1, "ok": true}``, then ``[1, 2, 3]``)
  exit-after-one  answers the first request correctly (server/discover or
                  initialize), then exits
  noisy           serves SPEC correctly, but writes a banner line on stdout first

``serve``: serves SPEC (modern era; a bare legacy ``initialize``) with correct digests
for whatever paths SPEC names, so a client's path policy is what is tested. SPEC:

  {"skills": {"SKILL_PATH": {"FILE PATH": "text", ...}, ...},
   "errors": {"METHOD": [code, "message"]},       # answer METHOD with this error
   "instructions": "...", "meta": {...},           # server/discover's instructions and
                                                   # extra _meta members
   "serverInfo": {"name": ..., "version": ...}}
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from urllib.parse import quote

mode = sys.argv[1]
spec = json.loads(Path(sys.argv[2]).read_text("utf-8")) if len(sys.argv) > 2 else {}
META = {"ttlMs": 0, "cacheScope": "private"}
SERVER_INFO = spec.get("serverInfo", {"name": "hostile", "version": "9.9.9"})


def uri(skill_path: str, rel: str) -> str:
    return "skill://" + quote(f"{skill_path}/{rel}", safe="/")


def entry(skill_path: str, files: dict[str, str]) -> dict:
    resources = []
    for rel, text in files.items():
        data = text.encode("utf-8")
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        resources.append({"uri": uri(skill_path, rel), "digest": digest, "size": len(data)})
    name = skill_path.rsplit("/", 1)[-1]
    frontmatter = {"name": name, "description": f"The {name} skill."}
    head = files.get("SKILL.md", "").split("---\n")
    if len(head) > 2:  # a frontmatter of plain "key: value" lines: list it as it is
        pairs = (line.split(": ", 1) for line in head[1].splitlines() if ": " in line)
        frontmatter = {key: value for key, value in pairs}
    return {"uri": uri(skill_path, "SKILL.md"), "frontmatter": frontmatter, "resources": resources}


SKILLS = spec.get("skills", {})
CONTENT = {uri(p, rel): text for p, files in SKILLS.items() for rel, text in files.items()}


def result(method: str, params: dict) -> dict:
    if method in spec.get("errors", {}):
        code, message = spec["errors"][method]
        raise RpcFailure(code, message)
    if method == "server/discover":
        meta = {"io.modelcontextprotocol/serverInfo": SERVER_INFO, **spec.get("meta", {})}
        out = {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "resources": {},
                "extensions": {"io.modelcontextprotocol/skills": {}},
            },
            "_meta": meta,
            **META,
        }
        if "instructions" in spec:
            out["instructions"] = spec["instructions"]
        return out
    if method == "initialize":
        return {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": SERVER_INFO}
    if method == "skills/list":
        skills = [entry(p, files) for p, files in SKILLS.items()]
        return {"resultType": "complete", "skills": skills, **META}
    if method == "resources/read":
        target = params.get("uri")
        if target not in CONTENT:
            raise RpcFailure(-32602, f"unknown: {target}")
        contents = [{"uri": target, "text": CONTENT[target]}]
        return {"resultType": "complete", "contents": contents, **META}
    raise RpcFailure(-32601, "Method not found")


class RpcFailure(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def reply(message: dict) -> dict:
    answer = {"jsonrpc": "2.0", "id": message["id"]}
    try:
        answer["result"] = result(message.get("method", ""), message.get("params") or {})
    except RpcFailure as exc:
        answer["error"] = {"code": exc.code, "message": exc.message}
    return answer


if mode == "noisy":
    print("hostile server 1.0 starting", flush=True)
answered = 0
for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        print(json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700,
                                                                    "message": "parse"}}),
              flush=True)  # fmt: skip
        continue
    if "id" not in message:
        continue
    if mode == "silent":
        continue
    if mode == "garbage":
        print("Starting server... this is not JSON", flush=True)
        print("<html>nor this</html>", flush=True)
        continue
    if mode == "not-jsonrpc":
        print(json.dumps({"id": message["id"], "ok": True}), flush=True)
        print(json.dumps([1, 2, 3]), flush=True)
        continue
    print(json.dumps(reply(message)), flush=True)
    answered += 1
    if mode == "exit-after-one":
        sys.exit(0)
