"""The GitHub release workflow example does what docs/signing.md promises."""

from __future__ import annotations

from ruamel.yaml import YAML

from tests.conftest import EXAMPLES


def test_release_workflow_signs_keylessly_and_uploads_both_files() -> None:
    workflow = YAML(typ="safe").load((EXAMPLES / "ci" / "github-release.yml").read_text())
    job = workflow["jobs"]["release"]
    assert job["permissions"]["id-token"] == "write"
    assert workflow["permissions"] == {"contents": "read"}  # least privilege elsewhere
    script = "\n".join(step.get("run", "") for step in job["steps"])
    order = ["skillpack lint", "skillpack lock --check", "skillpack build", "skillpack sign",
             "skillpack verify", "gh release create"]  # fmt: skip
    positions = [script.index(command) for command in order]
    assert positions == sorted(positions)
    assert "--identity-token" not in script  # ambient OIDC, no secrets
    assert "dist/*.skp.sigstore.json" in script
