"""Where an install goes: the agents chosen, their skills directories, the scope.

The agent table is :mod:`skillpack.source.agents` (discovery reads the same rows). A
project install writes each agent's first project directory under the project; a
global one (``--global``) writes the agent's user directory (``CLAUDE_CONFIG_DIR``,
``CODEX_HOME`` and ``XDG_CONFIG_HOME`` honoured). Agents that read one directory share
one copy. Without ``--agent``, the agents whose directories already exist are chosen
(for a shared directory, the first agent of the table that installs there: the
universal ``.agents/skills`` is ``universal``).

A project install stays in the agent directories: an agent directory reached through a
symbolic link is refused (``INS008``) unless the link leads to another agent directory
of the project (``.claude/skills -> ../.agents/skills``: one directory that two agents
share) or to that agent's own user directory (``.claude/skills -> ~/.claude/skills``);
a link into ``.git``, ``src/`` or out of the project never is. A loop of links is
``INS018``. A global install needs ``HOME`` to be the absolute path of a directory
(``INS018`` otherwise: an empty ``HOME`` never makes ``/`` the home directory).
"""

from __future__ import annotations

import difflib
import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.errors import EXIT_USAGE, ConfigError, Location, SkillpackError, UsageError
from skillpack.source.agents import AGENTS, BY_NAME, UNIVERSAL_DIR, Agent

if TYPE_CHECKING:
    from skillpack.source.config import Config

#: the prefix of the staging directories an install makes inside an agent directory
STAGING_PREFIX = ".skillpack-install-"
#: the install lock's name (:mod:`.lockfile` reads and writes it)
LOCK_FILE = "skillpack-install.lock"


@dataclass(frozen=True)
class Scope:
    """A project install (``project`` is its root) or a global one."""

    project: Path  #: the project directory; for a global install, the user's home
    global_: bool
    environ: Mapping[str, str]
    #: the user's home directory; None when ``HOME`` is empty or relative (a project
    #: install then allows no link to a user directory; a global one is refused)
    home: Path | None

    @classmethod
    def project_scope(cls, project: Path, environ: Mapping[str, str] | None = None) -> Scope:
        environ = os.environ if environ is None else environ
        return cls(project.resolve(), False, environ, _home(environ))

    @classmethod
    def global_scope(cls, environ: Mapping[str, str] | None = None) -> Scope:
        """The user's directories: ``HOME`` must be the absolute path of a directory
        (``INS018`` otherwise, before anything is read or written)."""
        environ = os.environ if environ is None else environ
        home = _home(environ)
        if home is None:
            raise _bad_home("HOME", environ.get("HOME", ""), "is not an absolute path")
        blocked = _blocked(home)
        if blocked is not None:
            path, why = blocked
            where = "it" if path == str(home) else path
            raise _bad_home("HOME", str(home), f"cannot be the home directory: {where} is {why}")
        if not os.path.isdir(home):
            raise _bad_home("HOME", str(home), "does not exist")
        return cls(home, True, environ, home)

    def agent_dir(self, agent: Agent) -> Path:
        """Where ``agent`` reads skills in this scope (not resolved)."""
        if self.global_:
            return agent.global_path(self.environ, self.home)
        return self.project / agent.project_dir

    @functools.cached_property
    def agent_reals(self) -> frozenset[str]:
        """The agent directories of a project install, their links resolved: where an
        agent directory that is a link may lead (one agent directory shared by two)."""
        real = os.path.realpath(self.project)
        return frozenset(os.path.join(real, a.project_dir) for a in AGENTS)

    def shown(self, path: Path) -> str:
        """How the install lock records ``path``: relative to the project, ``/``-separated
        (absolute in a global install)."""
        text = str(path)
        if self.global_:
            return Path(text).as_posix()
        base = str(self.project)
        if text.startswith(base) and text[len(base) : len(base) + 1] == os.sep:
            return text[len(base) + 1 :].replace(os.sep, "/")
        return path.relative_to(self.project).as_posix()  # raises: not in the project

    def text_of(self, shown: str) -> str:
        """:meth:`path_of` as a string (thousands of paths: no Path objects)."""
        return shown if self.global_ else os.path.join(self.project, shown)

    def path_of(self, shown: str) -> Path:
        """The inverse of :meth:`shown`."""
        return Path(shown) if self.global_ else self.project / shown

    @functools.cached_property
    def canonical_dir(self) -> Path:
        """Where ``--link`` keeps each skill's one copy: ``.agents/skills`` of the
        project, or ``~/.agents/skills``."""
        base = self.home if self.global_ and self.home is not None else self.project
        return base / UNIVERSAL_DIR


def _home(environ: Mapping[str, str]) -> Path | None:
    """``HOME`` when it is an absolute path (unset: the password database's); None when
    it is set but empty or relative (``expanduser`` would make ``''`` the root)."""
    if "HOME" in environ:
        text = environ["HOME"]
        return Path(text) if text and os.path.isabs(text) else None
    try:
        home = Path.home()
    except (RuntimeError, KeyError):
        return None
    return home if home.is_absolute() else None


def _bad_home(name: str, value: str, why: str) -> SkillpackError:
    return SkillpackError(
        "INS018",
        f"{name}={value!r} {why}: a global install needs it to name a directory",
        Location(value or name),
        hint=f"set {name} to the absolute path of an existing directory (or install into "
        "the project, without --global); nothing was written",
        exit_code=EXIT_USAGE,
    )


@dataclass(frozen=True)
class Target:
    """One agent skills directory and the chosen agents that read skills there."""

    directory: Path
    agents: tuple[str, ...]


def names_hint() -> str:
    return "agents: " + ", ".join(a.name for a in AGENTS)


def choose_agents(names: Sequence[str], scope: Scope) -> list[Agent]:
    """The agents named (``*`` for all), or those whose directories exist."""
    if names:
        if "*" in names:
            return list(AGENTS)
        chosen: list[Agent] = []
        for name in names:
            agent = BY_NAME.get(name)
            if agent is None:
                close = difflib.get_close_matches(name, BY_NAME, n=3, cutoff=0.5)
                hint = f"did you mean {' or '.join(close)}? " if close else ""
                raise UsageError(
                    "INS002",
                    f"unknown agent {name!r}",
                    hint=f"{hint}'skillpack install --help' and docs/install.md list the agents",
                    details=[names_hint()],
                )
            if agent not in chosen:
                chosen.append(agent)
        return chosen
    found: dict[Path, Agent] = {}
    for agent in AGENTS:
        directory = scope.agent_dir(agent) if not scope.global_ else _agent_home(agent, scope)
        if directory not in found and directory.is_dir():
            found[directory] = agent
    if not found:
        where = "in your home directory" if scope.global_ else f"in {scope.project}"
        raise UsageError(
            "INS001",
            f"no agent directory found {where}: say which agents to install for",
            hint="pass -a/--agent NAME (repeatable), e.g. -a claude-code -a codex",
            details=[names_hint()],
        )
    return list(found.values())


def _agent_home(agent: Agent, scope: Scope) -> Path:
    """An agent's own home in the user's directory (``~/.claude``): it is installed."""
    return agent.global_path(scope.environ, scope.home).parent


def _blocked(path: Path | str) -> tuple[str, str] | None:
    """(entry, why) when ``path`` cannot be (or be made) a directory: see
    :func:`skillpack._internal.fsutil.not_a_directory`."""
    from skillpack._internal.fsutil import not_a_directory

    return not_a_directory(path)


def targets(agents: Sequence[Agent], scope: Scope) -> list[Target]:
    """The directories of ``agents`` in ``scope``, each once, in path order."""
    by_dir: dict[Path, list[str]] = {}
    for agent in agents:
        by_dir.setdefault(scope.agent_dir(agent), []).append(agent.name)
    return [Target(d, tuple(sorted(by_dir[d]))) for d in sorted(by_dir)]


def can_hold_directories(directory: Path, shown: str, what: str = "an agent directory") -> None:
    """Refuse (``INS018``, exit 2) a ``directory`` that exists and is not one, or one
    that cannot be made because a component of its path is a file (``.claude`` a file,
    ``HOME`` naming a file, a FIFO), a link to nothing or a loop of links: before
    anything is written, never a traceback."""
    culprit = _blocked(directory)
    if culprit is not None:
        path, why = culprit
        raise _not_a_directory(directory, shown, what, Path(path), why)


def _not_a_directory(
    directory: Path, shown: str, what: str, culprit: Path, why: str
) -> SkillpackError:
    where = "it" if culprit == directory else str(culprit)
    return SkillpackError(
        "INS018",
        f"{shown} cannot be {what}: {where} is {why}",
        Location(str(culprit)),
        hint="move the file (or link) away, or fix HOME, XDG_CONFIG_HOME or the agent's "
        "configuration variable; nothing was written",
        exit_code=EXIT_USAGE,
    )


def confined(directory: Path, scope: Scope, *, reading: bool = False) -> Path:
    """``directory`` (an agent directory) with its symbolic links resolved, checked
    before anything in it is read or written:

    * a loop of links on its path is ``INS018``;
    * in a project install, a link on its path must lead to an agent directory of the
      project (``.claude/skills -> ../.agents/skills``) or to the user directory of an
      agent that reads ``directory`` (``.claude/skills -> ~/.claude/skills``); anywhere
      else (``.git``, ``src/``, out of the project) is ``INS008``;
    * a global install's directory must be an absolute path (``CLAUDE_CONFIG_DIR=rel``
      is ``INS018``);
    * unless ``reading`` (``--check`` and ``uninstall``, which read a file in the way as
      a missing directory), a file where it or one of its parents must be a directory
      is ``INS018``."""
    shown = scope.shown(directory)
    try:
        os.stat(directory)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        culprit = _blocked(directory) or (str(directory), exc.strerror or str(exc))
        raise _not_a_directory(directory, shown, "an agent directory", Path(culprit[0]),
                               culprit[1]) from None  # fmt: skip
    if scope.global_ and not directory.is_absolute():
        raise _not_a_directory(directory, shown, "an agent directory", directory,
                               "not an absolute path (check the agent's configuration "
                               "variable)")  # fmt: skip
    real = Path(os.path.realpath(directory))
    if not scope.global_ and str(real) not in scope.agent_reals:
        allowed = {
            os.path.realpath(a.global_path(scope.environ, scope.home))
            for a in AGENTS
            if scope.home is not None and scope.project / a.project_dir == directory
        }
        if str(real) not in allowed:
            raise _linked_away(directory, shown, real, scope)
    if not reading:
        can_hold_directories(real, shown)
    return real


def _linked_away(directory: Path, shown: str, real: Path, scope: Scope) -> SkillpackError:
    project = Path(os.path.realpath(scope.project))
    if real == project or project in real.parents:
        where = f"to {real.relative_to(project).as_posix() or '.'}, which is not an agent directory"
        why = "an agent directory may only be a link to another agent directory of the project"
    else:
        where = f"outside the project (to {real})"
        why = "a project install stays inside the project"
    return SkillpackError(
        "INS008",
        f"{shown} leads through a symbolic link {where}; {why}: nothing was read or written",
        Location(str(directory)),
        hint="remove the link, point it at an agent directory (.claude/skills -> "
        "../.agents/skills), or install with --global",
    )


def user_config_dir(scope: Scope) -> Path:
    """Where a global install keeps its lock: ``$XDG_CONFIG_HOME/skillpack`` (default
    ``~/.config/skillpack``)."""
    base = scope.environ.get("XDG_CONFIG_HOME", "").strip()
    if base and os.path.isabs(base):  # a relative one is ignored (the XDG specification)
        return Path(base) / "skillpack"
    assert scope.home is not None  # a global scope has one
    return scope.home / ".config" / "skillpack"


def install_scope(global_: bool, config: Path | None) -> tuple[Scope, Config | None, Path]:
    """The scope of an install, its configuration and its lock: the user's directories
    and the lock in :func:`user_config_dir`; or the project of the configuration found
    from the working directory (``config`` names it), the lock beside it; or, without
    one, the working directory."""
    from skillpack.source.configfile import find_config

    if global_:
        scope = Scope.global_scope()
        return scope, None, user_config_dir(scope) / LOCK_FILE
    if config is not None and not config.is_file():
        raise ConfigError("CFG001", "configuration file not found", Location(str(config)))
    found = config if config is not None else find_config(Path.cwd())
    if found is None:
        return Scope.project_scope(Path.cwd()), None, Path.cwd().resolve() / LOCK_FILE
    from skillpack.source.config import load_config  # only with a configuration to read

    cfg = load_config(found)
    return Scope.project_scope(cfg.project_dir), cfg, cfg.project_dir / LOCK_FILE
