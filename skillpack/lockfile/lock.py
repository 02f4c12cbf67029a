"""The lockfile (``skillpack.lock``): the manifest as canonical TOML.

Written with tomli-w, read with tomllib, following PEP 751's ``pylock.toml``
conventions (``lock-version``, ``created-by``, kebab-case keys, sizes next to
digests)::

    lock-version = "1.0"
    created-by = "skillpack"
    index-digest = "sha256:..."   # sha256 of the bundle index built from this lock
    name = "acme-skills"
    version = "1.0.0"

    [[skills]]
    path = "acme/billing/refunds"
    uri = "skill://acme/billing/refunds/SKILL.md"
    files = [
        { path = "SKILL.md", size = 130, digest = "sha256:..." },
        { path = "scripts/run.py", size = 88, digest = "sha256:...", executable = true },
    ]

    [skills.frontmatter]
    description = "..."
    name = "refunds"

Canonical: skills in skill-path byte order, files in manifest order (``SKILL.md``
first, then by URI bytes), frontmatter keys sorted, ``executable`` written only when
true, nothing that changes between runs. The same manifest always gives the same
bytes, so a rerun rewrites nothing and a change is a small diff.

TOML has no null. A null anywhere in a frontmatter is recorded in
``frontmatter-nulls``, a list of RFC 6901 JSON Pointers: a null mapping member is left
out of the TOML table, a null list item is written as the placeholder ``{}``. Integers
and floats stay apart (TOML keeps ``1`` and ``1.0`` distinct), so every JSON value
the strict frontmatter reader produces survives a round trip exactly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skillpack._internal.canonical import JSONValue
from skillpack._internal.toml import toml_string
from skillpack._internal.uri import SKILL_MD, file_uri, is_valid_segment, skill_md_uri
from skillpack.errors import EXIT_FINDINGS, Location, SkillpackError
from skillpack.lockfile.index import index_bytes, index_digest
from skillpack.lockfile.prologue import PROLOGUE_RE, lock_body_digest, split_lock
from skillpack.manifest import DIGEST_RE, FileEntry, Manifest, SkillEntry, sha256_digest
from skillpack.source.paths import unsafe_published_path

LOCK_VERSION = "1.0"
CREATED_BY = "skillpack"
SCHEMA = "lock.schema.json"


class LockError(SkillpackError):
    """A lock that cannot be read or does not describe a valid manifest (exit 1)."""

    def __init__(
        self,
        code: str,
        message: str,
        where: str,
        hint: str | None = None,
        details: list[str] | None = None,
    ) -> None:
        super().__init__(code, message, Location(where), hint, EXIT_FINDINGS, details or [])


@dataclass(frozen=True)
class Lock:
    manifest: Manifest
    index_digest: str
    created_by: str


# --- nulls ----------------------------------------------------------------------
def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def split_nulls(value: JSONValue, pointer: str = "") -> tuple[Any, list[str]]:
    """``value`` with nulls removed (mapping members) or replaced by ``{}`` (list items),
    keys sorted, and the JSON Pointers of the nulls."""
    nulls: list[str] = []
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key in sorted(value):
            child = f"{pointer}/{_escape(key)}"
            if value[key] is None:
                nulls.append(child)
                continue
            out[key], inner = split_nulls(value[key], child)
            nulls.extend(inner)
        return out, nulls
    if isinstance(value, list):
        items: list[Any] = []
        for i, item in enumerate(value):
            child = f"{pointer}/{i}"
            if item is None:
                nulls.append(child)
                items.append({})
                continue
            converted, inner = split_nulls(item, child)
            items.append(converted)
            nulls.extend(inner)
        return items, nulls
    return value, nulls


def restore_nulls(value: dict[str, Any], pointers: list[str]) -> dict[str, Any]:
    """Put the nulls named by ``pointers`` back into ``value`` (in place); ValueError if a
    pointer does not name a left-out member or a ``{}`` placeholder."""
    for pointer in pointers:
        tokens = [_unescape(t) for t in pointer.split("/")[1:]]
        node: Any = value
        for token in tokens[:-1]:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise ValueError(f"frontmatter-nulls: {pointer!r} does not exist")
        last = tokens[-1]
        if isinstance(node, dict) and last not in node:
            node[last] = None
        elif (
            isinstance(node, list)
            and last.isdigit()
            and int(last) < len(node)
            and node[int(last)] == {}
        ):
            node[int(last)] = None
        else:
            raise ValueError(f"frontmatter-nulls: {pointer!r} is not a null placeholder")
    return value


# --- writing --------------------------------------------------------------------
def lock_document(manifest: Manifest, index_digest_value: str) -> dict[str, Any]:
    return {
        **_head(manifest, index_digest_value),
        "skills": [skill_table(skill) for skill in manifest.skills],
    }


def _head(manifest: Manifest, index_digest_value: str) -> dict[str, Any]:
    return {
        "lock-version": LOCK_VERSION,
        "created-by": CREATED_BY,
        "index-digest": index_digest_value,
        "name": manifest.name,
        "version": manifest.version,
    }


def skill_table(skill: SkillEntry) -> dict[str, Any]:
    """The ``[[skills]]`` table of one skill."""
    frontmatter, nulls = split_nulls(dict(skill.frontmatter))
    table: dict[str, Any] = {"path": skill.skill_path, "uri": skill.uri}
    if nulls:
        table["frontmatter-nulls"] = nulls
    table["files"] = [_file_table(f) for f in skill.files]
    table["frontmatter"] = frontmatter
    return table


def _file_table(f: FileEntry) -> dict[str, Any]:
    table: dict[str, Any] = {"path": f.path, "size": f.size, "digest": f.digest}
    if f.executable:
        table["executable"] = True
    return table


#: Stands in for the index digest while the body is rendered (same length as a digest).
_PLACEHOLDER = "sha256:" + "0" * 64
_AOT_HEADER = "[[skills]]\n"


def render_skill(skill: SkillEntry) -> str:
    """One skill's ``[[skills]]`` table (and its sub-tables) exactly as the lock holds it:
    the lock is its head followed by these, each after a blank line, so workers can
    render them in parallel (:func:`render_lock`'s ``rendered``; see
    :func:`skillpack.build.pipeline.lock_tree`).

    The bytes are tomli-w's. The parts every table has (path, URI, nulls, the files, each
    an array-of-tables entry because its digest makes it too long for tomli-w's inline
    form) are written here, and so is a frontmatter of bare keys and strings, numbers,
    booleans, lists of those and tables of the same; any other frontmatter is left to
    tomli-w whole (tomli-w took most of a build's per-skill time)."""
    frontmatter, nulls = split_nulls(dict(skill.frontmatter))
    tail = _table_chunks(frontmatter, "skills.frontmatter")
    if tail is None or all(_fits_inline(f) for f in skill.files):
        import tomli_w  # only writers need it

        return tomli_w.dumps({"skills": [skill_table(skill)]})
    out = [f"[[skills]]\npath = {toml_string(skill.skill_path)}\nuri = {toml_string(skill.uri)}\n"]
    if nulls:
        out.append(f"frontmatter-nulls = {_array(nulls)}\n")
    for f in skill.files:
        out.append(f"\n[[skills.files]]\npath = {toml_string(f.path)}\nsize = {f.size}\n"
                   f"digest = {toml_string(f.digest)}\n")  # fmt: skip
        if f.executable:
            out.append("executable = true\n")
    out.append("\n")
    out += tail
    return "".join(out)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")


def _fits_inline(f: FileEntry) -> bool:
    """Whether tomli-w would write ``f`` as an inline table: its line ``    { path = …,
    size = …, digest = … },`` is at most 100 characters (a real digest alone makes it
    longer)."""
    width = 36 + len(toml_string(f.path)) + len(str(f.size)) + len(toml_string(f.digest))
    return width + (19 if f.executable else 0) <= 100


def _array(items: Sequence[str]) -> str:
    """A non-empty list of strings, one per line, as tomli-w writes it."""
    return "[\n" + "".join(f"    {toml_string(item)},\n" for item in items) + "]"


def _literal(value: object) -> str | None:
    """``value`` as a TOML value the way tomli-w writes it; None when not a string,
    number, boolean or list of those."""
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        items = [_literal(item) for item in value if not isinstance(item, list)]
        if len(items) != len(value) or None in items:
            return None
        return "[\n" + "".join(f"    {item},\n" for item in items) + "]" if items else "[]"
    return None


def _table_chunks(table: Mapping[str, object], name: str) -> list[str] | None:
    """tomli-w's rendering of the table ``name`` holding ``table`` (its plain values,
    then its sub-tables, each after a blank line; the header only over plain values or
    an empty table), or None when a key or value is not one :func:`render_skill` writes."""
    literals: list[str] = []
    tables: list[tuple[str, Mapping[str, object]]] = []
    for key, value in table.items():
        if _BARE_KEY.match(key) is None:
            return None
        if isinstance(value, dict):
            tables.append((key, value))
            continue
        literal = _literal(value)
        if literal is None:
            return None
        literals.append(f"{key} = {literal}\n")
    out = [f"[{name}]\n", *literals] if literals or not tables else []
    for key, sub in tables:
        chunks = _table_chunks(sub, f"{name}.{key}")
        if chunks is None:
            return None
        out += ["\n", *chunks] if out else chunks
    return out


def render_lock(manifest: Manifest, rendered: Sequence[str] | None = None) -> bytes:
    """The canonical lock bytes of ``manifest``: tomli-w's rendering of
    :func:`lock_document`. ``rendered``: :func:`render_skill` of each skill, when done
    already.

    The body (everything after the three-line prologue) does not depend on the index
    digest; the index records the body's digest, and the prologue the index's digest."""
    return render_lock_and_index(manifest, rendered)[0]


def render_lock_and_index(
    manifest: Manifest,
    rendered: Sequence[str] | None = None,
    indexed: Sequence[str] | None = None,
) -> tuple[bytes, bytes]:
    """:func:`render_lock`, and the bundle index made on the way (its digest is in the
    lock's prologue), for the archive writer. ``indexed``: each skill's part of the
    index (:func:`~skillpack.lockfile.index.index_skill_text`), when made already."""
    import tomli_w  # only writers need it

    chunks = list(rendered) if rendered is not None else None
    if chunks is None and manifest.skills:
        chunks = [render_skill(skill) for skill in manifest.skills]
    if chunks and all(chunk.startswith(_AOT_HEADER) for chunk in chunks):
        # what tomli-w writes for the whole document: an array of tables, each after a
        # blank line (a skill table never fits tomli-w's inline form: its SKILL.md
        # digest alone is too long)
        head = tomli_w.dumps(_head(manifest, _PLACEHOLDER))
        text = "\n".join([head, *chunks])
    else:
        text = tomli_w.dumps(lock_document(manifest, _PLACEHOLDER))
    # the lock of 1,000 skills is a megabyte: each copy of it is pages to fault in and
    # fill, so the body is hashed and the digest put in place through views
    draft = memoryview(text.encode("utf-8"))
    del text
    match = PROLOGUE_RE.match(draft)
    assert match is not None, "tomli-w writes the top-level keys first"
    index = index_bytes(manifest, lock_body_digest(draft[match.end() :]), indexed)
    digest = sha256_digest(index)
    lock = b"".join((draft[: match.start(1)], digest.encode("ascii"), draft[match.end(1) :]))
    return lock, index


# --- reading --------------------------------------------------------------------
def parse_lock(data: bytes, where: str, *, check_digest: bool = True) -> Lock:
    """Parse and validate lock bytes: TOML syntax, the JSON Schema, safe paths, URIs,
    nulls, and that ``index-digest`` matches the manifest the lock describes."""
    import tomllib  # only a full reading of a lock parses its TOML

    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise LockError(
            "LCK001", f"lock is not valid TOML: {exc}", where, "regenerate it with 'skillpack lock'"
        ) from None
    from skillpack._internal.schemas import validation_errors

    errors = validation_errors(SCHEMA, doc)
    if errors:
        raise LockError(
            "LCK002",
            f"lock does not match its schema at '{errors[0][0]}': {errors[0][1]}",
            where,
            "regenerate it with 'skillpack lock'",
            [f"also at '{k}': {m}" for k, m in errors[1:5]],
        )
    manifest = _manifest_of(doc, where)
    parts = split_lock(data)
    if parts is None:
        raise LockError(
            "LCK003",
            "the lock does not start with the lock-version, created-by and index-digest lines",
            where,
            "the lock was edited by hand; regenerate it with 'skillpack lock'",
        )
    expected = index_digest(manifest, lock_body_digest(parts[1]))
    if check_digest and doc["index-digest"] != expected:
        raise LockError(
            "LCK003",
            f"index-digest {doc['index-digest']} does not match the locked skills and "
            f"the lock's bytes (they give {expected})",
            where,
            "the lock was edited by hand; regenerate it with 'skillpack lock'",
        )
    return Lock(manifest, expected, doc["created-by"])


def _manifest_of(doc: Mapping[str, Any], where: str) -> Manifest:
    skills: list[SkillEntry] = []
    for table in doc["skills"]:
        skill_path: str = table["path"]
        try:
            frontmatter = restore_nulls(table["frontmatter"], table.get("frontmatter-nulls", []))
        except ValueError as exc:
            raise LockError("LCK002", f"skill {skill_path!r}: {exc}", where) from None
        files = tuple(
            FileEntry(
                f["path"],
                file_uri(skill_path, f["path"]),
                f["size"],
                f["digest"],
                f.get("executable", False),
            )
            for f in table["files"]
        )
        skills.append(SkillEntry(skill_path, table["uri"], frontmatter, files))
    manifest = Manifest(doc["name"], doc["version"], tuple(skills))
    check_manifest(manifest, where)
    return manifest


#: what the lock schema allows as a bundle's name and version
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
_VERSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")


def check_manifest(manifest: Manifest, where: str) -> None:
    """Raise ``LCK002`` unless ``manifest`` is one a lock can hold: what the lock schema
    requires of names, paths, sizes and digests, and safe, unique, published paths, the
    ``SKILL.md`` URIs and file URIs derived from them, ``SKILL.md`` first.

    :func:`parse_lock` checks a parsed lock with it; the bundle reader checks a manifest
    read from a bundle's index with it before it takes the lock for the canonical
    rendering of that manifest (which spares it parsing the TOML)."""
    if not _NAME_RE.fullmatch(manifest.name):
        raise LockError("LCK002", f"name {manifest.name!r} is not a valid bundle name", where)
    if not _VERSION_RE.fullmatch(manifest.version):
        raise LockError("LCK002", f"version {manifest.version!r} is not a valid version", where)
    seen: set[str] = set()
    for skill in manifest.skills:
        skill_path = skill.skill_path
        bad = [s for s in skill_path.split("/") if not is_valid_segment(s) or s[0] == "."]
        if bad or skill_path in seen:
            reason = f"segment {bad[0]!r} is not allowed" if bad else "is listed twice"
            raise LockError("LCK002", f"skill path {skill_path!r} {reason}", where)
        seen.add(skill_path)
        if skill.uri != skill_md_uri(skill_path):
            raise LockError(
                "LCK002",
                f"skill {skill_path!r}: uri {skill.uri!r} should be {skill_md_uri(skill_path)!r}",
                where,
            )
        if not isinstance(skill.frontmatter, dict):
            raise LockError("LCK002", f"skill {skill_path!r}: frontmatter is not a table", where)
        paths: set[str] = set()
        for f in skill.files:
            problem = unsafe_published_path(f"{skill_path}/{f.path}")
            if problem or f.path in paths:
                reason = problem[1] if problem else "is listed twice"
                raise LockError("LCK002", f"skill {skill_path!r}: file {f.path!r} {reason}", where)
            paths.add(f.path)
            if (
                f.uri != file_uri(skill_path, f.path)
                or type(f.size) is not int
                or f.size < 0
                or type(f.digest) is not str
                or not DIGEST_RE.fullmatch(f.digest)
                or type(f.executable) is not bool
            ):
                raise LockError(
                    "LCK002",
                    f"skill {skill_path!r}: file {f.path!r} has a malformed uri, size or digest",
                    where,
                )
        if not skill.files or skill.files[0].path != SKILL_MD:
            raise LockError(
                "LCK002", f"skill {skill_path!r}: the first file must be SKILL.md", where
            )


def read_lock(path: Path, where: str | None = None) -> Lock:
    """Read and validate the lock at ``path``."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise LockError(
            "LCK005", "lock file not found", where or str(path), "create it with 'skillpack lock'"
        ) from None
    except OSError as exc:
        raise LockError(
            "LCK005", f"cannot read the lock: {exc.strerror}", where or str(path)
        ) from None
    return parse_lock(data, where or str(path))


# --- checking -------------------------------------------------------------------
@dataclass(frozen=True)
class LockStatus:
    """How the lock on disk compares with the manifest of the tree."""

    up_to_date: bool
    problem: str  #: "" when up to date, else one line saying what is wrong
    lines: tuple[str, ...] = ()  #: the changes, one per line (see skillpack.changes)


def check_lock(path: Path, manifest: Manifest, expected: bytes | None = None) -> LockStatus:
    """Compare the lock at ``path`` with what :func:`render_lock` gives for ``manifest``."""
    from skillpack.changes import diff_manifests

    expected = render_lock(manifest) if expected is None else expected
    try:
        actual = Path(path).read_bytes()
    except FileNotFoundError:
        return LockStatus(False, "the lock does not exist")
    if actual == expected:
        return LockStatus(True, "")
    try:
        # the digest covers the lock's exact bytes: compare the data, whatever the bytes
        locked = parse_lock(actual, str(path), check_digest=False).manifest
    except LockError as exc:
        return LockStatus(False, f"the lock is not valid: {exc.code} {exc.message}")
    changes = diff_manifests(locked, manifest)
    if changes.same:
        return LockStatus(False, "the lock is not in canonical form (formatting differs)")
    return LockStatus(
        False, f"the lock is out of date: {changes.summary()}", tuple(changes.lines())
    )
