"""Moving from the ``skills`` CLI: its ``skills-lock.json`` as ``[[install]]`` tables.

The skills CLI (1.7.x) records each skill of a project as
``{"version": 1, "skills": {NAME: {source, sourceUrl?, ref?, sourceType, skillPath?,
computedHash}}}``. Each entry becomes a source skillpack installs from and pins:

- ``github``: ``github:OWNER/REPO[@REF]``;
- ``git`` and ``gitlab``: ``git+URL[@REF]`` from ``sourceUrl`` (``git@HOST:PATH`` as
  ``ssh://git@HOST/PATH``);
- ``local``: the directory, relative to the configuration.

The skills of one source are one table (``skills = [...]``, by name); a source the
configuration already declares is not declared again. Its other types (well-known
endpoints, registries) have no git source and are reported, not guessed. The tables are
appended to the configuration (``skillpack.toml``, or ``[[tool.skillpack.install]]`` of
``pyproject.toml``): the rest of the file is kept byte for byte, the result is checked
as TOML, and written atomically.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillpack._internal.toml import toml_string
from skillpack.errors import Location, UsageError
from skillpack.source.config import CONFIG_FILE, PYPROJECT, Config

MAX_LOCK_BYTES = 16 << 20


@dataclass
class Migration:
    config_path: Path
    sources: dict[str, list[str]] = field(default_factory=dict)  #: source -> skill names
    skipped: list[str] = field(default_factory=list)  #: why an entry was left out
    kept: list[str] = field(default_factory=list)  #: sources already declared
    written: bool = False


def _bad(where: Path, why: str) -> UsageError:
    return UsageError(
        "INS021",
        f"{where}: {why}",
        Location(str(where)),
        hint="give the skills-lock.json the skills CLI wrote (version 1)",
    )


def _url(entry: dict[str, Any]) -> str | None:
    url = entry.get("sourceUrl") or entry.get("source")
    if not isinstance(url, str) or not url:
        return None
    if url.startswith("git@") and ":" in url:
        host, _, path = url[len("git@") :].partition(":")
        url = f"ssh://git@{host}/{path}"
    return url


def source_for(entry: dict[str, Any], lock_dir: Path, config_dir: Path) -> str | None:
    """The skillpack source of one skills-lock entry; None when it has none."""
    kind = entry.get("sourceType")
    ref = entry.get("ref")
    at = f"@{ref}" if isinstance(ref, str) and ref else ""
    source = entry.get("source")
    if kind == "github" and isinstance(source, str) and source.count("/") == 1:
        return f"github:{source}{at}"
    if kind in ("git", "gitlab"):
        url = _url(entry)
        return None if url is None else f"git+{url}{at}"
    if kind == "local" and isinstance(source, str) and source:
        path = Path(os.path.normpath(lock_dir / source))
        try:
            return path.relative_to(config_dir).as_posix() or "."
        except ValueError:
            return os.path.relpath(path, config_dir)
    return None


def read_skills_lock(path: Path) -> dict[str, dict[str, Any]]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_LOCK_BYTES + 1)
    except OSError as exc:
        raise _bad(path, f"cannot be read: {exc.strerror}") from None
    if len(data) > MAX_LOCK_BYTES:
        raise _bad(path, f"is more than {MAX_LOCK_BYTES} bytes")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"is not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("version") != 1:
        raise _bad(path, "is not version 1 of the skills CLI's lock")
    skills = doc.get("skills")
    if not isinstance(skills, dict) or not all(isinstance(v, dict) for v in skills.values()):
        raise _bad(path, "has no 'skills' object of entries")
    return {str(k): v for k, v in sorted(skills.items())}


def migrate(lock_path: Path, config: Config | None, project: Path) -> Migration:
    """Append the ``[[install]]`` tables of ``lock_path`` to the configuration (made,
    as ``skillpack.toml`` in ``project``, when there is none)."""
    from skillpack.install.sources import source_key

    config_path = config.source if config is not None and config.source else project / CONFIG_FILE
    config_dir = config_path.parent
    result = Migration(config_path)
    declared = set()
    if config is not None:
        declared = {source_key(d.source, config_dir) for d in config.installs}
    for name, entry in read_skills_lock(lock_path).items():
        source = source_for(entry, lock_path.parent, config_dir)
        if source is None:
            kind = entry.get("sourceType")
            result.skipped.append(f"{name}: source type {kind!r} has no git or directory source")
            continue
        if source_key(source, config_dir) in declared:
            if source not in result.kept:
                result.kept.append(source)
            continue
        result.sources.setdefault(source, []).append(name)
    if not result.sources:
        return result
    prefix = "tool.skillpack." if config_path.name == PYPROJECT else ""
    tables = []
    for source, names in sorted(result.sources.items()):
        skills = ", ".join(toml_string(n) for n in sorted(names))
        tables.append(
            f"\n[[{prefix}install]]\nsource = {toml_string(source)}\nskills = [{skills}]\n"
        )
    try:
        before = config_path.read_bytes()
    except FileNotFoundError:
        before = b""
    except OSError as exc:
        raise _bad(config_path, f"cannot be read: {exc.strerror}") from None
    text = before.decode("utf-8", "surrogateescape")
    if text and not text.endswith("\n"):
        text += "\n"
    after = (text + "".join(tables).lstrip("\n" if not text else "")).encode(
        "utf-8", "surrogateescape"
    )
    _check_config(after, config_path)
    from skillpack._internal.fsutil import write_if_changed

    result.written = write_if_changed(config_path, after, what="the configuration")
    return result


def _check_config(data: bytes, path: Path) -> None:
    """``data`` is TOML (the tables appended to a file that is not stop here)."""
    import tomllib

    try:
        tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _bad(path, f"the configuration would not be TOML: {exc}") from None
