"""The agent table: where each coding agent reads skills, in a project and per user.

One row per agent, named as the ``skills`` installer CLI names it (``--agent
claude-code``), so that a user's muscle memory and scripts carry over. Discovery reads
the project directories (without a ``roots`` configuration, skillpack also looks for
skills in every one of them); ``install`` (a later stage) reads the same rows to know
where to put a skill for an agent, in a project or for the user.

A project directory is relative to the project root and ``/``-separated. A global
directory starts with ``~/`` (the user's home) or ``$XDG_CONFIG_HOME/`` (which defaults
to ``~/.config``); when the agent honours an environment variable naming its own home
(``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``), :attr:`Agent.home_env` names it and
:attr:`Agent.home` is the default it replaces.

Adding an agent is adding a row (docs/configuration.md lists the table; a test keeps the
list current).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: the directory every agent of the Agent Skills ecosystem agrees on
UNIVERSAL_DIR = ".agents/skills"


@dataclass(frozen=True)
class Agent:
    """Where one agent reads skills."""

    name: str  #: the ``skills`` CLI's agent name (``--agent``)
    label: str  #: the product's name, for messages and docs
    project_dir: str  #: where a project's skills go for this agent (``install`` writes here)
    #: the agent's own home directory: ``~/.claude``, ``$XDG_CONFIG_HOME/goose``
    home: str
    #: the user's skills directory, relative to :attr:`home`
    skills_under_home: str = "skills"
    #: the environment variable that, when set, replaces :attr:`home`
    home_env: str | None = None
    #: other project directories the agent reads skills from (besides :attr:`project_dir`)
    also_reads: tuple[str, ...] = ()

    @property
    def global_dir(self) -> str:
        """The user's skills directory as documented: ``~/.claude/skills``."""
        return f"{self.home}/{self.skills_under_home}"

    def global_path(
        self, environ: Mapping[str, str] | None = None, user_home: Path | None = None
    ) -> Path:
        """The user's skills directory on this machine: the :attr:`home_env` variable when
        set (and not empty), else :attr:`home` under the user's home directory."""
        environ = os.environ if environ is None else environ
        user_home = Path.home() if user_home is None else user_home
        override = environ.get(self.home_env, "").strip() if self.home_env else ""
        if override:
            return Path(override) / self.skills_under_home
        head, _, rest = self.home.partition("/")
        if head == "~":
            base = user_home
        elif head == "$XDG_CONFIG_HOME":
            base = Path(environ.get("XDG_CONFIG_HOME", "").strip() or user_home / ".config")
        else:  # pragma: no cover - the table test keeps every home to the two forms
            raise ValueError(f"agent {self.name}: home {self.home!r} is not ~/ or $XDG_...")
        return base / rest / self.skills_under_home

    @property
    def project_dirs(self) -> tuple[str, ...]:
        """Every project directory the agent reads, its own first."""
        return (self.project_dir, *self.also_reads)


_CLAUDE = ".claude/skills"
_U = UNIVERSAL_DIR

#: Every agent skillpack knows, by name. Names, install directories (the first project
#: directory) and user directories as the ``skills`` installer CLI 1.7.4 has them, so
#: that an agent reads what ``skillpack install`` puts there and ``skills list`` sees
#: it; ``also_reads`` adds the directories each agent's own documentation names.
AGENTS: tuple[Agent, ...] = (
    Agent("universal", "Any Agent Skills agent", _U, "~/.agents"),
    Agent("claude-code", "Claude Code", _CLAUDE, "~/.claude", home_env="CLAUDE_CONFIG_DIR"),
    Agent("codex", "OpenAI Codex", _U, "~/.codex", home_env="CODEX_HOME",
          also_reads=(".codex/skills",)),
    Agent("cursor", "Cursor", _U, "~/.cursor", also_reads=(".cursor/skills",)),
    Agent("github-copilot", "GitHub Copilot", _U, "~/.copilot",
          also_reads=(".github/skills", _CLAUDE)),
    Agent("gemini-cli", "Gemini CLI", _U, "~/.gemini", also_reads=(".gemini/skills",)),
    Agent("opencode", "OpenCode", _U, "$XDG_CONFIG_HOME/opencode",
          also_reads=(".opencode/skills", _CLAUDE)),
    Agent("windsurf", "Windsurf", ".windsurf/skills", "~/.codeium/windsurf"),
    Agent("goose", "Goose", ".goose/skills", "$XDG_CONFIG_HOME/goose"),
    Agent("roo", "Roo Code", ".roo/skills", "~/.roo"),
    Agent("cline", "Cline", _U, "~/.agents", also_reads=(".cline/skills",)),
    Agent("amp", "Amp", _U, "$XDG_CONFIG_HOME/agents", also_reads=(_CLAUDE,)),
    Agent("kiro-cli", "Kiro CLI", ".kiro/skills", "~/.kiro"),
    Agent("junie", "Junie", ".junie/skills", "~/.junie"),
    Agent("continue", "Continue", ".continue/skills", "~/.continue"),
    Agent("augment", "Augment", ".augment/skills", "~/.augment"),
    Agent("codebuddy", "CodeBuddy", ".codebuddy/skills", "~/.codebuddy"),
    Agent("command-code", "Command Code", ".commandcode/skills", "~/.commandcode"),
    Agent("crush", "Crush", ".crush/skills", "$XDG_CONFIG_HOME/crush"),
    Agent("droid", "Factory Droid", _U, "~/.factory", also_reads=(".factory/skills",)),
    Agent("kilo", "Kilo Code", _U, "~/.kilo", also_reads=(".kilocode/skills", ".kilo/skills")),
    Agent("openhands", "OpenHands", ".openhands/skills", "~/.openhands"),
    Agent("qwen-code", "Qwen Code", ".qwen/skills", "~/.qwen"),
    Agent("qoder", "Qoder", ".qoder/skills", "~/.qoder"),
    Agent("trae", "Trae", ".trae/skills", "~/.trae"),
    Agent("iflow-cli", "iFlow CLI", ".iflow/skills", "~/.iflow"),
    Agent("mux", "Mux", ".mux/skills", "~/.mux"),
    Agent("neovate", "Neovate", ".neovate/skills", "~/.neovate"),
    Agent("zencoder", "Zencoder", ".zencoder/skills", "~/.zencoder"),
    Agent("pi", "Pi", _U, "~/.agents", also_reads=(".pi/skills",)),
    Agent("grok", "Grok Build", ".grok/skills", "~/.grok", home_env="GROK_HOME"),
    Agent("mistral-vibe", "Mistral Vibe", ".vibe/skills", "~/.vibe", home_env="VIBE_HOME"),
)  # fmt: skip

BY_NAME: dict[str, Agent] = {agent.name: agent for agent in AGENTS}


def agent(name: str) -> Agent | None:
    """The agent called ``name`` (the ``skills`` CLI's names), or None."""
    return BY_NAME.get(name)


def project_dirs() -> tuple[str, ...]:
    """Every project directory some agent reads, each once, in table order."""
    return tuple(dict.fromkeys(d for a in AGENTS for d in a.project_dirs))


def readers_of(project_dir: str) -> tuple[str, ...]:
    """The names of the agents that read ``project_dir``."""
    return tuple(a.name for a in AGENTS if project_dir in a.project_dirs)


def markdown_table() -> str:
    """The table as docs/configuration.md shows it (a test keeps the two the same)."""
    rows = ["| Agent (`skills --agent`) | Project directories | User directory |", "|---|---|---|"]
    for a in AGENTS:
        env = f" (`${a.home_env}` replaces `{a.home}`)" if a.home_env else ""
        dirs = ", ".join(f"`{d}/`" for d in a.project_dirs)
        rows.append(f"| {a.label} (`{a.name}`) | {dirs} | `{a.global_dir}/`{env} |")
    return "\n".join(rows) + "\n"


def install_markdown_table() -> str:
    """The table as docs/install.md shows it: where ``skillpack install -a NAME`` puts a
    skill, in a project and with ``--global`` (a test keeps the two the same)."""
    rows = ["| `--agent` | Agent | Project install | Global install (`-g`) |", "|---|---|---|---|"]
    for a in AGENTS:
        env = f" (`${a.home_env}/{a.skills_under_home}` when set)" if a.home_env else ""
        rows.append(f"| `{a.name}` | {a.label} | `{a.project_dir}/NAME/` | "
                    f"`{a.global_dir}/NAME/`{env} |")  # fmt: skip
    return "\n".join(rows) + "\n"
