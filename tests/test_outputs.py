"""What skillpack writes, through the real CLI (issue 10, sections 1 and 5).

One class of defect per test: outputs that become inputs, configured paths that escape
the project or land in a skill, ``-o`` into a skill, writes that go around a FIFO or
stdout instead of through it, a failed build that leaves half its work, a stale
signature beside a new bundle, overlapping roots, and write failures that are not a
coded error naming the user's path.
"""

from __future__ import annotations

import json
import os
import random
import stat
import string
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, cli_env, run_cli, write_skill

#: a file's state: its bytes (or a link's target), its mode and its modification time
Snapshot = dict[str, tuple[bytes, int, int]]


def snapshot(root: Path) -> Snapshot:
    """Every entry under ``root`` (symlinks not followed), to compare before and after: a
    directory's entries, a file's bytes, mode and modification time (not a directory's:
    a temporary file made and removed in it changes that)."""
    found: Snapshot = {}
    for directory, dirs, files in os.walk(root):
        for name in sorted(files + dirs):
            path = Path(directory, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                content = os.readlink(path).encode()
            elif stat.S_ISREG(st.st_mode):
                content = path.read_bytes()
            else:
                content = b""
            mtime = 0 if stat.S_ISDIR(st.st_mode) else st.st_mtime_ns
            found[path.relative_to(root).as_posix()] = (content, st.st_mode, mtime)
    return found


def no_temp_files(root: Path) -> None:
    leftovers = [p for p in root.rglob("*") if p.name.endswith(".tmp")]
    assert not leftovers, leftovers


def refused(proc: subprocess.CompletedProcess[str], code: str, exit_code: int) -> str:
    assert proc.returncode == exit_code, (proc.returncode, proc.stderr)
    assert f" {code} " in f" {proc.stderr}", proc.stderr
    assert ".tmp" not in proc.stderr, proc.stderr
    return proc.stderr


def _limit_file_size(limit: int) -> Callable[[], None]:
    def preexec() -> None:  # in the child: no file may grow past ``limit`` bytes (EFBIG)
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def run_limited(*args: str | os.PathLike[str], limit: int) -> subprocess.CompletedProcess[str]:
    """The CLI with RLIMIT_FSIZE at ``limit`` bytes: a write past it fails with EFBIG, as
    on a full disk."""
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack", *map(str, args)],
        env=cli_env({"PYTHONDONTWRITEBYTECODE": "1"}),
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size(limit),
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with two skills under skills/ and a README beside them."""
    root = tmp_path / "proj"
    write_skill(root, "skills/alpha", files={"references/guide.md": "# Guide\n"})
    write_skill(root, "skills/beta", files={"notes.md": "Notes.\n"})
    (root / "README.md").write_text("# The project\n")
    return root


def bundle_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


# --- outputs never become inputs ----------------------------------------------------------
def test_a_project_that_is_one_skill_never_publishes_what_it_writes(tmp_path: Path) -> None:
    skill = write_skill(tmp_path, "pdf-tools", files={"scripts/run.sh": "echo run\n"})
    keys = tmp_path / "keys"
    assert run_cli("keygen", "--out-dir", keys).returncode == 0
    first = run_cli("build", skill, "--sign", "--key", keys / "skillpack.key")
    assert first.returncode == 0, first.stderr
    bundle = skill / "dist" / "pdf-tools-0.0.0.skp"
    built = bundle.read_bytes()
    assert (skill / "dist" / "pdf-tools-0.0.0.skp.sigstore.json").is_file()
    # a second bundle in the output directory, and a lint report beside the bundles
    assert run_cli("build", skill, "-o", skill / "dist" / "copy.skp").returncode == 0
    for _ in range(2):
        again = run_cli("build", skill)
        assert again.returncode == 0, again.stderr
        assert bundle.read_bytes() == built
    assert bundle_names(bundle)[2:] == ["pdf-tools/SKILL.md", "pdf-tools/scripts/run.sh"]
    check = run_cli("lock", "--check", skill)
    assert check.returncode == 0, check.stderr
    lint = run_cli("lint", skill)
    assert "2 files checked" in lint.stderr, lint.stderr


def test_configured_outputs_inside_a_skill_project_are_left_out(tmp_path: Path) -> None:
    """Another layout: the lock and output directory named by a configuration inside the
    skill directory."""
    skill = write_skill(tmp_path, "release-notes", files={"templates/notes.md": "## Notes\n"})
    (skill / "skillpack.toml").write_text(
        'name = "notes"\nversion = "2.0.0"\nlock = "locks/notes.lock"\n[build]\noutput = "out"\n'
    )
    for _ in range(2):
        assert run_cli("build", skill).returncode == 0
    bundle = skill / "out" / "notes-2.0.0.skp"
    assert "release-notes/locks/notes.lock" not in bundle_names(bundle)
    assert not any(name.endswith(".skp") for name in bundle_names(bundle))
    first = bundle.read_bytes()
    assert run_cli("build", skill).returncode == 0
    assert bundle.read_bytes() == first
    assert run_cli("lock", "--check", skill).returncode == 0


# --- configured paths are confined -------------------------------------------------------
CONFINED = [
    ('lock = "skills/alpha/references/guide.md"', "CFG031"),
    ('lock = "skills/beta/skillpack.lock"', "CFG031"),  # a new file, but in a skill
    ('lock = "../elsewhere.lock"', "CFG030"),
    ('lock = "README.md"', "CFG032"),
    ('lock = "skillpack.toml"', "CFG032"),
    ('lock = "skills"', "CFG032"),
    ('[build]\noutput = "skills/beta"', "CFG031"),
    ('[build]\noutput = "skills/alpha/references"', "CFG031"),
    ('[build]\noutput = "../bundles"', "CFG030"),
    ('[build]\noutput = "."', "CFG030"),
    ('[build]\noutput = "README.md"', "CFG032"),
]


@pytest.mark.parametrize(("setting", "code"), CONFINED)
def test_configured_paths_stay_in_the_project_and_out_of_skills(
    project: Path, tmp_path: Path, setting: str, code: str
) -> None:
    (project / "skillpack.toml").write_text(f'name = "demo"\nroots = ["skills"]\n{setting}\n')
    before = snapshot(tmp_path)
    commands = [["build", project], ["build", project, "--no-lint"], ["lock", project]]
    if code == "CFG032" and setting.startswith("[build]"):
        commands.pop()  # the lock does not write in the output directory
    for args in commands:
        stderr = refused(run_cli(*args), code, 2)
        assert "skillpack.toml" in stderr
        assert snapshot(tmp_path) == before, args


def test_a_configured_path_through_a_symlink_out_of_the_project_is_refused(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "shared").symlink_to(outside)
    (project / "skillpack.toml").write_text('roots = ["skills"]\nlock = "shared/skillpack.lock"\n')
    before = snapshot(tmp_path)
    refused(run_cli("lock", project), "CFG030", 2)
    assert snapshot(tmp_path) == before


def test_a_lock_skillpack_wrote_is_replaced_even_when_stale(project: Path) -> None:
    (project / "skillpack.toml").write_text('roots = ["skills"]\nlock = "locks/skills.lock"\n')
    assert run_cli("lock", project).returncode == 0
    lock = project / "locks" / "skills.lock"
    lock.write_bytes(lock.read_bytes().replace(b'path = "SKILL.md"', b'path = "OTHER.md"', 1))
    assert run_cli("lock", project).returncode == 0
    assert run_cli("lock", "--check", project).returncode == 0


# --- -o never lands in a skill --------------------------------------------------------------
def test_o_inside_a_skill_is_refused(project: Path, tmp_path: Path) -> None:
    (tmp_path / "alias.md").symlink_to(project / "skills" / "beta" / "notes.md")
    cases = [
        (["build", project, "-o", project / "skills" / "alpha" / "references" / "guide.md"]),
        (["build", project, "-o", project / "skills" / "beta" / "beta.skp"]),  # a new file
        (["lint", project, "-f", "json", "-o", project / "skills" / "alpha" / "SKILL.md"]),
        (["lint", project, "-o", project / "skills" / "beta" / "report.txt"]),
        (["lint", project, "-o", tmp_path / "alias.md"]),  # a link into a skill
    ]
    before = snapshot(tmp_path)
    for args in cases:
        stderr = refused(run_cli(*args), "OUT004", 2)
        assert "inside the skill" in stderr
        assert snapshot(tmp_path) == before, args


# --- writing through, not around ---------------------------------------------------------
def test_dash_is_standard_output(project: Path, tmp_path: Path) -> None:
    reference = tmp_path / "reference.skp"
    assert run_cli("build", project, "-o", reference).returncode == 0
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack", "build", str(project), "-o", "-"],
        env=cli_env(),
        capture_output=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == reference.read_bytes()
    assert b"built stdout" in proc.stderr
    assert not Path("-").exists() and not (project / "-").exists()
    inside = project / "skills" / "alpha"  # '-' is stdout, not a file in the skill here
    report = run_cli("lint", project, "-f", "json", "-o", "-", cwd=inside)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["summary"]["errors"] == 0
    assert not (inside / "-").exists()
    keys = tmp_path / "keys"
    assert run_cli("keygen", "--out-dir", keys).returncode == 0
    signed = run_cli("sign", reference, "--key", keys / "skillpack.key", "-o", "-", cwd=tmp_path)
    assert signed.returncode == 0, signed.stderr
    assert json.loads(signed.stdout)["mediaType"].startswith("application/vnd.dev.sigstore")
    assert not (tmp_path / "-").exists()


class FifoReader:
    """Reads a FIFO in a thread until its writer closes it."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with open(self.fifo, "rb") as fh:
            self.data = fh.read()

    def result(self) -> bytes:
        self.thread.join(30)
        if self.thread.is_alive():  # nobody opened it for writing: let the reader go
            fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
            self.thread.join(5)
        return self.data


def test_a_symlink_to_a_fifo_is_written_through(project: Path, tmp_path: Path) -> None:
    reference = tmp_path / "reference.skp"
    assert run_cli("build", project, "-o", reference).returncode == 0
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "out.skp"
    link.symlink_to(fifo.name)
    reader = FifoReader(fifo)
    proc = run_cli("build", project, "-o", link)
    assert proc.returncode == 0, proc.stderr
    assert reader.result() == reference.read_bytes()
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(link).st_mode)
    reader = FifoReader(fifo)
    proc = run_cli("lint", project, "-f", "json", "-o", link)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(reader.result())["summary"]["errors"] == 0
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(link).st_mode)
    no_temp_files(tmp_path)


def test_a_symlink_to_a_regular_file_stays_a_link(project: Path, tmp_path: Path) -> None:
    """The file the link points to is replaced (atomically); the link is kept."""
    (tmp_path / "reports").mkdir()
    real = tmp_path / "reports" / "lint.json"
    real.write_text("old\n")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    assert run_cli("lint", project, "-f", "json", "-o", link).returncode == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["summary"]["errors"] == 0


# --- no half work --------------------------------------------------------------------------
def _built(project: Path) -> tuple[Path, Path]:
    """Build ``project`` into its output directory; (lock, output directory)."""
    proc = run_cli("build", project)
    assert proc.returncode == 0, proc.stderr
    # the tree changes after the build: a build that succeeded now would rewrite both;
    # words that deflate cannot shrink much make the bundle larger than the lock
    rng = random.Random(10)
    words = (
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9)))
        for _ in range(3000)
    )
    (project / "skills" / "beta" / "notes.md").write_text(" ".join(words) + "\n")
    return project / "skillpack.lock", project / "dist"


def test_a_failed_build_leaves_the_lock_and_output_directory_as_they_were(
    project: Path, tmp_path: Path
) -> None:
    lock, dist = _built(project)
    kept = {"lock": lock.read_bytes()}
    before = snapshot(dist), lock.stat().st_mtime_ns
    (tmp_path / "a-directory.skp").mkdir()
    failures = [
        (run_cli("build", project, "-o", tmp_path / "a-directory.skp"), "OUT002", 2),
        (run_limited("build", project, limit=8000), "OUT003", 1),  # the bundle is larger
    ]
    for proc, code, exit_code in failures:
        refused(proc, code, exit_code)
        assert (snapshot(dist), lock.stat().st_mtime_ns) == before
        assert lock.read_bytes() == kept["lock"]
    # a lint failure and a collision, after the same change
    write_skill(project, "skills/gamma", frontmatter="name: not-gamma\ndescription: Wrong.\n")
    refused(run_cli("build", project), "BLD010", 1)
    assert (snapshot(dist), lock.stat().st_mtime_ns) == before
    (project / "skills" / "gamma").rename(tmp_path / "gamma")
    (project / "skills" / "alpha" / "References").mkdir()
    (project / "skills" / "alpha" / "References" / "Guide.md").write_text("twice\n")
    # a structural problem: refused before any work, even with --no-lint (issue 10 §2)
    refused(run_cli("build", project, "--no-lint"), "BLD012", 1)
    assert (snapshot(dist), lock.stat().st_mtime_ns) == before
    no_temp_files(project)


def test_an_unsigned_build_removes_the_previous_bundles_signature(
    project: Path, tmp_path: Path
) -> None:
    keys = tmp_path / "keys"
    assert run_cli("keygen", "--out-dir", keys).returncode == 0
    bundle = tmp_path / "release" / "demo.skp"
    signature = bundle.with_name("demo.skp.sigstore.json")
    signed = run_cli("build", project, "-o", bundle, "--sign", "--key", keys / "skillpack.key")
    assert signed.returncode == 0, signed.stderr
    # the same bytes again: the signature still signs them and is kept
    same = run_cli("build", project, "-o", bundle)
    assert same.returncode == 0 and "removed" not in same.stdout
    assert run_cli("verify", bundle, "--key", keys / "skillpack.pub").returncode == 0
    write_skill(project, "skills/delta")
    changed = run_cli("build", project, "-o", bundle)
    assert changed.returncode == 0, changed.stderr
    assert f"removed {signature}" in changed.stdout or "removed " in changed.stdout
    assert not signature.exists()
    assert run_cli("verify", bundle).returncode == 0
    unsigned = run_cli("verify", bundle, "--key", keys / "skillpack.pub")
    assert unsigned.returncode == 1 and "SIG001" in unsigned.stderr  # not SIG010


# --- overlapping roots ------------------------------------------------------------------------
OVERLAPPING = [
    'roots = ["skills", "skills/alpha"]',  # a root inside another
    'roots = [".", "skills"]',
    'roots = [{path = "skills", prefix = "a"}, {path = "skills/", prefix = "b"}]',
]


@pytest.mark.parametrize("roots", OVERLAPPING)
def test_overlapping_roots_are_refused_by_every_command(
    project: Path, tmp_path: Path, roots: str
) -> None:
    (project / "skillpack.toml").write_text(f'name = "demo"\n{roots}\n')
    before = snapshot(tmp_path)
    messages = set()
    for args in (["lint", project], ["lock", project], ["lock", "--check", project],
                 ["build", project], ["serve", project]):  # fmt: skip
        stderr = refused(run_cli(*args, timeout=60), "CFG007", 2)
        messages.add(stderr.split("CFG007", 1)[1])
        assert snapshot(tmp_path) == before
    assert len(messages) == 1, messages


def test_the_same_root_twice_is_one_root(project: Path, tmp_path: Path) -> None:
    (project / "skillpack.toml").write_text('name = "demo"\nroots = ["skills"]\n')
    once = tmp_path / "once.skp"
    assert run_cli("build", project, "-o", once).returncode == 0
    (project / "skillpack.toml").write_text('name = "demo"\nroots = ["skills", "./skills/"]\n')
    twice = tmp_path / "twice.skp"
    assert run_cli("build", project, "-o", twice).returncode == 0
    assert twice.read_bytes() == once.read_bytes()
    assert run_cli("lock", "--check", project).returncode == 0
    assert "2 skills" in run_cli("lint", project).stderr


# --- every failure to write is a coded error naming the path ---------------------------------
def test_write_failures_are_coded_errors_naming_the_users_path(
    project: Path, tmp_path: Path
) -> None:
    a_file = tmp_path / "plain.txt"
    a_file.write_text("plain\n")
    (tmp_path / "somedir").mkdir()
    long_name = tmp_path / ("n" * 300 + ".skp")
    bundle = tmp_path / "ok.skp"
    assert run_cli("build", project, "-o", bundle).returncode == 0
    cases = [
        (["build", project, "-o", tmp_path / "somedir"], "OUT002", 2, "somedir"),
        # a FILE option ending in '/' names a directory: refused before anything else
        (["build", project, "-o", f"{tmp_path}/somedir/"], "USE000", 2, "ends with '/'"),
        (["lint", project, "-o", a_file / "report.txt"], "OUT002", 2, "plain.txt/report.txt"),
        (["build", project, "-o", long_name], "OUT002", 2, "n" * 300),
        (["sign", bundle, "--key", tmp_path / "k", "-o", tmp_path / "somedir"], "OUT002", 2,
         "somedir"),
        (["keygen", "--out-dir", a_file], "OUT002", 2, "plain.txt/skillpack.key"),
    ]  # fmt: skip
    before = snapshot(tmp_path)
    for args, code, exit_code, shown in cases:
        stderr = refused(run_cli(*args), code, exit_code)
        assert shown in stderr, (args, stderr)
        assert snapshot(tmp_path) == before, args
    # a full disk (a file size limit): exit 1, the path as given, nothing left behind
    report = tmp_path / "new" / "deeper" / "lint.sarif"
    stderr = refused(
        run_limited("lint", project, "-f", "sarif", "-o", report, limit=200), "OUT003", 1
    )
    assert f"{report}: OUT003 cannot write the lint report: File too large" in stderr
    assert not (tmp_path / "new").exists()  # the directories made for it are gone too
    stderr = refused(run_limited("build", project, "-o", bundle, limit=600), "OUT003", 1)
    assert f"{bundle}: OUT003 cannot write the bundle" in stderr
    assert snapshot(tmp_path) == before
    # a missing directory is created, as for the default output directory
    made = tmp_path / "made" / "here" / "x.skp"
    assert run_cli("build", project, "-o", made).returncode == 0 and made.is_file()
    no_temp_files(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_is_a_failed_write(project: Path, tmp_path: Path) -> None:
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        stderr = refused(run_cli("build", project, "-o", locked / "x.skp"), "OUT003", 1)
        assert "ro/x.skp" in stderr and "Permission denied" in stderr
        refused(run_cli("lint", project, "-o", locked / "r.txt"), "OUT003", 1)
    finally:
        locked.chmod(0o755)
    assert list(locked.iterdir()) == []


def test_rewriting_a_skill_file_that_fails_is_a_coded_error(tmp_path: Path) -> None:
    """fmt and lint --fix rewrite SKILL.md in place: a failed write (a file size limit, as
    on a full disk) is OUT003 naming the file, which is left as it was."""
    skill = write_skill(
        tmp_path,
        "skills/tidy",
        frontmatter="name: tidy\ndescription: Tidies.\nmetadata:\n  flag: yes\n",
    )
    before = snapshot(tmp_path)
    for args in (["fmt", tmp_path], ["lint", "--fix", tmp_path]):
        stderr = refused(run_limited(*args, limit=0), "OUT003", 1)
        assert f"{skill / 'SKILL.md'}: OUT003 cannot write the " in stderr
        assert snapshot(tmp_path) == before
    assert run_cli("fmt", tmp_path).returncode == 0
    assert snapshot(tmp_path) != before


@pytest.mark.parametrize("given", ["newdir/", "afile/"])
def test_a_file_option_ending_in_a_slash_is_refused(tmp_path: Path, given: str) -> None:
    """`-o dist/` names a directory: refused as a usage error, never a file `dist` written
    (or the file there replaced): Path() would have dropped the '/'."""
    (tmp_path / "afile").write_text("keep me\n")
    for args in (["build", str(EXAMPLES), "-o", given], ["lint", str(EXAMPLES), "-o", given]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stderr)
        assert f"'{given}' ends with '/': it names a directory, not a FILE" in proc.stderr
    assert (tmp_path / "afile").read_text() == "keep me\n"
    assert not (tmp_path / "newdir").exists()


def test_not_a_directory_names_the_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("keep me\n")
    proc = run_cli("build", EXAMPLES, "-o", "afile/x.skp", cwd=tmp_path)
    assert proc.returncode == 2
    assert "OUT002 cannot write the bundle here: afile is a file, not a directory" in proc.stderr
    keys = run_cli("keygen", "--out-dir", "afile", cwd=tmp_path)
    assert keys.returncode == 2 and "afile is a file, not a directory" in keys.stderr


def test_a_staged_file_is_new_its_own_and_never_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files outputs are staged in are made beside the output under a random name,
    readable by their owner only; a name taken (a file, a link planted there) is never
    opened, another is drawn; when every draw is taken, the error says so."""
    from skillpack._internal import fsutil

    fd, made = fsutil.new_file(str(tmp_path), ".out.skp.")
    os.close(fd)
    name = os.path.basename(made)
    assert name.startswith(".out.skp.") and name.endswith(".tmp") and len(name) == 9 + 12 + 4
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o600
    target = tmp_path / "precious"
    target.write_bytes(b"keep")
    draws = iter([b"\x00" * 6, b"\x01" * 6, b"\x02" * 6])
    monkeypatch.setattr(fsutil.os, "urandom", lambda n: next(draws))
    (tmp_path / ".x.000000000000.tmp").write_bytes(b"taken")
    (tmp_path / ".x.010101010101.tmp").symlink_to(target)
    fd, made = fsutil.new_file(str(tmp_path), ".x.")
    os.close(fd)
    assert made == str(tmp_path / ".x.020202020202.tmp")
    assert (
        target.read_bytes() == b"keep"
        and (tmp_path / ".x.000000000000.tmp").read_bytes() == b"taken"
    )
    monkeypatch.setattr(fsutil.os, "urandom", lambda n: b"\x00" * 6)
    with pytest.raises(FileExistsError, match="no unused temporary file name"):
        fsutil.new_file(str(tmp_path), ".x.")
