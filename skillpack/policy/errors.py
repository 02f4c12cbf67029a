"""The ``ADM…`` codes of admission, registered when this package is imported."""

from __future__ import annotations

from skillpack.errors import EXIT_FINDINGS, EXIT_USAGE, ErrorCode, Family, register

F, U = EXIT_FINDINGS, EXIT_USAGE

FAMILY = Family(
    "ADM",
    "admission",
    "What install, pull and serve let in from elsewhere: the content scan (the `SP5xx` "
    "rules of `skillpack lint`) run by the consumer's skillpack over every verified file, "
    "whoever built the bundle.",
)

CODES: tuple[ErrorCode, ...] = (
    ErrorCode("ADM001", "the content scan found what the consumer does not admit", F,
              "An error-level finding of the content scan (hidden characters, a hidden "
              "directive, a dangerous command) in a file of a skill being installed, pulled "
              "or served. Nothing is written (serve: the file is not sent). Each finding is "
              "listed with its skill, file, line and rule; read it with `skillpack rule "
              "CODE`. To let it in after review: `--accept SKILL:CODE`. A warning code "
              "that a policy's `[scan] block` makes refuse names that rule and its file; "
              "an `[[accept]]` made for other bytes of the file is named with both "
              "digests. `serve` refuses to start when a listed skill's frontmatter holds "
              "such a finding (every host receives it before any file is read)."),
    ErrorCode("ADM002", "an `--accept` value is not SKILL:CODE", U,
              "Name the skill (its name or skill path) and a content-scan rule code: "
              "`--accept pdf-tools:SP520`."),
    ErrorCode("ADM003", "the policy does not admit the source", F,
              "A policy file lists `[[source]]` patterns and this source matches none of "
              "them. The message names the file and its patterns; every layer (your policy, "
              "the project's) must admit a source."),
    ErrorCode("ADM004", "a policy file cannot be used", U,
              "Not readable, not TOML, an unknown key or a bad value (named with its line), "
              "an `[[accept]]` in a project's policy (a project can only tighten), or two "
              "layers requiring different keys for one source. See docs/policy.md."),
)  # fmt: skip

register(FAMILY, CODES)
