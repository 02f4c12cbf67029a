"""A deliberately faulty Skills server for testing ``check`` and ``pull``.

    python tests/servers/faulty_skills.py SKILLS_DIR [FAULT ...]

Modern era only (plus a bare legacy ``initialize``). Serves the skills of SKILLS_DIR
correctly except for the named faults:

  digest       one file's listed digest is wrong
  size         one file's listed size is wrong
  frontmatter  the listed description differs from SKILL.md
  split        the first skill's entry is split across two skills/list pages
  traversal    a listed resource escapes its skill root with '..'
  no-skill-md  the manifest of every skill lacks its SKILL.md
  dynamic      every skill's resources is "dynamic"
  dir-slash    directory children carry a trailing slash
  no-parse-error  malformed lines get no -32700 answer
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from skillpack.source.config import config_from_table
from skillpack.source.discovery import discover
from skillpack.source.entries import build_manifest

root = Path(sys.argv[1]).resolve()
faults = set(sys.argv[2:])
config = config_from_table({"roots": ["."]}, root, None)
tree = discover(config)
manifest = build_manifest(tree)
paths = {s.uri(f.rel): f.path for s in tree.skills for f in s.files}
META = {"ttlMs": 0, "cacheScope": "private"}


def entry(skill):
    wire = skill.to_wire()
    resources = wire["resources"]
    if "digest" in faults:
        resources[-1]["digest"] = "sha256:" + "0" * 64
    if "size" in faults:
        resources[-1]["size"] += 1
    if "frontmatter" in faults:
        wire["frontmatter"] = dict(wire["frontmatter"], description="something else")
    if "traversal" in faults:
        resources.append(
            {
                "uri": wire["uri"][: -len("SKILL.md")] + "../../escape.md",
                "digest": resources[0]["digest"],
                "size": resources[0]["size"],
            }
        )
    if "no-skill-md" in faults:
        wire["resources"] = resources[1:]
    if "dynamic" in faults:
        wire["resources"] = "dynamic"
    return wire


def result(method, params):
    if method == "server/discover":
        return {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "resources": {},
                "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": True}},
            },
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "faulty", "version": "0"}},
            **META,
        }
    if method == "skills/list":
        entries = [entry(s) for s in manifest.skills]
        if "split" in faults and params.get("cursor") is None:
            first = entries[0]
            half = dict(first, resources=first["resources"][:1])
            return {"resultType": "complete", "skills": [half], "nextCursor": "2", **META}
        if "split" in faults:
            first = entries[0]
            entries[0] = dict(first, resources=first["resources"][1:] or first["resources"])
        return {"resultType": "complete", "skills": entries, **META}
    if method == "skills/get":
        skill = manifest.skill(params.get("uri"))
        if skill is None:
            raise LookupError(params.get("uri"))
        return {"resultType": "complete", "skill": entry(skill), **META}
    if method == "resources/read":
        uri = params.get("uri")
        if uri not in paths:
            raise LookupError(uri)
        data = paths[uri].read_bytes()
        try:
            content = {"uri": uri, "text": data.decode("utf-8")}
        except UnicodeDecodeError:
            content = {"uri": uri, "blob": base64.b64encode(data).decode()}
        return {"resultType": "complete", "contents": [content], **META}
    if method == "resources/directory/read":
        uri = params.get("uri", "")
        children = {}
        for file_uri in paths:
            if file_uri.startswith(uri + "/"):
                rest = file_uri[len(uri) + 1 :].split("/")
                child = uri + "/" + rest[0]
                children[child] = len(rest) > 1
        if not children:
            raise LookupError(uri)
        suffix = "/" if "dir-slash" in faults else ""
        return {
            "resultType": "complete",
            "resources": [
                {
                    "uri": c + (suffix if d else ""),
                    "name": c.rsplit("/", 1)[-1],
                    **({"mimeType": "inode/directory"} if d else {}),
                }
                for c, d in sorted(children.items())
            ],
        }
    if method == "initialize":
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "serverInfo": {"name": "faulty", "version": "0"},
        }
    raise NotImplementedError(method)


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        if "no-parse-error" not in faults:
            print(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {"code": -32700, "message": "parse error"},
                    }
                ),
                flush=True,
            )
        continue
    if "id" not in message:
        continue
    params = message.get("params") or {}
    meta = params.get("_meta") or {}
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    method = message.get("method")
    version = meta.get("io.modelcontextprotocol/protocolVersion")
    try:
        if method != "initialize" and not meta and method != "ping":
            reply["error"] = {"code": -32602, "message": "missing _meta"}
        elif version not in (None, "2026-07-28"):
            reply["error"] = {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": version},
            }
        else:
            reply["result"] = result(method, params)
    except LookupError as exc:
        reply["error"] = {"code": -32602, "message": f"unknown: {exc}"}
    except NotImplementedError:
        reply["error"] = {"code": -32601, "message": "Method not found"}
    print(json.dumps(reply), flush=True)
