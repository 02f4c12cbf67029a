"""``skillpack install``: verified, pinned skills into the directories agents read.

One run, in order, under an exclusive lock on the project (:mod:`skillpack._internal.flock`):

1. read the install lock; open every source verified (:mod:`.sources`), pinned sources
   at their pins unless resolved anew (a source given on the command line,
   ``--upgrade``);
2. work out every skill's placement (its name, its bundle skill, its directories, copy
   or link), from the lock and from what this run asks for;
3. check everything before the first write: names usable as directory names
   (``INS009``), no two skills of one name (``INS004``), directories inside the project
   (``INS008``), no directory skillpack did not install in the way (``INS005``, unless
   ``force``), and with ``frozen`` nothing the lock does not hold (``INS006``);
4. write: each skill directory whose contents differ is filled in a staging directory
   beside it and swapped in whole (:func:`skillpack._internal.fstree.swap_into_place`);
   one that is already right is not touched (a re-run writes nothing);
5. write the lock last, atomically, and only if it changed (never with ``frozen``).

A process killed at any moment leaves each skill directory as it was or complete;
running ``install`` again finishes the job and ``install --check`` shows what is left.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.errors import Location, SkillpackError, UsageError
from skillpack.fetch import is_reference
from skillpack.install.lockfile import (
    InstalledDir,
    InstalledSkill,
    InstallLock,
    LockedFile,
    Signer,
    SourcePin,
    render_install_lock,
    valid_skill_name,
)
from skillpack.install.sources import Opened, is_remote, open_source, source_key
from skillpack.install.targets import (
    STAGING_PREFIX,
    Scope,
    Target,
    choose_agents,
    confined,
    targets,
)

if TYPE_CHECKING:
    from skillpack._internal.canonical import JSONValue
    from skillpack._internal.fstree import NewFile
    from skillpack.changes import ManifestDiff
    from skillpack.manifest import SkillEntry
    from skillpack.policy.file import Policy
    from skillpack.registry.options import ClientOptions
    from skillpack.signing.policy import SignaturePolicy
    from skillpack.signing.verify import VerifiedBundle

Log = Callable[[str], None]


@dataclass(frozen=True)
class Request:
    """What to install from one source: a command-line SOURCE or a declared
    ``[[install]]`` table."""

    source: str  #: as given; a file path is relative to ``base``
    base: Path  #: the directory a relative file path is relative to
    skills: tuple[str, ...] = ()  #: frontmatter names; empty or ``*``: every skill
    agents: tuple[str, ...] = ()  #: agent names; empty: the agents found
    link: bool = False
    policy: SignaturePolicy | None = None
    require_signature: bool = False
    declared: bool = False  #: from the configuration: its pin is reused
    where: str = ""  #: where it was declared (the configuration file), for messages


@dataclass(frozen=True)
class Settings:
    """How this run installs."""

    scope: Scope
    lock_path: Path
    force: bool = False
    frozen: bool = False
    #: None: no upgrade; empty: every source; else skill names or sources to upgrade
    upgrade: tuple[str, ...] | None = None
    #: the registry client's options, made when an ``oci://`` source needs them (reading
    #: ``--password-stdin``, importing the HTTP library: not for an install from files)
    registry: Callable[[], ClientOptions | None] = lambda: None
    offline: bool = False
    #: the signature policy for sources without one of their own (command line)
    policy: SignaturePolicy | None = None
    require_signature: bool = False
    #: the consumer's policy (sources, signers, blocked codes, accepted findings) with
    #: the command line's ``--accept``s
    admission: Policy = field(default_factory=lambda: _default_policy())
    #: the registry options each opened ``oci://`` source was fetched with (filled by
    #: the run: a pinned keyless signer is checked again through the same fetch)
    registries: dict[str, ClientOptions | None] = field(default_factory=dict)


def _default_policy() -> Policy:
    from skillpack.policy.file import Policy

    return Policy.default()


@dataclass(frozen=True)
class Placement:
    """One skill where it goes: its source's bundle skill, its directories."""

    name: str
    source: str
    skill_path: str
    targets: tuple[Target, ...]
    link: bool


@dataclass(frozen=True)
class Change:
    """What happened to one skill directory."""

    skill: str
    directory: str  #: as the lock records it
    action: str  #: installed, updated, repaired, replaced, linked, unchanged


@dataclass
class InstallReport:
    changes: list[Change] = field(default_factory=list)
    upgrades: list[tuple[str, ManifestDiff]] = field(default_factory=list)
    #: each pinned source whose signer changes: (the lock's, the new one; None: unsigned)
    signers: dict[str, tuple[Signer | None, Signer | None]] = field(default_factory=dict)
    lock_written: bool = False
    lock: InstallLock = field(default_factory=InstallLock)
    notes: list[str] = field(default_factory=list)

    @property
    def written(self) -> list[Change]:
        return [c for c in self.changes if c.action != "unchanged"]


def _error(code: str, message: str, where: str | None = None, **kw: object) -> SkillpackError:
    return SkillpackError(code, message, Location(where) if where else None, **kw)  # type: ignore[arg-type]


# --- 1. sources --------------------------------------------------------------------------------
def _upgrade_sources(names: Sequence[str], lock: InstallLock, scope: Scope) -> set[str]:
    chosen: set[str] = set()
    by_name = {s.name: s.source for s in lock.skills}
    for name in names:
        if name in by_name:
            chosen.add(by_name[name])
            continue
        key = source_key(name, scope.project) if name else name
        if lock.source(key) is None:
            raise UsageError(
                "INS014",
                f"--upgrade {name}: no installed skill or pinned source of that name",
                hint="'skillpack install --check' lists what is installed",
            )
        chosen.add(key)
    return chosen


#: the options that say how a signature is checked, not who signs
_TRUST = ("trust_config", "staging", "online")


def _policy_for(request: Request | None, settings: Settings) -> SignaturePolicy | None:
    """The signature check of ``request``'s source. The command line's signature options
    are the user's and are never replaced by repository content: when they name a
    signer (``--key``, ``--cert-identity``, ``--repository``) they are the check of
    every source, and an ``[[install]]`` table's own signer keys are not used; trust
    options alone (``--trust-config``, ``--staging``, ``--online``) replace a table's.
    Without any, the table's keys."""
    cli = settings.policy if settings.policy is not None and settings.policy.requested else None
    table = request.policy if request is not None and request.policy is not None else None
    table = table if table is not None and table.requested else None
    policy: SignaturePolicy | None
    if cli is not None and cli.has_signer:
        policy = cli
    elif table is not None and cli is not None:  # the user's root of trust, the table's signer
        policy = replace(table, **{name: getattr(cli, name) for name in _TRUST})
    else:
        policy = table or cli
    required = settings.require_signature or (request is not None and request.require_signature)
    if required:
        from skillpack.signing.policy import SignaturePolicy

        if policy is None or not policy.has_signer:
            (policy or SignaturePolicy()).validate()  # SIG020, worded as verify's and serve's
    return policy if policy is not None and policy.requested else None


def _cli_names_signer(settings: Settings) -> bool:
    """Whether the command line's signature options say who signs (they may move a
    pinned signer)."""
    return settings.policy is not None and settings.policy.has_signer


def _cli_trust(settings: Settings) -> SignaturePolicy | None:
    """The command line's trust options alone (``--trust-config``...): what checks a
    pinned keyless signer again. A table's are not used for it."""
    cli = settings.policy
    if cli is None or not any(getattr(cli, name) for name in _TRUST):
        return None
    from skillpack.signing.policy import SignaturePolicy

    return SignaturePolicy(**{name: getattr(cli, name) for name in _TRUST})


def _absolute(key: str, project: Path) -> str:
    """A file source's absolute path (what a policy pattern may name instead)."""
    return key if is_reference(key) else (project / key).resolve().as_posix()


def _signer_policy(
    key: str, given: SignaturePolicy | None, settings: Settings
) -> SignaturePolicy | None:
    """The signature check of ``key``: the command line's or declaration's, else the
    signer the consumer's policy requires for it (by the lock's name or the absolute
    path of a file)."""
    from skillpack.policy.file import signature_policy

    policy = settings.admission
    name = key if policy.signers(key) else _absolute(key, settings.scope.project)
    checked: SignaturePolicy | None = signature_policy(policy, name, given)
    return checked


def _open_all(
    requests: Sequence[Request], lock: InstallLock, settings: Settings, log: Log
) -> tuple[dict[str, Opened], list[tuple[str, Request]]]:
    """Every source this run needs, opened verified, by lock name; and each request with
    the lock name of its source. Several requests may name one source; their signer
    policies must then agree (one source is opened, and checked, once)."""
    scope = settings.scope
    upgrade = (
        None
        if settings.upgrade is None
        else (
            {p.source for p in lock.sources}
            if not settings.upgrade
            else _upgrade_sources(settings.upgrade, lock, scope)
        )
    )
    wanted: dict[str, Request | None] = {}
    for pin in lock.sources:
        wanted[pin.source] = None
    keyed: list[tuple[str, Request]] = []
    for request in requests:
        key = source_key(
            request.source if is_remote(request.source) else str(request.base / request.source),
            scope.project,
        )
        earlier = wanted.get(key)
        if earlier is not None and _policy_for(earlier, settings) != _policy_for(request, settings):
            raise UsageError(
                "USE000",
                f"{key} is declared twice with different signer policies",
                Location(request.where) if request.where else None,
                hint="give every [[install]] table of one source the same signer keys",
            )
        if earlier is None:
            wanted[key] = request
        keyed.append((key, request))
        if (
            request.declared
            and request.policy is not None
            and request.policy.has_signer
            and (_cli_names_signer(settings))
        ):
            log(f"note: {key}: the signature options given replace the signer of its "
                f"[[install]] table ({request.where or 'the configuration'})")  # fmt: skip
    if upgrade is not None:
        for key in upgrade:
            wanted.setdefault(key, None)
    # the environment's registry credentials (SKILLPACK_REGISTRY_USERNAME/PASSWORD) go to
    # the registry of a SOURCE typed on the command line when it is this run's only one;
    # a source named by repository content (an [[install]] table, the install lock) gets
    # them only when SKILLPACK_REGISTRY names its host: a pull request never chooses where
    # CI's credentials go
    hosts = {key.removeprefix("oci://").partition("/")[0] for key in wanted if is_reference(key)}

    def registry(asked: Request | None) -> ClientOptions | None:
        options = settings.registry()
        from_repository = asked is None or asked.declared
        if options is not None and (len(hosts) > 1 or from_repository):
            from dataclasses import replace

            from skillpack.registry.options import NO_REGISTRY

            options = replace(options, environment_registry=NO_REGISTRY)
        return options

    opened: dict[str, Opened] = {}
    try:
        for key, asked in wanted.items():
            pinned = lock.source(key)
            resolve = not settings.frozen and (
                (asked is not None and not asked.declared)
                or (upgrade is not None and key in upgrade)
                or pinned is None
            )
            settings.admission.check_source(key, _absolute(key, scope.project))
            policy = _signer_policy(key, _policy_for(asked, settings), settings)
            # trust options alone (--trust-config) check a pinned keyless signer below
            signer_given = policy is not None and policy.has_signer
            opened[key] = open_source(
                key,
                scope.project,
                policy=policy if signer_given else None,
                pinned=pinned,
                resolve=resolve,
                frozen=settings.frozen,
                options=registry(asked) if is_reference(key) else None,
                offline=settings.offline,
                follow=upgrade is not None and key in upgrade,
                log=log,
            )
            settings.registries[key] = registry(asked) if is_reference(key) else None
            _keep_the_signer(opened[key], pinned, settings)
    except BaseException:
        for source in opened.values():
            source.close()
        raise
    return opened, keyed


# --- 2. placements ---------------------------------------------------------------------------
def skill_name(skill: SkillEntry) -> object:
    """A bundle skill's name: its frontmatter ``name``."""
    return skill.frontmatter.get("name")


def _locked_placements(lock: InstallLock, scope: Scope) -> dict[str, Placement]:
    out: dict[str, Placement] = {}
    parents: dict[str, Path] = {}  # one Path per agent directory, not one per skill

    def parent(shown: str) -> Path:
        above = shown.rpartition("/")[0]
        found = parents.get(above)
        if found is None:
            found = parents[above] = scope.path_of(shown).parent
        return found

    for skill in lock.skills:
        link = any(d.link for d in skill.directories)
        found = tuple(Target(parent(d.path), d.agents) for d in skill.directories)
        out[skill.name] = Placement(skill.name, skill.source, skill.skill_path, found, link)
    return out


def _requested_placements(
    request: Request, key: str, source: Opened, settings: Settings
) -> list[Placement]:
    skills = source.manifest.skills
    wanted = set(request.skills) - {"*"}
    names: dict[str, SkillEntry] = {}
    for skill in skills:
        name = skill_name(skill)
        if not valid_skill_name(name):
            if not wanted:
                raise _error(
                    "INS009",
                    f"{source.label}: skill {skill.skill_path} is named {name!r}, which "
                    "cannot be a directory name in an agent directory",
                    hint="its frontmatter 'name' must be letters, digits, '.', '_' and '-', "
                    "starting with a letter, a digit or '_' (not '.' or '-'), at most 255 "
                    "characters (skillpack lint checks it); select other skills with -s",
                )
            continue
        assert isinstance(name, str)
        if not wanted or name in wanted:
            if name in names:
                raise _error(
                    "INS004",
                    f"{source.label} has two skills named {name!r}: {names[name].skill_path} "
                    f"and {skill.skill_path}",
                    hint="each lands at AGENT_DIR/NAME: rename one, or install only one",
                )
            names[name] = skill
    if request.declared:  # a table names the skills of its own source
        _unknown_skills(wanted - set(names), [source])
    chosen = targets(choose_agents(request.agents, settings.scope), settings.scope)
    return [
        Placement(name, key, skill.skill_path, tuple(chosen), request.link)
        for name, skill in sorted(names.items())
    ]


def _unknown_skills(missing: set[str], sources: Sequence[Opened]) -> None:
    """``INS003`` for -s names that no source has, listing the skills they have."""
    if not missing:
        return
    available = sorted({str(skill_name(s)) for o in sources for s in o.manifest.skills})
    labels = " or ".join(o.label for o in sources)
    raise UsageError(
        "INS003",
        f"{labels} has no skill named {', '.join(repr(m) for m in sorted(missing))}",
        hint="-s/--skill takes a skill's frontmatter name",
        details=[f"skills: {', '.join(available)}"],
    )


def _merge_targets(old: Iterable[Target], new: Iterable[Target]) -> tuple[Target, ...]:
    by_dir: dict[Path, list[str]] = {}
    for target in (*old, *new):
        agents = by_dir.setdefault(target.directory, [])
        agents.extend(a for a in target.agents if a not in agents)
    return tuple(Target(d, tuple(sorted(a))) for d, a in sorted(by_dir.items()))


# --- 3. checks -------------------------------------------------------------------------------
def _upgraded_skills(
    names: Sequence[str],
    lock: InstallLock,
    placements: Mapping[str, Placement],
    opened: Mapping[str, Opened],
    scope: Scope,
) -> set[str]:
    """What ``--upgrade NAME...`` writes: the skills named, every skill of a source
    named, and every skill of a source whose pin moves."""
    skills = {s.name for s in lock.skills}
    sources = {source_key(n, scope.project) if n else n for n in names if n not in skills}
    out: set[str] = set()
    for name, placement in placements.items():
        pin = lock.source(placement.source)
        source = opened.get(placement.source)
        now = source.pin.bundle_digest if source is not None else None
        moved = now is not None and (pin is None or now != pin.bundle_digest)
        if name in names or placement.source in sources or moved:
            out.add(name)
    return out


def _check_conflicts(placements: Mapping[str, Placement]) -> None:
    from skillpack.source.paths import collision_key

    keys: dict[str, str] = {}
    for name in placements:
        key = collision_key(name)
        if key in keys:
            raise _error(
                "INS004",
                f"skills {keys[key]!r} and {name!r} would share one directory on a "
                "case-insensitive file system",
                hint="install one of them",
            )
        keys[key] = name


# --- 4. writing ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Want:
    """A skill's files: what they must be (from the bundle's manifest, or the lock for a
    source at an unchanged pin) and, on demand, their verified bytes."""

    name: str
    files: tuple[LockedFile, ...]
    source: Opened
    skill_path: str
    lock_path: str  #: the install lock (named by ``INS011``)

    def entry(self) -> SkillEntry:
        """The skill in the bundle, opened in full (every file verified) if it was not
        yet: ``INS011`` when it is not the skill the lock describes (its name, its
        files), so a lock edited to name another skill or other files writes nothing."""
        entry = self.source.bundle.manifest.skill(f"skill://{self.skill_path}/SKILL.md")
        if entry is None or skill_name(entry) != self.name or _locked_files(entry) != self.files:
            raise _error(
                "INS011",
                f"the install lock does not describe {self.name} as {self.source.label} has it",
                self.lock_path,
                hint="restore the lock from version control, or reinstall the skill",
            )
        return entry

    def new_files(self) -> list[NewFile]:
        """The files' bytes from the bundle (see :meth:`entry`)."""
        from skillpack._internal.fstree import NewFile

        bundle = self.source.bundle
        return [NewFile(f.path, bundle.read_verified(f), f.executable) for f in self.entry().files]


def _locked_files(entry: SkillEntry) -> tuple[LockedFile, ...]:
    return tuple(LockedFile(f.path, f.size, f.digest, f.executable) for f in entry.files)


def _already_right(copies: Sequence[tuple[str, tuple[LockedFile, ...]]]) -> set[str]:
    """The directories among ``copies`` that hold exactly their files: every file read
    and hashed, shared between forked processes when there are many."""
    from skillpack._internal.parallel import default_jobs, map_ranges
    from skillpack.install.drift import compare_tree

    def work(start: int, stop: int) -> list[str]:
        return [d for d, files in copies[start:stop] if not compare_tree(d, files)]

    found = map_ranges(work, len(copies), default_jobs(len(copies))) if copies else []
    return {d for part in found for d in part}


def _in_the_way(path: Path | str, shown: str, name: str) -> SkillpackError:
    return _error(
        "INS005",
        f"{shown} exists and was not installed by skillpack: not replacing it",
        str(path),
        hint=f"move it away, or pass --force to replace it with the skill {name}",
    )


#: verified bytes prepared for writing before :meth:`_Writer.flush` writes them
FLUSH_BYTES = 64 << 20


@dataclass(frozen=True)
class _Fill:
    """One skill directory to write: its files into a fresh directory in the staging
    container, then swapped in whole."""

    shown: str  #: the lock's name for it
    container: Path
    name: str
    directory: Path
    files: list[NewFile]

    def run(self) -> None:
        from skillpack._internal.fstree import UMASKED, swap_into_place, write_new_files

        staged = self.container / self.name
        os.mkdir(staged, UMASKED.directory)
        write_new_files(staged, self.files, UMASKED)
        swap_into_place(staged, self.directory, self.container / f".old-{self.name}")


class _Writer:
    """Writes skill directories through one staging directory per agent directory (in
    it, so that a rename puts a skill in place), remembering what it did. A copy is
    prepared (checked, its bytes verified) at once and written by :meth:`flush`."""

    def __init__(
        self,
        force: bool,
        managed: set[str],
        right: set[str],
        previous: Mapping[str, tuple[LockedFile, ...]],
        kinds: Mapping[str, str],
    ) -> None:
        self.force = force
        self.managed = managed  #: directories the lock records (as it shows them)
        self.right = right  #: directories found holding exactly their files
        self.previous = previous  #: each skill's files as the lock had them
        self.kinds = kinds  #: what was at each skill directory before any write
        self.changes: list[Change] = []
        self.notes: list[str] = []
        self._done: dict[str, str] = {}  #: each copy written (by real path), and how
        self._containers: dict[Path, Path] = {}
        self._pending: list[_Fill] = []
        self._pending_bytes = 0

    def _staging(self, parent: Path) -> Path:
        from skillpack._internal.fstree import UMASKED

        container = self._containers.get(parent)
        if container is None:
            parent.mkdir(parents=True, exist_ok=True, mode=UMASKED.directory)
            container = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=parent))
            self._containers[parent] = container
        return container

    def flush(self) -> None:
        """Fill and swap in every skill directory :meth:`copy` has prepared: in forked
        workers when there are many (creating thousands of files is the kernel's work,
        which a second process does beside the first); the first failure is
        ``INS016`` naming its directory, once every worker has stopped."""
        from skillpack._internal.parallel import default_jobs, map_ranges

        fills, self._pending, self._pending_bytes = self._pending, [], 0
        if not fills:
            return

        def work(start: int, stop: int) -> tuple[str, str, str | None] | None:
            for fill in fills[start:stop]:
                try:
                    fill.run()
                except OSError as exc:
                    return (fill.shown, *_reason(exc))
            return None

        for failed in map_ranges(work, len(fills), default_jobs(len(fills))):
            if failed is not None:
                raise _cannot_write(*failed)

    def finish(self) -> None:
        """Remove the staging directories (and the old contents swapped into them)."""
        for container in self._containers.values():
            shutil.rmtree(container, ignore_errors=True)
        self._containers.clear()

    def _check_ours(self, directory: Path, shown: str, name: str, before: str) -> None:
        ours = shown in self.managed or str(directory) in self.managed
        if not ours and before != "missing":
            if not self.force:
                raise _in_the_way(directory, shown, name)
            self.notes.append(f"replaced {shown} (not installed by skillpack) with {name}")

    def copy(self, path: str, shown: str, want: _Want) -> str:
        """Make ``directory`` (the lock's ``shown``) hold exactly ``want``; return what was
        done."""
        done = self._done.get(path)
        if done is not None:  # the same directory through another agent directory
            return done
        before = self.kinds.get(path) or _kind(path, shown)
        if before == "directory" and path in self.right:
            self._done[path] = "unchanged"
            return "unchanged"
        directory = Path(path)
        self._check_ours(directory, shown, want.name, before)
        if before == "missing":
            action = "installed"
        elif (shown not in self.managed and path not in self.managed) or before != "directory":
            action = "replaced"
        elif self.previous.get(want.name) == want.files:
            action = "repaired"  # the same files as before: local changes undone
        else:
            action = "updated"
        container = self._staging(directory.parent)
        files = want.new_files()  # read and verified here, written by flush()
        self._pending.append(_Fill(shown, container, want.name, directory, files))
        self._pending_bytes += sum(len(f.data) for f in files)
        if self._pending_bytes > FLUSH_BYTES:
            self.flush()
        self._done[path] = action
        return action

    def link(self, name: str, path: str, shown: str, target: str) -> str:
        """Make ``directory`` (the lock's ``shown``) a symbolic link to ``target``; return
        what was done."""
        from skillpack._internal.fstree import swap_into_place

        before = self.kinds.get(path) or _kind(path, shown)
        if before == "link" and os.readlink(path) == target:
            return "unchanged"
        self.flush()  # the copy it leads to is in place first
        directory = Path(path)
        self._check_ours(directory, shown, name, before)
        container = self._staging(directory.parent)
        staged = container / name
        os.symlink(target, staged, target_is_directory=True)
        swap_into_place(staged, directory, container / f".old-{name}")
        return "linked" if before == "missing" else "relinked"


def _kind(path: Path | str, shown: str) -> str:
    """What is at a skill directory: ``missing``, ``link``, ``directory`` or ``file``
    (any other entry: a FIFO, a socket, a device); ``INS016`` when the system refuses
    to say."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        raise _cannot_write(shown, *_reason(exc)) from None
    if stat.S_ISLNK(st.st_mode):
        return "link"
    if stat.S_ISDIR(st.st_mode):
        return "directory"
    return "file"


def remove_leftovers(directories: Iterable[Path]) -> None:
    """Remove the staging directories an interrupted install left in these agent
    directories (their names are skillpack's own)."""
    for directory in directories:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(STAGING_PREFIX) and entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)


# --- the whole run ---------------------------------------------------------------------------
def install(requests: Sequence[Request], settings: Settings, log: Log) -> InstallReport:
    """Install what ``requests`` and the install lock ask for (see the module docstring)."""
    from skillpack._internal.flock import locked

    lock_dir = settings.lock_path.parent
    from skillpack.install.targets import can_hold_directories

    can_hold_directories(lock_dir, settings.scope.shown(lock_dir), "the install lock's directory")
    lock_dir.mkdir(parents=True, exist_ok=True)

    def waiting() -> None:
        log(f"waiting for another skillpack install in {lock_dir} to finish")

    with locked(lock_dir, waiting):
        return _install_locked(requests, settings, log)


def _install_locked(requests: Sequence[Request], settings: Settings, log: Log) -> InstallReport:
    from skillpack.install.lockfile import read_install_lock

    lock = read_install_lock(settings.lock_path, settings.scope)
    if not requests and not lock.skills and settings.upgrade is None:
        raise UsageError(
            "INS010",
            "nothing to install: no SOURCE given, no [[install]] in the configuration and "
            "nothing in the install lock",
            hint="skillpack install BUNDLE.skp|oci://REGISTRY/REPO:TAG -a AGENT",
        )
    if settings.frozen and settings.upgrade is not None:
        raise UsageError("USE000", "--frozen and --upgrade cannot be combined",
                         hint="--frozen installs the lock as it is")  # fmt: skip
    opened, keyed = _open_all(requests, lock, settings, log)
    try:
        return _place(keyed, lock, opened, settings, log)
    finally:
        for source in opened.values():
            source.close()


def _place(
    keyed: Sequence[tuple[str, Request]],
    lock: InstallLock,
    opened: dict[str, Opened],
    settings: Settings,
    log: Log,
) -> InstallReport:
    scope = settings.scope
    report = InstallReport()
    placements = _locked_placements(lock, scope)
    locked_names = dict(placements)
    # skills of a source resolved anew: the bundle may have moved them or dropped them (a
    # source at an unchanged pin has them where the lock says)
    for name, placement in list(placements.items()):
        if not opened[placement.source].loaded:
            continue
        bundle = opened[placement.source].manifest
        entry = bundle.skill(f"skill://{placement.skill_path}/SKILL.md")
        if entry is not None and skill_name(entry) != name:
            # the lock names the skill at that path otherwise: it cannot pick directories
            raise _error(
                "INS011",
                f"the install lock names the skill {placement.skill_path!r} of "
                f"{opened[placement.source].label} {name!r}; the bundle names it "
                f"{skill_name(entry)!r}",
                str(settings.lock_path),
                hint="restore the lock from version control, or delete it and run "
                "'skillpack install' again",
            )
        if entry is None:
            found = [s for s in bundle.skills if skill_name(s) == name]
            if not found:
                raise _error(
                    "INS012",
                    f"{opened[placement.source].label} no longer has the skill {name!r} "
                    "installed from it",
                    hint=f"'skillpack uninstall {name}' first, or keep the pinned version",
                )
            placements[name] = Placement(name, placement.source, found[0].skill_path,
                                         placement.targets, placement.link)  # fmt: skip
    asked: dict[str, Placement] = {}
    given = [(k, r) for k, r in keyed if not r.declared]  # command-line SOURCEs share -s
    if given:
        wanted = {n for _, r in given for n in r.skills} - {"*"}
        keys = list(dict.fromkeys(k for k, _ in given))
        have = {str(skill_name(s)) for k in keys for s in opened[k].manifest.skills}
        _unknown_skills(wanted - have, [opened[k] for k in keys])
    for key, request in keyed:
        for placement in _requested_placements(request, key, opened[key], settings):
            earlier = asked.get(placement.name)
            if earlier is not None and (earlier.source, earlier.skill_path) != (
                placement.source,
                placement.skill_path,
            ):
                raise _error(
                    "INS004",
                    f"two skills named {placement.name!r} are selected: "
                    f"{earlier.skill_path} from {earlier.source} and {placement.skill_path} "
                    f"from {placement.source}",
                    hint="each lands at AGENT_DIR/NAME: select one of them with -s",
                )
            if earlier is not None:  # one skill asked for twice: every directory asked for
                placement = Placement(
                    placement.name,
                    placement.source,
                    placement.skill_path,
                    _merge_targets(earlier.targets, placement.targets),
                    earlier.link or placement.link,
                )
            asked[placement.name] = placement
    for name, placement in asked.items():
        old = placements.get(name)
        if old is not None and (old.source, old.skill_path) == (placement.source,
                                                                 placement.skill_path):  # fmt: skip
            merged = _merge_targets(old.targets, placement.targets)
            placement = Placement(name, placement.source, placement.skill_path, merged,
                                  old.link or placement.link)  # fmt: skip
        elif old is not None:
            # the skill from another source: every directory it was installed in is
            # rewritten from the new one and stays recorded (none is left unmanaged); a
            # signer pinned for the old source is kept (INS019 unless shown)
            merged = _merge_targets(old.targets, placement.targets)
            placement = Placement(name, placement.source, placement.skill_path, merged,
                                  old.link or placement.link)  # fmt: skip
            was_pin, now = lock.source(old.source), opened[placement.source]
            if was_pin is not None and was_pin.signer is not None:
                _moved_signer(name, was_pin, now, settings)
            shown = ", ".join(sorted(settings.scope.shown(t.directory) for t in merged))
            signer = ""
            if was_pin is not None and was_pin.signer != now.pin.signer:
                signer = (f"; signer {describe_signer(was_pin.signer)} -> "
                          f"{describe_signer(now.pin.signer)}")  # fmt: skip
            report.notes.append(
                f"{name}: now from {placement.source} (was {old.source}), in {shown}{signer}"
            )
        placements[name] = placement
    if settings.frozen:
        for name, placement in placements.items():
            held = locked_names.get(name)
            if held is None or not _held(placement, held):
                where = next((r.where for _, r in keyed if r.declared), "") or None
                raise _error(
                    "INS006",
                    f"the configuration asks for {name} from {placement.source}, which the "
                    "install lock does not hold (--frozen installs exactly what it pins)",
                    where,
                    hint="run 'skillpack install' (without --frozen) and commit the lock",
                )
    _check_conflicts(placements)
    # every directory: inside the project, and not someone else's
    managed = {d.path for s in lock.skills for d in s.directories}
    resolved: dict[Path, Path] = {}
    for placement in placements.values():
        for target in placement.targets:
            if target.directory not in resolved:
                resolved[target.directory] = confined(target.directory, scope)
        if placement.link:
            resolved.setdefault(scope.canonical_dir, confined(scope.canonical_dir, scope))
    places = _Where(scope, resolved)
    # the lock's directories by where they are (two agent directories may be one, the
    # one a link to the other: .claude/skills -> ../.agents/skills)
    managed_real = {
        places.of(scope.path_of(d.path.rpartition("/")[0]), s.name)[0]
        for s in lock.skills
        for d in s.directories
    }
    kinds: dict[str, str] = {}  # what is at each skill directory now (lstat, once)
    for placement in placements.values():
        for directory in _skill_dirs(placement, scope):
            path, shown = places.of(directory, placement.name)
            kinds[path] = kind = _kind(path, shown)
            ours = shown in managed or path in managed_real
            if kind != "missing" and not ours and not settings.force:
                raise _in_the_way(path, shown, placement.name)
    # upgrades: what changes, shown before it is applied (a signer that changes too)
    if settings.upgrade is not None:
        report.upgrades = _upgrade_diffs(lock, placements, opened, scope)
    for key, source in sorted(opened.items()):
        pinned = lock.source(key)
        now_signer = _kept_signer(source.pin, pinned).signer
        if pinned is not None and pinned.signer != now_signer:
            report.signers[key] = (pinned.signer, now_signer)
    # write
    remove_leftovers(resolved.values())
    previous = {s.name: s for s in lock.skills}
    # a SOURCE named on the command line writes only the skills it asks for: another
    # installed skill is left as it is (drifted or not) and keeps its lock entry; so
    # does --upgrade NAME (a skill, or a source), but for the other skills of a source
    # whose pin moves (the lock pins a source once)
    touched = set(asked) if given and settings.upgrade is None else None
    if settings.upgrade:
        touched = _upgraded_skills(settings.upgrade, lock, placements, opened, scope)
    active = {n: p for n, p in placements.items() if touched is None or n in touched}
    wants: dict[str, _Want] = {}
    for name, placement in sorted(active.items()):
        source = opened[placement.source]
        was = previous.get(name)
        if (
            not source.loaded
            and was is not None
            and (was.source, was.skill_path) == (placement.source, placement.skill_path)
        ):
            # an unchanged pin: the files the lock lists are the bundle's (checked when
            # the bundle is read, if anything has to be written)
            files = was.files
        else:
            entry = source.manifest.skill(f"skill://{placement.skill_path}/SKILL.md")
            assert entry is not None
            files = _locked_files(entry)
        wants[name] = _Want(name, files, source, placement.skill_path, str(settings.lock_path))
    copies = list({
        path: (path, wants[p.name].files)
        for p in active.values()
        for path in _copy_paths(p, places)
        if kinds.get(path) == "directory"
    }.values())  # fmt: skip
    right = _already_right(copies)
    # every skill that a copy will be written for is checked against its bundle before
    # the first write (not when its turn comes: an earlier skill would be written)
    for name, placement in sorted(active.items()):
        if any(path not in right for path in _copy_paths(placement, places)):
            wants[name].entry()
    _keep_local_work(active, places, right, kinds, previous, settings, report)
    _admit(wants, active, places, right, settings, report)
    writer = _Writer(
        settings.force,
        managed | managed_real,
        right,
        {name: s.files for name, s in previous.items()},
        kinds,
    )
    new_skills: list[InstalledSkill] = []
    try:
        for name, want in wants.items():
            placement = placements[name]
            records = _write_placement(placement, want, writer, places)
            new_skills.append(InstalledSkill(name, placement.source, placement.skill_path,
                                             tuple(records), want.files))  # fmt: skip
        writer.flush()
    finally:
        writer.finish()
    new_skills += [previous[n] for n in sorted(set(placements) - set(active)) if n in previous]
    report.changes = writer.changes
    report.notes += writer.notes
    pins = [_kept_signer(opened[key].pin, lock.source(key)) for key in sorted(opened)]
    for key, pin in zip(sorted(opened), pins, strict=True):
        source = opened[key]
        if source.loaded and source.verified is None and pin.signer is None:
            report.notes.append(
                f"note: the signature of {source.label} was not checked (no signature "
                "options: --key, --repository or --cert-identity check it; "
                "--require-signature refuses an unsigned source)"
            )
    new_lock = InstallLock(tuple(pins), tuple(new_skills)).normalized()
    report.lock = new_lock
    if not settings.frozen and not (new_lock == lock and lock.canonical is not None):
        from skillpack._internal.fsutil import write_if_changed

        report.lock_written = write_if_changed(settings.lock_path, render_install_lock(new_lock))
    return report


def _keep_local_work(
    placements: Mapping[str, Placement],
    places: _Where,
    right: set[str],
    kinds: Mapping[str, str],
    previous: Mapping[str, InstalledSkill],
    settings: Settings,
    report: InstallReport,
) -> None:
    """An installed skill directory that is not what skillpack wrote (a file edited, one
    added) is local work: refused (``INS017``, naming each file, nothing written) before
    anything is replaced, unless ``--force``, which says what it replaces. A directory
    that is only behind the lock (an upgrade) is no local work."""
    from skillpack.install.drift import compare_tree

    lost: list[str] = []
    seen: set[str] = set()
    for name, placement in sorted(placements.items()):
        was = previous.get(name)
        if was is None:
            continue
        links = {d.path: d.link for d in was.directories}
        copy_real = places.of(places.scope.path_of(was.copy.path.rpartition("/")[0]), name)[0]
        # every directory of the skill, the links' too: a directory of one's own where
        # the link was, a link of one's own where a copy was (or one leading elsewhere
        # where a link was), or a file where a skill directory was, is local work as well
        for directory in _skill_dirs(placement, places.scope):
            path, shown = places.of(directory, name)
            if path in seen:  # one directory, reached through two agent directories
                continue
            seen.add(path)
            kind = kinds.get(path)
            if kind == "file":
                lost.append(f"extra: {shown}")
            if (
                kind == "link"
                and shown in links
                and (not links[shown] or os.path.realpath(path) != copy_real)
            ):
                lost.append(f"replaced by a link: {shown} -> {_target(path)}")
            if path in right or kind != "directory":
                continue
            lost += [
                f"{kind}: {shown}/{rel}" if rel else f"{kind}: {shown}"
                for kind, rel in compare_tree(path, was.files)
                if kind in ("modified", "extra")
            ]
    if not lost:
        return
    if settings.force:
        report.notes += [f"replaced local work ({line})" for line in lost]
        return
    raise _error(
        "INS017",
        f"{len(lost)} local change{'s' if len(lost) != 1 else ''} in installed skills would be "
        "lost: nothing was installed",
        details=lost,
        hint="copy them elsewhere (install --check lists them), then 'skillpack install "
        "--force' replaces them with the pinned files",
    )


def _target(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _admit(
    wants: Mapping[str, _Want],
    placements: Mapping[str, Placement],
    places: _Where,
    right: set[str],
    settings: Settings,
    report: InstallReport,
) -> None:
    """The content scan over every skill that will be written (a directory not already
    right), its bundle opened in full: an error-level finding not accepted refuses the
    whole install (``ADM001``) before anything is written; warnings become notes."""
    by_source: dict[str, list[SkillEntry]] = {}
    for name, want in sorted(wants.items()):
        if all(path in right for path in _copy_paths(placements[name], places)):
            continue  # nothing of it is written: its bytes are not read
        entry = want.source.bundle.manifest.skill(f"skill://{want.skill_path}/SKILL.md")
        if entry is not None:  # None: reported by new_files (INS011)
            by_source.setdefault(want.source.source, []).append(entry)
    if not by_source:
        return  # nothing is written (a re-run): the scanner is not even imported
    from skillpack.policy.admission import Admission, admit

    admission = Admission()
    policy = settings.admission
    sources = {w.source.source: w.source for w in wants.values()}
    for key, entries in sorted(by_source.items()):
        source = sources[key]
        bundle = source.bundle
        # the bytes stay kept: the write reads them once more (not from the file again)
        read = functools.partial(bundle.read_verified, again=True)
        # the scan started before the full open, when it covers most of what is written
        prescanned = source.prescanned(entries, read)
        found = admit(bundle.manifest, read, policy.accepts, entries, policy.block, prescanned)
        admission.flagged += found.flagged
    report.notes += [f"scan: {f.line()}" for f in admission.warnings + admission.accepted]
    admission.check(", ".join(sorted({w.source.label for w in wants.values()})),
                    "nothing was installed")  # fmt: skip


def _keep_the_signer(opened: Opened, pinned: SourcePin | None, settings: Settings) -> None:
    """A pinned signer is part of the pin: a source that now resolves to another bundle
    must be signed by it (``INS019`` otherwise) unless the command line's signature
    options name who signs it now (the review then shows the change); an
    ``[[install]]`` table's keys or a policy file never move it. The new bundle passes
    when the signer it was verified for is the pinned one; else a keyless signer is
    checked again from the lock (with the command line's trust options,
    ``--trust-config``): against the signature beside a file, or an ``oci://`` source's
    referrers through the one verified fetch; a key's signature needs its public key
    (``--key``)."""
    if pinned is None or pinned.signer is None:
        return
    if opened.pin.bundle_digest == pinned.bundle_digest:
        return  # the same bundle keeps its signer in the lock (_kept_signer)
    _signed_by(opened, pinned.signer, settings, lambda details: _signer_refused(
        opened, pinned, details))  # fmt: skip


def _signed_by(
    opened: Opened,
    signer: Signer,
    settings: Settings,
    refused: Callable[[list[str]], SkillpackError],
) -> None:
    """``opened`` shown to be signed by ``signer`` (its pin then records it), unless
    the command line names the signer; ``refused(details)`` otherwise."""
    if _cli_names_signer(settings):
        return
    if opened.pin.signer == signer:
        return  # verified (a table's or the policy's signer) as the pinned one
    if signer.mode == "keyless" and signer.issuer:
        from skillpack.signing.errors import SignatureError
        from skillpack.signing.policy import SignaturePolicy

        kept = replace(
            _cli_trust(settings) or SignaturePolicy(), cert_identity=signer.identity,
            cert_oidc_issuer=signer.issuer,
        )  # fmt: skip
        options = settings.registries.get(opened.source)
        try:
            opened.verified = _check_kept(opened, kept, options, settings.offline)
        except SignatureError as exc:
            raise refused([exc.render().splitlines()[0]]) from None
        opened.pin = replace(opened.pin, signer=signer)
        return
    raise refused([])


def _check_kept(
    opened: Opened, kept: SignaturePolicy, options: ClientOptions | None, offline: bool
) -> VerifiedBundle:
    """The pinned signer's check of a moved source: the same one verified fetch (an
    ``oci://`` bundle's referrers) or open (a file's ``.sigstore.json``)."""
    if is_reference(opened.source):
        from skillpack.fetch import fetch_verified

        # by digest: the bundle opened, with its referrers
        with fetch_verified(
            opened.label, options=options, policy=kept, offline=offline, signatures=True
        ) as got:
            assert got.verified is not None
            return got.verified
    from skillpack.signing.policy import default_signature_path
    from skillpack.signing.verify import verify_any_signature

    return verify_any_signature(
        opened.path, (default_signature_path(opened.path),), kept, label=opened.label,
        bundle=opened.bundle,
    )  # fmt: skip


def _signer_refused(opened: Opened, pinned: SourcePin, details: list[str]) -> SkillpackError:
    signer = pinned.signer
    assert signer is not None
    return SkillpackError(
        "INS019",
        f"{opened.label} now resolves to another bundle, and the lock pins its signer "
        f"({signer.mode} {signer.identity}): the new bundle must be signed by it",
        Location(opened.source),
        details=details,
        hint="pass the signer's public key (--key PUBLIC_KEY) to check it, or other "
        "signature options to change who signs it (the upgrade's review shows the change)",
    )


def _moved_signer(name: str, old: SourcePin, opened: Opened, settings: Settings) -> None:
    """Skill ``name``, installed from ``old`` (pinned with a signer), now from another
    source string: the signer is kept as for an upgrade (:func:`_signed_by`), never
    dropped because the new source string came without signature options."""
    signer = old.signer
    assert signer is not None

    def refused(details: list[str]) -> SkillpackError:
        return SkillpackError(
            "INS019",
            f"{name} was installed from {old.source}, whose pinned signer is {signer.mode} "
            f"{signer.identity}: {opened.label} is not shown to be signed by it",
            Location(opened.source),
            details=details,
            hint="pass the signer's public key (--key PUBLIC_KEY) to check it, or other "
            "signature options to change who signs it; nothing was installed",
        )

    _signed_by(opened, signer, settings, refused)


def describe_signer(signer: Signer | None) -> str:
    """How a review line names a signer."""
    if signer is None:
        return "unsigned"
    issuer = f" ({signer.issuer})" if signer.issuer else ""
    return f"{signer.mode} {signer.identity}{issuer}"


def _kept_signer(pin: SourcePin, old: SourcePin | None) -> SourcePin:
    """``pin``, with the signer verified when the same bundle was pinned before (a run
    without signature options does not forget who signed what it installs)."""
    if pin.signer is None and old is not None and old.bundle_digest == pin.bundle_digest:
        from dataclasses import replace

        return replace(pin, signer=old.signer)
    return pin


def _held(placement: Placement, held: Placement) -> bool:
    """Whether the lock's placement ``held`` already covers ``placement``."""
    agents = {t.directory: set(t.agents) for t in held.targets}
    return (placement.source, placement.skill_path, placement.link) == (
        held.source,
        held.skill_path,
        held.link,
    ) and all(
        t.directory in agents and set(t.agents) <= agents[t.directory] for t in placement.targets
    )


class _Where:
    """Each agent directory resolved, and the strings a skill directory in it is known
    by (thousands of skill directories: strings, not Path objects)."""

    def __init__(self, scope: Scope, resolved: Mapping[Path, Path]) -> None:
        self.scope = scope
        self.real = {d: str(r) for d, r in resolved.items()}
        self.shown = {d: scope.shown(d) for d in resolved}

    def of(self, directory: Path, name: str) -> tuple[str, str]:
        """(real path, the lock's name) of skill directory ``name`` in ``directory``."""
        return os.path.join(self.real[directory], name), f"{self.shown[directory]}/{name}"


def _skill_dirs(placement: Placement, scope: Scope) -> list[Path]:
    """The agent directories holding the skill (the copy's too, with ``--link``)."""
    dirs = [t.directory for t in placement.targets]
    if placement.link and scope.canonical_dir not in dirs:
        dirs.append(scope.canonical_dir)
    return dirs


@contextlib.contextmanager
def _writing(shown: str) -> Iterator[None]:
    """A failed write into an agent directory as ``INS016`` naming the directory."""
    try:
        yield
    except OSError as exc:
        raise _cannot_write(shown, *_reason(exc)) from None


def _reason(exc: OSError) -> tuple[str, str | None]:
    """Why a write failed, and the file it names (picklable, from a worker)."""
    return exc.strerror or str(exc), exc.filename if isinstance(exc.filename, str) else None


def _cannot_write(shown: str, reason: str, filename: str | None) -> SkillpackError:
    return _error(
        "INS016",
        f"cannot write {shown}: {reason}; it is as it was",
        filename,
        hint="check the permissions and free space of the agent directory",
    )


def _copy_paths(placement: Placement, where: _Where) -> list[str]:
    """The directories that hold a copy of the skill (resolved)."""
    return [path for path, _ in _copies(placement, where)]


def _copies(placement: Placement, where: _Where) -> list[tuple[str, str]]:
    """(resolved path, the lock's name) of each directory holding a copy of the skill."""
    if placement.link:
        return [where.of(where.scope.canonical_dir, placement.name)]
    return [where.of(t.directory, placement.name) for t in placement.targets]


def _write_placement(
    placement: Placement, want: _Want, writer: _Writer, where: _Where
) -> list[InstalledDir]:
    records: list[InstalledDir] = []
    name = placement.name
    canonical = where.scope.canonical_dir
    if placement.link:
        real_canonical, shown_canonical = where.of(canonical, name)
        with _writing(shown_canonical):
            action = writer.copy(real_canonical, shown_canonical, want)
        writer.changes.append(Change(name, shown_canonical, action))
        agents_at = {t.directory: t.agents for t in placement.targets}
        records.append(InstalledDir(shown_canonical, agents_at.get(canonical, ())))
        for target in placement.targets:
            if target.directory == canonical:
                continue
            path, shown = where.of(target.directory, name)
            if path == real_canonical:  # its agent directory is a link to the copy's
                writer.changes.append(Change(name, shown, action))
                records.append(InstalledDir(shown, target.agents, link=True))
                continue
            relative = os.path.relpath(real_canonical, where.real[target.directory])
            with _writing(shown):
                action = writer.link(name, path, shown, relative)
            writer.changes.append(Change(name, shown, action))
            records.append(InstalledDir(shown, target.agents, link=True))
        return records
    for target in placement.targets:
        path, shown = where.of(target.directory, name)
        with _writing(shown):
            action = writer.copy(path, shown, want)
        writer.changes.append(Change(name, shown, action))
        records.append(InstalledDir(shown, target.agents))
    return records


def _upgrade_diffs(
    lock: InstallLock,
    placements: Mapping[str, Placement],
    opened: Mapping[str, Opened],
    scope: Scope,
) -> list[tuple[str, ManifestDiff]]:
    """For each source whose pin moves: what changes in the skills installed from it,
    classified as ``skillpack diff`` classifies changes."""
    from skillpack.changes import diff_manifests
    from skillpack.manifest import Manifest

    out: list[tuple[str, ManifestDiff]] = []
    for pin in lock.sources:
        source = opened.get(pin.source)
        if source is None or source.pin.bundle_digest == pin.bundle_digest:
            continue
        old = [_installed_entry(s, scope) for s in lock.skills if s.source == pin.source]
        new = [
            e
            for p in placements.values()
            if p.source == pin.source
            and (e := source.manifest.skill(f"skill://{p.skill_path}/SKILL.md"))
        ]
        diff = diff_manifests(
            Manifest(pin.name, pin.version, tuple(sorted(old, key=lambda s: s.skill_path))),
            Manifest(source.pin.name, source.pin.version,
                     tuple(sorted(new, key=lambda s: s.skill_path))),
        )  # fmt: skip
        out.append((pin.source, diff))
    return out


def _installed_entry(skill: InstalledSkill, scope: Scope) -> SkillEntry:
    """A locked skill as a manifest entry: its files from the lock, its frontmatter read
    from its installed ``SKILL.md`` when that still has the locked digest."""
    from skillpack._internal.uri import file_uri, skill_md_uri
    from skillpack.manifest import FileEntry, SkillEntry, sha256_digest

    frontmatter: dict[str, JSONValue] = {}
    copy = scope.path_of(skill.copy.path)
    head = skill.files[0]
    with contextlib.suppress(OSError, SkillpackError, ValueError):
        from skillpack.install.drift import read_regular

        # never through a link, never blocking on a FIFO: only the locked bytes
        data = read_regular(str(copy / head.path), head.size)
        if data is not None and sha256_digest(data) == head.digest:
            from skillpack.source.frontmatter import parse_skill_md

            frontmatter = dict(parse_skill_md(data).data)
    files = tuple(
        FileEntry(f.path, file_uri(skill.skill_path, f.path), f.size, f.digest, f.executable)
        for f in skill.files
    )
    return SkillEntry(skill.skill_path, skill_md_uri(skill.skill_path), frontmatter, files)


def pins_of(lock: InstallLock) -> dict[str, SourcePin]:
    return {p.source: p for p in lock.sources}
