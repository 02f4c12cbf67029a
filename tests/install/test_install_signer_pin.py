"""A pinned signer is part of the pin (issue 21 §2): a source that now resolves to an
unsigned (or differently signed) bundle is refused on upgrade unless signature options
given now say who signs it; the lock keeps its signer."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.install.conftest import Bundles, Run


def test_an_upgrade_keeps_the_pinned_signer(
    sp: Run, project: Path, bundles: Bundles, keys: tuple[Path, Path],
    other_keys: tuple[Path, Path], tmp_path: Path,
) -> None:  # fmt: skip
    source = tmp_path / "acme.skp"
    shutil.copy(bundles.v1, source)
    assert sp("sign", source, "--key", keys[0]).returncode == 0
    first = sp("install", source, "-a", "codex", "--key", keys[1])
    assert first.returncode == 0, first.stderr
    lock = project / "skillpack-install.lock"
    pinned = lock.read_text()
    assert 'signer = { mode = "key"' in pinned
    # the source is replaced by an unsigned rebuild
    shutil.copy(bundles.v2, source)
    Path(f"{source}.sigstore.json").unlink()
    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    refused = sp("install", "--upgrade")
    assert refused.returncode == 1 and "INS019" in refused.stderr, refused.stderr
    assert "the lock pins its signer (key " in refused.stderr
    assert lock.read_text() == pinned
    assert sorted(p.relative_to(project).as_posix() for p in project.rglob("*")) == before
    # with the key: the unsigned rebuild fails the check, the signed one passes
    unsigned = sp("install", "--upgrade", "--key", keys[1])
    assert unsigned.returncode == 1 and "SIG001" in unsigned.stderr
    assert sp("sign", source, "--key", keys[0]).returncode == 0
    upgraded = sp("install", "--upgrade", "--key", keys[1])
    assert upgraded.returncode == 0, upgraded.stderr
    assert 'signer = { mode = "key"' in lock.read_text()
    # signed by another key: the signer changes only because the user says so
    shutil.copy(bundles.v1, source)
    assert sp("sign", source, "--key", other_keys[0]).returncode == 0
    assert sp("install", "--upgrade").returncode == 1
    changed = sp("install", "--upgrade", "--key", other_keys[1])
    assert changed.returncode == 0, changed.stderr
