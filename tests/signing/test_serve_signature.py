"""``skillpack serve --require-signature``: the real server process refuses to start on a
missing or bad signature, and serves a bundle whose signature verifies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from skillpack.signing.keys import generate_keypair
from tests._bundles import rewrite, set_entry
from tests.conftest import cli_env
from tests.signing.conftest import CHECKLIST, IDENTITY, skillpack
from tests.signing.test_sign_cli import sign_keyless
from tests.sigstore_local import LocalSigstore

LIST = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "skills/list",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
)


def serve(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillpack", "serve", *map(str, args)],
        input=LIST + "\n",
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )


def assert_refused(proc: subprocess.CompletedProcess[str], code: str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert code in proc.stderr, proc.stderr
    assert proc.stdout == ""  # not one protocol message: the server never started


def test_keyless_signature_required(
    bundle: Path, local_sigstore: LocalSigstore, trust_config: Path
) -> None:
    policy = (*IDENTITY, "--trust-config", str(trust_config))
    assert_refused(serve(bundle, "--require-signature", *policy), "SIG001")  # unsigned

    sign_keyless(bundle, local_sigstore, trust_config)
    ok = serve(bundle, "--require-signature", *policy)
    assert ok.returncode == 0, ok.stderr
    (response,) = (json.loads(line) for line in ok.stdout.splitlines())
    assert {s["uri"] for s in response["result"]["skills"]} >= {"skill://brand/SKILL.md"}
    assert "signed by" in ok.stderr

    wrong = ("--cert-identity", "someone@else.test", *IDENTITY[2:], "--trust-config", trust_config)
    assert_refused(serve(bundle, "--require-signature", *wrong), "SIG0")

    rewrite(bundle, bundle, set_entry(CHECKLIST, b"- tests fail\n"))
    assert_refused(serve(bundle, "--require-signature", *policy), "SIG010")


def test_key_mode_signature_required(bundle: Path, tmp_path: Path) -> None:
    private, public = generate_keypair(tmp_path / "keys")
    assert skillpack("sign", bundle, "--key", private).returncode == 0
    ok = serve(bundle, "--require-signature", "--key", public)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["result"]["skills"]

    _, other_public = generate_keypair(tmp_path / "other")
    assert_refused(serve(bundle, "--require-signature", "--key", other_public), "SIG0")


def test_signature_options_need_a_bundle_and_the_flag(bundle: Path, tmp_path: Path) -> None:
    _, public = generate_keypair(tmp_path / "keys")
    without_flag = serve(bundle, "--key", public)
    assert without_flag.returncode == 2 and "SIG020" in without_flag.stderr
    assert without_flag.stdout == ""
    directory = tmp_path / "skills"
    directory.mkdir()
    on_dir = serve(directory, "--require-signature", "--key", public)
    assert on_dir.returncode == 2 and "SRV010" in on_dir.stderr
