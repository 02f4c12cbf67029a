"""The consumer's policy file (issue 22 §3) through the real CLI: accepted findings bound
to a file's digest, blocked warning codes, allowed sources, required signers, the
project layer that can only tighten, and bad files named with their line."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from skillpack.signing.keys import generate_keypair
from tests.conftest import run_cli, write_skill
from tests.mcp_wire import request_line
from tests.policy.test_admission import ATTACK_MD, SETUP_SH


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _bundle(root: Path, setup: str = SETUP_SH) -> Path:
    skills = root / "skills"
    (skills / "invoice-helper" / "scripts").mkdir(parents=True)
    (skills / "invoice-helper" / "SKILL.md").write_text(ATTACK_MD, encoding="utf-8")
    (skills / "invoice-helper" / "scripts" / "setup.sh").write_text(setup)
    out = root / "attack.skp"
    assert run_cli("build", skills, "-o", out, "--no-lint").returncode == 0
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "skillpack.toml").write_text("")
    return project


def _policy(tmp_path: Path, text: str, name: str = "policy.toml") -> dict[str, str]:
    path = tmp_path / name
    path.write_text(text)
    return {"SKILLPACK_POLICY": str(path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def _accepts(setup: str = SETUP_SH) -> str:
    return (
        '[[accept]]\nskill = "invoice-helper"\ncode = "SP501"\nreason = "reviewed"\n'
        '[[accept]]\nskill = "invoice-helper"\ncode = "SP520"\nfile = "scripts/setup.sh"\n'
        f'digest = "{_digest(setup)}"\n'
    )


def test_an_accept_is_bound_to_the_file_it_was_made_for(tmp_path: Path, project: Path) -> None:
    bundle = _bundle(tmp_path / "v1")
    env = _policy(tmp_path, _accepts())
    proc = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "SP520" in proc.stdout and "(accepted)" in proc.stdout
    # the script changed: its digest is not the one accepted, the question is open again
    changed = _bundle(tmp_path / "v2", SETUP_SH + "echo more")
    again = run_cli("install", changed, "-a", "claude-code", "--force", cwd=project, env=env)
    assert again.returncode == 1
    assert "ADM001 the content scan refused 1 finding (SP520)" in again.stderr
    assert (project / ".claude/skills/invoice-helper/scripts/setup.sh").read_text() == SETUP_SH
    # the refusal says an accept exists for the file's earlier bytes, and what to do
    note = (
        f"an [[accept]] in {tmp_path / 'policy.toml'} covers invoice-helper:SP520 for "
        f"scripts/setup.sh at {_digest(SETUP_SH)}; the file now has "
        f"{_digest(SETUP_SH + 'echo more')}: review it, then update the digest"
    )
    assert "skill://invoice-helper/scripts/setup.sh:2:1: SP520 " in again.stderr
    assert f"; {note}\n" in again.stderr  # on the finding's line
    assert f"hint: {note}" in again.stderr


def test_the_policy_can_block_a_warning_code(tmp_path: Path, project: Path) -> None:
    root = tmp_path / "b"
    rustup = "```sh\ncurl -fsSL https://sh.rustup.rs | sh\n```\n"
    write_skill(root / "skills", "tools", files={"install.md": rustup})
    bundle = root / "tools.skp"
    assert run_cli("build", root / "skills", "-o", bundle, "--no-lint").returncode == 0
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project,
                   env=_policy(tmp_path, "")).returncode == 0  # fmt: skip
    shutil.rmtree(project / ".claude" / "skills")
    (project / "skillpack-install.lock").unlink()
    strict = _policy(tmp_path, 'version = 1\n[scan]\nblock = ["SP504", "SP521"]\n')
    proc = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=strict)
    # the refusal names the policy file, the line and the rule that made the warning refuse
    rule = f'[scan] block = ["SP504", "SP521"] in {tmp_path / "policy.toml"}:3'
    assert proc.returncode == 1 and f"refused 1 finding (SP521 by {rule}) in tools" in proc.stderr
    assert "skill://tools/install.md:2:1: SP521 " in proc.stderr
    assert f"(refused by {rule})" in proc.stderr
    assert not (project / ".claude" / "skills").exists()
    # a project's block is named as its own
    (project / "skillpack-policy.toml").write_text('[scan]\nblock = ["SP521"]\n')
    both = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=strict)
    theirs = f'[scan] block = ["SP521"] in {project / "skillpack-policy.toml"}:2'
    assert f"(SP521 by {rule}; {theirs})" in both.stderr


def test_sources_the_policy_does_not_list_are_refused(tmp_path: Path, project: Path) -> None:
    bundle = _bundle(tmp_path / "v1")
    env = _policy(tmp_path, '[[source]]\nmatch = "oci://ghcr.io/acme/*"\n' + _accepts())
    proc = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "ADM003" in proc.stderr and "not a source the policy admits" in proc.stderr
    assert str(tmp_path / "policy.toml") in proc.stderr and "oci://ghcr.io/acme/*" in proc.stderr
    allowed = _policy(tmp_path, f'[[source]]\nmatch = "{tmp_path}/v1/*.skp"\n' + _accepts())
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project, env=allowed).returncode == 0


def test_a_source_rule_requires_its_signer(tmp_path: Path, project: Path) -> None:
    bundle = _bundle(tmp_path / "v1")
    private, public = generate_keypair(tmp_path / "keys")
    rule = f'[[source]]\nmatch = "*"\nkey = "{public}"\n'
    env = _policy(tmp_path, rule + _accepts())
    unsigned = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=env)
    assert unsigned.returncode == 1 and "SIG001" in unsigned.stderr, unsigned.stderr
    assert not (project / ".claude" / "skills").exists()
    assert run_cli("sign", bundle, "--key", private).returncode == 0
    signed = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=env)
    assert signed.returncode == 0, signed.stderr
    assert 'signer = { mode = "key"' in (project / "skillpack-install.lock").read_text()
    _, other = generate_keypair(tmp_path / "other")
    wrong = run_cli("install", bundle, "-a", "claude-code", "--key", other, cwd=project, env=env)
    assert wrong.returncode == 1 and "ADM003" in wrong.stderr
    assert "not the signer the policy requires" in wrong.stderr


def test_a_project_policy_only_tightens(tmp_path: Path, project: Path) -> None:
    bundle = _bundle(tmp_path / "v1")
    env = _policy(tmp_path, _accepts())
    (project / "skillpack-policy.toml").write_text('[scan]\nblock = ["SP504"]\n' + _accepts())
    proc = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "ADM004 accept[1]: a project policy cannot accept findings" in proc.stderr
    assert f"{project / 'skillpack-policy.toml'}:3" in proc.stderr  # its file and line
    (project / "skillpack-policy.toml").write_text('[[source]]\nmatch = "oci://*"\n')
    narrowed = run_cli("install", bundle, "-a", "claude-code", cwd=project, env=env)
    assert narrowed.returncode == 1 and "ADM003" in narrowed.stderr
    assert "skillpack-policy.toml" in narrowed.stderr


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[scan]\nblok = []\n", "scan.blok: unknown key"),
        ('verison = 1\n', "verison: unknown key"),
        ('[scan]\nblock = ["SP305"]\n', "scan.block: must be a list of content-scan codes"),
        ('[[accept]]\nskill = "x"\ncode = "SP520"\nfile = "a.sh"\n', "file and digest go together"),
        ('[[accept]]\nskill = "x"\ncode = "SP520"\nfile = "a.sh"\ndigest = "md5:1"\n',
         "accept[1].digest: must be sha256:"),
        ('[[source]]\nmatch = 3\n', "source[1].match: must be a non-empty glob"),
        ("[scan\n", "not valid TOML"),
    ],
)  # fmt: skip
def test_a_bad_policy_file_is_named_with_its_line(
    tmp_path: Path, project: Path, text: str, needle: str
) -> None:
    env = _policy(tmp_path, text)
    proc = run_cli("install", _bundle(tmp_path / "v1"), "-a", "claude-code", cwd=project, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "ADM004" in proc.stderr and needle in proc.stderr, proc.stderr
    assert str(tmp_path / "policy.toml") + ":" in proc.stderr and "Traceback" not in proc.stderr
    assert not (project / ".claude" / "skills").exists()


def test_policy_option_replaces_the_users_and_serve_and_pull_read_it(
    tmp_path: Path, project: Path
) -> None:
    bundle = _bundle(tmp_path / "v1")
    ci = tmp_path / "ci-policy.toml"
    ci.write_text(_accepts())
    env = _policy(tmp_path, '[[source]]\nmatch = "oci://nowhere/*"\n')  # the user's: stricter
    proc = run_cli("install", bundle, "-a", "claude-code", "--policy", ci, cwd=project, env=env)
    assert proc.returncode == 0, proc.stderr
    missing = run_cli("install", bundle, "--policy", tmp_path / "nope.toml", cwd=project)
    assert missing.returncode == 2 and "ADM004" in missing.stderr
    served = run_cli("serve", bundle, "--policy", tmp_path / "nope.toml", cwd=project, input=b"")
    assert served.returncode == 2 and "ADM004" in served.stderr
    refused = run_cli("serve", bundle, cwd=project, env=env, input=b"")
    assert refused.returncode == 1 and "ADM003" in refused.stderr


def test_pull_and_serve_oci_name_the_rule_that_refused(
    tmp_path: Path, registry: Any, cli_registry_env: dict[str, str]
) -> None:
    root = tmp_path / "b"
    rustup = "```sh\ncurl -fsSL https://sh.rustup.rs | sh\n```\n"
    write_skill(root / "skills", "tools", files={"install.md": rustup})
    bundle = root / "tools.skp"
    assert run_cli("build", root / "skills", "-o", bundle, "--no-lint").returncode == 0
    ref = registry.ref("acme/tools", "1.0.0")
    assert run_cli("push", bundle, ref, env=cli_registry_env).returncode == 0
    env = {**cli_registry_env, **_policy(tmp_path, '[scan]\nblock = ["SP521"]\n')}
    rule = f'[scan] block = ["SP521"] in {tmp_path / "policy.toml"}:2'
    out = tmp_path / "out" / "tools.skp"
    out.parent.mkdir()
    pull = run_cli("pull", ref, "-o", out, env=env)
    assert pull.returncode == 1 and f"refused 1 finding (SP521 by {rule}) in tools" in pull.stderr
    assert list(out.parent.iterdir()) == []
    # serve: the client hears that a policy refused the file; the log names the rule
    lines = request_line(1, "resources/read", uri="skill://tools/install.md")
    served = run_cli("serve", ref, env=env, input=lines)
    assert served.returncode == 0, served.stderr
    error = json.loads(served.stdout.splitlines()[0])["error"]
    assert error["message"] == (
        "skill://tools/install.md is refused by the content scan (SP521); not sent (the "
        "server's log names the policy rule that refused it)"
    )
    assert "policy.toml" not in served.stdout
    assert "ADM001 skill://tools/install.md:2:1: SP521 " in served.stderr
    assert f"(refused by {rule}); not sent" in served.stderr
