"""Fixtures for the signing tests: a private sigstore instance on loopback, isolated
sigstore caches, and small signed-bundle builders."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import run_cli, write_skill
from tests.signing.bundle_stub import build_test_bundle
from tests.sigstore_local import LocalSigstore


@pytest.fixture(scope="session", autouse=True)
def _isolated_sigstore_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """sigstore-python writes its TUF cache under the XDG dirs even offline: keep it in
    tmp, for this process and every CLI subprocess; never use a proxy for loopback."""
    home = tmp_path_factory.mktemp("xdg")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(home / "cache"))
        mp.setenv("XDG_DATA_HOME", str(home / "data"))
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        for var in ("GITHUB_ACTIONS", "ACTIONS_ID_TOKEN_REQUEST_URL", "SIGSTORE_IDENTITY_TOKEN"):
            mp.delenv(var, raising=False)
        yield


@pytest.fixture(scope="session")
def local_sigstore() -> Iterator[LocalSigstore]:
    with LocalSigstore("skillpack-local") as instance:
        yield instance


@pytest.fixture(scope="session")
def foreign_sigstore() -> Iterator[LocalSigstore]:
    """A second, unrelated instance: its root must not vouch for the first one's work."""
    with LocalSigstore("skillpack-foreign") as instance:
        yield instance


@pytest.fixture(scope="session")
def trust_config(local_sigstore: LocalSigstore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return local_sigstore.write_trust_config(tmp_path_factory.mktemp("trust") / "tc.json")


@pytest.fixture(scope="session")
def foreign_trust_config(
    foreign_sigstore: LocalSigstore, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return foreign_sigstore.write_trust_config(tmp_path_factory.mktemp("foreign") / "tc.json")


def network_available() -> bool:
    import socket

    try:
        socket.create_connection(("tuf-repo-cdn.sigstore.dev", 443), timeout=3).close()
        return True
    except OSError:
        return False


@pytest.fixture
def online() -> None:
    if os.environ.get("SKILLPACK_OFFLINE") or not network_available():
        pytest.skip("needs the public sigstore infrastructure (no network)")


# ---------------------------------------------------------------- bundles and the CLI

CLI_SHIM = "tests.signing.cli_shim"
EMAIL = "dev@skillpack.test"


def skillpack(*args: str | os.PathLike[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess (with the test bundle reader until the real one lands)."""
    return run_cli(*args, module=CLI_SHIM, **kwargs)  # type: ignore[arg-type]


def write_project(root: Path) -> Path:
    """Two skills, one nested with a script and a non-ASCII file name."""
    write_skill(root, "acme/review", files={"references/checklist.md": "- tests pass\n"})
    write_skill(
        root,
        "acme/review/deep",
        files={"scripts/run.sh": "#!/bin/sh\necho ok\n", "notes/café.md": "crème\n"},
    )
    write_skill(root, "brand", files={"assets/logo.svg": b"<svg/>\n"})
    return root


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A freshly built, unsigned test bundle ``dist/demo.skp``."""
    project = write_project(tmp_path / "project")
    (tmp_path / "dist").mkdir()
    path, _, _ = build_test_bundle(project, tmp_path / "dist" / "demo.skp")
    return path


@pytest.fixture
def other_bundle(tmp_path: Path) -> Path:
    project = tmp_path / "other"
    write_skill(project, "solo", files={"a.txt": "a\n"})
    path, _, _ = build_test_bundle(project, tmp_path / "other.skp")
    return path
