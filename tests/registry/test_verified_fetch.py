"""The one verified fetch (skillpack/fetch, issue 21 §3) through the real CLI against a
real registry: pull, verify, inspect, install and serve of ``oci://`` see the same
verification and speak of the same reference; verify reports one shape for a file and a
reference, signed or not; a signed pull never leaves a new bundle beside an old
signature, even when the process dies between the two renames."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from skillpack.signing.keys import generate_keypair
from tests.conftest import run_cli, write_skill
from tests.registry.servers import DistributionRegistry
from tests.signing.conftest import IDENTITY
from tests.sigstore_local import LocalSigstore

LIMIT = 120
ATTACKS = Path(__file__).resolve().parent.parent / "data" / "attacks"


def skillpack(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, timeout=LIMIT)


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return proc


def _build(root: Path, version: str, note: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "skillpack.toml").write_text(
        f'name = "oci-demo"\nversion = "{version}"\nroots = ["skills"]\n', encoding="utf-8"
    )
    write_skill(root / "skills", "review", files={"references/checklist.md": f"- [ ] {note}\n"})
    out = root / "dist" / f"oci-demo-{version}.skp"
    proc = run_cli("build", root, "-o", out, "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def two_signed(
    registry: DistributionRegistry, tmp_path: Path, cli_registry_env: dict[str, str]
) -> tuple[str, str, Path]:
    """Two different bundles pushed to one repository, each signed by its own key:
    (reference of 1, reference of 2, the public key of 2's signer)."""
    env = cli_registry_env
    refs = []
    public = tmp_path
    for n in ("1", "2"):
        built = _build(tmp_path / f"p{n}", f"1.0.{n}", f"step {n}")
        private, public = generate_keypair(tmp_path / f"keys{n}")
        ok(skillpack("sign", built, "--key", private, env=env))
        pushed = ok(skillpack("push", built, registry.ref("acme/skills", n), env=env))
        refs.append(pushed.stdout.strip())
    return refs[0], refs[1], public


def test_verify_has_one_shape_for_files_and_references_signed_or_not(
    registry: DistributionRegistry, tmp_path: Path, cli_registry_env: dict[str, str]
) -> None:
    env = cli_registry_env
    built = _build(tmp_path / "p", "1.0.0", "one")
    private, public = generate_keypair(tmp_path / "keys")
    unsigned_file = ok(skillpack("verify", built, env=env))
    ok(skillpack("sign", built, "--key", private, env=env))
    reference = ok(skillpack("push", built, registry.ref("acme/skills", "1"), env=env)).stdout
    reference = reference.strip()
    runs = {
        "file": [built],
        "file --key": [built, "--key", public],
        "oci": [reference],
        "oci --key": [reference, "--key", public],
    }
    texts = {name: ok(skillpack("verify", *args, env=env)).stdout for name, args in runs.items()}
    texts["unsigned file"] = unsigned_file.stdout
    for name, text in texts.items():
        first, archive, lock, signature = text.splitlines()
        where = reference if name.startswith("oci") else None
        assert first.startswith(f"OK {where}: " if where else "OK "), (name, text)
        assert first.endswith(": oci-demo 1.0.0, 1 skill, 2 files verified"), (name, text)
        assert archive.startswith("  archive sha256:") and lock.startswith("  lock    sha256:")
        assert signature.startswith("  signature: "), (name, text)
    assert texts["file --key"].splitlines()[3].startswith("  signature: verified, signed by key ")
    assert texts["oci --key"].splitlines()[3] == texts["file --key"].splitlines()[3]
    assert texts["oci"].splitlines()[3].startswith("  signature: present (1 signature referrer)")
    assert texts["unsigned file"].splitlines()[3] == "  signature: none"
    # the same keys in JSON, whatever was verified
    keys = set()
    for name, args in runs.items():
        report = json.loads(ok(skillpack("verify", *args, "--format", "json", env=env)).stdout)
        keys.add(tuple(sorted(report)))
        assert report["signature-status"] == ("verified" if "--key" in name else "not-checked")
        assert (report["skills"], report["files"]) == (1, 2)
    assert len(keys) == 1, keys


def test_a_pull_with_the_wrong_key_names_the_reference_first(
    two_signed: tuple[str, str, Path], cli_registry_env: dict[str, str], tmp_path: Path
) -> None:
    env = cli_registry_env
    first, _, other_key = two_signed
    ok(skillpack("pull", first, "-o", tmp_path / "warm.skp", env=env))  # now in the cache
    out = tmp_path / "out"
    refused = skillpack("pull", first, "--key", other_key, "-o", out / "a.skp", env=env)
    assert refused.returncode == 1, refused.stderr
    head = refused.stderr.splitlines()[0]
    assert head == f"{first}: SIG013 signed with a different key", refused.stderr
    assert refused.stderr.splitlines()[1].startswith("  in the cache: ")
    assert not out.exists()
    # install and serve refuse it through the same fetch, naming it the same way
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    installed = run_cli("install", first, "--key", other_key, cwd=project, env=env)
    assert installed.returncode == 1, installed.stderr
    assert installed.stderr.splitlines()[0] == head, installed.stderr
    assert sorted(p.name for p in project.iterdir()) == [".git"]
    served = skillpack("serve", first, "--require-signature", "--key", other_key, env=env)
    assert served.returncode == 1 and head in served.stderr.splitlines(), served.stderr


_CRASH = """
import os, sys
_replace = os.replace
def replace(src, dst, *args, **kwargs):
    if str(dst).endswith(os.environ["CRASH_AT_RENAME_TO"]):
        os._exit(137)  # killed between the bundle's rename and the signature's
    return _replace(src, dst, *args, **kwargs)
os.replace = replace
"""


def test_a_signed_pull_killed_between_the_renames_leaves_no_wrong_signature(
    two_signed: tuple[str, str, Path], cli_registry_env: dict[str, str], tmp_path: Path
) -> None:
    first, second, key = two_signed
    env = cli_registry_env
    out = tmp_path / "out"
    target = out / "demo.skp"
    ok(skillpack("pull", first, "-o", target, env=env))  # bundle 1 with its signature
    assert Path(f"{target}.sigstore.json").is_file()
    crash = tmp_path / "crash"
    crash.mkdir()
    (crash / "sitecustomize.py").write_text(_CRASH, encoding="utf-8")
    python_path = os.pathsep.join(p for p in (str(crash), os.environ.get("PYTHONPATH")) if p)
    dying = {**env, "PYTHONPATH": python_path, "CRASH_AT_RENAME_TO": "demo.skp.sigstore.json"}
    killed = run_cli("pull", second, "-o", target, env=dying)
    assert killed.returncode == 137, killed.stderr
    # the new bundle is in place; the old bundle's signature is not beside it
    visible = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert visible == ["demo.skp"], visible
    assert Path(f"{target}.sigstore.json").exists() is False
    says = ok(skillpack("verify", target, env=env)).stdout
    assert "oci-demo 1.0.2" in says and "  signature: none" in says
    refused = skillpack("verify", target, "--key", key, env=env)
    assert refused.returncode == 1 and "SIG001" in refused.stderr
    # killed before the bundle's rename: the old pair stays a pair (or unsigned)
    ok(skillpack("pull", first, "-o", target, env=env))
    dying["CRASH_AT_RENAME_TO"] = "demo.skp"
    assert run_cli("pull", second, "-o", target, env=dying).returncode == 137
    says = ok(skillpack("verify", target, env=env)).stdout
    assert "oci-demo 1.0.1" in says
    # a clean pull afterwards writes the pair (what the killed ones left is hidden)
    ok(skillpack("pull", second, "-o", target, env=env))
    assert ok(skillpack("verify", target, "--key", key, env=env)).stdout.startswith("OK ")
    visible = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert visible == ["demo.skp", "demo.skp.sigstore.json"]


def test_an_upgrade_of_an_oci_source_keeps_its_pinned_keyless_signer(
    registry: DistributionRegistry,
    sigstore_instance: LocalSigstore,
    sigstore_trust: Path,
    cli_registry_env: dict[str, str],
    tmp_path: Path,
) -> None:
    """Issue 21 §2, a pinned signer is part of the pin, for an ``oci://`` source: the
    keyless signer the lock records is checked against the new bundle's signature
    referrers (it was looked for beside the cached blob, and never found)."""
    env = cli_registry_env
    tagged = registry.ref("acme/skills", "stable")
    trust = ("--trust-config", sigstore_trust)

    def push(version: str, signed: bool) -> None:
        built = _build(tmp_path / f"p{version}", version, f"step {version}")
        sign = ("--sign", "--identity-token", sigstore_instance.token(), *trust) if signed else ()
        ok(skillpack("push", built, tagged, *sign, env=env))

    push("1.0.1", signed=True)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    ok(run_cli("install", tagged, "-a", "codex", *IDENTITY, *trust, cwd=project, env=env))
    lock = project / "skillpack-install.lock"
    assert f'mode = "keyless", identity = "{IDENTITY[1]}"' in lock.read_text()
    push("1.0.2", signed=True)  # the same signer: the upgrade needs only the trust root
    upgraded = run_cli("install", "--upgrade", *trust, cwd=project, env=env)
    assert upgraded.returncode == 0, upgraded.stderr
    pinned = lock.read_text()
    assert 'version = "1.0.2"' in pinned and f'identity = "{IDENTITY[1]}"' in pinned
    push("1.0.3", signed=False)  # unsigned under the same tag: refused, nothing moves
    refused = run_cli("install", "--upgrade", *trust, cwd=project, env=env)
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith(f"{tagged}: INS019 "), refused.stderr
    assert "SIG001" in refused.stderr.splitlines()[1], refused.stderr
    assert lock.read_text() == pinned
    skill = project / ".agents" / "skills" / "review" / "references" / "checklist.md"
    assert skill.read_text() == "- [ ] step 1.0.2\n"


def test_lint_scans_an_oci_bundle_without_installing_it(
    registry: DistributionRegistry, tmp_path: Path, cli_registry_env: dict[str, str]
) -> None:
    """Issue 22 §2: a registry's bundle is scanned where it is, through the one fetch:
    the findings name the reference by digest, nothing but the cache is written."""
    env = cli_registry_env
    root = tmp_path / "attack"
    shutil.copytree(ATTACKS / "curl-pipe-shell", root / "skills" / "curl-pipe-shell")
    (root / "skillpack.toml").write_text(
        'name = "attack"\nversion = "1.0.0"\nroots = ["skills"]\n', encoding="utf-8"
    )
    built = root / "attack.skp"
    ok(run_cli("build", root, "-o", built, "--no-lint"))  # no scan at build: no pass
    reference = ok(skillpack("push", built, registry.ref("acme/attack", "1"), env=env))
    by_digest = reference.stdout.strip()
    work = tmp_path / "work"
    work.mkdir()
    linted = run_cli("lint", registry.ref("acme/attack", "1"), cwd=work, env=env)
    assert linted.returncode == 1, linted.stderr
    assert f"{by_digest}!curl-pipe-shell/" in linted.stdout and "SP520" in linted.stdout
    report = json.loads(run_cli("lint", by_digest, "--format", "json", cwd=work, env=env).stdout)
    assert {f["code"] for f in report["findings"]} >= {"SP520"}
    assert list(work.iterdir()) == []
