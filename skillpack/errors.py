"""Errors as values, and the one registry of their codes.

Every failure skillpack reports to a user is a :class:`SkillpackError` carrying a
stable ``code``, a message that says what is wrong and, where known, the file, line
and column and a hint saying what to do. The CLI renders these; library callers can
catch :class:`SkillpackError` and read the fields.

Every code is registered here (like the lint rules in :mod:`skillpack.lint.catalog`):
its one-line summary, its exit code and its documentation. A :class:`SkillpackError`
with a code that is not registered is refused where it is made (``ValueError``: a bug),
and its exit code is the registry's (a call site may repeat it, never contradict it).
A code means one thing and is never reused; a retired code stays listed in
:data:`RETIRED`. A package may keep its own table and :func:`register` it when
imported (the OCI registry client's ``REG`` codes, :mod:`skillpack.registry.errors`);
its module is named in :data:`PACKAGE_TABLES` so that the docs and tests see it.

``docs/errors.md`` is generated from the registry::

    python -m skillpack.errors            # rewrite docs/errors.md
    python -m skillpack.errors --check    # exit 1 if docs/errors.md is out of date

Exit codes (the README has the same table):

===  =================================================================
0    success, nothing to report at error severity
1    findings: lint errors, a stale lock, a failed verification or check; a failed write
2    usage or configuration error (bad flag, bad config, unreadable input, an output path
     that cannot be a file)
3    internal error (a bug in skillpack; please report it)
130  interrupted (SIGINT, Ctrl-C)
===  =================================================================
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NamedTuple

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

EXIT_CODES: Final = {
    EXIT_OK: "success, nothing at error severity",
    EXIT_FINDINGS: "findings: lint errors, a stale lock, a failed verification or check; a "
    "failed write (a full disk)",
    EXIT_USAGE: "usage or configuration error (the message names the file, key or option; "
    "an output path that cannot be a file)",
    EXIT_INTERNAL: "internal error (a bug: rerun with `SKILLPACK_DEBUG=1` and report the "
    "traceback)",
    EXIT_INTERRUPTED: "interrupted (SIGINT, Ctrl-C)",
}

#: ``SkillpackError(exit_code=...)`` left out: the registry's exit code applies
FROM_REGISTRY: Final = -1


# --- the registry ---------------------------------------------------------------------
class ErrorCode(NamedTuple):
    """One registered code: what it means, how the process exits, what to do."""

    code: str
    summary: str  #: one line: what the code means
    exit_code: int
    doc: str = ""  #: when it happens and what to do (Markdown)


class Family(NamedTuple):
    """The codes sharing a prefix (``BND``): who raises them."""

    prefix: str
    title: str
    doc: str = ""


FAMILIES: dict[str, Family] = {}
CODES: dict[str, ErrorCode] = {}
#: code -> what replaced it; a retired code is never raised and never reused
RETIRED: dict[str, str] = {}
#: modules that :func:`register` a table of their own when imported; the docs writer
#: and the tests import them (a module that does not exist yet is skipped)
PACKAGE_TABLES: tuple[str, ...] = (
    "skillpack.registry.errors",
    "skillpack.install.errors",
    "skillpack.gitsource.errors",
    "skillpack.plugins.errors",
    "skillpack.policy.errors",
)


def register(family: Family, codes: Iterable[ErrorCode]) -> None:
    """Add ``family`` and its ``codes`` to the registry. A code registered twice, or one
    outside the family's prefix, is refused (``ValueError``)."""
    known = FAMILIES.get(family.prefix)
    if known is not None and known != family:
        raise ValueError(f"error code family {family.prefix} is registered already")
    FAMILIES[family.prefix] = family
    for entry in codes:
        if not (
            entry.code.startswith(family.prefix) and entry.code[len(family.prefix) :].isdigit()
        ):
            raise ValueError(f"{entry.code} is not a {family.prefix} code")
        if entry.code in CODES or entry.code in RETIRED:
            raise ValueError(f"error code {entry.code} is registered already")
        if entry.exit_code not in (EXIT_FINDINGS, EXIT_USAGE):
            raise ValueError(f"{entry.code}: an error exits 1 or 2, not {entry.exit_code}")
        CODES[entry.code] = entry


def error_code(code: str) -> ErrorCode:
    """The registered entry of ``code``; ``ValueError`` if there is none."""
    entry = CODES.get(code)
    if entry is None:
        retired = RETIRED.get(code)
        why = f"it is retired ({retired})" if retired else "it is not registered"
        raise ValueError(
            f"error code {code!r} cannot be raised: {why}; add it to skillpack/errors.py"
        )
    return entry


# --- errors ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Location:
    """A place in a file. ``line`` and ``column`` are 1-based; 0 means unknown."""

    path: str
    line: int = 0
    column: int = 0

    def render(self) -> str:
        if self.line and self.column:
            return f"{self.path}:{self.line}:{self.column}"
        if self.line:
            return f"{self.path}:{self.line}"
        return self.path


@dataclass
class SkillpackError(Exception):
    """A user-facing failure with a registered code (``CFG004``, ``BND009``, ...).

    ``exit_code`` comes from the registry; giving one that differs is refused."""

    code: str
    message: str
    location: Location | None = None
    hint: str | None = None
    exit_code: int = FROM_REGISTRY
    details: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        registered = error_code(self.code).exit_code
        if self.exit_code == FROM_REGISTRY:
            self.exit_code = registered
        elif self.exit_code != registered:
            raise ValueError(
                f"{self.code} exits {registered} (skillpack/errors.py), not {self.exit_code}"
            )
        Exception.__init__(self, self.render())

    def render(self) -> str:
        where = f"{self.location.render()}: " if self.location else ""
        text = f"{where}{self.code} {self.message}"
        for line in self.details:
            text += f"\n  {line}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[object, ...]:
        # by value, whatever a subclass's __init__ takes: a forked worker's error travels
        # back to the parent as a value (skillpack.build.pipeline)
        return (_restore, (type(self), dict(self.__dict__)))


def _restore(cls: type[SkillpackError], state: dict[str, object]) -> SkillpackError:
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, error.render())
    return error


class ConfigError(SkillpackError):
    """The configuration cannot be used."""


class UsageError(SkillpackError):
    """A command was called wrongly."""


def missing_path(path: Path | str, hint: str = "check the path") -> UsageError:
    """The one error for a path given to a command that does not exist (``USE001``)."""
    return UsageError("USE001", "path does not exist", Location(str(path)), hint=hint)


def display_path(path: Path | str, base: Path | None = None) -> str:
    """A path as shown to users: relative to ``base`` (default: cwd) when inside it."""
    p = Path(path)
    try:
        base = (base or Path.cwd()).resolve()
        return p.resolve().relative_to(base).as_posix() if p.is_absolute() else p.as_posix()
    except (ValueError, OSError):
        return p.as_posix()


def report_internal_error(exc: BaseException, program: str = "skillpack") -> int:
    """Report an unexpected exception (a bug) on stderr without a traceback, unless
    ``SKILLPACK_DEBUG`` is set; return :data:`EXIT_INTERNAL`."""
    if os.environ.get("SKILLPACK_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    print(
        f"{program}: internal error: {type(exc).__name__}: {exc}\n"
        "  this is a bug; rerun with SKILLPACK_DEBUG=1 and report the traceback",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


# --- the codes ------------------------------------------------------------------------
def _codes(exit_code: int, *rows: tuple[str, str, str]) -> list[ErrorCode]:
    return [ErrorCode(code, summary, exit_code, doc) for code, summary, doc in rows]


def _lint_rules(*rows: tuple[str, str]) -> list[ErrorCode]:
    """Lint rules that are also raised as errors: the rule's summary, exit 1."""
    doc = "Lint rule [{0}](rules.md#{1}); `skillpack rule {0}` explains it."
    return [ErrorCode(c, s, EXIT_FINDINGS, doc.format(c, c.lower())) for c, s in rows]


F, U = EXIT_FINDINGS, EXIT_USAGE

register(
    Family("USE", "Command line", "How a command was called: its options, arguments and paths."),
    _codes(
        U,
        ("USE000", "the command line cannot be parsed",
         "An unknown command or option, a missing argument, an option without its value, or "
         "a value that is not one of the option's choices or not a number. The message "
         "quotes what was wrong; `skillpack CMD --help` lists the options."),
        ("USE001", "a path given on the command line does not exist",
         "Every command reports a missing input path this way (`lint`, `fmt`, `lock`, "
         "`build`, `verify`, `inspect`, `diff`, `unpack`, `sign`, `serve`); the message "
         "names the path."),
        ("USE002", "`check --scenario` names no conformance scenario",
         "The message lists the scenario names `skillpack check` knows."),
        ("USE003", "`rule` needs a rule code or `--all`, not both and not neither",
         "`skillpack rule SP101` explains one rule, `skillpack rule --all` lists them."),
        ("USE004", "no lint rule has this code or name",
         "`skillpack rule --all` lists every rule with its code and name."),
        ("USE010", "a `--select`, `--extend-select` or `--ignore` selector matches no rule",
         "A selector is a rule code (`SP101`), a code prefix (`SP1`) or `ALL`; "
         "`skillpack rule --all` lists the codes."),
        ("USE013", "`lint` of bundles: a tree path beside them, or `--fix`",
         "`skillpack lint BUNDLE.skp` (or `oci://...`, fetched into the cache) verifies "
         "each bundle and scans its files (the SP5xx rules); it takes only bundles, and "
         "cannot fix them (fix the source tree, then "
         "build again)."),
    ),
)  # fmt: skip

register(
    Family("CFG", "Configuration",
           "`skillpack.toml`, `[tool.skillpack]` in `pyproject.toml` "
           "([configuration.md](configuration.md)) and the environment."),
    _codes(
        U,
        ("CFG001", "the configuration file cannot be found or read",
         "The file given with `--config`, or the one found above the paths, is missing or "
         "unreadable."),
        ("CFG002", "the configuration file is not valid TOML",
         "The message gives the TOML parser's line and column."),
        ("CFG003", "`[tool.skillpack]` in `pyproject.toml` is not a table",
         "`[tool.skillpack]` must be a TOML table: a `[tool.skillpack]` header with the keys "
         "below it, not a value such as `tool.skillpack = \"x\"`. "
         "[configuration.md](configuration.md) shows the keys."),
        ("CFG004", "a configuration key is unknown or its value is invalid",
         "The message names the key; `schemas/config.schema.json` lists the accepted keys "
         "and values."),
        ("CFG005", "a source root of the configuration is not a directory",
         "Fix `roots` or create the directory."),
        ("CFG007", "two source roots overlap: the same directory with different prefixes, "
         "or a root inside another",
         "Every command (`lint`, `lock`, `build`, `serve DIR`) refuses such `roots`: the "
         "skills of the inner root would be published twice, under two skill paths. The "
         "message names both roots; list each directory once (a root inside a dot "
         "directory of another, such as `.claude/skills` beside `.`, does not overlap). "
         "The same entry given twice is merged."),
        ("CFG010", "the `[lint]` configuration is invalid",
         "A selector matching no rule, an unknown severity or a bad `per-path-ignores` "
         "entry; the message names the key."),
        ("CFG020", "`SKILLPACK_JOBS` is not a whole number of processes (1 or more)",
         "`SKILLPACK_JOBS` sets how many processes discovery, lint, lock and build share a "
         "large tree between; unset it for the default (one per CPU, at most 4)."),
        ("CFG030", "a configured output path (`lock`, `[build] output`) is not inside the "
         "project directory",
         "A configuration (perhaps from a cloned repository) may only make skillpack write "
         "below its own directory: the lock and the output directory are paths relative to "
         "the project directory, inside it (symlinks resolved), and the output directory "
         "is not the project directory itself. Every command refuses such a configuration "
         "before any work ([configuration.md](configuration.md#what-skillpack-writes))."),
        ("CFG031", "a configured output path (`lock`, `[build] output`) lies inside a skill",
         "The lock and the bundles are never published: they may not be written into a "
         "skill's directory, where they would replace its files or become part of it. The "
         "project directory itself may be a skill: its lock, and the bundles and "
         "signatures in its output directory, are then left out of it."),
        ("CFG032", "a configured output path names a file skillpack did not write",
         "`lock` and `build` replace only a lock skillpack wrote (it starts with the lock's "
         "prologue, `lock-version = ...`) or a bundle (a zip archive with the bundle "
         "comment), or create a new file: a `lock` naming `README.md` or `skillpack.toml`, "
         "a directory, or an output directory that is a file is refused before any work. "
         "Fix the configuration, or move the file away if skillpack should write there (a "
         "lock damaged beyond its prologue, such as one with merge conflict markers, is "
         "deleted and written again with `skillpack lock`)."),
    ),
)  # fmt: skip

register(
    Family("LCK", "Lock file", "`skillpack.lock` ([bundle-format.md](bundle-format.md))."),
    _codes(
        F,
        ("LCK001", "the lock is not valid TOML", "Regenerate it with `skillpack lock`."),
        ("LCK002", "the lock does not match its schema or describes an invalid manifest",
         "A skill path, URI, file path or digest that a lock written by skillpack cannot "
         "hold; regenerate it with `skillpack lock`."),
        ("LCK003", "the lock's prologue or `index-digest` does not match its content",
         "The lock was edited by hand; regenerate it with `skillpack lock`."),
        ("LCK004", "the lock is stale: it does not describe the tree",
         "From `skillpack lock --check` and `skillpack build --locked`, with the changes "
         "listed (or: the lock is missing, invalid, or not in canonical form). Run "
         "`skillpack lock` and commit the result."),
        ("LCK005", "the lock file cannot be found or read", "Create it with `skillpack lock`."),
        ("LCK006", "the tree holds what no bundle can hold: no lock is written or checked",
         "`lock` refuses what `build` refuses whatever the rule selection (the structural "
         "rules: `skillpack lint` reports them; the details list them)."),
    ),
)  # fmt: skip

register(
    Family("BND", "Bundle reader",
           "Refusals of the bundle reader (`verify`, `inspect`, `diff`, `unpack`, `serve`, "
           "`sign`): the message starts with the archive entry it concerns "
           "([bundle-format.md](bundle-format.md), section 5)."),
    [
        *_codes(
            F,
            ("BND001", "the file is not a zip archive",
             "No zip end-of-central-directory record was found: the file is not a bundle, or it "
             "was cut short (an interrupted download or copy). Fetch it again, or build it with "
             "`skillpack build`."),
            ("BND002", "an entry name is absolute (`/etc/x`)",
             "An entry such as `/etc/x` would land outside the destination in a careless "
             "unpacker; skillpack never writes one. The bundle was made by another tool or "
             "altered: do not use it."),
            ("BND003", "an entry name has a `..` segment",
             "An entry such as `../x` could escape the destination directory (zip slip); "
             "skillpack never writes one. The bundle was made by another tool or altered: do "
             "not use it."),
            ("BND004", "an entry name holds a backslash",
             "A backslash is a separator on Windows, where `a\\..\\x` could escape the "
             "destination; bundle paths use `/` only. The bundle was made by another tool or "
             "altered: do not use it."),
            ("BND005", "an entry name starts with a drive letter (`C:/x`)",
             "An entry such as `C:/x` names another drive on Windows; skillpack never writes "
             "one. The bundle was made by another tool or altered: do not use it."),
            ("BND006", "an entry is not a regular file made on Unix",
             "A symlink, directory, FIFO or device, or an entry without a Unix file type."),
            ("BND007", "two entries have the same name",
             "Two central-directory records name the same entry, so two readers could see "
             "different bytes for one file; skillpack writes each file once. The bundle was "
             "made by another tool or altered: do not use it."),
            ("BND008", "two entry names are equal after NFC normalization and case folding",
             "`A.md` and `a.md` (or a name composed and decomposed) would overwrite each other "
             "on macOS and Windows; `skillpack build` refuses such trees (`BLD003`). The bundle "
             "was made by another tool or altered."),
            ("BND009", "an entry's size differs from the lock",
             "The entry's size in the archive's directory is not the size the lock records: the "
             "archive was altered after it was built (the message names the entry). Fetch it "
             "again from its source, or rebuild it."),
            ("BND010", "an entry inflates to other than its declared size, or claims too much",
             "A compression-ratio bomb (over 1 MiB claiming more than 200:1), data inflating "
             "beyond or short of its declared size, or oversized metadata."),
            ("BND011", "an entry is not listed in the lock",
             "Every entry besides `.skillpack/skillpack.lock` and `.skillpack/index.json` must "
             "be a file the lock lists: a file was added to the archive after it was built. "
             "Fetch it again from its source, or rebuild it."),
            ("BND012", "a file the lock lists is missing from the archive",
             "The lock lists a file the archive does not hold: the archive was altered or cut "
             "short after it was built. Fetch it again from its source, or rebuild it."),
            ("BND013", "the lock inside the archive is invalid or was changed",
             "Not TOML, failing its schema or checks, without the fixed prologue, or not the "
             "lock the index was built from."),
            ("BND014", "the bundle index is malformed or disagrees with the lock",
             "`.skillpack/index.json` is not an index of the expected format, its sha256 is not "
             "the lock's `index-digest`, or it describes another manifest than the lock. The "
             "metadata was edited or damaged: rebuild the bundle with `skillpack build`."),
            ("BND015", "the archive is not a skillpack bundle",
             "No bundle-format archive comment, another format version, or the metadata "
             "entries are missing or not first; build bundles with `skillpack build`."),
            ("BND016", "an entry name is malformed",
             "An empty or `.` segment, a control character, invalid UTF-8, non-ASCII without "
             "the UTF-8 flag, or an unknown name under `.skillpack/`."),
            ("BND017", "the zip structure is corrupt or unsupported",
             "A local header disagreeing with the central directory, a CRC-32 mismatch, bad "
             "deflate data, encryption, a method other than stored or deflate, ZIP64, "
             "multi-disk archives."),
            ("BND019", "an entry is a file where another entry needs a directory",
             "`s/docs` and `s/docs/a.md` (or `s/Docs/a.md`) cannot both exist on a file "
             "system; `skillpack build` refuses such trees (`BLD003`). The bundle was made "
             "by another tool or altered."),
        ),
        *_codes(
            U,
            ("BND018", "the bundle file cannot be opened",
             "It exists but cannot be read (permissions, a directory, an I/O error); the "
             "message gives the system's reason."),
        ),
    ],
)  # fmt: skip

register(
    Family("INT", "Integrity", "File bytes checked against a manifest."),
    _codes(
        F,
        ("INT001", "file bytes differ from the lock's (or the listing's) size or sha256",
         "The server logs it and does not send the file; `verify` and the verifying client "
         "refuse the bundle or skill."),
    ),
)  # fmt: skip

register(
    Family("BLD", "Build", "`skillpack build` ([bundle-format.md](bundle-format.md))."),
    [
        *_codes(
            F,
            ("BLD001", "a file changed or could not be read while the bundle was being built",
             "Run the build again once the files stop changing."),
            ("BLD002", "a file's path cannot be put in a bundle",
             "The path policy refuses it (`skillpack lint` names the rule)."),
            ("BLD003", "two file names differ only in case or Unicode normalization, or "
             "one needs a directory where the other is a file",
             "Rename one: they would overwrite each other on macOS and Windows."),
            ("BLD005", "the bundle exceeds bundle format 1 (4 GiB, 65,532 files)",
             "Bundle format 1 has no ZIP64: at most 65,534 zip entries (0xFFFF marks ZIP64), "
             "the lock and the index among them, and an archive under 4 GiB. Split the skills "
             "into several bundles, or leave large generated files out with `exclude`."),
            ("BLD006", "paths in the skill tree cannot be read",
             "Fix the permissions or exclude them; the details list the paths."),
            ("BLD012", "the tree holds what no bundle can hold: the bundle was not built",
             "With `--no-lint` the structural rules still run (a frontmatter the strict "
             "reader refuses, a symlink, FIFO, unreadable entry or non-UTF-8 name inside a "
             "skill, paths that collide, conflicting copies of a skill): a file that "
             "cannot be published stops the build, naming it, never dropped in silence. "
             "`skillpack lint` reports the same findings; fix them, or exclude what the "
             "skill does not need."),
            ("BLD010", "lint found errors: the bundle was not built",
             "Fix them (`skillpack lint` shows them) or pass `--no-lint`."),
        ),
        *_codes(
            U,
            ("BLD004", "unknown compression (use `deflate` or `stored`)",
             "Only the library's `build()` and bundle writer can meet it: on the command line "
             "`--compression` is checked as a usage error (`USE000`) and `[build] compression` "
             "by the configuration schema (`CFG004`)."),
            ("BLD007", "`SOURCE_DATE_EPOCH` is not a number of seconds",
             "`build` stamps the archive's entries with it, `push` the manifest's creation "
             "time: set it to a Unix time such as `$(git log -1 --format=%ct)`, or unset "
             "it."),
            ("BLD011", "no skills found under the configured roots",
             "A skill is a directory holding `SKILL.md`; check the path and `roots`."),
        ),
    ],
)  # fmt: skip

register(
    Family("LNT", "lint", "`skillpack lint`, besides its [rules](rules.md)."),
    _codes(
        F,
        ("LNT001", "no skill at all was found where lint looked",
         "A tree without a single skill is a finding, not a pass: a pre-commit hook would "
         "pass every commit. The message lists what was searched: the roots, and without "
         "`roots` in the configuration the agent directories and catalog groups "
         "([configuration.md](configuration.md#where-skills-are-found)). Put each skill in "
         "a directory of its own with a `SKILL.md`, or set `roots`."),
    ),
)  # fmt: skip

register(
    Family("DIF", "diff", "`skillpack diff A B`: exit 2 for any error (1 means different)."),
    _codes(
        U,
        ("DIF001", "a side of the comparison cannot be read",
         "A bundle, a lock or a skill tree is expected; the message gives the reason."),
    ),
)  # fmt: skip

register(
    Family("UNP", "unpack", "`skillpack unpack BUNDLE DIR`."),
    [
        *_codes(
            U,
            ("UNP001", "the destination exists and is not an empty directory",
             "Choose a new or empty directory, or pass `--force` to write into it."),
        ),
        *_codes(
            F,
            ("UNP002", "a path in the destination is in the way",
             "A file, or a symlink (never followed), where the bundle has a directory, or a "
             "directory or symlink where it has a file."),
        ),
    ],
)  # fmt: skip

register(
    Family("SIG", "Signing and verification",
           "`sign`, `keygen`, `build --sign`, `verify` and `serve --require-signature` "
           "([signing.md](signing.md))."),
    [
        *_codes(
            F,
            ("SIG001", "the signature file is missing or unreadable",
             "Sign the bundle with `skillpack sign`, or name the file with `--signature`."),
            ("SIG002", "the signature file is not a usable Sigstore bundle",
             "Not JSON, not a Sigstore bundle, or a signature over raw bytes rather than a "
             "skillpack statement."),
            ("SIG003", "the signing certificate does not chain to the trusted root",
             "The keyless signature's certificate was not issued by the Fulcio of the trusted "
             "root in use. For a bundle signed on another sigstore instance, pass its "
             "`--trust-config FILE` or `--staging`; `--online` refreshes the shipped root."),
            ("SIG004", "the signer does not match the policy",
             "The certificate's identity, issuer or GitHub workflow claims differ from the "
             "options; the details show both."),
            ("SIG005", "the transparency log entry is invalid",
             "The signature's Rekor transparency log entry (its inclusion proof or signed entry "
             "timestamp) does not verify against the trusted root: the signature file was "
             "altered, or comes from another instance (`--trust-config`, `--staging`)."),
            ("SIG006", "the signature does not verify",
             "The signature over the statement does not verify (a key-mode envelope must hold "
             "exactly one): the signature file was altered, or belongs to other content. For a "
             "keyless signature the details quote sigstore's reason."),
            ("SIG007", "the signed payload type is not in-toto",
             "The DSSE envelope's payload type is not in-toto's "
             "(`application/vnd.in-toto+json`): the signature was not made by `skillpack sign`. "
             "Sign the bundle with it."),
            ("SIG008", "the signed statement is malformed",
             "Not JSON, not an in-toto Statement v1 with one subject, or a predicate that "
             "does not match its schema."),
            ("SIG009", "the predicate type is not skillpack's bundle predicate",
             "The signature is not a skillpack bundle signature."),
            ("SIG010", "the signed subject digest is not the archive's sha256",
             "The archive is not the one that was signed."),
            ("SIG011", "the lock inside the archive is not the signed lock",
             "The signed statement records the sha256 of the lock the signer saw, and the "
             "bundle's `.skillpack/skillpack.lock` is another (the details show both). The "
             "statement was made for another build: do not use the bundle, or sign the one you "
             "have."),
            ("SIG012", "the archive's files are not the signed files",
             "The files the signed statement lists (URI, sha256, size) are not the files of the "
             "bundle: some are unsigned, missing or different (the details list them). The "
             "statement was made for another build: do not use the bundle, or sign the one you "
             "have."),
            ("SIG013", "the key-mode signature does not verify with the given public key",
             "`--key` names another public key than the one that signed the bundle (the "
             "signature's key hint differs), or the signature does not verify with it. Verify "
             "with the signer's `skillpack.pub`."),
            ("SIG014", "the kind of signature does not match the options",
             "`--key` checks a key-mode signature; `--cert-identity` and `--repository` a "
             "keyless one."),
            ("SIG099", "verification failed unexpectedly",
             "Verification fails closed: the bundle is rejected. Rerun with "
             "`SKILLPACK_DEBUG=1` to see why."),
        ),
        *_codes(
            U,
            ("SIG015", "the archive cannot be read for verification",
             "Verification hashes the whole archive; the file exists but cannot be read "
             "(permissions, a directory, an I/O error). The message gives the system's reason."),
            ("SIG020", "the signing or verification options are incomplete or conflict",
             "The message says which options go together."),
            ("SIG021", "the trusted root or trust configuration cannot be loaded",
             "Check the network, or pin one with `--trust-config FILE`."),
            ("SIG030", "no identity token for keyless signing",
             "Pass `--identity-token`, run in CI with an OIDC credential, run in a terminal "
             "for the browser flow, or sign with `--key`."),
            ("SIG031", "the identity token was rejected",
             "The OIDC identity token (from `--identity-token`, `SIGSTORE_IDENTITY_TOKEN`, the "
             "CI or the browser flow) is expired, malformed or not accepted by sigstore; the "
             "message quotes why. Get a fresh token and sign again."),
            ("SIG032", "the signing service failed",
             "Fulcio (the signing certificate) or Rekor (the transparency log) refused or "
             "failed the request; the message quotes sigstore. Retry later; with `--staging` or "
             "`--trust-config`, check that instance is up."),
            ("SIG033", "refusing to overwrite an existing key file",
             "Move it away first, or pass `--out-dir DIR`."),
            ("SIG034", "the key file cannot be used",
             "Unreadable, not PEM, a wrong password (`SKILLPACK_KEY_PASSWORD`), or not an EC "
             "key on P-256, P-384 or P-521."),
        ),
    ],
)  # fmt: skip

register(
    Family("SRV", "serve",
           "`skillpack serve` start-up ([serve.md](serve.md)); once serving, problems are "
           "JSON-RPC errors and log lines."),
    [
        *_codes(
            F,
            ("SRV003", "lint found errors in a served directory",
             "Fix them (`skillpack lint`), or pass `--no-lint` to serve anyway."),
            ("SRV011", "a served directory holds what no bundle can hold",
             "`serve DIR --no-lint` still refuses what `build --no-lint` refuses (the "
             "structural rules; `skillpack lint` reports them)."),
        ),
        *_codes(
            U,
            ("SRV004", "no skills found in a served directory",
             "A skill is a directory holding `SKILL.md`; check the path and `roots`."),
            ("SRV005", "invalid `--prefix`",
             "`/`-separated segments of letters, digits and `- . _ ~`."),
            ("SRV006", "two sources publish the same URI, or one lies inside another's skill",
             "Serve them under different `--prefix` values, or drop one."),
            ("SRV007", "a file is listed twice with different sizes or digests",
             "Rebuild the bundle."),
            ("SRV008", "only `skill://` URIs can be mounted under a prefix",
             "Every URI skillpack writes is `skill://...`; a served source listing another was "
             "made by hand or altered. Rebuild the bundle with `skillpack build`, or serve it "
             "without `--prefix`."),
            ("SRV009", "the number of `--prefix` values matches neither one nor the sources",
             "Give `--prefix` once (for every source) or once per source."),
            ("SRV010", "`--require-signature` with a directory source",
             "Only bundles carry signatures: build and sign one, or drop "
             "`--require-signature`."),
            ("SRV020", "`--http` needs the optional HTTP server, which is not installed",
             "Install it with `pip install 'skillpack[http]'`; stdio needs nothing more."),
            ("SRV021", "the bearer token is missing where it is required, unreadable, or "
             "malformed",
             "A non-loopback `--http` address needs `--token-file FILE` (or "
             "`SKILLPACK_SERVE_TOKEN`), or `--no-auth` to serve it without authentication "
             "on purpose; a token is one line of visible ASCII."),
            ("SRV022", "the `--http` address cannot be resolved or listened on",
             "Choose another port (0 picks a free one) or stop what is using it."),
            ("SRV023", "`--certfile`/`--keyfile`: missing, alone, or not a certificate and "
             "its key",
             "Give a PEM certificate (chain) and its unencrypted PEM private key."),
            ("SRV025", "an HTTP option is given without `--http`",
             "`--path`, `--workers`, `--token-file`, `--allow-host` and the other options "
             "of the Streamable HTTP group configure the HTTP transport only: add `--http "
             "[HOST:]PORT`, or drop them to serve on stdio. The message names them."),
            ("SRV026", "`--workers` above 1 on a system without `fork()`",
             "The HTTP workers are forked processes; serve from one worker there (the "
             "default)."),
        ),
        *_codes(
            F,
            ("SRV024", "the HTTP workers keep exiting",
             "More than ten restarts within a minute; the log shows why they exit."),
        ),
    ],
)  # fmt: skip

register(
    Family("PUL", "pull",
           "`skillpack pull oci://...`: what it writes. The fetch's own codes are `REG` "
           "([registry.md](registry.md)), the bundle's `BND` and `INT`, the signature's `SIG`."),
    _codes(
        F,
        ("PUL002", "the bundle's name and version do not make a file name",
         "Name the output with `-o FILE`."),
    ),
)  # fmt: skip

register(
    Family("CLI", "Verifying MCP client and conformance transport",
           "`skillpack vendor` and `skillpack check` talking to a server "
           "([check.md](check.md))."),
    [
        *_codes(
            F,
            ("CLI001", "the server could not be started, died, or did not answer in time",
             "The details show what the server wrote on stdout that is not JSON-RPC, and "
             "the end of its stderr."),
            ("CLI003", "the server answered a request with a JSON-RPC error, or with a reply "
             "that is not JSON-RPC",
             "The message names the method and the server's error code and message; nothing "
             "was written."),
            ("CLI101", "a skill entry's URI is not a skill URI ending in `/SKILL.md`",
             "An entry of `skills/list` (or `skills/get`) must have a `uri` of the form "
             "`skill://PATH/SKILL.md` with a non-empty skill path. The server does not follow "
             "the Skills extension; `vendor` writes nothing."),
            ("CLI102", "a skill entry's frontmatter is missing, or lacks name or description",
             "An entry carries its skill's frontmatter as an object with a string `name` and "
             "`description`; this one does not. The server (or the bundle it serves) is at "
             "fault; `vendor` writes nothing."),
            ("CLI103", "a skill's name differs from the last segment of its skill path",
             "Agent Skills requires `name` to be the skill's directory name, the last segment "
             "of its skill path; a host must not load the skill. Fix its `name` (`skillpack "
             "lint` reports it as `SP103`); `vendor` writes nothing."),
            ("CLI104", "a skill's resources are \"dynamic\": no digests to verify",
             "Pass `--allow-dynamic` to accept generated skills."),
            ("CLI105", "a skill entry's resources are malformed",
             "`resources` must be an array of `{uri, digest, size}` objects or the string "
             "`\"dynamic\"`; any other entry cannot be verified and hosts must not load it. "
             "`vendor` writes nothing."),
            ("CLI106", "a listed file's digest or size is malformed",
             "A listed file's `digest` must be `sha256:` and 64 lowercase hexadecimal digits, "
             "and its `size` an integer of 0 or more. The listing is malformed; `vendor` writes "
             "nothing."),
            ("CLI107", "a listed file lies outside its skill, is listed twice or is malformed",
             "Each listed file must lie below its skill's root (no empty, `.` or `..` segment, "
             "percent-encoded UTF-8) and be listed once; otherwise a client could be made to "
             "write outside the skill. `vendor` writes nothing."),
            ("CLI108", "a skill's manifest does not list `SKILL.md` itself",
             "A skill's `resources` must list its own `SKILL.md`, with a digest, so that the "
             "instructions themselves are verified. `vendor` writes nothing."),
            ("CLI109", "`resources/read` returned no usable content",
             "`resources/read` of a listed file returned no content for that URI, or content "
             "with neither `text` nor a valid base64 `blob`. `vendor` writes nothing; the "
             "server's log may say why."),
            ("CLI110", "the served `SKILL.md` has frontmatter the strict reader refuses",
             "The served `SKILL.md` fails skillpack's strict frontmatter reader; the message "
             "gives the line and the `SP` code (`skillpack rule CODE` explains it). `vendor` "
             "writes nothing."),
            ("CLI111", "the served frontmatter differs from the listed entry",
             "The frontmatter of the served `SKILL.md` is not the one the listing announced "
             "(the message names the keys that differ): the file changed after the listing, or "
             "the server is inconsistent. Nothing is written; run `vendor` again."),
            ("CLI112", "a read names a file the held manifest does not list",
             "The verifying client reads only the files listed in the manifest it holds for a "
             "skill; a read of any other URI is refused before a request is sent. A program "
             "using `skillpack.client` asked for a file the listing does not name."),
            ("CLI113", "a file's bytes differ from the listed size or digest",
             "The bytes `resources/read` returned do not have the listed size or sha256: the "
             "file changed after the listing, or the server (or something between) alters it. "
             "`vendor` writes nothing."),
            ("CLI114", "a listed path is unsafe to write, or one skillpack never publishes",
             "`..`, empty or `.` segments, a segment starting with a dot (`.git/`, "
             "`.github/`), backslashes and control characters: the path policy of the "
             "bundle writer and reader. Nothing was written."),
            ("CLI115", "two entries list the same file with different digests",
             "Nested skills share files, and two entries list the same file URI with different "
             "digests: they cannot both be right. `vendor` writes nothing."),
            ("CLI116", "a dynamic skill exceeds 16 MiB",
             "A skill whose `resources` is `\"dynamic\"` (accepted with `--allow-dynamic`) has "
             "no digests; its files are read one by one and may total at most 16 MiB. `vendor` "
             "writes nothing."),
            ("CLI117", "two listed paths are one file on macOS or Windows, or one needs a "
             "directory where another is a file",
             "`README.md` and `readme.md`, NFC and NFD forms of `café.md`, `docs` and "
             "`docs/a.md`, or two URIs that decode to the same path: skillpack never "
             "publishes such a tree, and `vendor` refuses it before writing anything."),
        ),
        *_codes(
            U,
            ("CLI002", "no server given: no command after `--` and no `--url`",
             "Put the server command after `--` (`skillpack check -- skillpack serve "
             "skills.skp`), or give `--url http(s)://HOST:PORT/PATH` of a running one."),
            ("CLI004", "both a server command after `--` and `--url`",
             "`-- CMD` spawns a server, `--url` reaches a running one: give one of them."),
            ("CLI005", "the `--url` is not an http:// or https:// URL with a host",
             "Give the MCP endpoint of a Streamable HTTP server, such as "
             "`http://127.0.0.1:8080/mcp`."),
            ("CLI120", "the `--into` directory exists and is not empty",
             "Choose a new directory or pass `--force` to replace it."),
            ("CLI121", "no listed skill matches `--skill`",
             "`--skill` takes a skill's name, skill path or `SKILL.md` URI; `skillpack vendor` "
             "without `--into` lists what the server offers. Nothing was written."),
            ("CLI122", "the server does not declare the skills extension",
             "`io.modelcontextprotocol/skills` must be among the server's extensions."),
        ),
    ],
)  # fmt: skip

register(
    Family("SP", "Frontmatter and unreadable files (lint rules raised as errors)",
           "The strict frontmatter reader refuses these for `build`, `lock`, `serve DIR` and "
           "`fmt`; `lint` reports the same codes as findings. Each is a lint rule: "
           "`skillpack rule CODE` and [rules.md](rules.md) explain it."),
    _lint_rules(
        ("SP001", "SKILL.md does not start with a '---' frontmatter fence."),
        ("SP002", "The frontmatter opened on line 1 is never closed by a '---' line."),
        ("SP003", "The frontmatter is not valid YAML."),
        ("SP004", "The frontmatter is empty or not a mapping of keys to values."),
        ("SP005", "The frontmatter holds a YAML directive ('%YAML' or '%TAG')."),
        ("SP006", "A value carries an explicit YAML tag ('!!str', '!custom')."),
        ("SP007", "The frontmatter uses an anchor ('&a') or an alias ('*a')."),
        ("SP008", "The frontmatter uses a '<<' merge key."),
        ("SP009", "A mapping key is not a string (a number, boolean, null, list or mapping)."),
        ("SP010", "A mapping has the same key twice."),
        ("SP011", "The frontmatter nests more than 16 levels deep."),
        ("SP012", "The frontmatter block is larger than 64 KiB."),
        ("SP013", "A plain (unquoted) value reads differently in YAML 1.1 and YAML 1.2."),
        ("SP014", "The frontmatter contains NEL (U+0085), LINE SEPARATOR (U+2028) or PARAGRAPH "
         "SEPARATOR (U+2029)."),
        ("SP015", "An integer lies outside ±(2^53−1) or a number is too large for JSON."),
        ("SP016", "The frontmatter holds a '---' or '...' document marker inside the block."),
        ("SP017", "SKILL.md is not valid UTF-8."),
        ("SP018", "A quoted value's escape produces a surrogate code point (U+D800-U+DFFF)."),
        ("SP306", "A file or directory inside a skill cannot be read."),
    ),
)  # fmt: skip

register(
    Family("OUT", "Output",
           "What a command prints on standard output, and the files it writes where it is "
           "told to: `-o` (`lint`, `build`, `sign`, `pull`, `push --sign`), `keygen "
           "--out-dir`, and the configured lock and output directory. `-o -` is standard "
           "output; a FIFO, character device or socket (or a symlink to one) is written "
           "through; a symlink to a regular file stays a link and the file it points to is "
           "replaced; any other file is replaced atomically, missing directories created. "
           "A failed command replaces nothing, and messages name the path as given, never "
           "a temporary file."),
    [
        *_codes(
            F,
            ("OUT001", "the output cannot be written (a full disk, an I/O error)",
             "The command's own outcome stands if it failed; otherwise it exits 1. A reader "
             "that goes away (`skillpack lint | head`) is not a failure: the output is "
             "dropped and the exit code is the command's."),
            ("OUT003", "writing a file failed: no space left, a file size limit, permissions, "
             "a read-only file system, an I/O error, a reader that went away",
             "Nothing was replaced: the previous file (and for `build`, the previous lock) is "
             "as it was. The message names the path and gives the system's reason."),
        ),
        *_codes(
            U,
            ("OUT002", "an output path cannot be a file: a directory, a parent that is a "
             "file, a name too long, a block device",
             "Name a file (its missing directories are created), a FIFO, a character device, "
             "a socket, or `-` for standard output."),
            ("OUT004", "`-o` names a path inside a skill of the tree being built or linted",
             "A report or bundle written there would replace a file of the skill or be "
             "published with it by the next build. Write it outside every skill; the "
             "output directory (`[build] output`, default `dist`) is never published, even "
             "inside a project that is itself a skill."),
        ),
    ],
)  # fmt: skip

RETIRED.update(
    {
        "CFG006": "a missing path is USE001 in every command",
        "PUL001": "a failed write is OUT002 or OUT003 in every command",
        "REG052": "a bad SOURCE_DATE_EPOCH is BLD007 in every command (build, push)",
        "SRV001": "a missing path is USE001 in every command",
    }
)

del F, U


# --- docs/errors.md -------------------------------------------------------------------
DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "docs" / "errors.md"


def load_package_tables() -> None:
    """Import the modules of :data:`PACKAGE_TABLES` (they register their tables)."""
    import importlib

    for name in PACKAGE_TABLES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise


def render_markdown() -> str:
    """The whole of ``docs/errors.md``."""
    out = [
        "# Error codes",
        "",
        "<!-- Generated by `python -m skillpack.errors` from skillpack/errors.py. Do not edit. -->",
        "",
        "Every failure is reported on stderr as `[path[:line[:column]]: ]CODE message`, "
        "then details and a `hint:` line saying what to do, and the process exits with the "
        "code's exit status. Lint findings are rules, documented in [rules.md](rules.md).",
        "",
        "| Exit | Meaning |",
        "|---|---|",
        *(f"| {code} | {meaning} |" for code, meaning in EXIT_CODES.items()),
    ]
    for family in sorted(FAMILIES.values(), key=lambda f: _family_order(f.prefix)):
        out += ["", f"## {family.prefix}: {family.title}", ""]
        if family.doc:
            out += [family.doc, ""]
        out += ["| Code | Exit | Meaning |", "|---|---|---|"]
        entries = sorted((e for e in CODES.values() if _prefix(e.code) == family.prefix),
                         key=lambda e: e.code)  # fmt: skip
        for entry in entries:
            summary = entry.summary[:1].upper() + entry.summary[1:]
            text = f"**{summary.rstrip('.')}.**" + (f" {entry.doc}" if entry.doc else "")
            out.append(f"| {entry.code} | {entry.exit_code} | {text.replace('|', chr(92) + '|')} |")
    if RETIRED:
        out += ["", "## Retired codes", "", "Never raised again and never reused.", ""]
        out += ["| Code | Now |", "|---|---|"]
        out += [f"| {code} | {now} |" for code, now in sorted(RETIRED.items())]
    return "\n".join(out) + "\n"


def _prefix(code: str) -> str:
    return code.rstrip("0123456789")


_ORDER = (
    "USE",
    "CFG",
    "SP",
    "LCK",
    "BND",
    "INT",
    "BLD",
    "DIF",
    "UNP",
    "SIG",
    "REG",
    "PUL",
    "INS",
    "SRV",
    "CLI",
    "OUT",
)


def _family_order(prefix: str) -> tuple[int, str]:
    return (_ORDER.index(prefix) if prefix in _ORDER else len(_ORDER), prefix)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m skillpack.errors", description="Generate docs/errors.md."
    )
    parser.add_argument("output", nargs="?", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    load_package_tables()
    text = render_markdown()
    if args.check:
        current = args.output.read_text("utf-8") if args.output.is_file() else ""
        if current != text:
            print(f"{args.output} is out of date: run python -m skillpack.errors", file=sys.stderr)
            return 1
        return 0
    data = text.encode("utf-8")
    # not skillpack._internal.fsutil: it reports failures with this registry's codes
    if not args.output.is_file() or args.output.read_bytes() != data:
        args.output.write_bytes(data)
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":  # the registry of record is the imported module, not __main__
    from skillpack.errors import main as _main

    sys.exit(_main())
