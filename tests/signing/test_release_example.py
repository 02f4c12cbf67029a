"""The GitHub release workflow example does what docs/signing.md promises."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.conftest import EXAMPLES


def test_release_workflow_signs_keylessly_and_uploads_both_files() -> None:
    workflow = YAML(typ="safe").load((EXAMPLES / "ci" / "github-release.yml").read_text())
    job = workflow["jobs"]["release"]
    assert job["permissions"]["id-token"] == "write"
    assert workflow["permissions"] == {"contents": "read"}  # least privilege elsewhere
    script = "\n".join(step.get("run", "") for step in job["steps"])
    order = ["skillpack lint", "skillpack lock --check", "skillpack build", "skillpack sign",
             "skillpack verify", "skillpack push", "gh release create"]  # fmt: skip
    positions = [script.index(command) for command in order]
    assert positions == sorted(positions)
    assert "--identity-token" not in script  # ambient OIDC, no secrets
    assert "dist/*.skp.sigstore.json" in script


def test_release_workflow_pushes_the_signed_bundle_to_ghcr_with_the_workflow_token() -> None:
    workflow = YAML(typ="safe").load((EXAMPLES / "ci" / "github-release.yml").read_text())
    job = workflow["jobs"]["release"]
    assert job["permissions"]["packages"] == "write"
    assert "packages" not in workflow["permissions"]  # only the release job may push
    (push,) = [step for step in job["steps"] if "skillpack push" in step.get("run", "")]
    assert push["env"] == {"REGISTRY_TOKEN": "${{ github.token }}"}  # no stored secret
    command = push["run"]
    # the token on stdin, never on the command line; GHCR names are lowercase
    assert '"$REGISTRY_TOKEN" | skillpack push' in command
    assert '--username "$GITHUB_ACTOR" --password-stdin' in command
    assert '"oci://ghcr.io/${GITHUB_REPOSITORY,,}:${GITHUB_REF_NAME#v}"' in command
    # the signature is pushed with the bundle: it was written beside it by the sign step,
    # and the push comes after the verification of what is published
    steps = [step.get("run", "") for step in job["steps"]]
    sign = next(i for i, run in enumerate(steps) if "skillpack sign" in run)
    verify = next(i for i, run in enumerate(steps) if "skillpack verify" in run)
    assert sign < verify < steps.index(command)
    assert "--sign" not in command and "--key" not in command


def test_the_host_example_serves_what_the_workflow_pushes_only_if_it_signed_it() -> None:
    """examples/hosts/ghcr-signed.json: the tag the workflow pushes for v1.0.0 of
    OWNER/skills, served only with a signature from that repository's release."""
    import json

    from skillpack.server.cli import build_parser
    from skillpack.signing.options import required_policy

    config = json.loads((EXAMPLES / "hosts" / "ghcr-signed.json").read_text())
    (server,) = config["mcpServers"].values()
    assert server["command"] == "skillpack" and server["args"][0] == "serve"
    args = build_parser().parse_args(server["args"][1:])
    # the workflow's target for GITHUB_REPOSITORY=OWNER/skills, GITHUB_REF_NAME=v1.0.0
    assert args.sources == ["oci://ghcr.io/OWNER/skills:1.0.0"]
    policy = required_policy(args)
    assert policy is not None
    assert (policy.repository, policy.workflow_ref) == ("OWNER/skills", "refs/tags/v1.0.0")
    assert policy.issuer == "https://token.actions.githubusercontent.com"


#: how GitHub runs a `run:` script on Linux: an explicit `shell: bash`, and no `shell:`
GITHUB_SHELLS = {"bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"], None: ["bash", "-e"]}


def _shell(workflow: dict[str, Any], job: dict[str, Any], step: dict[str, Any]) -> str | None:
    for level in (step, job.get("defaults", {}).get("run", {}),
                  workflow.get("defaults", {}).get("run", {})):  # fmt: skip
        if level.get("shell"):
            return str(level["shell"])
    return None


def test_release_workflow_steps_fail_when_a_command_in_a_pipe_fails(tmp_path: Path) -> None:
    """GitHub's default `bash -e` has no pipefail: `skillpack push ... | tee` would stay
    green after a failed push. Every step with a pipe runs with an explicit bash
    (-eo pipefail), and the push step, run the way GitHub runs it with a skillpack that
    fails, fails; with one that works, the reference reaches the step summary."""
    workflow = YAML(typ="safe").load((EXAMPLES / "ci" / "github-release.yml").read_text())
    job = workflow["jobs"]["release"]
    for step in job["steps"]:
        if "|" in step.get("run", ""):
            assert _shell(workflow, job, step) == "bash", step.get("name")
    (push,) = [step for step in job["steps"] if "skillpack push" in step.get("run", "")]
    script = tmp_path / "push.sh"
    script.write_text(push["run"])
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "a-1.0.0.skp").write_bytes(b"bundle")
    stub = tmp_path / "bin" / "skillpack"
    stub.parent.mkdir()
    summary = tmp_path / "summary.md"
    env = {
        "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}",
        "REGISTRY_TOKEN": "token",
        "GITHUB_REPOSITORY": "Owner/Skills",
        "GITHUB_REF_NAME": "v1.0.0",
        "GITHUB_ACTOR": "someone",
        "GITHUB_STEP_SUMMARY": str(summary),
    }
    shell = GITHUB_SHELLS[_shell(workflow, job, push)]

    def run(stub_script: str) -> subprocess.CompletedProcess[str]:
        stub.write_text("#!/bin/sh\n" + stub_script)
        stub.chmod(0o755)
        return subprocess.run([*shell, str(script)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip

    failed = run("cat >/dev/null; echo 'REG021 refused' >&2; exit 2\n")
    assert failed.returncode != 0, failed
    good = run('cat >/dev/null; echo "oci://ghcr.io/owner/skills@sha256:$(printf %064d 0)"\n')
    assert good.returncode == 0, good
    assert summary.read_text() == f"oci://ghcr.io/owner/skills@sha256:{'0' * 64}\n"
