"""A project's host manifests read together, and what is wrong with them as a whole.

:func:`find_manifests` reads every host manifest present at the project's root
(strictly, with positions); :func:`inspect_project` checks each file's shape
(:mod:`.formats`) and what only the disk and the other files can tell: every skill path
and relative marketplace source exists and holds what it should, none leaves the
project, the same plugin's name and version agree across hosts and with
``skillpack.toml``, and every skill of the project is reached by each host's manifests.
lint reports these problems as the rules SP6xx; ``skillpack plugins`` reads the same
files before it rewrites them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillpack.plugins.formats import (
    MISMATCH,
    MISSING_PATH,
    NOT_JSON,
    OUTSIDE,
    UNREACHED,
    Problem,
    check_marketplace,
    check_plugin,
    component_path,
    show,
    skill_paths,
)
from skillpack.plugins.hosts import CLAUDE, CODEX, GEMINI, HOSTS
from skillpack.plugins.jsonpos import Document, JSONSyntaxError, Pointer, Pos, read_json

#: a manifest larger than this is refused unread (they are a few kilobytes)
MAX_MANIFEST = 1 << 20
SKILL_MD = "SKILL.md"
PLUGIN = "plugin"
MARKETPLACE = "marketplace"


@dataclass(frozen=True)
class ManifestFile:
    """One host manifest found at the project's root: parsed, or why it could not be."""

    host: str
    kind: str  #: :data:`PLUGIN` or :data:`MARKETPLACE`
    rel: str  #: POSIX path from the project root
    path: Path
    data: bytes | None = None  #: its bytes, when it could be read
    doc: Document | None = None  #: parsed, when it is strict JSON
    error: FileProblem | None = None  #: why it could not be read or parsed

    def get(self, *pointer: str | int) -> Any:
        value: Any = self.doc.value if self.doc is not None else None
        for part in pointer:
            if isinstance(part, int):
                value = value[part] if isinstance(value, list) and part < len(value) else None
            else:
                value = value.get(part) if isinstance(value, dict) else None
        return value

    def pos(self, pointer: Pointer) -> Pos:
        return self.doc.at(pointer) if self.doc is not None else Pos(1, 1)


@dataclass(frozen=True)
class FileProblem:
    """A problem at ``path:line:column`` (kinds: :mod:`.formats`)."""

    kind: str
    message: str
    path: Path
    line: int = 1
    column: int = 1
    hint: str = ""


def _inside(path: Path, root: Path) -> bool:
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))
    except OSError:
        return False


def read_manifest(root: Path, host: str, kind: str) -> ManifestFile | None:
    """The ``host``'s manifest of ``kind`` at ``root``, or None when there is none. Never
    follows a link out of the project, never reads a special file or a huge one."""
    rel = HOSTS[host].plugin if kind == PLUGIN else HOSTS[host].marketplace
    path = root / rel
    try:
        st = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return ManifestFile(
            host,
            kind,
            rel,
            path,
            error=FileProblem(NOT_JSON, f"cannot be read: {exc.strerror}", path),
        )
    if stat.S_ISREG(st.st_mode) and st.st_size > MAX_MANIFEST:
        problem = FileProblem(NOT_JSON, f"{rel} is larger than {MAX_MANIFEST} bytes", path)
        return ManifestFile(host, kind, rel, path, error=problem)
    why = ""
    if stat.S_ISLNK(st.st_mode):
        why = "is a symbolic link: skillpack never follows one in a manifest's place"
    elif not stat.S_ISREG(st.st_mode):
        why = "is not a regular file"
    elif not _inside(path, root):
        why = "lies outside the project through a symbolic link"
    if why:
        return ManifestFile(host, kind, rel, path, error=FileProblem(OUTSIDE, f"{rel} {why}", path))
    try:
        data = path.read_bytes()
    except OSError as exc:
        problem = FileProblem(NOT_JSON, f"cannot be read: {exc.strerror}", path)
        return ManifestFile(host, kind, rel, path, error=problem)
    try:
        doc = read_json(data)
    except JSONSyntaxError as exc:
        problem = FileProblem(
            NOT_JSON, f"not strict JSON: {exc.message}", path, exc.pos.line, exc.pos.column
        )
        return ManifestFile(host, kind, rel, path, data, error=problem)
    return ManifestFile(host, kind, rel, path, data, doc)


def find_manifests(root: Path) -> list[ManifestFile]:
    """Every host manifest present at ``root``, in host order."""
    found = []
    for host in HOSTS.values():
        for kind in (PLUGIN, MARKETPLACE) if host.marketplace else (PLUGIN,):
            manifest = read_manifest(root, host.name, kind)
            if manifest is not None:
                found.append(manifest)
    return found


@dataclass(frozen=True)
class Declared:
    """What ``skillpack.toml`` declares of the plugin (None: not declared)."""

    name: str | None = None
    version: str | None = None


def _holds_skills(directory: Path) -> bool:
    if (directory / SKILL_MD).is_file():
        return True
    try:
        return any((child / SKILL_MD).is_file() for child in directory.iterdir())
    except OSError:
        return False


class _Inspection:
    def __init__(self, root: Path, skills: Sequence[Path], declared: Declared) -> None:
        self.root = root
        self.skills = sorted(skills)
        self.declared = declared
        self.problems: list[FileProblem] = []

    def add(
        self, m: ManifestFile, kind: str, message: str, pointer: Pointer, hint: str = ""
    ) -> None:
        pos = m.pos(pointer)
        self.problems.append(FileProblem(kind, message, m.path, pos.line, pos.column, hint))

    def directory(
        self, m: ManifestFile, pointer: Pointer, base: Path, value: str, skills: bool
    ) -> Path | None:
        """The directory a checked relative path names, or None (and a problem) when it
        leaves the project or does not exist (or, for ``skills``, holds no skill)."""
        target = base / value
        if not _inside(target, self.root):
            self.add(
                m,
                OUTSIDE,
                f"'{show(pointer)}' leads outside the project through a symbolic link: {value!r}",
                pointer,
            )
            return None
        if not target.exists():
            self.add(
                m, MISSING_PATH, f"'{show(pointer)}' names {value!r}, which does not exist", pointer
            )
            return None
        if skills and not (target.is_dir() and _holds_skills(target)):
            self.add(
                m,
                MISSING_PATH,
                f"'{show(pointer)}' names {value!r}, which holds no "
                "skill (a directory with a SKILL.md, or directories of them)",
                pointer,
            )
            return None
        return Path(os.path.normpath(target))

    def skill_dirs(
        self, m: ManifestFile, pointer: Pointer, base: Path, paths: list[str] | None
    ) -> list[Path]:
        """The directories skills are read from: each path given (checked), or the
        default ``skills/`` of ``base``."""
        if paths is None:
            return [base / "skills"]
        value = m.get(*pointer)
        out = []
        for i, path in enumerate(paths):
            where = (*pointer, i) if isinstance(value, list) else pointer
            if component_path(path) is None and path.startswith("./"):
                found = self.directory(m, where, base, path, skills=True)
                if found is not None:
                    out.append(found)
        return out


def _reached(skill: Path, dirs: Sequence[Path]) -> bool:
    """A directory given reaches the skill it is, or the skills one level below it when
    it is not a skill itself (hosts read a skill directory as that one skill)."""
    return any(skill == d or (skill.parent == d and not (d / SKILL_MD).is_file()) for d in dirs)


def _shape(m: ManifestFile) -> list[Problem]:
    assert m.doc is not None
    check = check_marketplace if m.kind == MARKETPLACE else check_plugin
    return check(m.host, m.doc)


def inspect_project(
    root: Path,
    skills: Sequence[Path],
    declared: Declared = Declared(),
    manifests: Sequence[ManifestFile] | None = None,
) -> list[FileProblem]:
    """Every problem of the host manifests at ``root`` (``skills``: the directories of
    the project's skills, absolute), in file order."""
    run = _Inspection(root, skills, declared)
    found = find_manifests(root) if manifests is None else list(manifests)
    reach: dict[str, tuple[ManifestFile, list[Path]]] = {}
    identities: list[tuple[ManifestFile, Pointer, str, str]] = []  # (file, where, field, value)
    for m in found:
        if m.error is not None:
            run.problems.append(m.error)
            continue
        for problem in _shape(m):
            run.add(m, problem.kind, problem.message, problem.pointer)
        if not isinstance(m.doc and m.doc.value, dict):
            continue
        if m.kind == PLUGIN:
            for field in ("name", "version"):
                if isinstance(m.get(field), str):
                    identities.append((m, (field,), field, m.get(field)))
            dirs = _plugin_dirs(run, m)
            if m.host == CLAUDE and CLAUDE in reach:
                dirs += reach[CLAUDE][1]
            reach[m.host] = (m, dirs)
        else:
            dirs = _marketplace(run, m, identities)
            if m.host in reach:
                dirs += reach[m.host][1]
                reach[m.host] = (reach[m.host][0], dirs)
            else:
                reach[m.host] = (m, dirs)
    _agree(run, identities)
    for host, (m, dirs) in reach.items():
        missed = [s for s in run.skills if not _reached(s, dirs)]
        if missed:
            shown = [s.relative_to(root).as_posix() if s.is_relative_to(root) else str(s)
                     for s in missed]  # fmt: skip
            what = f"the skill {shown[0]} is" if len(shown) == 1 else (
                f"{len(shown)} skills are")  # fmt: skip
            listed = "" if len(shown) == 1 else ": " + ", ".join(shown[:10]) + (
                ", ..." if len(shown) > 10 else "")  # fmt: skip
            run.add(m, UNREACHED, f"{what} not in what {HOSTS[host].label} installs from "
                    f"{m.rel}{listed}", ("skills",) if m.kind == PLUGIN else ("plugins",),
                    hint="list them in the manifest, or run `skillpack plugins`")  # fmt: skip
    return run.problems


def _plugin_dirs(run: _Inspection, m: ManifestFile, base: Path | None = None) -> list[Path]:
    """The directories ``m`` (a plugin manifest of the plugin at ``base``, default the
    project's root) makes its host read skills from; its other paths (commands, agents,
    a Gemini context file) checked to exist."""
    base = run.root if base is None else base
    value: dict[str, Any] = m.get()
    if m.host == GEMINI:
        context = value.get("contextFileName")
        names = (
            [context] if isinstance(context, str) else context if isinstance(context, list) else []
        )
        for i, name in enumerate(names):
            where: Pointer = (
                ("contextFileName", i) if isinstance(context, list) else ("contextFileName",)
            )
            if isinstance(name, str) and component_path(name) is None:
                run.directory(m, where, base, name, skills=False)
            elif isinstance(name, str):
                run.add(m, OUTSIDE, f"'{show(where)}' is {component_path(name)}: {name!r}", where)
        return [base / "skills"]
    if m.host == CLAUDE:
        for field in ("commands", "agents"):
            paths = skill_paths(CLAUDE, {"skills": value.get(field)})
            for i, path in enumerate(paths or ()):
                where = (field, i) if isinstance(value.get(field), list) else (field,)
                if component_path(path) is None and path.startswith("./"):
                    run.directory(m, where, base, path, skills=False)
    paths = skill_paths(m.host, value)
    dirs = run.skill_dirs(m, ("skills",), base, paths)
    if m.host == CLAUDE and paths is not None:
        dirs.append(base / "skills")  # Claude Code's custom paths add to skills/
    return dirs


def _root_source(source: Any) -> bool:
    if isinstance(source, dict):
        source = source.get("path") if source.get("source") == "local" else source.get("url")
    return isinstance(source, str) and os.path.normpath(source) == "."


def _marketplace(
    run: _Inspection, m: ManifestFile, identities: list[tuple[ManifestFile, Pointer, str, str]]
) -> list[Path]:
    """The directories the marketplace's relative plugins read skills from, each source
    checked to exist; entries for the project's own plugin (source ``./``) join the
    identities compared across hosts."""
    dirs: list[Path] = []
    entries = m.get("plugins")
    if not isinstance(entries, list):
        return dirs
    # several plugins of the root (each a list of skills) are not the project's plugin
    at_root = sum(1 for e in entries if isinstance(e, dict) and _root_source(e.get("source")))
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        at: Pointer = ("plugins", i)
        source, where = entry.get("source"), (*at, "source")
        if isinstance(source, dict):
            kind = source.get("source")
            if kind == "local" or (
                kind == "url" and str(source.get("url", "")).startswith(("./", "../"))
            ):
                key = "path" if kind == "local" else "url"
                source, where = source.get(key), (*where, key)
            else:
                continue
        if not isinstance(source, str) or component_path(source) is not None:
            continue
        if m.host == CLAUDE and not source.startswith("./"):
            plugin_root = m.get("metadata", "pluginRoot")
            if not isinstance(plugin_root, str) or "/" in source:
                continue
            source = f"{plugin_root.rstrip('/')}/{source}"  # a bare name: under pluginRoot
        base = run.directory(m, where, run.root, source, skills=False)
        if base is None:
            continue
        if m.host == CODEX and not (base / HOSTS[CODEX].plugin).is_file():
            run.add(
                m,
                MISSING_PATH,
                f"'{show(where)}' names {source!r}, which holds no "
                f"{HOSTS[CODEX].plugin}: Codex skips the entry",
                where,
            )
        own = at_root == 1 and entry.get("strict") is not False  # not a list of skills
        if base == Path(os.path.normpath(run.root)) and own:
            for field in ("name", "version"):
                if isinstance(entry.get(field), str):
                    identities.append((m, (*at, field), field, entry[field]))
        nested = None
        if base != Path(os.path.normpath(run.root)):  # another plugin of the repository
            nested = read_manifest(base, m.host, PLUGIN)
            if nested is not None:
                dirs += _nested(run, nested, base)
        if m.host == CLAUDE:
            paths = skill_paths(CLAUDE, entry)
            if paths is not None or nested is None:
                dirs += run.skill_dirs(m, (*at, "skills"), base, paths)
        elif nested is None:
            dirs.append(base / "skills")
    return dirs


def _nested(run: _Inspection, m: ManifestFile, base: Path) -> list[Path]:
    """A plugin manifest of a directory a marketplace lists: its problems, and where it
    makes its host read skills."""
    if m.error is not None:
        run.problems.append(m.error)
        return []
    for problem in _shape(m):
        run.add(m, problem.kind, problem.message, problem.pointer)
    if not isinstance(m.get(), dict):
        return []
    return _plugin_dirs(run, m, base)


def _agree(run: _Inspection, identities: list[tuple[ManifestFile, Pointer, str, str]]) -> None:
    """Names and versions of the project's plugin agree with skillpack.toml (when it
    declares them) or else with the first manifest giving them."""
    for field in ("name", "version"):
        given = [(m, where, value) for m, where, f, value in identities if f == field]
        declared = getattr(run.declared, field)
        reference = declared if declared is not None else (given[0][2] if given else None)
        source = "skillpack.toml" if declared is not None else (given[0][0].rel if given else "")
        for m, where, value in given:
            if value != reference:
                run.add(
                    m,
                    MISMATCH,
                    f"'{show(where)}' is {value!r} but {source} says "
                    f"{reference!r}: hosts would install different {field}s of one plugin",
                    where,
                    hint="run `skillpack plugins` to write them all from skillpack.toml",
                )
