"""``skillpack vendor``: vendor a server's skills into a tree, verifying every byte.

Every entry is validated and every path of the tree judged by the path policy skillpack
publishes by before anything is read or written. Each skill is then loaded the way a
host loads it (:mod:`skillpack.client.verify`), every listed file is read and checked
against the held entry, and the tree is written to a staging directory beside the
target and renamed into place only when every skill verified: a failed pull leaves
nothing behind. No path is ever written outside the target directory, and none that
skillpack would not publish.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from skillpack._internal.staging import make_staging, shown_as
from skillpack._internal.uri import SKILL_MD, decode_path
from skillpack.client.session import McpSession, ServerDescription
from skillpack.client.transport import RpcError
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
from skillpack.source.config import CONFIG_FILE
from skillpack.source.paths import CLASH, COLLISION, tree_problems


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
    """Verify and write the server's skills (or the ``select``-ed ones) into ``into``.

    Every entry is validated, and every path the tree would hold judged by the path
    policy skillpack publishes by (:func:`~skillpack.source.paths.tree_problems`: no
    dot segment such as ``.git/``, no two paths that are one file on macOS or Windows,
    no file where a directory must be), before anything is read or written. A JSON-RPC
    error from the server is a coded refusal (``CLI003``)."""
    try:
        return _pull(session, into, select, allow_dynamic, force, origin)
    except RpcError as exc:
        raise exc.refusal() from None


def _pull(
    session: McpSession,
    into: Path,
    select: Sequence[str],
    allow_dynamic: bool,
    force: bool,
    origin: str,
) -> PullReport:
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
    entries = [entry_from_wire(item, allow_dynamic=allow_dynamic) for item in chosen]
    plan = _plan(session, entries)
    report = PullReport(into)
    into.parent.mkdir(parents=True, exist_ok=True)
    staging = make_staging(into, "pull-")
    try:
        os.chmod(staging, 0o755 & ~_umask())  # as unpack makes its directory, not 0700
        with shown_as(staging, into):
            written: set[str] = set()  # nested skills share files: each is written once
            for entry, files in plan:
                if isinstance(entry, DynamicEntry):
                    _pull_dynamic(session, entry, files, staging, report)
                else:
                    _pull_entry(session, entry, files, staging, written, report)
            _write_config(staging, session, origin)
        _replace(staging, into)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return report


#: a file a pulled tree holds besides the skills
_PROJECT_FILES = (CONFIG_FILE,)


def _plan(
    session: McpSession, entries: Sequence[SkillEntry | DynamicEntry]
) -> list[tuple[SkillEntry | DynamicEntry, dict[str, str]]]:
    """Each entry with its files (path in the tree -> URI), once every path of the whole
    tree has been judged: the path policy (CLI114), two entries listing one file with
    different digests (CLI115), paths that collide or clash (CLI117). A dynamic skill's
    files are listed here with directory reads; nothing is read or written yet."""
    plan: list[tuple[SkillEntry | DynamicEntry, dict[str, str]]] = []
    uris: dict[str, str] = {}  # tree path -> URI
    digests: dict[str, str] = {}  # URI -> digest
    for entry in entries:
        try:
            base = decode_path(entry.skill_path)
        except UnicodeDecodeError:
            raise VerificationError("CLI107", entry.uri, "percent-encoding is not UTF-8") from None
        files: dict[str, str] = {}
        if isinstance(entry, DynamicEntry):
            rels = [(SKILL_MD, entry.uri), *_dynamic_files(session, entry)]
        else:
            rels = [(f.path, f.uri) for f in entry.files]
            for f in entry.files:
                if digests.setdefault(f.uri, f.digest) != f.digest:
                    raise VerificationError(
                        "CLI115", f.uri, "two entries list this file with different digests"
                    )
        for rel, uri in rels:
            path = f"{base}/{rel}"
            safe_relative(path, uri)
            files[path] = uri
            if uris.setdefault(path, uri) != uri:
                raise VerificationError(
                    "CLI117", uri, f"and {uris[path]} are both the file '{path}'"
                )
        plan.append((entry, files))
    for problem in tree_problems([*_PROJECT_FILES, *uris]):
        uri = uris.get(problem.path, problem.path)
        if problem.kind in (COLLISION, CLASH):
            raise VerificationError(
                "CLI117",
                uri,
                f"'{problem.path}' {problem.reason}: skillpack never publishes such a tree",
                hint="the server publishes paths that are one file on macOS or Windows; "
                "report it to the server's maintainers",
            )
        raise VerificationError(
            "CLI114",
            uri,
            f"unsafe path '{problem.path}': it {problem.reason}",
            hint="skillpack never publishes nor writes such a path",
        )
    return plan


def _pull_entry(
    session: McpSession,
    entry: SkillEntry,
    files: dict[str, str],
    staging: Path,
    written: set[str],
    report: PullReport,
) -> None:
    held, skill_md = load_skill(session, entry)
    for path, uri in files.items():
        if uri in written:
            continue
        data = skill_md if uri == entry.uri else held.read(uri)
        target = staging / Path(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if uri in held.executable:  # the mode the bundle records, as unpack restores it
            os.chmod(target, 0o755 & ~_umask())
        written.add(uri)
        report.files += 1
        report.bytes += len(data)
    report.skills.append(entry.uri)


def _dynamic_files(session: McpSession, entry: DynamicEntry) -> list[tuple[str, str]]:
    """(path in the skill, URI) of a dynamic skill's files besides SKILL.md, when the
    server offers directory reads."""
    description = session.description
    if description is None or not description.directory_read:
        return []
    root = entry.uri[: -len(SKILL_MD) - 1]
    found: list[tuple[str, str]] = []
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
            try:
                found.append((decode_path(uri[len(root) + 1 :]), uri))
            except UnicodeDecodeError:
                raise VerificationError("CLI107", uri, "percent-encoding is not UTF-8") from None
    return found


def _pull_dynamic(
    session: McpSession,
    entry: DynamicEntry,
    files: dict[str, str],
    staging: Path,
    report: PullReport,
) -> None:
    """A dynamic skill: SKILL.md (frontmatter checked) and the files listed below it by
    directory reads, bounded by the 16 MiB limit."""
    total = 0
    for path, uri in files.items():
        body = content_bytes(session.read_resource(uri), uri)
        if uri == entry.uri:
            check_frontmatter(entry.uri, body, entry.frontmatter)
        total += len(body)
        if total > MAX_BYTES_PER_SKILL:
            raise VerificationError("CLI116", entry.uri, "dynamic skill exceeds 16 MiB")
        target = staging / Path(*path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        report.files += 1
        report.bytes += len(body)
    report.dynamic.append(entry.uri)
    report.skills.append(entry.uri)


def _umask() -> int:
    """The process's umask (read without changing it where the system tells it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: where a server may say which bundle it serves: skillpack serve's ``_meta`` member
#: (``server/discover`` and ``initialize``), a list of ``{"name", "version"}``
BUNDLES_META = "dev.skillpack/bundles"
#: the first sentence of skillpack serve's ``instructions`` for one source
_INSTRUCTIONS = re.compile(
    r"Agent Skills from the (?:bundle|source directory) (?P<name>\S+) (?P<version>\S+) "
    r"\(\d+ skills?(?:, mounted at [^)]*)?\), served by skillpack\."
)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")


def served_bundle(description: ServerDescription | None) -> tuple[str, str] | None:
    """The name and version of the one bundle the server says it serves: its ``_meta``
    (:data:`BUNDLES_META`), else skillpack serve's ``instructions``; None when it
    serves several, says nothing, or says what no configuration could hold."""
    if description is None:
        return None
    found: tuple[object, object] | None = None
    meta = description.raw.get("_meta")
    bundles = meta.get(BUNDLES_META) if isinstance(meta, dict) else None
    if isinstance(bundles, list) and len(bundles) == 1 and isinstance(bundles[0], dict):
        found = (bundles[0].get("name"), bundles[0].get("version"))
    elif isinstance(description.instructions, str):
        match = _INSTRUCTIONS.match(description.instructions)
        if match is not None:
            found = (match["name"], match["version"])
    if found is None:
        return None
    name, version = found
    if not (isinstance(name, str) and _NAME.fullmatch(name)):
        return None
    if not (isinstance(version, str) and _VERSION.fullmatch(version)):
        return None
    return name, version


def _write_config(staging: Path, session: McpSession, origin: str) -> None:
    served = served_bundle(session.description)
    if served is not None:
        name, version = served
    else:
        info = session.description.server_info if session.description else None
        raw_name = str((info or {}).get("name") or "pulled-skills")
        name = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in raw_name)
        name = name.strip("-._")[:128] or "pulled-skills"
        version = "0.0.0"
    lines = [
        "# Written by 'skillpack vendor'. Every file was verified against the server's manifest.",
    ]
    if origin:
        lines.append("# origin: " + " ".join(origin.split()))
    lines += [f'name = "{name}"', f'version = "{version}"', 'roots = ["."]', ""]
    (staging / CONFIG_FILE).write_text("\n".join(lines), encoding="utf-8")


def _replace(staging: Path, into: Path) -> None:
    old: Path | None = None
    if into.exists():
        old = into.parent / f".{into.name}.old-{os.getpid()}"
        os.replace(into, old)
    os.replace(staging, into)
    if old is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)
