"""What ``skillpack plugins`` writes into each host manifest, merged with what is there.

skillpack owns the derived fields: the plugin's ``name``, ``version`` and
``description``, its skill paths, its entry in each marketplace's plugin list, and the
metadata ``skillpack.toml`` declares (``author``, ``homepage``, ``repository``,
``license``, ``keywords``, and the ``[plugins.HOST]`` extras). Every other field, and
every other marketplace entry, is kept exactly, in its place (a dict keeps its keys'
order when a value is replaced); new fields go after the existing ones. A file whose
value does not change is left as it is, byte for byte; one that changes is written as
two-space indented JSON with a final newline, so a second run is a no-op.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillpack._internal.canonical import JSONValue, same_json
from skillpack.errors import Location, SkillpackError
from skillpack.plugins.formats import OUTSIDE
from skillpack.plugins.hosts import CLAUDE, GEMINI, HOSTS
from skillpack.plugins.marketplace import load_document
from skillpack.plugins.project import MARKETPLACE, PLUGIN, SKILL_MD, ManifestFile


@dataclass(frozen=True)
class PluginFacts:
    """What the project says about its plugin (``skillpack.toml`` and its skills)."""

    name: str
    version: str
    skill_paths: tuple[str, ...]  #: ``./skills/`` and the like, from the project root
    description: str = ""
    author: Mapping[str, str] | None = None
    homepage: str = ""
    repository: str = ""
    license: str = ""
    keywords: tuple[str, ...] = ()
    extras: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Planned:
    """One manifest: what is there and what skillpack writes."""

    host: str
    kind: str
    rel: str
    path: Path
    before: JSONValue  #: None when the file does not exist
    after: dict[str, Any]
    exists: bool

    @property
    def data(self) -> bytes:
        return render_json(self.after)

    @property
    def changed(self) -> bool:
        return not self.exists or not same_json(self.before, self.after)

    def differences(self) -> list[str]:
        """Each field that differs, ``FIELD: BEFORE -> AFTER`` (marketplace entries by
        name: ``plugins[acme].version``)."""
        if not self.exists:
            return ["(the file does not exist)"]
        return list(_differences(self.before, self.after, ""))


def render_json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _short(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


_MISSING = object()


def _list_change(old: list[Any], new: list[Any]) -> str:
    """What changes in a list: the items added and dropped, or its order."""
    olds, news = [_short(v) for v in old], [_short(v) for v in new]
    added = [v for v in news if v not in olds]
    dropped = [v for v in olds if v not in news]
    parts = [f"adds {', '.join(added)}"] if added else []
    parts += [f"drops {', '.join(dropped)}"] if dropped else []
    return "; ".join(parts) or "the order changes"


def _entry_key(entry: Any, i: int) -> str:
    return (
        entry["name"] if isinstance(entry, dict) and isinstance(entry.get("name"), str) else str(i)
    )


def _differences(before: Any, after: Any, prefix: str) -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in [*before, *(k for k in after if k not in before)]:
            name = f"{prefix}.{key}" if prefix else key
            old, new = before.get(key, _MISSING), after.get(key, _MISSING)
            if key == "plugins" and not prefix and isinstance(old, list) and isinstance(new, list):
                olds = {_entry_key(e, i): e for i, e in enumerate(old)}
                news = {_entry_key(e, i): e for i, e in enumerate(new)}
                for k in [*olds, *(k for k in news if k not in olds)]:
                    a, b = olds.get(k, _MISSING), news.get(k, _MISSING)
                    if a is _MISSING or b is _MISSING:
                        out.append(f"plugins[{k}]: {_short(a)} -> {_short(b)}")
                    else:
                        out.extend(_differences(a, b, f"plugins[{k}]"))
            elif isinstance(old, list) and isinstance(new, list) and not same_json(old, new):
                out.append(f"{name}: " + _list_change(old, new))
            elif old is _MISSING or new is _MISSING or not same_json(old, new):
                out.append(f"{name}: {_short(old)} -> {_short(new)}")
        return out
    return [] if same_json(before, after) else [f"{prefix}: {_short(before)} -> {_short(after)}"]


def _one_or_many(paths: Sequence[str]) -> str | list[str]:
    return paths[0] if len(paths) == 1 else list(paths)


def _plugin(host: str, facts: PluginFacts, existing: dict[str, Any]) -> dict[str, Any]:
    out = dict(existing)
    for key, value in facts.extras.get(host, {}).items():
        out[key] = value
    out["name"] = facts.name
    out["version"] = facts.version
    if facts.description:
        out["description"] = facts.description
    if host == GEMINI:
        return out
    if facts.author:
        out["author"] = dict(facts.author)
    for key in ("homepage", "repository", "license"):
        if getattr(facts, key):
            out[key] = getattr(facts, key)
    if facts.keywords:
        out["keywords"] = list(facts.keywords)
    out["skills"] = _one_or_many(facts.skill_paths)
    return out


def _is_root(source: Any) -> bool:
    if isinstance(source, dict):
        kind = source.get("source")
        source = (
            source.get("path")
            if kind == "local"
            else (source.get("url") if kind == "url" else None)
        )
    return isinstance(source, str) and source.startswith("./") and os.path.normpath(source) == "."


def _ours(entries: list[Any], name: str) -> int | None:
    """The index of the project's own entry: by name, else the only root-sourced one."""
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("name") == name:
            return i
    roots = [i for i, e in enumerate(entries) if isinstance(e, dict) and _is_root(e.get("source"))]
    return roots[0] if len(roots) == 1 else None


def _marketplace(host: str, facts: PluginFacts, existing: dict[str, Any] | None) -> dict[str, Any]:
    if existing is None:
        if host == CLAUDE:
            owner = dict(facts.author) if facts.author else {"name": facts.name}
            existing = {"name": facts.name, "owner": owner, "plugins": []}
        else:
            existing = {"name": facts.name, "interface": {"displayName": facts.name}, "plugins": []}
    out = dict(existing)
    entries = list(out.get("plugins") or [])
    index = _ours(entries, facts.name)
    entry: dict[str, Any] = dict(entries[index]) if index is not None else {}
    entry["name"] = facts.name
    if not _is_root(entry.get("source")):
        entry["source"] = "./" if host == CLAUDE else {"source": "local", "path": "./"}
    if host == CLAUDE:
        if facts.description:
            entry["description"] = facts.description
        entry["version"] = facts.version
    elif index is None:
        entry["policy"] = {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}
    if index is None:
        entries.append(entry)
    else:
        entries[index] = entry
    out["plugins"] = entries
    return out


def _existing(m: ManifestFile | None) -> dict[str, Any] | None:
    """The object a manifest holds, or the error that stops skillpack merging into it."""
    if m is None:
        return None
    if m.error is not None:
        if m.data is not None:
            load_document(m.path, m.data)  # not strict JSON: PLG002 at the fault
        code = "PLG008" if m.error.kind == OUTSIDE else "PLG002"
        where = Location(str(m.path), m.error.line, m.error.column)
        raise SkillpackError(
            code,
            m.error.message,
            where,
            hint="fix or remove the file; skillpack keeps the fields it does not own",
        )
    value = m.doc.value if m.doc is not None else None
    if not isinstance(value, dict):
        raise SkillpackError(
            "PLG003",
            "the manifest is not a JSON object: skillpack cannot keep its fields",
            Location(str(m.path), 1, 1),
        )
    plugins = value.get("plugins")
    if m.kind == MARKETPLACE and not isinstance(plugins, list | None):
        pos = m.pos(("plugins",))
        raise SkillpackError(
            "PLG003",
            "'plugins' is not an array: skillpack cannot add its entry",
            Location(str(m.path), pos.line, pos.column),
        )
    return value


def plan(
    root: Path, facts: PluginFacts, hosts: Sequence[str], manifests: Sequence[ManifestFile]
) -> list[Planned]:
    """Every manifest of ``hosts``: what is there and what skillpack writes."""
    found = {(m.host, m.kind): m for m in manifests}
    out = []
    for host in hosts:
        spec = HOSTS[host]
        for kind, rel in ((PLUGIN, spec.plugin), (MARKETPLACE, spec.marketplace)):
            if not rel:
                continue
            m = found.get((host, kind))
            existing = _existing(m)
            after = (
                _plugin(host, facts, existing or {})
                if kind == PLUGIN
                else _marketplace(host, facts, existing)
            )
            out.append(Planned(host, kind, rel, root / rel, existing, after, m is not None))
    return out


def skill_paths(root: Path, skills: Sequence[Path]) -> tuple[str, ...]:
    """The ``skills`` paths reaching every skill: each directory holding skills (hosts
    read one level deep), or the skill itself when it lies at the root or inside another
    skill (a host reads a directory with a SKILL.md as that one skill); ``./``-prefixed,
    sorted."""
    out: set[str] = set()
    for skill in skills:
        rel = skill.relative_to(root)
        if rel == Path("."):
            out.add("./")
        elif rel.parent == Path(".") or (skill.parent / SKILL_MD).is_file():
            out.add(f"./{rel.as_posix()}")
        else:
            out.add(f"./{rel.parent.as_posix()}/")
    return tuple(sorted(out))
