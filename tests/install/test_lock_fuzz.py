"""The install lock fuzzed: a lock arrives in a pull request, so hypothesis edits a
valid one at random (paths, names, sizes, digests, types, truncations, bytes that are
not UTF-8) and runs ``install``, ``install --frozen``, ``install --check`` and
``uninstall`` (with and without ``--force``) on each, in a fresh copy of the project
with canary files around it. Whatever the lock says: never exit 3 (an internal error),
never a traceback, never a write or delete outside the agent directories, every canary
byte for byte as it was, and a command that fails leaves the tree as it was (issue 21).

The bulk runs the CLI in this process (:func:`skillpack.cli.run`, the entry point's own
function: the same parsing, error rendering and exit codes, about 100 times cheaper
than a process); a smaller set runs the real ``python -m skillpack`` in a subprocess.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import stat
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillpack.source.agents import AGENTS, project_dirs
from tests.conftest import run_cli, write_skill
from tests.install.conftest import LOCK

#: the commands each lock goes through, each in a fresh copy of the project
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("install",),
    ("install", "--frozen"),
    ("install", "--check"),
    ("uninstall", "alpha"),
    ("uninstall", "alpha", "--force"),
)
EXIT_INTERNAL = 3  #: docs/errors.md: an internal error, a bug

#: canaries, relative to the run directory: files a user owns outside the agent
#: directories (the project, its .git, a sibling directory, the home directory) and
#: skills of the user's own inside them that the lock never names
CANARIES = {
    "proj/README.md": b"my project\n",
    "proj/.git/hooks/pre-commit": b"#!/bin/sh\necho mine\n",
    "proj/.git/config": b"[core]\n\tbare = false\n",
    "proj/app/src/main.py": b"print('mine')\n",
    "proj/app/src/alpha/SKILL.md": b"not a skill of skillpack's\n",
    "proj/.claude/settings.json": b"{}\n",
    "proj/.claude/skills/mine-own/SKILL.md": b"---\nname: mine-own\n---\n",
    "proj/.cursor/skills/mine-too/SKILL.md": b"---\nname: mine-too\n---\n",
    "sibling/keep.txt": b"a sibling directory\n",
    "sibling/.claude/skills/alpha/SKILL.md": b"a sibling project's own alpha\n",
    "home/.claude/CLAUDE.md": b"the user's own settings\n",
    "home/.claude/skills/mine-home/SKILL.md": b"the user's own skill\n",
}
#: the agent directories of a project: the only places a command may change
AGENT_DIRS = tuple(sorted(set(project_dirs()) | {a.project_dir for a in AGENTS}))


# --- the project, built and installed once -------------------------------------------
class Template:
    """The installed project (``template/proj``, its bundle ``template/fz.skp``) and
    the environment every command runs in (a home directory of its own)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.tree = base / "template"  #: copied to a run directory for every command
        self.lock_text = (self.tree / "proj" / LOCK).read_text("utf-8")
        self.lock_doc = tomllib.loads(self.lock_text)
        self.env = self.environment(base)

    @staticmethod
    def environment(base: Path) -> dict[str, str]:
        return {
            "HOME": str(base / "run" / "home"),
            "XDG_CONFIG_HOME": str(base / "run" / "home" / ".config"),
            "XDG_CACHE_HOME": str(base / "cache"),
            "XDG_DATA_HOME": str(base / "data"),
            "SKILLPACK_CACHE_DIR": str(base / "cache"),
            "CLAUDE_CONFIG_DIR": "",
            "CODEX_HOME": "",
            "NO_COLOR": "1",
            "COLUMNS": "200",
        }

    @property
    def run_dir(self) -> Path:
        return self.base / "run"

    def fresh(self, lock: bytes, tweaks: tuple[str, ...] = ()) -> Path:
        """A fresh run directory: the installed project with ``lock`` as its lock, the
        canaries around it and ``tweaks`` (:data:`TWEAKS`) applied; its ``proj``."""
        shutil.rmtree(self.run_dir, ignore_errors=True)
        shutil.copytree(self.tree, self.run_dir, symlinks=True)
        for rel, data in CANARIES.items():
            path = self.run_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (self.run_dir / "proj" / LOCK).write_bytes(lock)
        for tweak in tweaks:
            with contextlib.suppress(OSError):  # an earlier tweak took its place away
                TWEAKS[tweak](self.run_dir / "proj")
        return self.run_dir / "proj"


def _replace(path: Path, make: Callable[[Path], object]) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    make(path)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)


_ALPHA = Path(".claude/skills/alpha")
#: what a user (or an attacker with the same pull request) may have done to the
#: installed tree: local edits, added files, links out of the project, files where
#: directories were
TWEAKS: dict[str, Callable[[Path], object]] = {
    "edit": lambda p: (p / _ALPHA / "SKILL.md").write_bytes(b"my own edit\n"),
    "edit-copy": lambda p: (p / ".agents/skills/alpha/scripts/run.sh").write_bytes(b"mine\n"),
    "add": lambda p: (p / _ALPHA / "mine.md").write_bytes(b"my own file\n"),
    "add-dir": lambda p: _write(p / ".agents/skills/alpha/new/evil.sh", b"#!/bin/sh\n"),
    "delete": lambda p: (p / _ALPHA / "references/notes.md").unlink(),
    "skill-link-out": lambda p: _replace(p / _ALPHA, lambda q: q.symlink_to("../../app/src/alpha")),
    "subdir-link-out": lambda p: _replace(p / _ALPHA / "references",
                                          lambda q: q.symlink_to("../../../../sibling")),
    "file-link-out": lambda p: _replace(p / _ALPHA / "references/notes.md",
                                        lambda q: q.symlink_to(p.parent / "sibling/keep.txt")),
    "agents-dir-link-out": lambda p: _replace(
        p / ".agents/skills", lambda q: q.symlink_to("../../sibling/.claude/skills")),
    "claude-dir-link-home": lambda p: _replace(
        p / ".claude/skills", lambda q: q.symlink_to(p.parent / "home/.claude/skills")),
    "agents-dir-a-file": lambda p: _replace(p / ".agents/skills", lambda q: q.write_bytes(b"x")),
    "file-a-dir": lambda p: _replace(p / _ALPHA / "SKILL.md", lambda q: q.mkdir()),
    "link-retargeted": lambda p: _replace(p / ".windsurf/skills/beta",
                                          lambda q: q.symlink_to("../../app/src")),
    "copy-gone": lambda p: shutil.rmtree(p / ".agents/skills/beta"),
    "link-a-dir": lambda p: _replace(p / ".claude/skills/beta",
                                     lambda q: _write(q / "SKILL.md", b"my own beta\n")),
    "copy-a-file": lambda p: _replace(p / _ALPHA, lambda q: q.write_bytes(b"my notes\n")),
    # agent directories that are links inside the project: into .git or src/ (refused),
    # to another agent directory (one directory two agents share: allowed), to themselves
    "windsurf-dir-link-git": lambda p: _replace(p / ".windsurf/skills",
                                                lambda q: q.symlink_to("../.git")),
    "agents-dir-link-src": lambda p: _replace(p / ".agents/skills",
                                              lambda q: q.symlink_to("../app/src")),
    "claude-dir-link-git-hooks": lambda p: _replace(p / ".claude/skills",
                                                    lambda q: q.symlink_to("../.git/hooks")),
    "claude-parent-link-git": lambda p: _replace(p / ".claude", lambda q: q.symlink_to(".git")),
    "claude-dir-link-agents": lambda p: _replace(p / ".claude/skills",
                                                 lambda q: q.symlink_to("../.agents/skills")),
    "claude-dir-loop": lambda p: _replace(p / ".claude/skills", lambda q: q.symlink_to("skills")),
}  # fmt: skip
#: what would block a read for ever (a FIFO where an installed file is): run only
#: through the real command line, with a timeout
SPECIAL_TWEAKS: dict[str, Callable[[Path], object]] = {
    "fifo-file": lambda p: _replace(p / _ALPHA / "SKILL.md", os.mkfifo),
    "fifo-in-copy": lambda p: _replace(p / ".agents/skills/alpha/scripts/run.sh", os.mkfifo),
    "fifo-extra": lambda p: os.mkfifo(p / _ALPHA / "mine.fifo"),
}  # fmt: skip


def _big(path: Path) -> None:
    path.write_bytes(b"")
    os.truncate(path, 65 * 1024 * 1024)  # sparse: no disk used


def _lock_linked(make: Callable[[Path], object]) -> Callable[[Path], object]:
    """The lock replaced by a link to what ``make`` puts in the sibling directory."""

    def tweak(project: Path) -> None:
        target = project.parent / "sibling" / "target"
        make(target)
        _replace(project / LOCK, lambda q: q.symlink_to(target))

    return tweak


#: the lock itself not a regular file of the project: read only when it is a regular
#: file of at most 64 MiB, and never written through a link
LOCK_TWEAKS: dict[str, Callable[[Path], object]] = {
    "dev-zero": lambda p: _replace(p / LOCK, lambda q: q.symlink_to("/dev/zero")),
    "fifo": _lock_linked(os.mkfifo),
    "directory": _lock_linked(lambda q: q.mkdir()),
    "big-file": _lock_linked(_big),
    "big-file-here": lambda p: _replace(p / LOCK, _big),
    "dangling": _lock_linked(lambda q: None),
    "loop": lambda p: _replace(p / LOCK, lambda q: q.symlink_to(q.name)),
    "a-directory": lambda p: _replace(p / LOCK, lambda q: q.mkdir()),
    "valid-lock-elsewhere": _lock_linked(lambda q: shutil.copy(q.parent.parent / "proj" / LOCK, q)),
}  # fmt: skip
TREE_TWEAKS = sorted(TWEAKS)
TWEAKS.update({f"lock-{name}": tweak for name, tweak in LOCK_TWEAKS.items()})
TWEAKS.update(SPECIAL_TWEAKS)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """A bundle built by the real CLI (``alpha`` with a script and a reference,
    ``beta``), installed by the real CLI for claude-code and codex, then ``beta`` again
    with ``--link`` for windsurf (its directories become links to the one copy in
    ``.agents/skills``): copies and links both in the lock."""
    base = tmp_path_factory.mktemp("lockfuzz")
    src = base / "src"
    src.mkdir()
    (src / "skillpack.toml").write_text('name = "fz"\nversion = "1.0.0"\nroots = ["skills"]\n')
    write_skill(src / "skills", "alpha", files={"scripts/run.sh": "#!/bin/sh\necho alpha\n",
                                                 "references/notes.md": "notes\n"})  # fmt: skip
    (src / "skills" / "alpha" / "scripts" / "run.sh").chmod(0o755)
    write_skill(src / "skills", "beta")
    tree = base / "template"
    (tree / "proj" / ".git").mkdir(parents=True)
    built = run_cli("build", src, "-o", tree / "fz.skp", "--no-lint")
    assert built.returncode == 0, built.stderr
    env = {**Template.environment(base), "HOME": str(tree / "home")}
    (tree / "home").mkdir()
    for args in (("-a", "claude-code", "-a", "codex"), ("-s", "beta", "--link", "-a", "windsurf")):
        proc = run_cli("install", "../fz.skp", *args, cwd=tree / "proj", env=env)
        assert proc.returncode == 0, proc.stderr
    return Template(base)


# --- running a command ---------------------------------------------------------------
class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err


@contextlib.contextmanager
def _environment(env: dict[str, str], cwd: Path) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.update(env)
    os.environ.pop("SKILLPACK_DEBUG", None)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def in_process(template: Template, project: Path, args: tuple[str, ...]) -> Result:
    from skillpack.cli import run

    out, err = io.StringIO(), io.StringIO()
    with (
        _environment(template.env, project),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = run(list(args))
    return Result(code, out.getvalue(), err.getvalue())


def in_subprocess(template: Template, project: Path, args: tuple[str, ...]) -> Result:
    done = run_cli(*args, cwd=project, env=template.env, timeout=60)
    return Result(done.returncode, done.stdout, done.stderr)


Runner = Callable[[Template, Path, tuple[str, ...]], Result]


def _state(run_dir: Path) -> dict[str, tuple[str, str]]:
    """Every path under the run directory: its kind and content (directories' mtimes
    change whenever a file in them does, so they are left out)."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(run_dir.rglob("*")):
        rel, mode = path.relative_to(run_dir).as_posix(), path.lstat().st_mode
        if stat.S_ISLNK(mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISDIR(mode):
            out[rel] = ("dir", "")
        elif stat.S_ISREG(mode) and path.stat().st_size <= 1 << 20:
            out[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
        else:  # a FIFO (a read would block) or a big sparse file: its size
            out[rel] = (f"special {stat.S_IFMT(mode)}", str(path.lstat().st_size))
    return out


def _inside_agent_dir(rel: str, tweaks: tuple[str, ...]) -> bool:
    """Whether ``rel`` (relative to the run directory) is in a project agent directory,
    or a directory on the way to one (``proj/.cursor`` for ``.cursor/skills``); the
    user's ``~/.claude/skills`` is one when the project's is a link to it (allowed)."""
    if "claude-dir-link-home" in tweaks and rel.startswith("home/.claude/skills/"):
        return True
    if not rel.startswith("proj/"):
        return False
    path = rel.removeprefix("proj/")
    return any(path == d or path.startswith(d + "/") or d.startswith(path + "/")
               for d in AGENT_DIRS)  # fmt: skip


def check_command(
    template: Template,
    lock: bytes,
    args: tuple[str, ...],
    runner: Runner,
    tweaks: tuple[str, ...] = (),
) -> None:
    project = template.fresh(lock, tweaks)
    before = _state(template.run_dir)
    result = runner(template, project, args)
    after = _state(template.run_dir)
    shown = (f"{args} {tweaks}: exit {result.code}\n{result.out}\n{result.err}\n"
             f"lock: {lock[:3000]!r}")  # fmt: skip
    assert result.code != EXIT_INTERNAL, shown
    assert "Traceback" not in result.err and "internal error" not in result.err, shown
    for rel in CANARIES:  # each as it was (unless a tweak took it away first)
        assert after.get(rel) == before.get(rel), (rel, shown)
    assert sum(before.get(rel, ("",))[0] == "file" for rel in CANARIES) >= 8  # in place
    assert (template.run_dir / "fz.skp").read_bytes() == (template.tree / "fz.skp").read_bytes()
    changed = sorted(
        rel for rel in before.keys() | after.keys() if before.get(rel) != after.get(rel)
    )
    outside = [r for r in changed if r != f"proj/{LOCK}" and not _inside_agent_dir(r, tweaks)]
    assert not outside, (outside, shown)
    if result.code != 0:  # refused, or drift found: nothing touched
        assert not changed, (changed, shown)
    if "INS011" in result.err:
        assert LOCK in result.err, shown
    if result.code == 0 and args[0] == "install" and "--check" not in args:
        # what install wrote is what the lock says: nothing of it is drift
        check = in_process(template, project, ("install", "--check"))
        assert check.code == 0, (check.out, check.err, shown)
    if result.code == 0 and args[0] == "uninstall":
        # the lock matches the disk: the skill is gone from it, or what it still lists
        # is there
        check = in_process(template, project, ("install", "--check", "-f", "json"))
        assert check.code in (0, 1), (check.out, check.err, shown)
        drift = json.loads(check.out)["drift"]
        assert not [d for d in drift if d["skill"] == args[1]], (drift, shown)


def check_lock(
    template: Template, lock: bytes, runner: Runner, tweaks: tuple[str, ...] = ()
) -> None:
    names = set(re.findall(rb'^name = "([A-Za-z0-9._-]{1,60})"', lock, re.M)) - {b"fz"}
    commands = list(COMMANDS)
    for name in sorted(names - {b"alpha"})[:1]:  # a renamed skill: uninstall that name
        commands.append(("uninstall", name.decode(), "--force"))
    for args in commands:
        check_command(template, lock, args, runner, tweaks)


# --- the edits ------------------------------------------------------------------------
Path_ = tuple[Any, ...]  #: keys and indexes into the parsed lock


def _paths(value: Any, here: Path_ = ()) -> list[Path_]:
    """Every place in the parsed lock (tables' keys and lists' items), in document order."""
    out: list[Path_] = [here] if here else []
    if isinstance(value, dict):
        for key in value:
            out += _paths(value[key], (*here, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*here, i))
    return out


_FIRST = ("path", "name", "size", "digest", "agents", "link", "source", "executable")


def _interest(where: Path_) -> tuple[int, int]:
    """Places in the order the edits favour (hypothesis draws the first ones most):
    the directories' and files' paths, names, sizes and digests before the rest, the
    lock's version and creator last."""
    last = next((k for k in reversed(where) if isinstance(k, str)), "")
    rank = _FIRST.index(last) if last in _FIRST else len(_FIRST)
    return (len(_FIRST) + 1 if len(where) == 1 else rank, -len(where))


def _get(doc: Any, where: Path_) -> Any:
    for key in where:
        doc = doc[key]
    return doc


RUN = "RUN"  #: replaced by the run directory (absolute paths into the test's tree)
HOSTILE_DIRS = (
    ".git/hooks", "app/src", ".claude/skills/../../app/src/alpha",
    "../sibling/.claude/skills/alpha", "../sibling", f"{RUN}/sibling/.claude/skills/alpha",
    "/tmp/alpha", "/", "", ".",
    ".claude/skills/al\x00pha", ".claude\\skills\\alpha", ".claude/skills/alpha/",
    "./.claude/skills/alpha", ".claude//skills/alpha", ".claude/skills/alpha/..",
    ".claude/skills/" + "a" * 5000, ".cursor/skills/alpha", ".agents/skills/beta",
    ".claude/skills/mine-own", ".cursor/skills/mine-too", ".windsurf/skills/alpha",
    "~/.claude/skills/alpha", "C:/skills/alpha", ".claude/skills/ALPHA", ".git/skills/alpha",
    ".claude/skills/alpha\n", f"{RUN}/home/.claude/skills/alpha",
)  # fmt: skip
HOSTILE_NAMES = (
    "hooks", "src", "alpha", "beta", "mine-own", "mine-too", "..", ".", "", "-rf", ".git",
    "a/b", "al\x00pha", "x" * 300, "ALPHA", "alpha ", "sibling", "fz", "skills",
)  # fmt: skip
HOSTILE_FILES = (
    "../../../sibling/keep.txt", "../../../app/src/main.py", "../../settings.json",
    f"{RUN}/sibling/keep.txt", "/etc/passwd", "SKILL.md", "scripts", "scripts/run.sh/x",
    ".git/config", "scripts\\run.sh", "", "x\x00y", "a" * 5000, "./SKILL.md", "scripts//run.sh",
    "references", "references/notes.md/..", "mine.md",
)  # fmt: skip
HOSTILE_NUMBERS = (
    -1, 0, 1, 2**31, 2**32, 2**63 - 1, -(2**63), 99999999999999999999, 10**400, 1.5,
    float("inf"), float("nan"), -0.0, True, "10", "",
)  # fmt: skip
HOSTILE_DIGESTS = (
    "sha256:" + "0" * 64, "sha256:" + "A" * 64, "sha256:" + "a" * 63, "sha256:", "",
    "sha512:" + "0" * 128, "md5:d41d8cd98f00b204e9800998ecf8427e", "sha256:" + "g" * 64,
    "0" * 64, "sha256:" + "0" * 64 + "\n",
)  # fmt: skip
HOSTILE_SOURCES = (
    "../fz.skp", "fz.skp", "../sibling/keep.txt", f"{RUN}/fz.skp", "/dev/zero", "..", "",
    "oci://localhost:1/x:1", "git+file:///nonexistent", "../fz.skp\x00", "-rf",
    "https://example.invalid/x.skp",
)  # fmt: skip
HOSTILE_AGENTS = ("claude-code", "codex", "cursor", "windsurf", "universal", "nobody", "", "..")
KEYS = ("path", "name", "size", "digest", "source", "agents", "link", "executable",
        "directories", "files", "skills", "sources", "skill-path", "lock-version",
        "bundle-digest", "signer", "commit", "manifest-digest", "unknown-key")  # fmt: skip

_scalars = st.one_of(
    st.sampled_from(HOSTILE_DIRS + HOSTILE_NAMES + HOSTILE_FILES + HOSTILE_DIGESTS),
    st.sampled_from(HOSTILE_NUMBERS),
    st.booleans(),
    st.text(max_size=30),
)
_values = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=3),
    st.dictionaries(st.sampled_from(KEYS), _scalars, max_size=3),
    st.just({}),
    st.just([]),
)
#: values a key can hold that a schema accepts, yet wrong: another agent's directory,
#: another skill's name, a digest of the right form, a size off by one
PLAUSIBLE: dict[str, tuple[Any, ...]] = {
    "path": (".cursor/skills/alpha", ".agents/skills/beta", ".windsurf/skills/alpha",
             ".claude/skills/beta", ".codex/skills/alpha", ".agents/skills/mine-own",
             ".claude/skills/mine-own", "SKILL.md", "scripts/run.sh", "references/notes.md",
             "references/new.md", "scripts/run.sh.orig"),
    "name": ("alpha", "beta", "gamma", "mine-own", "mine-too", "fz"),
    "skill-path": ("alpha", "beta", "gamma", "skills/alpha"),
    "size": (0, 1, 7, 21, 22, 23, 64, 4096),
    "digest": ("sha256:" + "0" * 64, "sha256:" + "f" * 64),
    "bundle-digest": ("sha256:" + "0" * 64,),
    "source": ("../fz.skp", "fz.skp", "./../fz.skp", "../sibling/keep.txt", "../template/fz.skp"),
    "agents": (["claude-code"], ["codex"], ["cursor"], ["windsurf"], ["claude-code", "codex"],
               [], ["universal"], ["github-copilot"]),
    "link": (True, False),
    "executable": (True, False),
    "version": ("1.0.0", "2.0.0", ""),
}  # fmt: skip
_BY_KEY: dict[str, st.SearchStrategy[Any]] = {
    "path": st.one_of(st.sampled_from(HOSTILE_DIRS + HOSTILE_FILES), st.text(max_size=40)),
    "name": st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=20)),
    "skill-path": st.sampled_from(HOSTILE_FILES + HOSTILE_NAMES),
    "size": st.sampled_from(HOSTILE_NUMBERS),
    "digest": st.sampled_from(HOSTILE_DIGESTS),
    "bundle-digest": st.sampled_from(HOSTILE_DIGESTS),
    "source": st.sampled_from(HOSTILE_SOURCES),
    "agents": st.lists(st.sampled_from(HOSTILE_AGENTS), max_size=3),
    "link": st.sampled_from((True, False, "true", 1)),
    "executable": st.sampled_from((True, False, "yes", 0)),
}


def _render(doc: Any) -> bytes:
    try:
        return tomli_w.dumps(doc).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):  # a value TOML cannot hold (a NUL is fine, escaped)
        return b""


def _resolve(value: Any, run_dir: Path) -> Any:
    if isinstance(value, str) and value.startswith(RUN):
        return str(run_dir) + value.removeprefix(RUN)
    if isinstance(value, list):
        return [_resolve(v, run_dir) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, run_dir) for k, v in value.items()}
    return value


#: (directory, name): a skill's directory moved out of the agent directories, the last
#: component still the skill's name (renamed to match when the name is not the skill's)
MOVES = (
    (".git", "hooks"), ("app", "src"), ("app/src", "alpha"),
    (".claude/skills/../../app/src", "alpha"),
    ("../sibling/.claude/skills", "alpha"), (f"{RUN}/sibling/.claude/skills", "alpha"),
    (f"{RUN}/home/.claude/skills", "alpha"), (f"{RUN}/proj/.claude/skills", "alpha"),
    ("..", "sibling"), (".claude", "skills"), ("", "alpha"), (".", "alpha"), ("/", "alpha"),
    (".claude/skills", "mine-own"), (".cursor/skills", "mine-too"), (".git", "alpha"),
    (".claude/skills/alpha", "scripts"), (".claude/skills/alpha", "alpha"),
    (".agents/skills", "alpha"), (".claude//skills", "alpha"), ("~/.claude/skills", "alpha"),
    (".claude/skills/./", "alpha"), (".claude/skills/mine-own/..", "alpha"),
)  # fmt: skip


def _move(draw: st.DrawFn, doc: dict[str, Any], run_dir: Path) -> None:
    """Move one directory of one skill (see :data:`MOVES`), renaming the skill (all its
    directories) when the new last component is another name."""
    skills = doc.get("skills")
    if not isinstance(skills, list) or not skills:
        return
    skill = draw(st.sampled_from(skills))
    dirs = skill.get("directories") if isinstance(skill, dict) else None
    if not isinstance(dirs, list) or not dirs or not all(isinstance(d, dict) for d in dirs):
        return
    where, name = draw(st.sampled_from(MOVES))
    moved = draw(st.sampled_from(dirs))
    moved["path"] = _resolve(f"{where}/{name}" if where else name, run_dir)
    if draw(st.booleans()):
        moved["agents"] = draw(st.sampled_from(PLAUSIBLE["agents"]))
    if skill.get("name") != name:
        skill["name"] = name
        for d in dirs:
            if d is not moved and isinstance(d.get("path"), str):
                d["path"] = d["path"].rpartition("/")[0] + "/" + name


@st.composite
def edited_doc(
    draw: st.DrawFn, doc: dict[str, Any], run_dir: Path, plausible: bool = False
) -> bytes:
    """The parsed lock with one to four edits: a directory moved out of the agent
    directories, a value replaced (by what the key should hold, made hostile, or by any
    type), a key deleted or added, an item duplicated."""
    doc = tomllib.loads(tomli_w.dumps(doc))  # a copy
    for _ in range(draw(st.integers(1, 1 if plausible else 4))):
        places = sorted(_paths(doc), key=_interest)
        if not places:
            break
        where = draw(st.sampled_from(places))
        parent, key = _get(doc, where[:-1]), where[-1]
        actions = ("move", "plausible", "plausible", "typed", "typed", "any", "delete", "add",
                   "dup")  # fmt: skip
        action = draw(st.sampled_from(actions[:3] if plausible else actions))
        if action == "move":
            _move(draw, doc, run_dir)
        elif action == "plausible" and isinstance(key, str) and key in PLAUSIBLE:
            parent[key] = draw(st.sampled_from(PLAUSIBLE[key]))
        elif action in ("plausible", "typed") and isinstance(key, str) and key in _BY_KEY:
            parent[key] = _resolve(draw(_BY_KEY[key]), run_dir)
        elif action in ("plausible", "typed", "any"):
            parent[key] = _resolve(draw(_values), run_dir)
        elif action == "delete":
            del parent[key]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(KEYS))] = _resolve(draw(_values), run_dir)
        elif action == "dup" and isinstance(parent, list):
            parent.append(tomllib.loads(tomli_w.dumps({"v": [parent[key]]}))["v"][0])
    return _render(doc) or tomli_w.dumps(doc if isinstance(doc, dict) else {}).encode()


BAD_BYTES = (b"\xff", b"\xfe\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\x00", b"\r",
             b"\x1b[2J", b"\"", b"\\", b"\\u0000", b"[", b"]]", b"\n[[skills]]\n",
             "\ufeff".encode())  # fmt: skip


@st.composite
def edited_bytes(draw: st.DrawFn, data: bytes, run_dir: Path) -> bytes:
    """The lock's bytes with one to three edits: cut at an offset, bytes that are not
    UTF-8 or not TOML put in, a line dropped or doubled, a quoted string replaced."""
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(("truncate", "insert", "flip", "line", "string")))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if action == "truncate":
            data = data[:at]
        elif action == "insert":
            data = data[:at] + draw(st.sampled_from(BAD_BYTES)) + data[at:]
        elif action == "flip" and data:
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
        elif action == "line":
            lines = data.splitlines(keepends=True)
            if lines:
                i = draw(st.integers(0, len(lines) - 1))
                twice = draw(st.booleans())
                lines[i : i + 1] = [lines[i]] * (2 if twice else 0)
                data = b"".join(lines)
        elif action == "string":
            strings = list(re.finditer(rb'"[^"\n]*"', data))
            if strings:
                m = draw(st.sampled_from(strings))
                new = _resolve(draw(st.sampled_from(HOSTILE_DIRS + HOSTILE_FILES
                                                    + HOSTILE_DIGESTS)), run_dir)  # fmt: skip
                quoted = tomli_w.dumps({"v": new}).split(" = ", 1)[1].strip().encode()
                data = data[: m.start()] + quoted + data[m.end() :]
    return data


FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(data=st.data())
def test_a_lock_edited_at_random_never_crashes_or_writes_outside(
    template: Template, data: st.DataObject
) -> None:
    lock = data.draw(edited_doc(template.lock_doc, template.run_dir), label="lock")
    check_lock(template, lock, in_process)


@FUZZ
@given(data=st.data())
def test_a_lock_cut_or_garbled_never_crashes_or_writes_outside(
    template: Template, data: st.DataObject
) -> None:
    raw = template.lock_text.encode("utf-8")
    lock = data.draw(edited_bytes(raw, template.run_dir), label="lock")
    check_lock(template, lock, in_process)


@FUZZ
@given(
    data=st.data(),
    tweaks=st.lists(st.sampled_from(sorted(TREE_TWEAKS)), min_size=1, max_size=3, unique=True),
)
def test_an_edited_tree_with_a_lock_edited_or_not(
    template: Template, data: st.DataObject, tweaks: list[str]
) -> None:
    """The installed tree changed (edits, added files, links out, files for
    directories), with the valid lock or one edited a little."""
    lock = template.lock_text.encode("utf-8")
    if data.draw(st.booleans(), label="edit the lock"):
        lock = data.draw(edited_doc(template.lock_doc, template.run_dir, plausible=True))
    check_lock(template, lock, in_process, tuple(tweaks))


@pytest.mark.parametrize("case", sorted(LOCK_TWEAKS))
def test_a_lock_that_is_not_a_regular_file(template: Template, case: str) -> None:
    """Through the real command line: a read that does not stop (``/dev/zero``, a
    FIFO) would hang it, so these never run in this process."""
    check_lock(template, template.lock_text.encode(), in_subprocess, (f"lock-{case}",))


@pytest.mark.parametrize("case", TREE_TWEAKS)
def test_each_change_to_the_tree_with_the_valid_lock(template: Template, case: str) -> None:
    """Every tweak once, whatever hypothesis draws: links inside the project included."""
    check_lock(template, template.lock_text.encode(), in_process, (case,))


@pytest.mark.parametrize("case", sorted(SPECIAL_TWEAKS))
def test_a_fifo_in_the_installed_tree(template: Template, case: str) -> None:
    """Through the real command line (a timeout fails it): a FIFO where an installed
    file is, or beside them, is never opened."""
    check_lock(template, template.lock_text.encode(), in_subprocess, (case,))


@settings(FUZZ, max_examples=5)
@given(data=st.data())
def test_the_real_command_line_on_edited_locks(template: Template, data: st.DataObject) -> None:
    """A few of the same through ``python -m skillpack`` (what CI runs)."""
    raw = template.lock_text.encode("utf-8")
    if data.draw(st.booleans(), label="bytes"):
        lock = data.draw(edited_bytes(raw, template.run_dir), label="lock")
    else:
        lock = data.draw(edited_doc(template.lock_doc, template.run_dir), label="lock")
    check_lock(template, lock, in_subprocess)


def test_the_unedited_lock_passes_the_checks(template: Template) -> None:
    """The harness itself: the valid lock installs, checks and uninstalls cleanly (and
    an uninstall of alpha removes alpha's directories, which the checks allow)."""
    lock = template.lock_text.encode("utf-8")
    for args in COMMANDS:
        project = template.fresh(lock)
        result = in_process(template, project, args)
        assert result.code == 0, (args, result.err)
        check_command(template, lock, args, in_process)
    project = template.fresh(lock)
    assert in_process(template, project, ("uninstall", "alpha")).code == 0
    assert not (project / ".claude" / "skills" / "alpha").exists()
    assert (project / ".claude" / "skills" / "mine-own" / "SKILL.md").is_file()
