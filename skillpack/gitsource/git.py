"""Fetching a commit's tree with the git command line, running nothing from the repository.

- git runs with ``GIT_TERMINAL_PROMPT=0`` (never prompts), ``GIT_CONFIG_NOSYSTEM=1``, the
  environment variables that would point it at another repository removed, and
  ``-c`` overrides for what could run code or fetch more: ``core.hooksPath=/dev/null``,
  no fsmonitor, no submodule recursion, ``transfer.fsckObjects`` (a crafted tree with
  ``..`` or ``.git`` entries is refused by git itself), no automatic gc. The user's
  global configuration stays: credential helpers and the SSH agent are git's own.
- Commits are fetched shallowly by id (``git fetch --depth 1 URL SHA:refs/skillpack/SHA``)
  into a bare repository per URL under the cache (:func:`git_cache_dir`).
- A tree is read with ``ls-tree -r -z --long`` and ``cat-file --batch``, which apply no
  filter and no ``.gitattributes`` driver. A gitlink (submodule) is skipped with a note;
  an LFS pointer is ``GIT007``; a symbolic link is kept as a copy of the file it names
  inside the tree, else ``GIT006``; the bounds of :class:`Bounds` are ``GIT008``.
- Messages never show a URL's user information (:func:`~.spec.redact`).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import skillpack.gitsource.errors  # noqa: F401  (registers the GIT codes)
from skillpack._internal.fstree import Modes, NewFile, write_new_files
from skillpack.errors import Location, SkillpackError, UsageError
from skillpack.gitsource.spec import GitSpec, redact
from skillpack.source.paths import unsafe_path

OVERRIDES = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "transfer.fsckObjects=true",
    "gc.auto=0",
    "maintenance.auto=false",
    "protocol.version=2",
)
#: environment variables that would make git use another repository or configuration
_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
         "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_COMMON_DIR",
         "GIT_CEILING_DIRECTORIES", "GIT_CONFIG", "GIT_EXTERNAL_DIFF")  # fmt: skip
_SHA = re.compile(r"[0-9a-f]{40}")
LFS_HEAD = b"version https://git-lfs.github.com/spec/"
#: an export's modes: 0644 and 0755 files, as git checks them out (the umask applies)
EXPORTED = Modes(0o644, 0o755, 0o777, exact=False)


@dataclass(frozen=True)
class Bounds:
    files: int = 50_000
    bytes: int = 256 << 20
    path: int = 1024  #: bytes of one path

    @classmethod
    def from_environ(cls, env: Mapping[str, str] | None = None) -> Bounds:
        env = os.environ if env is None else env
        values = []
        for name, default in (("SKILLPACK_GIT_MAX_FILES", cls.files),
                              ("SKILLPACK_GIT_MAX_BYTES", cls.bytes)):  # fmt: skip
            text = env.get(name, "").strip()
            if text and not (text.isascii() and text.isdigit()):
                hint = f"set it to a count, or unset it (default {default})"
                raise UsageError("USE000", f"{name}={text!r} is not a whole number", hint=hint)
            values.append(int(text) if text else default)
        return cls(values[0], values[1])


def git_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``git`` beside the OCI cache, in skillpack's one cache directory."""
    from skillpack.registry.cache import cache_root

    return cache_root(environ) / "git"


def _environ() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROP}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", GIT_LFS_SKIP_SMUDGE="1")
    return env


def run_git(args: Sequence[str], *, cwd: Path | None = None, what: str,
            stdin: bytes | None = None) -> bytes:  # fmt: skip
    """git ``args`` with the overrides; its stdout. ``GIT001`` without git, ``GIT003``
    with git's (redacted) reason when it fails."""
    exe = shutil.which("git")
    if exe is None:
        raise UsageError("GIT001", "git was not found on PATH (git sources need it)",
                         hint="install git, or put it on PATH")  # fmt: skip
    command = [exe]
    for item in OVERRIDES:
        command += ["-c", item]
    try:
        proc = subprocess.run([*command, *args], cwd=cwd, env=_environ(), input=stdin,
                              capture_output=True, check=False)  # fmt: skip
    except OSError as exc:
        raise UsageError("GIT001", f"git cannot be run: {exc.strerror}") from None
    if proc.returncode != 0:
        reason = redact(proc.stderr.decode("utf-8", "replace")).strip().splitlines()
        raise SkillpackError("GIT003", f"{what}: git failed", details=reason[-5:],
                             hint="check the URL, the network and git's credentials")  # fmt: skip
    return proc.stdout


@dataclass(frozen=True)
class Resolved:
    commit: str
    kind: str  #: tag, branch, commit, HEAD
    ref: str | None  #: the full ref name, when a ref was resolved


def resolve(spec: GitSpec) -> Resolved:
    """The commit ``spec``'s ref names now (``git ls-remote``); a full commit id as given."""
    if spec.ref is not None and _SHA.fullmatch(spec.ref):
        return Resolved(spec.ref, "commit", None)
    out = run_git(["ls-remote", "--", spec.url], what=f"listing {spec.shown_url}")
    refs: dict[str, str] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        sha, _, name = line.partition("\t")
        refs[name] = sha
    want = spec.ref
    candidates = (
        [("HEAD", "HEAD")]
        if want is None
        else [
            (f"refs/tags/{want}^{{}}", "tag"),
            (f"refs/tags/{want}", "tag"),
            (f"refs/heads/{want}", "branch"),
            (want, "ref"),
        ]
    )
    for name, kind in candidates:
        if name in refs and _SHA.fullmatch(refs[name]):
            return Resolved(refs[name], kind, name.removesuffix("^{}"))
    shown = sorted(n for n in refs if not n.endswith("^{}"))[:10]
    raise UsageError("GIT004", f"{spec.shown_url} has no tag, branch or ref {want!r}",
                     Location(spec.key), details=[f"refs: {', '.join(shown) or '(none)'}"],
                     hint="give a tag, a branch or a full 40-hex commit id")  # fmt: skip


def repository(spec: GitSpec, cache: Path) -> Path:
    """The bare repository caching ``spec``'s URL (without user information)."""
    key = hashlib.sha256(spec.shown_url.encode("utf-8")).hexdigest()[:32]
    repo = cache / "repos" / f"{key}.git"
    if not (repo / "HEAD").is_file():
        repo.parent.mkdir(parents=True, exist_ok=True)
        run_git(["init", "--bare", "-q", str(repo)], what="making the git cache")
    return repo


def has_commit(repo: Path, commit: str) -> bool:
    try:
        run_git(["cat-file", "-e", f"{commit}^{{commit}}"], cwd=repo, what="the cache")
    except SkillpackError:
        return False
    return True


def fetch_commit(spec: GitSpec, commit: str, cache: Path, *, ref: str | None = None,
                 offline: bool = False) -> Path:  # fmt: skip
    """The cache repository holding ``commit``: fetched shallowly by id unless there
    (then no network). ``ref``: fetched by name when the server refuses an id."""
    repo = repository(spec, cache)
    if has_commit(repo, commit):
        return repo
    if offline:
        raise SkillpackError("GIT005", f"{spec.key}: commit {commit} is not in the cache "
                             "(--offline)", Location(spec.key))  # fmt: skip
    dest = f"refs/skillpack/{commit}"
    args = ["fetch", "--depth", "1", "--no-tags", "--no-write-fetch-head", "-q", "--", spec.url]
    try:
        run_git([*args, f"{commit}:{dest}"], cwd=repo, what=f"fetching {spec.key}")
    except SkillpackError:
        if ref is None:
            raise SkillpackError(
                "GIT005", f"{spec.shown_url} does not serve commit {commit}",
                Location(spec.key), hint="a force-push or a deleted ref removed it; "
                "'skillpack install --upgrade' pins what the ref names now") from None  # fmt: skip
        run_git([*args, f"{ref}:{dest}"], cwd=repo, what=f"fetching {spec.key}")
    if not has_commit(repo, commit):
        raise SkillpackError("GIT005", f"{spec.shown_url} does not serve commit {commit}",
                             Location(spec.key))  # fmt: skip
    return repo


@dataclass
class Exported:
    files: int = 0
    bytes: int = 0
    notes: list[str] = field(default_factory=list)


def export_tree(repo: Path, commit: str, path: str | None, dest: Path | Callable[[int], Path],
                *, bounds: Bounds | None = None, label: str = "") -> Exported:  # fmt: skip
    """Write the tree of ``commit`` (its subdirectory ``path``) into the empty
    directory ``dest``: regular files only, their bytes as git stores them. ``dest`` may
    be a function of the tree's byte count (known once the tree is listed, before any
    byte is read) returning the directory."""
    bounds = bounds or Bounds.from_environ()
    label = label or commit
    treeish = f"{commit}:{path}" if path else f"{commit}^{{tree}}"
    try:
        kind = run_git(["cat-file", "-t", treeish], cwd=repo, what=label).strip()
    except SkillpackError:
        kind = b""
    if kind != b"tree":
        raise UsageError("GIT009", f"{label}: {path!r} is not a directory at {commit}",
                         Location(label))  # fmt: skip
    listing = run_git(["ls-tree", "-r", "-z", "--long", "--full-tree", treeish], cwd=repo,
                      what=label)  # fmt: skip
    blobs: dict[str, tuple[str, str, int]] = {}  # path -> (mode, oid, size)
    links: dict[str, str] = {}  # path -> oid of its target text
    result = Exported()
    for record in listing.split(b"\0"):
        if not record:
            continue
        head, _, raw = record.partition(b"\t")
        mode, otype, oid, size = head.decode("ascii").split()
        name = raw.decode("utf-8", "surrogateescape")
        if len(raw) > bounds.path or unsafe_path(name) is not None:
            raise _over(label, f"the path {name!r} cannot be written (unsafe or too long)")
        if otype == "commit":
            result.notes.append(f"{label}: submodule {name} skipped (submodules are never "
                                "fetched)")  # fmt: skip
            continue
        if mode == "120000":
            links[name] = oid
            continue
        blobs[name] = (mode, oid, int(size))
        result.files += 1
        result.bytes += int(size)
        if result.files > bounds.files:
            raise _over(label, f"more than {bounds.files} files")
        if result.bytes > bounds.bytes:
            raise _over(label, f"more than {bounds.bytes} bytes")
    if callable(dest):
        dest = dest(result.bytes)
    targets = _read_blobs(repo, sorted({oid for oid in links.values()}))
    copies: dict[str, str] = {}
    for name, oid in sorted(links.items()):
        copies[name] = _link_target(name, targets[oid], blobs, links, targets, label)
    order = sorted(blobs)
    contents = _read_blobs(repo, sorted({blobs[n][1] for n in order}))

    def files() -> Iterator[NewFile]:
        for name in [*order, *sorted(copies)]:
            mode, oid, _ = blobs[copies.get(name, name)]
            data = contents[oid]
            if data.startswith(LFS_HEAD):
                where = Location(f"{label}: {name}")
                raise SkillpackError("GIT007", f"{label}: {name} is a Git LFS pointer, not its "
                                     "content (LFS is never fetched)", where)  # fmt: skip
            yield NewFile(name, data, mode == "100755")

    write_new_files(dest, files(), EXPORTED)
    return result


def _link_target(
    name: str,
    text: bytes,
    blobs: Mapping[str, object],
    links: Mapping[str, str],
    targets: Mapping[str, bytes],
    label: str,
) -> str:
    """The file inside the tree that the link ``name`` leads to (through up to 8 links)."""
    current, raw = name, text
    for _ in range(8):
        target = raw.decode("utf-8", "surrogateescape")
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
        if target.startswith("/") or joined == ".." or joined.startswith("../"):
            break
        if joined in blobs:
            return joined
        if joined not in links:
            break
        current, raw = joined, targets[links[joined]]
    raise SkillpackError("GIT006", f"{label}: the symbolic link {name} -> "
                         f"{text.decode('utf-8', 'replace')} leaves the tree, dangles or "
                         "names a directory", Location(f"{label}: {name}"))  # fmt: skip


def _over(label: str, why: str) -> SkillpackError:
    return SkillpackError("GIT008", f"{label}: {why}", Location(label),
                          hint="install a subdirectory (#path=DIR), or raise "
                          "SKILLPACK_GIT_MAX_FILES / SKILLPACK_GIT_MAX_BYTES")  # fmt: skip


def _read_blobs(repo: Path, oids: Sequence[str]) -> dict[str, bytes]:
    """The raw bytes of ``oids`` (``cat-file --batch``: no filter, no driver)."""
    if not oids:
        return {}
    out = run_git(["cat-file", "--batch", "--buffer"], cwd=repo, what="reading the tree",
                  stdin="".join(f"{o}\n" for o in oids).encode("ascii"))  # fmt: skip
    found: dict[str, bytes] = {}
    pos = 0
    for oid in oids:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        if len(header) != 3 or header[0].decode("ascii", "replace") != oid:
            hint = "remove the git cache directory and install again"
            raise SkillpackError("GIT005", f"the cache lacks the object {oid}", hint=hint)
        size = int(header[2])
        found[oid] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return found
