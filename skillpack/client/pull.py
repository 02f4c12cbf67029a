"""``skillpack vendor``: vendor a server's skills into a tree, verifying every byte.

Each skill is loaded the way a host loads it (:mod:`skillpack.client.verify`), every
listed file is read and checked against the held entry, and the tree is written to a
staging directory beside the target and renamed into place only when every skill
verified: a failed pull leaves nothing behind. No path is ever written outside the
target directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillpack._internal.staging import make_staging, shown_as
from skillpack._internal.uri import SKILL_MD, decode_path
from skillpack.client.session import McpSession
from skillpack.client.verify import (
    DynamicEntry,
    VerificationError,
    check_frontmatter,
    content_bytes,
    entry_from_wire,
    load_skill,
)
from skillpack.errors import EXIT_USAGE, SkillpackError
from skillpack.manifest import MAX_BYTES_PER_SKILL, SkillEntry


@dataclass
class PullReport:
    into: Path
    skills: list[str] = field(default_factory=list)  #: SKILL.md URIs written
    files: int = 0
    bytes: int = 0
    dynamic: list[str] = field(default_factory=list)  #: skills written without digests


class PullError(SkillpackError):
    pass


_BAD_CHARS = ("\\", "\x00")


def safe_relative(path: str, uri: str) -> Path:
    """A decoded ``/``-separated path as a relative Path, refusing anything that could
    leave the target directory."""
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", "..") or any(c in part for c in _BAD_CHARS) or ":" in part[:2]:
            raise VerificationError("CLI114", uri, f"unsafe path segment {part!r}")
    return Path(*parts)


def _select(entries: list[object], wanted: Sequence[str]) -> list[object]:
    if not wanted:
        return entries
    out = []
    for item in entries:
        uri = item.get("uri") if isinstance(item, dict) else None
        if not isinstance(uri, str):
            continue
        path = uri.split("://", 1)[-1].removesuffix("/" + SKILL_MD)
        name = path.rsplit("/", 1)[-1]
        if uri in wanted or path in wanted or name in wanted:
            out.append(item)
    return out


def pull(
    session: McpSession,
    into: Path,
    *,
    select: Sequence[str] = (),
    allow_dynamic: bool = False,
    force: bool = False,
    origin: str = "",
) -> PullReport:
    """Verify and write the server's skills (or the ``select``-ed ones) into ``into``."""
    into = Path(into).absolute()
    if into.exists() and (not into.is_dir() or any(into.iterdir())) and not force:
        raise PullError(
            "CLI120",
            f"target '{into}' exists and is not empty",
            hint="choose a new directory or pass --force to replace it",
            exit_code=EXIT_USAGE,
        )
    listed = session.list_skills()
    chosen = _select(listed, select)
    listed_uris = {i.get("uri") for i in chosen if isinstance(i, dict)}
    for wanted in select:  # a SKILL.md URI that the listing does not show: skills/get
        if wanted.endswith("/" + SKILL_MD) and wanted not in listed_uris:
            chosen.append(session.get_skill(wanted))
    if select and not chosen:
        raise PullError(
            "CLI121", f"no listed skill matches {', '.join(select)}", exit_code=EXIT_USAGE
        )
    report = PullReport(into)
    into.parent.mkdir(parents=True, exist_ok=True)
    staging = make_staging(into, "pull-")
    try:
        with shown_as(staging, into):
            written: dict[str, str] = {}  # uri -> digest (nested skills share files)
            for item in chosen:
                entry = entry_from_wire(item, allow_dynamic=allow_dynamic)
                base = safe_relative(decode_path(entry.skill_path), entry.uri)
                if isinstance(entry, DynamicEntry):
                    _pull_dynamic(session, entry, staging / base, report)
                    continue
                _pull_entry(session, entry, staging, base, written, report)
            _write_config(staging, session, origin)
        _replace(staging, into)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return report


def _pull_entry(
    session: McpSession,
    entry: SkillEntry,
    staging: Path,
    base: Path,
    written: dict[str, str],
    report: PullReport,
) -> None:
    held, skill_md = load_skill(session, entry)
    for file in entry.files:
        if written.get(file.uri) == file.digest:
            continue
        if file.uri in written:
            raise VerificationError(
                "CLI115", file.uri, "two entries list this file with different digests"
            )
        data = skill_md if file.uri == entry.uri else held.read(file.uri)
        target = staging / base / safe_relative(file.path, file.uri)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written[file.uri] = file.digest
        report.files += 1
        report.bytes += len(data)
    report.skills.append(entry.uri)


def _pull_dynamic(
    session: McpSession, entry: DynamicEntry, directory: Path, report: PullReport
) -> None:
    """A dynamic skill: SKILL.md (frontmatter checked) and, when the server offers
    directory reads, the files below it, bounded by the 16 MiB limit."""
    data = content_bytes(session.read_resource(entry.uri), entry.uri)
    check_frontmatter(entry.uri, data, entry.frontmatter)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / SKILL_MD).write_bytes(data)
    total = len(data)
    description = session.description
    if description is not None and description.directory_read:
        root = entry.uri[: -len(SKILL_MD) - 1]
        pending = [root]
        while pending:
            for child in session.read_directory(pending.pop()):
                uri = child.get("uri") if isinstance(child, dict) else None
                if not isinstance(uri, str) or not uri.startswith(root + "/"):
                    continue
                if child.get("mimeType") == "inode/directory":
                    pending.append(uri)
                    continue
                if uri == entry.uri:
                    continue
                body = content_bytes(session.read_resource(uri), uri)
                total += len(body)
                if total > MAX_BYTES_PER_SKILL:
                    raise VerificationError("CLI116", entry.uri, "dynamic skill exceeds 16 MiB")
                target = directory / safe_relative(decode_path(uri[len(root) + 1 :]), uri)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(body)
                report.files += 1
                report.bytes += len(body)
    report.files += 1
    report.bytes += len(data)
    report.dynamic.append(entry.uri)
    report.skills.append(entry.uri)


def _write_config(staging: Path, session: McpSession, origin: str) -> None:
    info = session.description.server_info if session.description else None
    raw_name = str((info or {}).get("name") or "pulled-skills")
    name = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in raw_name)
    name = name.strip("-._") or "pulled-skills"
    lines = [
        "# Written by 'skillpack vendor'. Every file was verified against the server's manifest.",
    ]
    if origin:
        lines.append("# origin: " + " ".join(origin.split()))
    lines += [f'name = "{name}"', 'version = "0.0.0"', 'roots = ["."]', ""]
    (staging / "skillpack.toml").write_text("\n".join(lines), encoding="utf-8")


def _replace(staging: Path, into: Path) -> None:
    old: Path | None = None
    if into.exists():
        old = into.parent / f".{into.name}.old-{os.getpid()}"
        os.replace(into, old)
    os.replace(staging, into)
    if old is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)
