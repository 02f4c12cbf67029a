"""Installing skills into the directories coding agents read (floor 8).

Most agents (Claude Code, Codex, Cursor, Copilot, Gemini CLI, ...) read plain skill
directories, not MCP. This package puts a bundle's skills there verified and pinned:

- :mod:`.sources`: a ``.skp`` file or an ``oci://`` reference, opened verified (every
  file against the lock; with a policy, the signature);
- :mod:`.targets`: the agents and their directories (the agent table is
  :mod:`skillpack.source.agents`), project or global, confined to the project;
- :mod:`.installer`: ``install``: placements, checks before the first write, staged
  skill directories swapped in whole, the lock written last;
- :mod:`.lockfile`: ``skillpack-install.lock``, the pins and every installed file;
- :mod:`.drift`: ``install --check``; :mod:`.remove`: ``uninstall``.

Formats, the agent table and the CI recipe: docs/install.md. Error codes: ``INS…``
(:mod:`.errors`, registered when this package is imported).
"""

from __future__ import annotations

from skillpack.install import errors as _errors  # noqa: F401  (registers the INS codes)
