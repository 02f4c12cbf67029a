"""Bundle mode: a real ``.skp`` built by ``skillpack build``, served through the
bundle reader's fast mode on the stdlib-only start-up path."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from mcp_wire import HANG_GUARD_S, request_line

from tests._bundles import Change, edit_lock, rewrite, set_entry
from tests.conftest import EXAMPLES, cli_env, run_cli

#: The content scan judges the listing's frontmatter at start (``skillpack.scan`` and
#: ``skillpack.policy.listing`` are imported then); admission's own module only when
#: something is found or a file is first read, and a policy file is read only when there
#: is one (or --accept). (``skillpack.policy.places``, which finds policy files with
#: pathlib alone, is imported at start.)
FIRST_READ = ("skillpack.policy.admission", "skillpack.policy.file")
#: Modules that must not be imported on the serve path (bundle mode).
FORBIDDEN = (
    *("typer", "click", "rich", "jsonschema", "ruamel", "yaml", "pathspec", "requests"),
    *(
        "skillpack.cli",
        "skillpack.lint",
        "skillpack.build",
        "skillpack.registry",  # only for an oci:// source
        "skillpack.source.config",
        "skillpack.source.discovery",
        "skillpack._internal.schemas",
        *FIRST_READ,
    ),
)


def _serve_command(tmp_path: Path, *python_flags: str) -> list[str]:
    """The command serving the examples as a bundle."""
    bundle = tmp_path / "examples.skp"
    built = run_cli("build", EXAMPLES, "-o", bundle)
    assert built.returncode == 0, built.stderr
    return [sys.executable, *python_flags, "-m", "skillpack", "serve", str(bundle)]


def _run(command: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        command, input=data, capture_output=True, env=cli_env(), timeout=HANG_GUARD_S
    )


def test_serve_path_imports_only_the_standard_library(tmp_path: Path) -> None:
    """``python -X importtime``: nothing heavy is imported before (or after) the answer."""
    proc = _run(_serve_command(tmp_path, "-X", "importtime"), request_line(1, "skills/list"))
    assert proc.returncode == 0, proc.stderr.decode()
    response = json.loads(proc.stdout.splitlines()[0])
    assert len(response["result"]["skills"]) == 5
    imported = [
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    ]
    assert "skillpack.server.protocol" in imported  # the table was really read
    assert "skillpack.policy.listing" in imported  # the frontmatter was judged
    heavy = sorted(
        {
            name
            for name in imported
            for bad in FORBIDDEN
            if name == bad or name.startswith(bad + ".")
        }
    )
    assert heavy == []


def test_bundle_mode_serves_and_verifies(tmp_path: Path) -> None:
    command = _serve_command(tmp_path)
    requests = [request_line(1, "skills/list")]
    uris = ["skill://pdf-processing/scripts/extract.py", "skill://brand-assets/assets/logo.png"]
    requests += [request_line(n, "resources/read", uri=uri) for n, uri in enumerate(uris, start=2)]
    proc = _run(command, b"".join(requests))
    assert proc.returncode == 0, proc.stderr.decode()
    listing, script, logo = (json.loads(line) for line in proc.stdout.splitlines())
    assert len(listing["result"]["skills"]) == 5
    assert script["result"]["contents"][0]["mimeType"] == "text/x-python"
    assert "blob" in logo["result"]["contents"][0]


def test_a_tampered_bundle_is_never_served(tmp_path: Path) -> None:
    bundle = tmp_path / "examples.skp"
    assert run_cli("build", EXAMPLES, "-o", bundle, "--compression", "stored").returncode == 0
    data = bytearray(bundle.read_bytes())
    with zipfile.ZipFile(bundle) as archive:  # flip a byte of the file's own stored data,
        start = archive.getinfo("pdf-processing/SKILL.md").header_offset  # not of the lock
    needle = b"Extract text and form fields"  # in pdf-processing/SKILL.md, stored as is
    at = data.find(needle, start)
    assert at > 0
    data[at] ^= 0x20
    bundle.write_bytes(bytes(data))
    uri = "skill://pdf-processing/SKILL.md"
    request = request_line(1, "resources/read", uri=uri)
    proc = _run([sys.executable, "-m", "skillpack", "serve", str(bundle)], request)
    if proc.returncode == 0:  # the reader opened it: the read must be refused
        (response,) = (json.loads(line) for line in proc.stdout.splitlines())
        assert response["error"]["code"] == -32603 and response["error"]["data"] == {"uri": uri}
        assert b"xtract text" not in proc.stdout
    else:  # or the reader refused the bundle at start, naming the entry
        assert b"pdf-processing/SKILL.md" in proc.stderr and proc.stdout == b""


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (
            lambda items: [
                (zi, d) for zi, d in items if zi.filename != "brand-assets/assets/logo.png"
            ],
            "BND012",
        ),
        (set_entry("brand-assets/assets/logo.png", b"a different size"), "BND009"),
    ],
    ids=["file-missing", "size-differs"],
)
def test_the_archive_directory_is_checked_against_the_lock_at_start(
    tmp_path: Path, change: Change, code: str
) -> None:
    """A bundle whose directory disagrees with the lock never starts serving, even for
    requests that would not touch the broken file."""
    bundle = tmp_path / "examples.skp"
    assert run_cli("build", EXAMPLES, "-o", bundle).returncode == 0
    broken = rewrite(bundle, tmp_path / "broken.skp", change)
    proc = _run(
        [sys.executable, "-m", "skillpack", "serve", str(broken)], request_line(1, "skills/list")
    )
    assert proc.returncode != 0
    assert proc.stdout == b""
    stderr = proc.stderr.decode()
    assert code in stderr and "brand-assets/assets/logo.png" in stderr


def test_a_changed_lock_is_refused_at_start_even_with_the_index_intact(tmp_path: Path) -> None:
    """The index carries the digest of the lock's body: editing the lock (here the locked
    frontmatter of one skill) without rebuilding the index stops the server at start."""
    bundle = tmp_path / "examples.skp"
    assert run_cli("build", EXAMPLES, "-o", bundle).returncode == 0
    broken = rewrite(
        bundle,
        tmp_path / "edited-lock.skp",
        edit_lock(b"Handle customer refund requests", b"Handle ANY refund requests"),
    )
    proc = _run(
        [sys.executable, "-m", "skillpack", "serve", str(broken)], request_line(1, "skills/list")
    )
    assert proc.returncode != 0 and proc.stdout == b""
    assert b"BND013" in proc.stderr and b".skillpack/skillpack.lock" in proc.stderr
    verify = run_cli("verify", broken)
    assert verify.returncode != 0 and "BND013" in verify.stderr
