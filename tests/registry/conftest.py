"""Fixtures of the registry tests: real registries (anonymous, htpasswd, token), the
fake one, a bundle built by the real CLI, and client options isolated from this
machine's docker configuration and environment, with small timeouts."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillpack.registry import ClientOptions
from tests.conftest import run_cli, write_skill
from tests.registry.fake_registry import FakeRegistry
from tests.registry.servers import (
    REGISTRY_BINARY,
    DistributionRegistry,
    TokenServer,
    bcrypt_hash,
    htpasswd_registry,
    token_registry,
)
from tests.sigstore_local import LocalSigstore

USERS = {"alice": "alice-Secret-pw-1", "bob": "bob-Secret-pw-2"}
READER, WRITER = "reader", "writer"
PASSWORDS = {READER: "reader-Secret-pw-3", WRITER: "writer-Secret-pw-4"}
REFRESH_TOKEN = "refresh-Secret-token-5"


def require_tool(path: str) -> None:
    """Skip without the tool, except in CI (``.ci/run`` installs it): there, fail."""
    if shutil.which(path) is None:
        message = f"{path} is not installed (apt-get install docker-registry skopeo)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def options(tmp_path: Path) -> ClientOptions:
    """No credentials from this machine; quick timeouts and retries."""
    empty = tmp_path / "no-docker-config"
    empty.mkdir(exist_ok=True)
    return ClientOptions(timeout=5.0, retries=1, backoff=0.05, environ={}, docker_config=empty)


@pytest.fixture(scope="session")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small .skp built by ``skillpack build`` from a tree written here."""
    root = tmp_path_factory.mktemp("project")
    (root / "skillpack.toml").write_text(
        'name = "oci-demo"\nversion = "1.2.3"\nroots = ["skills"]\n', encoding="utf-8"
    )
    write_skill(root / "skills", "review", files={"references/checklist.md": "- [ ] tests\n"})
    write_skill(root / "skills", "release", files={"scripts/run.sh": "#!/bin/sh\necho ok\n"})
    out = root / "dist" / "oci-demo-1.2.3.skp"
    proc = run_cli("build", root, "-o", out, "--no-lint")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def signature(tmp_path: Path, bundle: Path) -> Path:
    """Stand-in signature bytes (the registry never reads them)."""
    path = tmp_path / (bundle.name + ".sigstore.json")
    path.write_bytes(b'{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}\n')
    return path


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[DistributionRegistry]:
    require_tool(REGISTRY_BINARY)
    with DistributionRegistry(tmp_path / "registry") as running:
        yield running


@pytest.fixture
def basic_registry(tmp_path: Path) -> Iterator[DistributionRegistry]:
    require_tool(REGISTRY_BINARY)
    if bcrypt_hash("probe") is None:
        pytest.skip("no bcrypt implementation (libcrypt, bcrypt or htpasswd)")
    directory = tmp_path / "basic-registry"
    directory.mkdir()
    with htpasswd_registry(directory, USERS) as running:
        yield running


@pytest.fixture
def token_server(tmp_path: Path) -> Iterator[TokenServer]:
    directory = tmp_path / "tokens"
    directory.mkdir()
    server = TokenServer(
        directory,
        users={
            READER: (PASSWORDS[READER], frozenset({"pull"})),
            WRITER: (PASSWORDS[WRITER], frozenset({"pull", "push"})),
        },
        refresh_tokens={REFRESH_TOKEN: WRITER},
    )
    with server:
        yield server


@pytest.fixture
def bearer_registry(tmp_path: Path, token_server: TokenServer) -> Iterator[DistributionRegistry]:
    require_tool(REGISTRY_BINARY)
    directory = tmp_path / "token-registry"
    directory.mkdir()
    with token_registry(directory, token_server) as running:
        yield running


@pytest.fixture
def fake() -> Iterator[FakeRegistry]:
    with FakeRegistry() as server:
        yield server


@pytest.fixture
def fake_without_api() -> Iterator[FakeRegistry]:
    with FakeRegistry(referrers_api=False) as server:
        yield server


def files_under(path: Path) -> list[Path]:
    """Every file under ``path`` (none when it does not exist)."""
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


@pytest.fixture
def cli_registry_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of a CLI subprocess talking to a test registry: its own cache
    and an empty docker configuration; no registry credentials from this machine."""
    for var in (
        "SKILLPACK_REGISTRY_USERNAME",
        "SKILLPACK_REGISTRY_PASSWORD",
        "SKILLPACK_CACHE_DIR",
        "DOCKER_CONFIG",
        *("GITHUB_ACTIONS", "ACTIONS_ID_TOKEN_REQUEST_URL", "SIGSTORE_IDENTITY_TOKEN"),
    ):
        monkeypatch.delenv(var, raising=False)
    docker = tmp_path / "docker-config"
    docker.mkdir(exist_ok=True)
    return {
        "SKILLPACK_CACHE_DIR": str(tmp_path / "cache"),
        "DOCKER_CONFIG": str(docker),
        # sigstore keeps a TUF cache under the XDG directories even offline
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


@pytest.fixture(scope="session")
def sigstore_instance() -> Iterator[LocalSigstore]:
    """The private sigstore instance of the signing tests (tests/sigstore_local.py)."""
    with LocalSigstore("skillpack-registry") as instance:
        yield instance


@pytest.fixture(scope="session")
def sigstore_trust(
    sigstore_instance: LocalSigstore, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Its ClientTrustConfig, for --trust-config."""
    return sigstore_instance.write_trust_config(tmp_path_factory.mktemp("trust") / "tc.json")
