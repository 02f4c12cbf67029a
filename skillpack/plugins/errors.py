"""The ``PLG…`` codes of the host plugin manifests (reading a marketplace, ``skillpack
plugins``), registered in the project's error registry when this package is imported."""

from __future__ import annotations

from skillpack.errors import EXIT_FINDINGS, EXIT_USAGE, ErrorCode, Family, register

F, U = EXIT_FINDINGS, EXIT_USAGE

FAMILY = Family(
    "PLG",
    "plugins",
    "The host plugin manifests: `skillpack plugins` ([plugins.md](plugins.md)) and reading "
    "a marketplace. `skillpack lint` reports the same problems as the rules SP6xx.",
)

CODES: tuple[ErrorCode, ...] = (
    ErrorCode("PLG001", "the marketplace file was not found", U,
              "Claude Code reads `.claude-plugin/marketplace.json`, Codex "
              "`.agents/plugins/marketplace.json`, at the root of the repository."),
    ErrorCode("PLG002", "a manifest is not strict JSON", U,
              "The message names the file, line and column. Comments, trailing commas, a "
              "byte order mark and a key given twice are refused: hosts read these files "
              "with `JSON.parse` or serde, and a repeated key silently keeps the last value."),
    ErrorCode("PLG003", "a manifest does not have the shape its host reads", U,
              "A required field missing or of the wrong type (the message names the field "
              "and its place). `skillpack lint` lists every such problem (SP6xx)."),
    ErrorCode("PLG004", "the marketplace lists no plugin of that name", U,
              "The message lists the plugins it does list."),
)  # fmt: skip

register(FAMILY, CODES)
