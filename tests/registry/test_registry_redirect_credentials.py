"""Registry credentials go to the registry and nowhere else (issue 21 §2): a blob
redirected to another host whose 401 names a Bearer realm of its own gets neither the
registry's Basic credentials nor a token request; the refusal names the host that
answered. Through the real CLI (pull, install, serve oci://) against two fake servers on
loopback, one the registry, one the storage it redirects to."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.registry.fake_registry import FakeRegistry


@pytest.fixture
def storage() -> Iterator[FakeRegistry]:
    with FakeRegistry() as running:
        # a realm on the storage's own host: answering it would hand it the credentials
        running.challenge = f'Bearer realm="http://{running.host}/token",service="storage"'
        yield running


@pytest.fixture
def pushed(
    fake: FakeRegistry, storage: FakeRegistry, bundle: Path, cli_registry_env: dict[str, str]
) -> tuple[str, dict[str, str]]:
    ref = fake.ref("acme/skills", "1.0.0")
    assert run_cli("push", bundle, ref, env=cli_registry_env).returncode == 0
    fake.challenge = 'Basic realm="registry"'  # the registry itself wants the credentials
    fake.redirect_blobs = f"http://{storage.host}"
    env = {
        **cli_registry_env,
        "SKILLPACK_REGISTRY": fake.host,
        "SKILLPACK_REGISTRY_USERNAME": "ci-bot",
        "SKILLPACK_REGISTRY_PASSWORD": "s3cret-registry-password",
    }
    return ref, env


def _refused(proc_stderr: str, storage: FakeRegistry, fake: FakeRegistry) -> None:
    assert "REG026" in proc_stderr, proc_stderr
    assert f"{storage.host}, where {fake.host} redirected the request" in proc_stderr
    assert "s3cret" not in proc_stderr and "Traceback" not in proc_stderr
    # the storage saw the redirected request, without any Authorization, and no token
    # request ever reached its realm
    assert storage.authorizations == []
    assert ("GET", "/token") not in storage.log
    # the registry itself did get the credentials (the challenge it sent asked for them)
    assert any(a.startswith("Basic ") for a in fake.authorizations)


def test_pull_never_sends_credentials_to_a_redirect_target(
    tmp_path: Path, pushed: tuple[str, dict[str, str]], fake: FakeRegistry, storage: FakeRegistry
) -> None:
    ref, env = pushed
    out = tmp_path / "out.skp"
    proc = run_cli("pull", ref, "-o", out, env=env)
    assert proc.returncode == 2
    _refused(proc.stderr, storage, fake)
    assert not out.exists()


def test_install_and_serve_refuse_the_same_way(
    tmp_path: Path, pushed: tuple[str, dict[str, str]], fake: FakeRegistry, storage: FakeRegistry
) -> None:
    ref, env = pushed
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    install = run_cli("install", ref, "-a", "claude-code", cwd=project, env=env)
    assert install.returncode == 2
    _refused(install.stderr, storage, fake)
    assert sorted(p.name for p in project.iterdir()) == [".claude"]
    serve = run_cli("serve", ref, env=env, input=b"")
    assert serve.returncode == 2
    _refused(serve.stderr, storage, fake)


def test_repository_content_never_chooses_where_environment_credentials_go(
    tmp_path: Path, fake: FakeRegistry, bundle: Path, cli_registry_env: dict[str, str]
) -> None:
    """A skillpack.toml (or lock) arriving in a pull request names a registry: CI's
    SKILLPACK_REGISTRY_USERNAME/PASSWORD go there only if SKILLPACK_REGISTRY names it."""
    ref = fake.ref("acme/skills", "1.0.0")
    assert run_cli("push", bundle, ref, env=cli_registry_env).returncode == 0
    fake.challenge = 'Basic realm="registry"'
    fake.authorizations.clear()
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "skillpack.toml").write_text(
        f'[[install]]\nsource = "{ref}"\nagents = ["claude-code"]\n'
    )
    env = {**cli_registry_env, "SKILLPACK_REGISTRY_USERNAME": "ci-bot",
           "SKILLPACK_REGISTRY_PASSWORD": "s3cret-registry-password"}  # fmt: skip
    proc = run_cli("install", cwd=project, env=env)
    assert proc.returncode == 2 and "REG020" in proc.stderr, proc.stderr
    assert fake.authorizations == []  # nothing was sent to the host the file named
    named = run_cli("install", cwd=project, env={**env, "SKILLPACK_REGISTRY": fake.host})
    assert named.returncode == 0, named.stderr
    assert any(a.startswith("Basic ") for a in fake.authorizations)
    # typed on the command line, the reference's registry is the user's own choice
    fake.authorizations.clear()
    typed = run_cli("pull", ref, "-o", tmp_path / "typed.skp", env=env)
    assert typed.returncode == 0, typed.stderr
