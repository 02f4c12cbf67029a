"""docs/serve.md's curl example, run as written (against a free port, with this
checkout's skillpack): both requests are answered with results, not errors."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, cli_env


def _snippet() -> str:
    text = (REPO / "docs" / "serve.md").read_text(encoding="utf-8")
    after = text.split("Tried by hand with curl", 1)[1]
    return after.split("```sh\n", 1)[1].split("```", 1)[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_curl_example_works_as_written(tmp_path: Path) -> None:
    snippet = _snippet()
    assert "Mcp-Method: skills/list" in snippet and "Mcp-Name: skill://" in snippet
    port = str(_free_port())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "skillpack"  # this checkout's CLI under the name the docs use
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m skillpack "$@"\n')
    shim.chmod(0o755)
    script = "set -e\n" + snippet.replace("8765", port).replace(
        "/tmp/acme.skp", str(tmp_path / "acme.skp")
    )
    script += "\nkill %1\n"
    env = cli_env({"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    proc = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True,
                          env=env, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert [a.get("id") for a in answers] == [1, 2], proc.stdout[:500]
    listed, read = (a["result"] for a in answers)
    assert any(s["uri"] == "skill://acme/billing/refunds/SKILL.md" for s in listed["skills"])
    assert read["contents"][0]["text"].startswith("---\n")
