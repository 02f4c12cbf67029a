"""The comparison of two manifests: what changed between two manifests (bundles, trees or locks).

Per skill: skills added or removed; files added, removed or modified (size or digest);
frontmatter members added, removed or changed. These are exactly the changes that
alter a SEP-2640 skill entry (``uri``, ``frontmatter``, ``resources``), so each
revokes a host's approval of the skill. A change of the executable bit alone is
reported too (it changes the bundle) but marked as not touching the skill entry.

Values are compared as JSON (``1``, ``1.0`` and ``true`` differ), see
:mod:`skillpack._internal.canonical`. Used by ``skillpack diff`` (which reads any side with
:func:`skillpack.bundle.diff.load_manifest`) and ``skillpack lock --check``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from skillpack._internal.canonical import canonical_json, same_json
from skillpack._internal.words import plural
from skillpack.manifest import FileEntry, Manifest, SkillEntry


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


#: The value of a frontmatter member that is absent on one side (distinct from null).
MISSING: Any = _Missing()

Kind = Literal["added", "removed", "modified"]
T = TypeVar("T")


@dataclass(frozen=True)
class FileChange:
    path: str
    kind: Literal["added", "removed", "modified", "mode"]
    old: FileEntry | None
    new: FileEntry | None

    @property
    def uri(self) -> str:
        entry = self.new or self.old
        assert entry is not None
        return entry.uri

    def render(self) -> str:
        if self.kind == "added" and self.new:
            return f"+ file {self.path} ({plural(self.new.size, 'byte')})"
        if self.kind == "removed":
            return f"- file {self.path}"
        assert self.old is not None and self.new is not None
        if self.kind == "mode":
            change = "set" if self.new.executable else "cleared"
            return f"~ file {self.path}: executable bit {change} (the skill entry is unchanged)"
        return (
            f"~ file {self.path} ({self.old.size} -> {plural(self.new.size, 'byte')}, "
            f"{_short(self.old.digest)} -> {_short(self.new.digest)})"
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "uri": self.uri, "change": self.kind}
        for side, entry in (("old", self.old), ("new", self.new)):
            if entry is not None:
                out[side] = {
                    "size": entry.size,
                    "digest": entry.digest,
                    "executable": entry.executable,
                }
        return out


@dataclass(frozen=True)
class FrontmatterChange:
    pointer: str  #: RFC 6901 JSON Pointer of the member, e.g. ``/metadata/owner``
    kind: Kind
    old: Any  #: :data:`MISSING` when added
    new: Any  #: :data:`MISSING` when removed

    def render(self) -> str:
        if self.kind == "added":
            return f"+ frontmatter {self.pointer} = {_value(self.new)}"
        if self.kind == "removed":
            return f"- frontmatter {self.pointer} (was {_value(self.old)})"
        return f"~ frontmatter {self.pointer}: {_value(self.old)} -> {_value(self.new)}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer, "change": self.kind}
        if self.old is not MISSING:
            out["old"] = self.old
        if self.new is not MISSING:
            out["new"] = self.new
        return out


@dataclass(frozen=True)
class SkillDiff:
    skill_path: str
    uri: str
    kind: Kind
    files: tuple[FileChange, ...] = ()
    frontmatter: tuple[FrontmatterChange, ...] = ()

    @property
    def revokes_approval(self) -> bool:
        """True when the SEP-2640 skill entry changed (hosts must re-approve)."""
        return (
            self.kind != "modified"
            or bool(self.frontmatter)
            or any(f.kind != "mode" for f in self.files)
        )

    def render(self) -> list[str]:
        mark = {"added": "+", "removed": "-", "modified": "~"}[self.kind]
        head = f"{mark} skill {self.skill_path}"
        if self.kind != "modified":
            n = len(self.files)
            return [f"{head} ({self.kind}, {n} file{'s' if n != 1 else ''})"]
        changes = [c.render() for c in self.frontmatter] + [c.render() for c in self.files]
        return [head] + [f"    {line}" for line in changes]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.skill_path,
            "uri": self.uri,
            "change": self.kind,
            "revokes-approval": self.revokes_approval,
            "frontmatter": [c.to_json() for c in self.frontmatter],
            "files": [c.to_json() for c in self.files],
        }


@dataclass(frozen=True)
class ManifestDiff:
    old_name: str
    new_name: str
    old_version: str
    new_version: str
    skills: tuple[SkillDiff, ...]

    @property
    def same(self) -> bool:
        return (
            not self.skills
            and self.old_name == self.new_name
            and self.old_version == self.new_version
        )

    def lines(self) -> list[str]:
        out: list[str] = []
        if self.old_name != self.new_name:
            out.append(f"~ name: {self.old_name} -> {self.new_name}")
        if self.old_version != self.new_version:
            out.append(f"~ version: {self.old_version} -> {self.new_version}")
        for skill in self.skills:
            out.extend(skill.render())
        return out

    def summary(self) -> str:
        if self.same:
            return "no differences"
        counts = {
            k: sum(s.kind == k for s in self.skills) for k in ("added", "removed", "modified")
        }
        files = sum(len(s.files) for s in self.skills if s.kind == "modified")
        revoked = sum(s.revokes_approval for s in self.skills)
        parts = [f"{n} {k}" for k, n in counts.items() if n]
        count = len(self.skills)
        text = f"{count} skill{'s differ' if count != 1 else ' differs'}"
        if parts:
            text += f" ({', '.join(parts)}; {files} file change{'s' if files != 1 else ''})"
        entries = "skill entries need" if revoked != 1 else "skill entry needs"
        return text + f"; {revoked} {entries} re-approval"

    def to_json(self) -> dict[str, Any]:
        return {
            "same": self.same,
            "name": {"old": self.old_name, "new": self.new_name},
            "version": {"old": self.old_version, "new": self.new_version},
            "skills": [s.to_json() for s in self.skills],
        }


def _short(digest: str) -> str:
    return digest[:19] + "…"


def _value(value: Any) -> str:
    text = canonical_json(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def diff_frontmatter(
    old: Mapping[str, Any], new: Mapping[str, Any], pointer: str = ""
) -> list[FrontmatterChange]:
    """Member-by-member changes, recursing into objects present on both sides."""
    changes: list[FrontmatterChange] = []
    for key in sorted(set(old) | set(new)):
        where = f"{pointer}/{_escape(key)}"
        a, b = old.get(key, MISSING), new.get(key, MISSING)
        if key not in new:
            changes.append(FrontmatterChange(where, "removed", a, MISSING))
        elif key not in old:
            changes.append(FrontmatterChange(where, "added", MISSING, b))
        elif isinstance(a, dict) and isinstance(b, dict):
            changes.extend(diff_frontmatter(a, b, where))
        elif not same_json(a, b):
            changes.append(FrontmatterChange(where, "modified", a, b))
    return changes


def _paired(before: dict[str, T], after: dict[str, T]) -> Iterator[tuple[str, T | None, T | None]]:
    """(key, old, new) for every key of either side, in key byte order."""
    for key in sorted(set(before) | set(after), key=lambda k: k.encode("utf-8")):
        yield key, before.get(key), after.get(key)


def diff_files(old: SkillEntry, new: SkillEntry) -> list[FileChange]:
    changes: list[FileChange] = []
    for path, a, b in _paired({f.path: f for f in old.files}, {f.path: f for f in new.files}):
        if b is None:
            changes.append(FileChange(path, "removed", a, None))
        elif a is None:
            changes.append(FileChange(path, "added", None, b))
        elif (a.size, a.digest) != (b.size, b.digest):
            changes.append(FileChange(path, "modified", a, b))
        elif a.executable != b.executable:
            changes.append(FileChange(path, "mode", a, b))
    return changes


def diff_manifests(old: Manifest, new: Manifest) -> ManifestDiff:
    """Every difference between ``old`` and ``new``, skills in skill-path byte order."""
    skills: list[SkillDiff] = []
    before = {s.skill_path: s for s in old.skills}
    for path, a, b in _paired(before, {s.skill_path: s for s in new.skills}):
        if b is None:
            assert a is not None
            removed = tuple(FileChange(f.path, "removed", f, None) for f in a.files)
            skills.append(SkillDiff(path, a.uri, "removed", removed))
        elif a is None:
            added = tuple(FileChange(f.path, "added", None, f) for f in b.files)
            skills.append(SkillDiff(path, b.uri, "added", added))
        else:
            files = diff_files(a, b)
            front = diff_frontmatter(a.frontmatter, b.frontmatter)
            if files or front:
                skills.append(SkillDiff(path, b.uri, "modified", tuple(files), tuple(front)))
    return ManifestDiff(old.name, new.name, old.version, new.version, tuple(skills))
