"""Where an install goes: the agents chosen, their skills directories, the scope.

The agent table is :mod:`skillpack.source.agents` (discovery reads the same rows). A
project install writes each agent's first project directory under the project; a
global one (``--global``) writes the agent's user directory (``CLAUDE_CONFIG_DIR``,
``CODEX_HOME`` and ``XDG_CONFIG_HOME`` honoured). Agents that read one directory share
one copy. Without ``--agent``, the agents whose directories already exist are chosen
(for a shared directory, the first agent of the table that installs there: the
universal ``.agents/skills`` is ``universal``).

A project install stays inside the project: an agent directory reached through a
symbolic link that leads outside the project is refused (``INS008``), unless the link
leads to that agent's own user directory (``.claude/skills -> ~/.claude/skills``).
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


@dataclass(frozen=True)
class Scope:
    """A project install (``project`` is its root) or a global one."""

    project: Path  #: the project directory; for a global install, the user's home
    global_: bool
    environ: Mapping[str, str]
    home: Path

    @classmethod
    def project_scope(cls, project: Path, environ: Mapping[str, str] | None = None) -> Scope:
        environ = os.environ if environ is None else environ
        return cls(project.resolve(), False, environ, _home(environ))

    @classmethod
    def global_scope(cls, environ: Mapping[str, str] | None = None) -> Scope:
        environ = os.environ if environ is None else environ
        home = _home(environ)
        return cls(home, True, environ, home)

    def agent_dir(self, agent: Agent) -> Path:
        """Where ``agent`` reads skills in this scope (not resolved)."""
        if self.global_:
            return agent.global_path(self.environ, self.home)
        return self.project / agent.project_dir

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
        base = self.home if self.global_ else self.project
        return base / UNIVERSAL_DIR


def _home(environ: Mapping[str, str]) -> Path:
    home = environ.get("HOME", "").strip()
    return Path(home) if home else Path.home()


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


def targets(agents: Sequence[Agent], scope: Scope) -> list[Target]:
    """The directories of ``agents`` in ``scope``, each once, in path order."""
    by_dir: dict[Path, list[str]] = {}
    for agent in agents:
        by_dir.setdefault(scope.agent_dir(agent), []).append(agent.name)
    return [Target(d, tuple(sorted(by_dir[d]))) for d in sorted(by_dir)]


def can_hold_directories(directory: Path, shown: str, what: str = "an agent directory") -> None:
    """Refuse (``INS018``, exit 2) a ``directory`` that exists and is not one, or one
    that cannot be made because a component of its path is a file (``.claude`` a file,
    ``HOME`` naming a file): before anything is written, never a traceback."""
    from skillpack._internal.fsutil import not_a_directory

    culprit = not_a_directory(directory)
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
        hint="move the file away (or fix HOME, XDG_CONFIG_HOME or the agent's "
        "configuration variable), then install again",
        exit_code=EXIT_USAGE,
    )


def confined(directory: Path, scope: Scope) -> Path:
    """``directory`` with its symbolic links resolved, refused (``INS008``) when a
    project install would leave the project through one (unless it leads to the user
    directory of an agent that reads ``directory``), or (``INS018``) when a file stands
    where it or one of its parents must be a directory."""
    can_hold_directories(directory, scope.shown(directory))
    real = Path(os.path.realpath(directory))
    if scope.global_:
        return real
    project = Path(os.path.realpath(scope.project))
    if real == project or project in real.parents:
        return real
    allowed = {
        Path(os.path.realpath(a.global_path(scope.environ, scope.home)))
        for a in AGENTS
        if scope.project / a.project_dir == directory
    }
    if real in allowed:
        return real
    raise SkillpackError(
        "INS008",
        f"{scope.shown(directory)} leads outside the project (to {real}) through a "
        "symbolic link; a project install stays inside the project",
        Location(str(directory)),
        hint="remove the link, point it inside the project, or install with --global",
    )


def user_config_dir(scope: Scope) -> Path:
    """Where a global install keeps its lock: ``$XDG_CONFIG_HOME/skillpack`` (default
    ``~/.config/skillpack``)."""
    base = scope.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(base) if base else scope.home / ".config") / "skillpack"


def install_scope(global_: bool, config: Path | None) -> tuple[Scope, Config | None, Path]:
    """The scope of an install, its configuration and its lock: the user's directories
    and the lock in :func:`user_config_dir`; or the project of the configuration found
    from the working directory (``config`` names it), the lock beside it; or, without
    one, the working directory."""
    from skillpack.install.lockfile import LOCK_FILE
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
