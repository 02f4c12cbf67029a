"""The command table: every command of ``skillpack``, once.

A row names the command, the module that defines it (imported only when the command
runs) and the one-line summary ``skillpack --help`` lists without importing anything.
``serve`` is the runtime, not the build tool: ``skillpack/__main__.py`` hands it to
:mod:`skillpack.server.cli` (standard library only) before typer is imported; its row
here makes the typer app list it and forward to the same parser.

Adding a command: a module in ``skillpack/cli/`` with ``app = CommandApp()`` and one
``@app.command(NAME)``, and its row below.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CommandRow:
    name: str
    module: str  #: defines ``app``, a :class:`~skillpack.cli.base.CommandApp`
    summary: str  #: one line, as ``skillpack --help`` lists it


COMMANDS: tuple[CommandRow, ...] = (
    CommandRow("lint", "skillpack.cli.lint_cmd",
               "Check skills against the rule catalog (text, JSON, SARIF, GitHub)."),
    CommandRow("fmt", "skillpack.cli.fmt_cmd",
               "Normalize SKILL.md: quote ambiguous values, order known keys, LF, no BOM."),
    CommandRow("rule", "skillpack.cli.rule_cmd",
               "Explain a lint rule (why, an example, how to fix it), or list them all."),
    CommandRow("lock", "skillpack.cli.lock_cmd",
               "Write skillpack.lock, or check that it describes the tree (--check)."),
    CommandRow("plugins", "skillpack.cli.plugins_cmd",
               "Write the plugin manifests of Claude Code, Codex, Cursor and Gemini CLI."),
    CommandRow("build", "skillpack.cli.build_cmd",
               "Lint, lock and write a reproducible bundle (.skp); sign it with --sign."),
    CommandRow("verify", "skillpack.cli.verify_cmd",
               "Check every file of a bundle against its lock, and who signed it."),
    CommandRow("inspect", "skillpack.cli.inspect_cmd",
               "List a bundle's skills and files with sizes and digests (verified first)."),
    CommandRow("diff", "skillpack.cli.diff_cmd",
               "Compare two bundles, locks or trees, skill by skill."),
    CommandRow("unpack", "skillpack.cli.unpack_cmd",
               "Verify a bundle, then write its skills (and its lock) into a directory."),
    CommandRow("sign", "skillpack.cli.sign_cmd",
               "Sign a bundle: keylessly with sigstore, or with a local key (--key)."),
    CommandRow("keygen", "skillpack.cli.keygen_cmd",
               "Create a key pair for key-mode signing (air-gapped use)."),
    CommandRow("push", "skillpack.cli.push_cmd",
               "Push a bundle to an OCI registry, its signature attached as a referrer."),
    CommandRow("pull", "skillpack.cli.pull_cmd",
               "Fetch a bundle from an OCI registry, verify it, and only then write it."),
    CommandRow("install", "skillpack.cli.install_cmd",
               "Install skills from verified bundles into the directories coding agents read."),
    CommandRow("uninstall", "skillpack.cli.uninstall_cmd",
               "Remove installed skills: all of each skill, or nothing."),
    CommandRow("serve", "skillpack.cli.serve_cmd",
               "Serve skills over MCP (stdio or HTTP) from bundles, oci:// or directories."),
    CommandRow("check", "skillpack.cli.check_cmd",
               "Run the Skills-extension conformance scenarios against an MCP server."),
    CommandRow("vendor", "skillpack.cli.vendor_cmd",
               "Verify an MCP server's skills and write them into a tree, or list them."),
)  # fmt: skip

BY_NAME: dict[str, CommandRow] = {row.name: row for row in COMMANDS}
#: old command name -> the command that does its work now (named in the usage error)
RENAMED: dict[str, str] = {}
#: a name given to another command -> (where its old work went, the old command's
#: options): ``pull`` was the MCP vendoring client (now ``vendor``) and is the OCI pull;
#: ``pull --into DIR -- CMD`` of before is refused naming ``vendor``
REUSED: dict[str, tuple[str, frozenset[str]]] = {
    "pull": ("vendor", frozenset({"--", "--into", "--skill", "--allow-dynamic", "--era"})),
}
