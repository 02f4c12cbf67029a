"""``skillpack install oci://...`` against the real distribution registry of the
registry tests: pinned by manifest digest, re-tagged sources, signatures as referrers."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.install.conftest import LOCK, Bundles, Run, ok, refused, snapshot, tree_files
from tests.registry.conftest import cli_registry_env, registry  # noqa: F401  (fixtures)
from tests.registry.servers import DistributionRegistry


def test_install_from_a_registry_pins_the_manifest_digest(
    sp: Run,
    project: Path,
    bundles: Bundles,
    registry: DistributionRegistry,  # noqa: F811
    cli_registry_env: dict[str, str],  # noqa: F811
    keys: tuple[Path, Path],
    other_keys: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    env = cli_registry_env
    tag = registry.ref("acme/skills", "stable")
    v1 = tmp_path / "acme-1.skp"
    shutil.copy(bundles.v1, v1)
    ok(sp("sign", v1, "--key", keys[0], extra=env))
    pushed = ok(sp("push", v1, tag, extra=env)).stdout.strip()
    digest = pushed.rpartition("@")[2]

    # a wrong key or no signature at all: refused, nothing written
    refused(sp("install", tag, "-a", "codex", "--key", other_keys[1], extra=env), "SIG", 1)
    assert list(project.iterdir()) == []
    ok(sp("install", tag, "-a", "codex", "--require-signature", "--key", keys[1], extra=env))
    lock = (project / LOCK).read_text()
    assert f'source = "{tag}"' in lock and f'manifest-digest = "{digest}"' in lock
    assert 'signer = { mode = "key"' in lock
    installed = project / ".agents" / "skills" / "review"
    assert (installed / "scripts" / "check.sh").read_bytes() == b"#!/bin/sh\necho 1.0.0\n"

    # the tag moves to version 2
    v2 = tmp_path / "acme-2.skp"
    shutil.copy(bundles.v2, v2)
    ok(sp("push", v2, tag, extra=env))
    before = snapshot(project)
    err = refused(sp("install", "--frozen", extra=env), "INS007", 1)
    assert digest in err
    # a plain install keeps the pin (fetched by digest): nothing changes
    ok(sp("install", extra=env))
    assert snapshot(project) == before
    # a new clone with the lock installs the pinned digest, from the registry
    shutil.rmtree(project / ".agents")
    fresh = {**env, "SKILLPACK_CACHE_DIR": str(tmp_path / "fresh-cache")}
    ok(sp("install", extra=fresh))
    assert tree_files(installed)["scripts/check.sh"] == b"#!/bin/sh\necho 1.0.0\n"
    # --upgrade follows the tag (version 2 is unsigned: the signer policy refuses it)
    refused(sp("install", "--upgrade", "--require-signature", "--key", keys[1], extra=env),
            "SIG001", 1)  # fmt: skip
    # without signature options the pinned signer still applies (it is part of the pin)
    refused(sp("install", "--upgrade", extra=env), "INS019", 1)
    ok(sp("sign", v2, "--key", keys[0], extra=env))
    ok(sp("push", v2, tag, extra=env))  # now with its signature as a referrer
    proc = ok(sp("install", "--upgrade", "--key", keys[1], extra=env))
    assert "~ version: 1.0.0 -> 2.0.0" in proc.stdout
    assert tree_files(installed)["scripts/check.sh"] == b"#!/bin/sh\necho 2.0.0\n"
    assert f'manifest-digest = "{digest}"' not in (project / LOCK).read_text()
    assert "no drift" in ok(sp("install", "--check", extra=env)).stdout


def test_a_cached_blob_that_changed_is_never_installed(
    sp: Run,
    project: Path,
    bundles: Bundles,
    registry: DistributionRegistry,  # noqa: F811
    cli_registry_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    """A cached copy changed without a trace (a byte flipped, its stamp of size, times
    and inode forged as if nothing had been written) is never installed:
    install hashes a cached blob before it trusts it, removes a changed copy and fetches
    it again; offline the copy is missing (REG060) and nothing is installed."""
    env = cli_registry_env
    tag = registry.ref("acme/skills", "stable")
    pushed = ok(sp("push", bundles.v1, tag, extra=env)).stdout.strip()
    ok(sp("install", tag, "-a", "codex", extra=env))  # fills the cache
    lock = (project / LOCK).read_text()
    layer = next(
        line.split('"')[1] for line in lock.splitlines() if line.startswith("bundle-digest")
    )
    cache = Path(env["SKILLPACK_CACHE_DIR"]) / "oci"
    blob = cache / "blobs" / "sha256" / layer[7:]
    _flip(blob, blob.stat().st_size // 2)
    status = blob.stat()
    (cache / "stamps" / "sha256" / layer[7:]).write_text(
        f"{status.st_size} {status.st_mtime_ns} {status.st_ctime_ns} "
        f"{status.st_ino} {status.st_dev}\n"
    )
    other = tmp_path / "other"
    other.mkdir()
    proc = ok(sp("install", pushed, "-a", "codex", cwd=other, extra=env))
    installed = other / ".agents" / "skills" / "review"
    assert tree_files(installed)["scripts/check.sh"] == b"#!/bin/sh\necho 1.0.0\n", proc.stderr
    assert f'bundle-digest = "{layer}"' in (other / LOCK).read_text()
    assert blob.read_bytes() == bundles.v1.read_bytes()  # fetched again

    # offline: the changed copy is removed and the bundle is missing; nothing installed
    _flip(blob, blob.stat().st_size // 2)
    status = blob.stat()
    (cache / "stamps" / "sha256" / layer[7:]).write_text(
        f"{status.st_size} {status.st_mtime_ns} {status.st_ctime_ns} "
        f"{status.st_ino} {status.st_dev}\n"
    )
    third = tmp_path / "third"
    third.mkdir()
    refused(sp("install", pushed, "-a", "codex", "--offline", cwd=third, extra=env), "REG060", 2)
    assert list(third.iterdir()) == []
    assert not blob.exists()


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    with path.open("r+b") as f:  # in place: the same inode
        f.write(data)


def test_a_signature_pushed_after_the_first_fetch_is_found(
    sp: Run,
    project: Path,
    bundles: Bundles,
    registry: DistributionRegistry,  # noqa: F811
    cli_registry_env: dict[str, str],  # noqa: F811
    keys: tuple[Path, Path],
    other_keys: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    """The cache records a bundle's signature referrers when it first fetches them. A
    second signer's signature pushed later is not in that record: when no recorded one
    verifies, pull and install ask the registry for the current referrers before they
    refuse (offline, they cannot: the refusal stands)."""
    tag = registry.ref("acme/skills", "stable")
    for_pull = {**cli_registry_env, "SKILLPACK_CACHE_DIR": str(tmp_path / "pull-cache")}
    for_install = {**cli_registry_env, "SKILLPACK_CACHE_DIR": str(tmp_path / "install-cache")}
    first = tmp_path / "first.skp"
    shutil.copy(bundles.v1, first)
    pushed = ok(sp("push", first, tag, "--sign", "--key", keys[0], extra=for_pull))
    by_digest = pushed.stdout.strip()  # a reference by digest is served from the cache
    assert "@sha256:" in by_digest
    # each cache records the one signature there is
    ok(sp("pull", by_digest, "--key", keys[1], "-o", tmp_path / "a.skp", extra=for_pull))
    ok(sp("install", by_digest, "-a", "codex", "--require-signature", "--key", keys[1],
          extra=for_install))  # fmt: skip
    second = tmp_path / "second.skp"
    shutil.copy(bundles.v1, second)  # the same archive, signed by another key, pushed
    ok(sp("sign", second, "--key", other_keys[0], extra=for_pull))
    ok(sp("push", second, tag, extra=for_pull))

    offline = refused(
        sp("pull", by_digest, "--offline", "--key", other_keys[1], "-o", tmp_path / "x.skp",
           extra=for_pull),
        "SIG",
        1,
    )  # fmt: skip
    assert "SIG001" not in offline  # the recorded signature is there, by the other key
    ok(sp("pull", by_digest, "--key", other_keys[1], "-o", tmp_path / "b.skp", extra=for_pull))
    assert (tmp_path / "b.skp").read_bytes() == bundles.v1.read_bytes()
    other = tmp_path / "other"
    other.mkdir()
    ok(sp("install", by_digest, "-a", "codex", "--require-signature", "--key", other_keys[1],
          cwd=other, extra=for_install))  # fmt: skip
    assert 'signer = { mode = "key"' in (other / LOCK).read_text()
