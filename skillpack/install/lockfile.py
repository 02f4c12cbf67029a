"""The install lock (``skillpack-install.lock``): what ``skillpack install`` put where.

Committed beside the project's configuration (a global install keeps its own in the
user's configuration directory). Not the build's ``skillpack.lock``: that one describes
a skill tree to publish; this one pins what a project consumes. Canonical TOML, one
line per file, so a change is a small diff and the same installs give the same bytes::

    # skillpack-install.lock: ...
    lock-version = "1.0"
    created-by = "skillpack"

    [[sources]]
    source = "oci://ghcr.io/acme/skills:1.0.0"
    name = "acme-skills"
    version = "1.0.0"
    bundle-digest = "sha256:..."      # the .skp file
    manifest-digest = "sha256:..."    # the OCI manifest (oci:// sources only)
    signer = { mode = "keyless", identity = "https://github.com/...", issuer = "https://..." }

    [[skills]]
    name = "code-review"
    source = "oci://ghcr.io/acme/skills:1.0.0"
    skill-path = "review/code-review"
    directories = [
        { path = ".agents/skills/code-review", agents = ["codex", "cursor"] },
        { path = ".claude/skills/code-review", agents = ["claude-code"], link = true },
    ]
    files = [
        { path = "SKILL.md", size = 1042, digest = "sha256:..." },
        { path = "scripts/run.sh", size = 310, digest = "sha256:...", executable = true },
    ]

Sources sorted by ``source``, skills by name, directories by path, files as the
bundle's manifest lists them. A directory with ``link = true`` is a symbolic link to the
skill's one copy (``--link``); directory paths are relative to the project (absolute in
a global lock).

Reading: :func:`parse_install_lock` takes the lock as its canonical form line by line
and renders what it read; when that gives the file's bytes back, the file is exactly
that (a 1,000-skill lock is read in milliseconds). Anything else (edited by hand,
another layout) is parsed with tomllib and checked against
``schemas/install-lock.schema.json``.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from skillpack._internal.digest import DIGEST_RE
from skillpack._internal.toml import toml_string
from skillpack.bundle.zipformat import MAX_ENTRIES, MAX_OFFSET
from skillpack.errors import Location, SkillpackError
from skillpack.install.targets import LOCK_FILE as LOCK_FILE
from skillpack.install.targets import Scope, confined
from skillpack.source.paths import unsafe_path, unsafe_published_path  # out of bundles

LOCK_VERSION = "1.0"
SCHEMA = "install-lock.schema.json"

HEADER = (
    "# skillpack-install.lock: the skills 'skillpack install' put where, pinned by digest.\n"
    "# Commit it. 'skillpack install --frozen' installs exactly this and 'skillpack install\n"
    "# --check' compares the directories with it. Written by skillpack: do not edit.\n"
)


@dataclass(frozen=True, order=True)
class Signer:
    """Who signed a source's bundle, as verified when it was installed."""

    mode: str  #: ``keyless`` or ``key``
    identity: str  #: the certificate identity, or the public key's hint
    issuer: str | None = None


@dataclass(frozen=True)
class SourcePin:
    """One source and what it resolved to."""

    source: str  #: as declared: a path relative to the project, or an ``oci://`` reference
    name: str
    version: str
    bundle_digest: str  #: sha256 of the ``.skp`` file
    manifest_digest: str | None = None  #: the OCI manifest's digest (``oci://`` sources)
    signer: Signer | None = None
    commit: str | None = None  #: the git commit the bundle was built from (git sources)


class LockedFile(NamedTuple):
    """One installed file (a tuple: a lock holds thousands)."""

    path: str  #: relative to the skill directory, ``/``-separated
    size: int
    digest: str
    executable: bool = False


class InstalledDir(NamedTuple):
    """One directory a skill was installed to, and the agents that read it there (a
    tuple, ordered by its fields: a lock holds thousands)."""

    path: str  #: relative to the project (absolute in a global lock), ``/``-separated
    agents: tuple[str, ...] = ()
    link: bool = False  #: a symbolic link to the skill's copy (``--link``)


@dataclass(frozen=True)
class InstalledSkill:
    name: str  #: its frontmatter name: the directory name in every agent directory
    source: str  #: the :attr:`SourcePin.source` it came from
    skill_path: str  #: its path inside the bundle
    directories: tuple[InstalledDir, ...]
    files: tuple[LockedFile, ...]

    @property
    def copy(self) -> InstalledDir:
        """A directory holding the files: the one the others link to (``--link``), or
        the first of the copies."""
        return next(d for d in self.directories if not d.link)


@dataclass(frozen=True)
class InstallLock:
    sources: tuple[SourcePin, ...] = ()
    skills: tuple[InstalledSkill, ...] = ()
    #: the bytes it was read from, when they are its canonical rendering (a writer that
    #: has the same lock again needs neither to render nor to write it)
    canonical: bytes | None = field(default=None, compare=False, repr=False)
    _by_source: dict[str, SourcePin] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for pin in self.sources:
            self._by_source[pin.source] = pin

    def source(self, name: str) -> SourcePin | None:
        return self._by_source.get(name)

    def normalized(self) -> InstallLock:
        """The same lock in canonical order, keeping only the sources a skill uses."""
        used = {s.source for s in self.skills}
        skills = sorted(
            (
                InstalledSkill(
                    s.name, s.source, s.skill_path, tuple(sorted(s.directories)), s.files
                )
                for s in self.skills
            ),
            key=lambda s: (s.name, s.source),
        )
        sources = sorted((p for p in self.sources if p.source in used), key=lambda p: p.source)
        return InstallLock(tuple(sources), tuple(skills))


class InstallLockError(SkillpackError):
    """The install lock cannot be read (``INS011``, exit 2)."""


# --- writing -----------------------------------------------------------------------------
def _inline(pairs: Iterable[tuple[str, str]]) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in pairs) + " }"


def _strings(items: Iterable[str]) -> str:
    return "[" + ", ".join(toml_string(i) for i in items) + "]"


def render_install_lock(lock: InstallLock) -> bytes:
    """The canonical bytes of ``lock`` (call :meth:`InstallLock.normalized` first)."""
    out = [HEADER, f'lock-version = "{LOCK_VERSION}"\ncreated-by = "skillpack"\n']
    for pin in lock.sources:
        out.append(
            f"\n[[sources]]\nsource = {toml_string(pin.source)}\nname = {toml_string(pin.name)}\n"
            f"version = {toml_string(pin.version)}\n"
            f"bundle-digest = {toml_string(pin.bundle_digest)}\n"
        )
        if pin.commit is not None:
            out.append(f"commit = {toml_string(pin.commit)}\n")
        if pin.manifest_digest is not None:
            out.append(f"manifest-digest = {toml_string(pin.manifest_digest)}\n")
        if pin.signer is not None:
            pairs = [("mode", toml_string(pin.signer.mode)),
                     ("identity", toml_string(pin.signer.identity))]  # fmt: skip
            if pin.signer.issuer is not None:
                pairs.append(("issuer", toml_string(pin.signer.issuer)))
            out.append(f"signer = {_inline(pairs)}\n")
    for skill in lock.skills:
        out.append(
            f"\n[[skills]]\nname = {toml_string(skill.name)}\n"
            f"source = {toml_string(skill.source)}\n"
            f"skill-path = {toml_string(skill.skill_path)}\ndirectories = [\n"
        )
        for d in skill.directories:
            pairs = [("path", toml_string(d.path)), ("agents", _strings(d.agents))]
            if d.link:
                pairs.append(("link", "true"))
            out.append(f"    {_inline(pairs)},\n")
        out.append("]\nfiles = [\n")
        for f in skill.files:
            pairs = [("path", toml_string(f.path)), ("size", str(f.size)),
                     ("digest", toml_string(f.digest))]  # fmt: skip
            if f.executable:
                pairs.append(("executable", "true"))
            out.append(f"    {_inline(pairs)},\n")
        out.append("]\n")
    return "".join(out).encode("utf-8")


# --- reading -----------------------------------------------------------------------------
_STR = r'"([^"\\\x00-\x1f\x7f]*)"'  # a basic string without escapes (the fast path's)
_NOCAP = r'"[^"\\\x00-\x1f\x7f]*"'
#: one line of a skill's ``directories`` (path, agents, link) and ``files`` (path, size,
#: digest, executable), each from a line's start: their strings cannot hold a newline,
#: so a match is one whole line, and a block is read right when every line matched
_DIR = re.compile(
    rf"^    \{{ path = {_STR}, agents = \[((?:{_NOCAP}(?:, {_NOCAP})*)?)\](, link = true)? \}},\n",
    re.MULTILINE,
)
_FILE = re.compile(
    rf"^    \{{ path = {_STR}, size = (0|[1-9][0-9]*), digest = \"(sha256:[0-9a-f]{{64}})\""
    r"(, executable = true)? \},\n",
    re.MULTILINE,
)
_SOURCE = re.compile(
    rf"\n\[\[sources\]\]\nsource = {_STR}\nname = {_STR}\nversion = {_STR}\n"
    rf"bundle-digest = {_STR}\n(?:commit = {_STR}\n)?(?:manifest-digest = {_STR}\n)?"
    rf"(?:signer = \{{ mode = {_STR}, identity = {_STR}(?:, issuer = {_STR})? \}}\n)?"
)
_SKILL = re.compile(
    rf"\n\[\[skills\]\]\nname = {_STR}\nsource = {_STR}\nskill-path = {_STR}\n"
    r"directories = \[\n"
)
_AGENT = re.compile(_STR)
_START = HEADER + f'lock-version = "{LOCK_VERSION}"\ncreated-by = "skillpack"\n'
_BETWEEN = "]\nfiles = [\n"


def _fast_read(text: str) -> InstallLock | None:
    """The lock read as its canonical form, block by block; None when the text is not
    exactly that shape (the caller then reads it in full)."""
    if not text.startswith(_START):
        return None
    pos, end = len(_START), len(text)
    sources: list[SourcePin] = []
    while (match := _SOURCE.match(text, pos)) is not None:
        source, name, version, digest, commit, manifest, mode, identity, issuer = match.groups()
        signer = None if mode is None else Signer(mode, identity, issuer)
        sources.append(SourcePin(source, name, version, digest, manifest, signer, commit))
        pos = match.end()
    skills: list[InstalledSkill] = []
    while (match := _SKILL.match(text, pos)) is not None:
        name, source, skill_path = match.groups()
        # each list ends at its first line that is "]": no string holds a newline
        dirs_end = text.find("\n" + _BETWEEN, match.end() - 1) + 1
        files_end = text.find("\n]\n", dirs_end + len(_BETWEEN) - 1) + 1
        if not dirs_end or not files_end:
            return None
        dirs = _lines(_DIR, text, match.end(), dirs_end)
        files = _lines(_FILE, text, dirs_end + len(_BETWEEN), files_end)
        if dirs is None or files is None:
            return None
        pos = files_end + 2  # past "]\n"
        skills.append(InstalledSkill(
            name, source, skill_path,
            tuple([InstalledDir(path, tuple(_AGENT.findall(agents)), link != "")
                   for path, agents, link in dirs]),
            tuple([LockedFile(path, int(size), digest, executable != "")
                   for path, size, digest, executable in files]),
        ))  # fmt: skip
    return InstallLock(tuple(sources), tuple(skills)) if pos == end else None


def _lines(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[Any] | None:
    """The groups of ``pattern`` on each line of ``text[start:end]``, None unless every
    line matched (a match is one whole line: see :data:`_DIR`)."""
    found = pattern.findall(text, start, end)
    return found if len(found) == text.count("\n", start, end) else None


def parse_install_lock(data: bytes, where: str) -> InstallLock:
    """Read and check install-lock bytes (``INS011`` for anything that is not a valid
    install lock)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _error(f"is not UTF-8: {exc}", where) from None
    lock = _fast_read(text)
    # every line matched the canonical form's exact shape (a strict subset of TOML whose
    # meaning is the one read here); in canonical order it is the canonical rendering
    # (tests/install/test_install_lock.py checks both against tomllib and the renderer)
    if lock is not None and _in_canonical_order(lock):
        _check(lock, where, file_digests_checked=True)
        return InstallLock(lock.sources, lock.skills, canonical=data)
    return _slow_read(text, where)


def _in_canonical_order(lock: InstallLock) -> bool:
    """Whether ``lock`` is its own :meth:`InstallLock.normalized` form (without building
    that): sources sorted and each used, skills sorted, each one's directories sorted."""
    sources = [p.source for p in lock.sources]
    skills = [(s.name, s.source) for s in lock.skills]
    return (
        sources == sorted(sources)
        and set(sources) == {source for _, source in skills}
        and skills == sorted(skills)
        and all(
            len(s.directories) < 2 or list(s.directories) == sorted(s.directories)
            for s in lock.skills
        )
    )


def _slow_read(text: str, where: str) -> InstallLock:
    import tomllib

    from skillpack._internal.schemas import validation_errors

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _error(f"is not valid TOML: {exc}", where) from None
    errors = validation_errors(SCHEMA, doc)
    if errors:
        raise _error(
            f"does not match its schema at '{errors[0][0]}': {errors[0][1]}",
            where,
            [f"also at '{k}': {m}" for k, m in errors[1:5]],
        )
    lock = InstallLock(
        tuple(_pin(t) for t in doc.get("sources", [])),
        tuple(_skill(t) for t in doc.get("skills", [])),
    )
    _check(lock, where)
    return lock


def _pin(table: Mapping[str, Any]) -> SourcePin:
    signer = table.get("signer")
    return SourcePin(
        table["source"],
        table["name"],
        table["version"],
        table["bundle-digest"],
        table.get("manifest-digest"),
        Signer(signer["mode"], signer["identity"], signer.get("issuer")) if signer else None,
        table.get("commit"),
    )


def _skill(table: Mapping[str, Any]) -> InstalledSkill:
    return InstalledSkill(
        table["name"],
        table["source"],
        table["skill-path"],
        tuple(
            InstalledDir(d["path"], tuple(d["agents"]), d.get("link", False))
            for d in table["directories"]
        ),
        tuple(
            LockedFile(f["path"], f["size"], f["digest"], f.get("executable", False))
            for f in table["files"]
        ),
    )


def _check(lock: InstallLock, where: str, file_digests_checked: bool = False) -> None:
    """What the schema cannot say: digests, names and paths that are safe to use, each
    skill's source pinned, one copy per skill, names and directories used once (the
    files' digests not again when ``file_digests_checked``: the canonical reading takes
    only well-formed ones)."""
    pinned = {p.source for p in lock.sources}
    if len(pinned) != len(lock.sources):
        raise _error("pins a source twice", where)
    for pin in lock.sources:
        problem = source_problem(pin.source)
        if problem is not None:
            raise _error(f"'s source {pin.source!r}: {problem}", where)
        for digest in (pin.bundle_digest, pin.manifest_digest):
            if digest is not None and not DIGEST_RE.fullmatch(digest):
                raise _error(f"'s source {pin.source!r}: malformed digest {digest!r}", where)
        if pin.commit is not None and not _COMMIT.fullmatch(pin.commit):
            raise _error(f"'s source {pin.source!r}: malformed commit {pin.commit!r}", where)
    names: set[str] = set()
    directories: set[str] = set()
    safe: set[str] = set()  # file paths found safe (most skills share a few)
    for skill in lock.skills:
        what = f"'s skill {skill.name!r}"
        if not valid_skill_name(skill.name) or skill.name in names:
            raise _error(f"{what}: not a valid skill name, or listed twice", where)
        names.add(skill.name)
        if skill.source not in pinned:
            raise _error(f"{what}: its source {skill.source!r} is not pinned", where)
        bad_path = unsafe_path(skill.skill_path) if isinstance(skill.skill_path, str) else None
        if bad_path is not None or _too_long(skill.skill_path):
            why = bad_path[1] if bad_path is not None else "has a segment over 255 bytes"
            raise _error(f"{what}: skill-path {skill.skill_path!r} {why}", where)
        copies = [d for d in skill.directories if not d.link]
        linked = len(copies) != len(skill.directories)
        if not copies or (linked and len(copies) != 1) or not skill.files:
            raise _error(f"{what}: needs its files and a copy (exactly one when the others "
                         "link to it)", where)  # fmt: skip
        for d in skill.directories:
            if d.path in directories or d.path.rpartition("/")[2] != skill.name:
                raise _error(f"{what}: directory {d.path!r} is listed twice or not named "
                             "after the skill", where)  # fmt: skip
            directories.add(d.path)
        if len(skill.files) > MAX_FILES:
            raise _error(f"{what}: lists {len(skill.files)} files, more than a bundle holds "
                         f"({MAX_FILES})", where)  # fmt: skip
        if _files_ok(skill.files, safe, file_digests_checked):
            continue
        paths: set[str] = set()
        digest_ok = DIGEST_RE.fullmatch
        for f in skill.files:
            if unsafe_published_path(f.path) or f.path in paths or not digest_ok(f.digest):
                raise _error(f"{what}: file {f.path!r} is unsafe, listed twice or has a "
                             "malformed digest", where)  # fmt: skip
            if _too_long(f.path):
                raise _error(f"{what}: file {f.path!r} has a segment over {NAME_MAX} bytes, "
                             f"or is over {PATH_MAX} bytes: no file system holds it",
                             where)  # fmt: skip
            if not 0 <= f.size <= MAX_FILE_SIZE:
                raise _error(f"{what}: file {f.path!r} has size {f.size}, more than a "
                             f"bundle's file can have ({MAX_FILE_SIZE})", where)  # fmt: skip
            paths.add(f.path)


def _files_ok(files: tuple[LockedFile, ...], safe: set[str], digests_checked: bool) -> bool:
    """Whether every one of a skill's ``files`` passes :func:`_check`'s file checks, in a
    few passes over the columns (the caller looks for the first one that does not)."""
    paths, sizes, digests, _ = zip(*files, strict=True)
    if len(set(paths)) != len(paths) or not 0 <= min(sizes) <= max(sizes) <= MAX_FILE_SIZE:
        return False
    for path in paths:
        if path not in safe:
            if unsafe_published_path(path) or _too_long(path):
                return False
            safe.add(path)
    return digests_checked or all(map(DIGEST_RE.fullmatch, digests))


#: the longest name of one path segment (``NAME_MAX``), and of a whole file path in a
#: skill (below ``PATH_MAX``), in bytes: what the lock lists must be a path the system
#: can open, or uninstall would stop half-way (ENAMETOOLONG)
NAME_MAX = 255
PATH_MAX = 4095


def _too_long(path: str) -> bool:
    """Whether ``path`` has a segment over :data:`NAME_MAX` bytes or is over
    :data:`PATH_MAX` (UTF-8)."""
    if len(path) <= NAME_MAX and path.isascii():
        return False
    data = path.encode("utf-8", "surrogatepass")
    return len(data) > PATH_MAX or any(len(s) > NAME_MAX for s in data.split(b"/"))


def source_problem(source: str) -> str | None:
    """Why ``source`` cannot be a pinned source of the lock, else None: an ``oci://``
    reference or a git source in the form their parsers give (what the installer
    writes), or a file or directory path relative to the project, ``/``-separated and
    normalized (leading ``..`` segments name a file outside the project, by design);
    never absolute (but on Windows, a path on another drive), with a NUL, a control
    character or a backslash, or with ``.`` or ``..`` inside it."""
    if not isinstance(source, str) or not source:
        return "is empty"
    if _CONTROL.search(source):
        return "contains a control character"
    if source.startswith("oci://"):
        from skillpack.errors import SkillpackError as Refused
        from skillpack.registry.reference import parse_reference

        try:
            normal = str(parse_reference(source))
        except (Refused, ValueError):
            return "is not an oci:// reference"
        return None if normal == source else f"is not in its normal form ({normal!r})"
    if source.startswith(("git+", "github:")):
        from skillpack.errors import SkillpackError as Refused
        from skillpack.gitsource.spec import parse_git_source

        try:
            key = parse_git_source(source).key
        except (Refused, ValueError):
            return "is not a git source"
        return None if key == source else f"is not in its normal form ({key!r})"
    if "\\" in source and os.name != "nt":
        return "contains a backslash"
    if source.startswith("/") or os.path.isabs(source):
        if os.name == "nt" and _DRIVE.match(source):
            return None  # another drive: only an absolute path names it
        return "is an absolute path (a file source is pinned relative to the project)"
    if posixpath.normpath(source) != source or _too_long(source):
        return "is not a normalized relative path (no '.', '..' inside, '//' or trailing '/')"
    return None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"[A-Za-z]:[/\\]")


#: the most a bundle (format 1, a zip without ZIP64) can hold: files, and bytes of one
MAX_FILES = MAX_ENTRIES - 2  # as the writer counts them (BLD005)
MAX_FILE_SIZE = MAX_OFFSET
#: the most bytes an install lock is read to (a lock of 1,000 skills is about 1 MB)
MAX_LOCK_BYTES = 64 * 1024 * 1024


def check_scope(lock: InstallLock, scope: Scope, where: str) -> None:
    """What a lock may name in ``scope`` (``INS011`` otherwise, nothing touched): each
    directory is exactly ``AGENT_DIR/NAME`` for an agent it lists (or the one copy
    ``--link`` keeps in ``.agents/skills``), so a lock from a pull request can never
    point install, ``--check`` or uninstall at ``.git/hooks``, ``app/src`` or a path
    outside the agent directories."""
    from skillpack.source.agents import agent

    # the agent directories each set of agents allows, as the lock shows them (a skill's
    # directory is one of them joined with its name: one segment, checked by _check)
    known: dict[tuple[str, ...], list[str]] = {}
    for skill in lock.skills:
        for d in skill.directories:
            prefixes = known.get(d.agents)
            if prefixes is None:
                places = [scope.canonical_dir]
                for name in d.agents:
                    found = agent(name)
                    if found is None:
                        raise _error(f"'s skill {skill.name!r}: directory {d.path!r} names an "
                                     f"unknown agent {name!r}", where)  # fmt: skip
                    places.append(scope.agent_dir(found))
                prefixes = []
                for place in places:
                    try:
                        prefixes.append(scope.shown(place))
                    except ValueError:  # an agent directory outside the project: never
                        continue
                known[d.agents] = prefixes
            allowed = {f"{prefix}/{skill.name}" for prefix in prefixes}
            if d.path not in allowed:
                raise _error(
                    f"'s skill {skill.name!r}: directory {d.path!r} is not the skill's "
                    f"directory in an agent directory of {', '.join(d.agents) or 'any agent'}",
                    where,
                    [f"expected one of: {', '.join(sorted(allowed))}"],
                )
    confine_agent_dirs(lock, scope)


def confine_agent_dirs(lock: InstallLock, scope: Scope) -> None:
    """Every agent directory the lock names, checked before anything in it is read
    (:func:`~skillpack.install.targets.confined`): a link that leads anywhere but to an
    agent directory (``.windsurf/skills -> ../.git``) is ``INS008``, a loop of links
    ``INS018``; a file in the way reads as a missing directory."""
    seen: set[str] = set()
    for skill in lock.skills:
        for d in skill.directories:
            parent = d.path.rpartition("/")[0]
            if parent not in seen:
                seen.add(parent)
                confined(scope.path_of(parent), scope, reading=True)


_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,254}")


def valid_skill_name(name: object) -> bool:
    """Whether ``name`` can be a skill's directory name in an agent directory: one plain
    path segment (letters, digits, ``.``, ``_``, ``-``), not starting with ``.`` or
    ``-`` (a hidden directory, or an option to every tool given the path), at most 255."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def _error(message: str, where: str, details: list[str] | None = None) -> InstallLockError:
    # "'s skill 'x': ..." about one of its entries, "is not UTF-8" about the whole file
    joined = message if message.startswith("'s ") else " " + message
    return InstallLockError(
        "INS011",
        f"the install lock{joined}",
        Location(where),
        hint="restore it from version control, or delete it and run 'skillpack install' again",
        details=details or [],
    )


def read_install_lock(path: Path, scope: Scope | None = None) -> InstallLock:
    """The install lock at ``path``; an empty lock when there is none. Read only when it
    is a regular file, at most :data:`MAX_LOCK_BYTES` (a lock linked to a device or a
    FIFO is refused, never read without bound); checked against ``scope`` when given."""
    import os
    import stat

    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if os.path.islink(path):  # a link to nothing is not "no lock" (an install would
            # write a new one through it, and --check would pass)
            target = os.readlink(path)
            raise _error(f"is a link to {target!r}, which does not exist", where) from None
        return InstallLock()
    except OSError as exc:
        raise _error(f"cannot be read: {exc.strerror}", where) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _error("is not a regular file", where)
        if info.st_size > MAX_LOCK_BYTES:
            raise _error(f"is {info.st_size} bytes, more than {MAX_LOCK_BYTES}", where)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_LOCK_BYTES + 1)
    except OSError as exc:
        raise _error(f"cannot be read: {exc.strerror}", where) from None
    finally:
        os.close(fd)
    if len(data) > MAX_LOCK_BYTES:
        raise _error(f"is more than {MAX_LOCK_BYTES} bytes", where)
    lock = parse_install_lock(data, where)
    if scope is not None:
        check_scope(lock, scope, where)
    return lock
