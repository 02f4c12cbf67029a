"""The ``INS…`` codes of ``skillpack install`` and ``uninstall``, registered in the
project's error registry (:mod:`skillpack.errors`) when this package is imported."""

from __future__ import annotations

from skillpack.errors import EXIT_FINDINGS, EXIT_USAGE, ErrorCode, Family, register

F, U = EXIT_FINDINGS, EXIT_USAGE

FAMILY = Family(
    "INS",
    "install",
    "`skillpack install` and `skillpack uninstall` ([install.md](install.md)). Nothing is "
    "written when one of these stops an install: every check runs before the first write.",
)

CODES: tuple[ErrorCode, ...] = (
    ErrorCode("INS001", "no agent directory was found and no `--agent` was given", U,
              "Without `-a/--agent`, skillpack installs for the agents whose skills "
              "directories already exist in the project (for `--global`: whose home "
              "directories exist). The message lists every agent name."),
    ErrorCode("INS002", "`--agent` names no agent skillpack knows", U,
              "The message suggests the closest names; [install.md](install.md) has the "
              "table."),
    ErrorCode("INS003", "`--skill` names no skill of the source", U,
              "A skill is selected by its frontmatter `name`; the message lists the "
              "source's skills."),
    ErrorCode("INS004", "two selected skills have one name", F,
              "Each skill lands at `AGENT_DIR/NAME`: two skills named alike (from two "
              "sources, or two groups of one bundle, or names equal but for case) cannot "
              "both be installed into one agent directory. Select one with `-s`."),
    ErrorCode("INS005", "a skill directory skillpack did not install is in the way", F,
              "A directory (or file, or link) of the skill's name exists in the agent "
              "directory and the install lock does not record it: hand-written, or put "
              "there by another tool. It is left alone; `--force` replaces it and says so."),
    ErrorCode("INS006", "`--frozen`: the configuration asks for something the lock does "
              "not hold", F,
              "A declared `[[install]]` skill, agent or layout that is not pinned. Run "
              "`skillpack install` without `--frozen` and commit `skillpack-install.lock`."),
    ErrorCode("INS007", "a pinned source no longer serves its pinned bundle", F,
              "A tag that now names another manifest, or a bundle file rebuilt since it "
              "was pinned. `skillpack install --upgrade SOURCE` moves the pin, showing "
              "what changes."),
    ErrorCode("INS008", "an agent directory is a symlink to somewhere that is not an agent "
              "directory", U,
              "A project install stays in the project's agent directories: an agent "
              "directory that is a link (or lies under one) may lead to another agent "
              "directory of the project (`.claude/skills -> ../.agents/skills`, one "
              "directory two agents share) or to the agent's own user directory "
              "(`.claude/skills -> ~/.claude/skills`); a link into `.git`, `src/` or out "
              "of the project is refused by install, `--frozen`, `--check` and uninstall "
              "before anything is read or written."),
    ErrorCode("INS009", "a skill's name cannot be a directory name", F,
              "Its frontmatter `name` is missing, or not letters, digits, `.`, `_` and "
              "`-` starting with a letter, a digit or `_` (not `.` or `-`: a hidden "
              "directory, or an option to every tool given the path), at most 255 "
              "characters (`skillpack lint` reports it when the bundle is built)."),
    ErrorCode("INS010", "nothing to install", U,
              "No SOURCE, no `[[install]]` in the configuration and an empty install lock."),
    ErrorCode("INS011", "the install lock cannot be read", U,
              "Not UTF-8 or TOML, not matching `schemas/install-lock.schema.json`, or "
              "inconsistent (a skill without a pinned source, a path used twice), or naming "
              "what no install writes: a directory that is not `AGENT_DIR/NAME`, a file path "
              "that is not relative and normalized or has a segment over 255 bytes, a "
              "`skill-path` likewise, a `source` that is an absolute or non-normalized path "
              "or not an `oci://` or git source as their parsers write it. Restore it from "
              "version control, or delete it and install again."),
    ErrorCode("INS012", "an upgraded source no longer has a skill installed from it", F,
              "Uninstall the skill first, or keep the pinned version."),
    ErrorCode("INS013", "`install --check` found drift", F,
              "Installed files modified, missing or added, links replaced or dangling, "
              "skill directories missing. `skillpack install` restores what is missing; a file "
              "modified or added is local work it refuses to replace (`INS017`) unless "
              "`--force`, which the hint names with the count of such files."),
    ErrorCode("INS014", "no installed skill (or pinned source) has this name", U,
              "`skillpack install --check` lists what is installed."),
    ErrorCode("INS015", "`uninstall` found local work in a skill and removed nothing", F,
              "A file of a skill named was modified (its sha256 no longer matches the "
              "lock), or one skillpack did not install was added, in one of the "
              "directories to remove. Everything is decided before the first delete: "
              "nothing is removed, for any skill of the command, and each such file is "
              "named. Move or restore them, or pass `--force`: it removes what skillpack "
              "installed, modified files included, and keeps (and names) the files it did "
              "not install."),
    ErrorCode("INS016", "writing into an agent directory failed", F,
              "The message gives the system's reason (permissions, a full disk). Nothing is "
              "half-written: the skill directory is as it was."),
    ErrorCode("INS017", "installing would replace local changes in an installed skill", F,
              "A file of an installed skill was edited, or one added, since skillpack "
              "installed it: `install` never destroys local work. Each file is named; "
              "nothing was written. Keep the changes elsewhere and pass `--force` to "
              "replace them (it says what it replaced)."),
    ErrorCode("INS018", "a file stands where an agent or lock directory must be", U,
              "`.claude` or `.claude/skills` is a regular file, a FIFO, a link to nothing "
              "or a loop of links, or `HOME`, `XDG_CONFIG_HOME` or an agent's configuration "
              "variable (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`) names one (or a path under a "
              "file): the message names it; nothing was written. A global install also "
              "needs `HOME` to be the absolute path of a directory (an empty `HOME` is "
              "refused, never taken for `/`)."),
    ErrorCode("INS019", "a source's new bundle is not shown to be signed by its pinned signer", F,
              "The install lock pins who signed the source's bundle; the source now resolves "
              "to another bundle (an upgrade, a rebuilt file) and no signature options were "
              "given. A keyless signer is checked again from the lock; a key's signature "
              "needs `--key PUBLIC_KEY`. A skill installed again from another source string "
              "keeps its pinned signer the same way. Signature options on the command line "
              "change the signer (the upgrade's review shows it); an `[[install]]` table's "
              "own signer keys do not."),
    ErrorCode("INS020", "a SOURCE is not a bundle file", U,
              "Give a `.skp` file, a skills directory, an `oci://` reference or a git "
              "source."),
    ErrorCode("INS021", "the skills CLI's `skills-lock.json` cannot be migrated", U,
              "`--from-skills-lock FILE` reads version 1 of the skills CLI's project lock "
              "(`{\"version\": 1, \"skills\": {NAME: {source, sourceType, ...}}}`); the "
              "message names what it could not read. The configuration is not changed."),
    ErrorCode("INS022", "the system refused to let uninstall look at or remove a skill's "
              "files", F,
              "A permission, a name the file system refuses, a directory that cannot be "
              "listed. Found while planning, before the first delete: nothing was removed. "
              "Should a delete itself fail, uninstall stops there and the lock keeps every "
              "skill not removed in full (`skillpack install` restores what is missing)."),
)  # fmt: skip

register(FAMILY, CODES)
