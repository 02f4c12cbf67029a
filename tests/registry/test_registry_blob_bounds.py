"""A blob is bounded before it is downloaded (issue 21 §2): a manifest declaring a layer
larger than a bundle can be (or than SKILLPACK_REGISTRY_MAX_BYTES) is refused at the
manifest, before the blob is asked for; a blob longer than its descriptor says is cut
off and refused. Through the real CLI against the fake registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.registry.fake_registry import FakeRegistry, sha256


def _retagged(fake: FakeRegistry, tag: str, size: int) -> tuple[str, str]:
    """The pushed manifest again under ``tag``, its bundle layer declaring ``size``;
    (reference, the layer's digest)."""
    digest = fake.tags["1.0.0"]
    manifest = json.loads(fake.manifests[digest][0])
    layer = manifest["layers"][0]
    layer["size"] = size
    data = json.dumps(manifest).encode()
    fake.manifests[sha256(data)] = (data, fake.manifests[digest][1])
    fake.tags[tag] = sha256(data)
    return fake.ref("acme/skills", tag), layer["digest"]


@pytest.fixture
def pushed(fake: FakeRegistry, bundle: Path, cli_registry_env: dict[str, str]) -> None:
    pushed = run_cli("push", bundle, fake.ref("acme/skills", "1.0.0"), env=cli_registry_env)
    assert pushed.returncode == 0, pushed.stderr
    fake.log.clear()


@pytest.mark.usefixtures("pushed")
def test_a_huge_declared_layer_is_refused_before_it_is_fetched(
    tmp_path: Path, fake: FakeRegistry, cli_registry_env: dict[str, str]
) -> None:
    ref, layer = _retagged(fake, "huge", 10**12)
    out = tmp_path / "out.skp"
    for args in (["pull", ref, "-o", out], ["serve", ref]):
        proc = run_cli(*args, env=cli_registry_env, input=b"")
        assert proc.returncode == 2, proc.stderr
        assert "REG044" in proc.stderr and "declares a bundle of 1000000000000 bytes" in (
            proc.stderr
        )
    assert not any(path.endswith(f"/blobs/{layer}") for _, path in fake.log)
    assert not out.exists()


@pytest.mark.usefixtures("pushed")
def test_a_lower_limit_can_be_set(
    tmp_path: Path, fake: FakeRegistry, cli_registry_env: dict[str, str]
) -> None:
    env = {**cli_registry_env, "SKILLPACK_REGISTRY_MAX_BYTES": "100"}
    proc = run_cli("pull", fake.ref("acme/skills", "1.0.0"), "-o", tmp_path / "o.skp", env=env)
    assert proc.returncode == 2 and "more than the 100 allowed" in proc.stderr
    bad = {**cli_registry_env, "SKILLPACK_REGISTRY_MAX_BYTES": "lots"}
    proc = run_cli("pull", fake.ref("acme/skills", "1.0.0"), "-o", tmp_path / "o.skp", env=bad)
    assert proc.returncode == 2 and "SKILLPACK_REGISTRY_MAX_BYTES='lots'" in proc.stderr


@pytest.mark.usefixtures("pushed")
def test_more_bytes_than_declared_are_cut_off(
    tmp_path: Path, fake: FakeRegistry, cli_registry_env: dict[str, str], bundle: Path
) -> None:
    ref, _ = _retagged(fake, "short", bundle.stat().st_size - 10)
    out = tmp_path / "out.skp"
    proc = run_cli("pull", ref, "-o", out, env=cli_registry_env)
    assert proc.returncode == 1 and "REG043" in proc.stderr, proc.stderr
    assert not out.exists()
    cached = Path(cli_registry_env["SKILLPACK_CACHE_DIR"])
    assert not [p for p in cached.rglob("*") if p.is_file() and p.stat().st_size > 1000]
