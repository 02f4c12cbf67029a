"""The content scan started before a large bundle's full open (skillpack.policy.prescan):
a forked worker scans from the first file, the caller from the last, and admission takes
a result only for the path and sha256 of the bytes it verified. These tests run the real
worker over real bundles (over 1 MiB, where install and pull start it) and check that
admission judges exactly what it judges without it: the same findings, a refusal with
nothing written, a result made for other bytes never taken."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from skillpack.bundle.reader import open_bundle
from skillpack.errors import SkillpackError
from skillpack.fetch import open_verified
from skillpack.policy.admission import Admission, admit
from skillpack.policy.file import Policy
from skillpack.policy.prescan import MIN_BYTES, Prescan, first_listing, start_prescan
from tests.conftest import run_cli, write_skill
from tests.policy.test_admission import ATTACK_MD, SETUP_SH

SKILLS = 48
BLOB = 24 * 1024  # random bytes per skill: the bundle passes MIN_BYTES, deflate or not
ATTACK = "invoice-helper"  #: the skill of test_admission's ATTACK_MD and SETUP_SH
BENIGN_MD = "---\nname: invoice-helper\ndescription: Formats invoices.\n---\nFormat it.\n"
BENIGN_SH = "#!/bin/sh\necho setting up\n"


def _build(root: Path, skill_md: str, setup: str) -> Path:
    """A bundle of SKILLS skills with a random blob each, the attack skill in the middle
    (its SKILL.md and script as given), built without the lint gate."""
    rng = random.Random(22)
    skills = root / "skills"
    for i in range(SKILLS):
        write_skill(skills, f"tool-{i:02d}", files={
            "assets/blob.bin": rng.randbytes(BLOB),
            "references/guide.md": f"# Guide {i}\n\nRun `make check` first.\n",
        })  # fmt: skip
    attack = skills / "tool-24-invoice" / ATTACK
    (attack / "scripts").mkdir(parents=True)
    (attack / "SKILL.md").write_text(skill_md, encoding="utf-8")
    (attack / "scripts" / "setup.sh").write_text(setup)
    out = root / "big.skp"
    built = run_cli("build", skills, "-o", out, "--no-lint")
    assert built.returncode == 0, built.stderr
    assert out.stat().st_size >= MIN_BYTES
    return out


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(tmp_path_factory.mktemp("big"), ATTACK_MD, SETUP_SH)


@pytest.fixture(scope="module")
def big_benign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same skill paths as ``big``; the attack skill's two files hold other bytes."""
    return _build(tmp_path_factory.mktemp("benign"), BENIGN_MD, BENIGN_SH)


def _lines(admission: Admission) -> list[str]:
    return [f.line() for f in admission.flagged]


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _worker_done(prescan: Prescan, files: int) -> None:
    """Wait until the worker has scanned every file (it says how far it has come)."""
    deadline = time.monotonic() + 60
    while prescan._marks[0] < files:
        assert time.monotonic() < deadline, "the worker did not finish"
        time.sleep(0.01)


@pytest.mark.parametrize("worker", ["all", "meeting"])
def test_the_prescan_finds_what_admission_finds(big: Path, worker: str) -> None:
    """``all``: the worker scanned every file before the caller asked; ``meeting``: the
    caller asks at once and scans from the last file until the two meet."""
    with open_bundle(big, keep=64 << 20) as bundle:
        files = first_listing(bundle.manifest.skills)
        direct = admit(bundle.manifest, lambda e: bundle.read_verified(e, again=True))
        prescan = Prescan(big)
        pid = prescan._forked.pid if prescan._forked else 0
        if worker == "all":
            _worker_done(prescan, len(files))
        found = prescan.result(
            bundle.manifest.skills, lambda e: bundle.read_verified(e, again=True)
        )
        # every file has its result, from the worker or from this process
        assert set(found) == {(f.path, f.digest) for f in files}
        taken = admit(bundle.manifest, lambda e: bundle.read_verified(e, again=True),
                      prescanned=found)  # fmt: skip
    assert _reaped(pid)
    assert _lines(taken) == _lines(direct)
    codes = sorted({f.finding.code for f in direct.refused})
    assert codes == ["SP501", "SP520"], _lines(direct)


def test_a_result_made_for_other_bytes_is_never_taken(big: Path, big_benign: Path) -> None:
    """The worker read another bundle at the same path (replaced in between): its clean
    results for the attack skill's files do not stand for the bytes verified."""
    with open_bundle(big_benign, keep=64 << 20) as benign:
        files = first_listing(benign.manifest.skills)
        clean = Prescan(big_benign).result(
            benign.manifest.skills, lambda e: benign.read_verified(e, again=True)
        )
    assert len(clean) == len(files)
    with open_bundle(big, keep=64 << 20) as bundle:
        admitted = admit(bundle.manifest, lambda e: bundle.read_verified(e, again=True),
                         prescanned=clean)  # fmt: skip
    refused = sorted(f.file.uri for f in admitted.refused)
    assert refused == [f"skill://tool-24-invoice/{ATTACK}/SKILL.md",
                       f"skill://tool-24-invoice/{ATTACK}/scripts/setup.sh"]  # fmt: skip


def test_a_worker_that_fails_leaves_the_scan_to_this_process(big: Path, tmp_path: Path) -> None:
    """A worker that cannot open its bundle (here: not a bundle at all) reports nothing;
    this process scanned every file from the last down, and admission is the same."""
    junk = tmp_path / "junk.skp"
    junk.write_bytes(b"not a zip" * 1000)
    with open_bundle(big, keep=64 << 20) as bundle:
        files = first_listing(bundle.manifest.skills)
        direct = admit(bundle.manifest, lambda e: bundle.read_verified(e, again=True))
        found = Prescan(junk).result(
            bundle.manifest.skills, lambda e: bundle.read_verified(e, again=True)
        )
        assert set(found) == {(f.path, f.digest) for f in files}
        taken = admit(bundle.manifest, lambda e: bundle.read_verified(e, again=True),
                      prescanned=found)  # fmt: skip
    assert _lines(taken) == _lines(direct)


def test_only_the_files_asked_for_are_scanned_here(big: Path) -> None:
    """``only``: the caller scans just the files it admits; what the worker has not
    reached of the others is left unscanned (admit scans what it needs itself)."""
    with open_bundle(big, keep=64 << 20) as bundle:
        files = first_listing(bundle.manifest.skills)
        wanted = {files[-1].uri}
        found = Prescan(big).result(
            bundle.manifest.skills, lambda e: bundle.read_verified(e, again=True), wanted
        )
    assert (files[-1].path, files[-1].digest) in found


def test_stop_kills_and_reaps_the_worker(big: Path) -> None:
    prescan = Prescan(big)
    assert prescan._forked is not None
    pid = prescan._forked.pid
    prescan.stop()
    prescan.stop()  # idempotent
    assert _reaped(pid)
    assert prescan.result([], lambda e: b"") == {}  # stopped: nothing, no wait


def test_where_a_prescan_would_not_pay(
    big: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = tmp_path / "small.skp"
    small.write_bytes(b"x" * 1024)
    assert start_prescan(small) is None  # under MIN_BYTES
    assert start_prescan(tmp_path / "missing.skp") is None  # the open says why
    monkeypatch.setenv("SKILLPACK_JOBS", "1")
    assert start_prescan(big) is None  # one process asked for
    monkeypatch.setenv("SKILLPACK_JOBS", "2")
    started = start_prescan(big)
    assert started is not None
    started.stop()


def test_open_verified_with_admission_refuses_through_the_prescan(big: Path) -> None:
    """pull's path: open_verified with the consumer's policy starts the worker before
    the open and refuses the attack skill, naming each finding."""
    with pytest.raises(SkillpackError) as caught:
        open_verified(big, label="big.skp", admission=Policy.default())
    assert caught.value.code == "ADM001"
    assert f"skill://tool-24-invoice/{ATTACK}/scripts/setup.sh:2:1: SP520" in "\n".join(
        caught.value.details
    )


def _tree(path: Path) -> list[str]:
    return sorted(p.relative_to(path).as_posix() for p in path.rglob("*"))


def test_install_of_a_large_attack_bundle_refuses_and_writes_nothing(
    tmp_path: Path, big: Path
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    before = _tree(project)
    proc = run_cli("install", big, "-a", "claude-code", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert "ADM001 the content scan refused 2 findings (SP501, SP520) in " in proc.stderr
    assert f"tool-24-invoice/{ATTACK}/SKILL.md:5:31: SP501" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _tree(project) == before
    # accepted for the skill, it installs; one other skill alone installs (the worker
    # stopped, the few files scanned here)
    ok = run_cli("install", big, "-a", "claude-code", "--accept", f"{ATTACK}:SP501",
                 "--accept", f"{ATTACK}:SP520", cwd=project)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert (project / ".claude/skills" / ATTACK / "scripts/setup.sh").read_text() == SETUP_SH
    one = tmp_path / "one"
    (one / ".claude").mkdir(parents=True)
    alone = run_cli("install", big, "-a", "claude-code", "-s", "tool-03", cwd=one)
    assert alone.returncode == 0, alone.stderr
    assert sorted(os.listdir(one / ".claude/skills")) == ["tool-03"]
