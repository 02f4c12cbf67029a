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
    ErrorCode("PLG005", "`--host` names no host skillpack writes manifests for", U,
              "The hosts are `claude`, `codex`, `cursor` and `gemini`."),
    ErrorCode("PLG006", "`plugins --check`: a manifest differs from what skillpack writes", F,
              "Each file and field that differs is listed (`--diff` prints the change); "
              "`skillpack plugins` writes them."),
    ErrorCode("PLG007", "the skills changed but the version did not", F,
              "The skills differ from `skillpack.lock` while `version` in `skillpack.toml` "
              "is the one the lock records. Hosts cache a plugin by its version (Claude "
              "Code keeps the copy of a version it installed first): bump `version`, then "
              "run `skillpack lock` and `skillpack plugins`."),
    ErrorCode("PLG008", "a manifest's place leads outside the project", U,
              "A manifest, or a directory on its way, is a symbolic link or a special file, "
              "or a skill lies outside the project; skillpack writes only regular files "
              "inside it."),
    ErrorCode("PLG009", "the project has no skill to publish", U,
              "A plugin without skills installs nothing; `skillpack lint` says where skills "
              "were searched."),
)  # fmt: skip

register(FAMILY, CODES)
