"""Fixtures for the signing tests: a private sigstore instance on loopback, isolated
sigstore caches, and bundles built by the real ``skillpack build``."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._bundles import build
from tests.conftest import run_cli, write_skill
from tests.sigstore_local import DEFAULT_ISSUER, LocalSigstore


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

EMAIL = "dev@skillpack.test"
IDENTITY = ("--cert-identity", EMAIL, "--cert-oidc-issuer", DEFAULT_ISSUER)
#: Archive entries of the demo bundle the tests change.
CHECKLIST = "acme/review/references/checklist.md"
LOGO = "brand/assets/logo.svg"


def skillpack(*args: str | os.PathLike[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """The real CLI, ``python -m skillpack ARGS``, in a subprocess."""
    return run_cli(*args, **kwargs)  # type: ignore[arg-type]


def payload_of(signature: Path) -> dict:
    """The statement inside a signature file's DSSE envelope (not verified)."""
    envelope = json.loads(signature.read_text())["dsseEnvelope"]
    return json.loads(base64.b64decode(envelope["payload"]))


def write_project(root: Path, name: str = "demo") -> Path:
    """Two skills, one nested with a script and a non-ASCII file name."""
    skills = root / "skills"
    write_skill(skills, "acme/review", files={"references/checklist.md": "- tests pass\n"})
    write_skill(
        skills,
        "acme/review/deep",
        files={"scripts/run.sh": "#!/bin/sh\necho ok\n", "notes/café.md": "crème\n"},
    )
    write_skill(skills, "brand", files={"assets/logo.svg": b"<svg/>\n"})
    (root / "skillpack.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\nroots = ["skills"]\n', encoding="utf-8"
    )
    return root


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("demo") / "project")


@pytest.fixture(scope="session")
def built_demo(demo_project: Path) -> Path:
    """``skillpack build`` of the demo project, once (builds are reproducible)."""
    return build(demo_project, demo_project.parent / "demo.skp")


@pytest.fixture(scope="session")
def built_other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("other") / "project"
    write_skill(project / "skills", "solo", files={"a.txt": "a\n"})
    (project / "skillpack.toml").write_text(
        'name = "other"\nversion = "1.0.0"\nroots = ["skills"]\n'
    )
    return build(project, project.parent / "other.skp")


@pytest.fixture
def bundle(built_demo: Path, tmp_path: Path) -> Path:
    """A fresh copy of the built, unsigned demo bundle: ``dist/demo.skp``."""
    (tmp_path / "dist").mkdir()
    return Path(shutil.copyfile(built_demo, tmp_path / "dist" / "demo.skp"))


@pytest.fixture
def other_bundle(built_other: Path, tmp_path: Path) -> Path:
    """Another project's bundle, ``other.skp``."""
    return Path(shutil.copyfile(built_other, tmp_path / "other.skp"))
