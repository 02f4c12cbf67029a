"""uninstall on a path the system refuses (issue 21, audit 3): a name over 255 bytes in
the lock is INS011 before anything is read; what the system still refuses (a
permission, ENAMETOOLONG, a directory that cannot be listed) is INS022, found while
planning, before the first delete; a delete that fails anyway stops there, never a
crash, and the lock keeps every skill not removed in full.

The system's refusals are simulated (the tests run as root, whom permissions do not
stop) in this process through the CLI's own entry function, :func:`skillpack.cli.run`."""

from __future__ import annotations

import contextlib
import errno
import io
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli
from tests.install.conftest import LOCK, snapshot


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("b") / "acme.skp"
    assert run_cli("build", EXAMPLES, "-o", out).returncode == 0
    return out


@pytest.fixture
def project(tmp_path: Path, bundle: Path) -> Path:
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    assert run_cli("install", bundle, "-a", "claude-code", cwd=project).returncode == 0
    return project


@contextlib.contextmanager
def _in(project: Path) -> Iterator[None]:
    saved = os.getcwd()
    os.chdir(project)
    try:
        yield
    finally:
        os.chdir(saved)


def _run(project: Path, *args: str) -> tuple[int, str, str]:
    from skillpack.cli import run

    out, err = io.StringIO(), io.StringIO()
    with _in(project), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(args))
    return code, out.getvalue(), err.getvalue()


def test_a_name_the_system_refuses_is_ins011_before_any_delete(
    project: Path, tmp_path: Path
) -> None:
    """The audit's lock: a file of 300 x's beside SKILL.md; uninstall deleted SKILL.md,
    then 'internal error: OSError: [Errno 36] File name too long' (exit 3)."""
    lock = project / LOCK
    text = lock.read_text()
    entry = '    { path = "SKILL.md", '
    at = text.index(entry, text.index('name = "refunds"'))
    line = '    { path = "' + "x" * 300 + '", size = 1, digest = "sha256:' + "0" * 64 + '" },\n'
    lock.write_text(text[:at] + line + text[at:])
    before = snapshot(tmp_path)
    for args in (["uninstall", "refunds"], ["uninstall", "refunds", "--force"],
                 ["install", "--check"], ["install"]):  # fmt: skip
        proc = run_cli(*args, cwd=project)
        assert proc.returncode == 2 and "INS011" in proc.stderr, (args, proc.stderr)
        assert "has a segment over 255 bytes" in proc.stderr
        assert snapshot(tmp_path) == before


def test_a_permission_found_while_planning_removes_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_access = os.access

    def access(path: object, mode: int, **kw: object) -> bool:
        if str(path).endswith("pdf-processing/scripts"):
            return False
        return real_access(path, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    before = snapshot(tmp_path)
    for args in (["uninstall", "refunds", "pdf-processing"], ["uninstall", "pdf-processing",
                                                               "--force"]):  # fmt: skip
        code, _, err = _run(project, *args)
        assert code == 1 and "INS022" in err, err
        assert "cannot remove files of .claude/skills/pdf-processing/scripts" in err
        assert snapshot(tmp_path) == before


def test_a_directory_that_cannot_be_listed_removes_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if str(path).endswith("pdf-processing/references"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    before = snapshot(tmp_path)
    code, _, err = _run(project, "uninstall", "pdf-processing", "--force")
    assert code == 1 and "INS022" in err and "Permission denied" in err, err
    assert snapshot(tmp_path) == before


def test_a_delete_that_fails_anyway_stops_with_a_code(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first skill goes, the second fails half-way: INS022, no traceback; the lock
    keeps the second (install --check shows what is missing, install restores it)."""
    real_unlink = os.unlink

    def unlink(path: object, *args: object, **kw: object) -> None:
        if str(path) == "extract.py":
            raise OSError(errno.ENAMETOOLONG, "File name too long", "extract.py")
        real_unlink(path, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "unlink", unlink)
    code, _, err = _run(project, "uninstall", "brand-assets", "pdf-processing")
    assert code == 1 and "INS022 cannot remove the files of pdf-processing" in err, err
    assert "removed before it: .claude/skills/brand-assets" in err
    assert "Traceback" not in err and "internal error" not in err
    monkeypatch.undo()
    lock = (project / LOCK).read_text()
    assert 'name = "brand-assets"' not in lock and 'name = "pdf-processing"' in lock
    check = run_cli("install", "--check", cwd=project)
    assert check.returncode == 1 and "missing: .claude/skills/pdf-processing/" in check.stdout
    assert run_cli("install", cwd=project).returncode == 0
    assert "no drift" in run_cli("install", "--check", cwd=project).stdout
