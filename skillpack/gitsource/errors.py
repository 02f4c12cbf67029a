"""The ``GIT…`` codes of git sources, registered when this package is imported."""

from __future__ import annotations

from skillpack.errors import EXIT_FINDINGS, EXIT_USAGE, ErrorCode, Family, register

F, U = EXIT_FINDINGS, EXIT_USAGE

FAMILY = Family(
    "GIT",
    "git sources",
    "Skills fetched from git repositories (`git+URL[@REF]`, `github:OWNER/REPO[@REF]`). "
    "Nothing of a repository is run: no hooks, filters, submodules or LFS.",
)

CODES: tuple[ErrorCode, ...] = (
    ErrorCode("GIT001", "the `git` command was not found", U,
              "Git sources use the git command line; install git or put it on PATH."),
    ErrorCode("GIT002", "not a git source", U,
              "Give `git+URL[@REF]` (https, ssh, file or git URLs) or "
              "`github:OWNER/REPO[@REF]`; a subdirectory as `#path=DIR`."),
    ErrorCode("GIT003", "git failed talking to the repository", U,
              "The message gives git's own reason (credentials come from git's credential "
              "helpers and SSH agent; skillpack never prompts and never prints userinfo)."),
    ErrorCode("GIT004", "the ref names no tag, branch or commit of the repository", U,
              "The message lists some of the refs the repository has."),
    ErrorCode("GIT005", "the repository no longer serves the commit", F,
              "A force-push or a deleted ref made the pinned commit unreachable, and it is "
              "not in the cache."),
    ErrorCode("GIT006", "the tree holds a symbolic link that leaves it or dangles", F,
              "A link is kept only as a copy of a file inside the tree it is in."),
    ErrorCode("GIT007", "the tree holds a Git LFS pointer", F,
              "LFS content is never fetched (no smudge filter runs): the file would be the "
              "pointer, not its content."),
    ErrorCode("GIT008", "the tree is over the bounds of a fetch", F,
              "Too many files, too many bytes, a path too long, or a path that cannot be "
              "published. A directory source is held to the same bounds before it is built "
              "(`SKILLPACK_GIT_MAX_FILES`, `SKILLPACK_GIT_MAX_BYTES`)."),
    ErrorCode("GIT009", "the subdirectory is not a directory of the commit", U,
              "Check `#path=DIR` against the repository at that commit."),
    ErrorCode("GIT010", "the ref moved away from the pinned commit", F,
              "A tag or branch names another commit than the install lock pins; it is never "
              "followed silently: `skillpack install --upgrade SOURCE` moves the pin and "
              "shows what changes."),
    ErrorCode("GIT011", "the tree's configuration names a root outside the tree", F,
              "A tree installed from git or a directory is built from its own files only; a "
              "`skillpack.toml` whose `roots` leave it (`..`, an absolute path) is refused."),
)  # fmt: skip

register(FAMILY, CODES)
