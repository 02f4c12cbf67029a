"""Project configuration: ``[tool.skillpack]`` in ``pyproject.toml`` or ``skillpack.toml``.

The configuration is found by walking up from the first path given (or the current
directory) to the first directory holding a ``skillpack.toml`` or a ``pyproject.toml``
with a ``[tool.skillpack]`` table (``skillpack.toml`` wins in the same directory). It
is validated against ``schemas/config.schema.json``; an error names the file and key.
Without a configuration file, the defaults below apply with the given directory as
the project directory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillpack._internal.options import SIGNER_KEYS
from skillpack._internal.schemas import schema_path, validation_errors
from skillpack._internal.uri import SKILL_MD
from skillpack.errors import ConfigError, Location, missing_path
from skillpack.source.config_check import conforms
from skillpack.source.configfile import CONFIG_FILE as CONFIG_FILE
from skillpack.source.configfile import PYPROJECT as PYPROJECT
from skillpack.source.configfile import find_config as find_config
from skillpack.source.configfile import has_tool_table

DEFAULT_LOCK = "skillpack.lock"
IGNORE_FILE = ".skillpackignore"

#: Paths never published unless ``exclude`` is set explicitly. Dot entries (``.git``,
#: ``.env``, ``.DS_Store``) are always left out by discovery and need no pattern here.
DEFAULT_EXCLUDE: tuple[str, ...] = ("__pycache__/", "*.py[cod]", "node_modules/")


@dataclass(frozen=True)
class Root:
    """A source root: a directory searched for skills, and the skill-path prefix of its skills."""

    path: Path
    prefix: str = ""
    #: why discovery searches it when the configuration does not name it: an agent
    #: directory or a catalog group (see :func:`skillpack.source.discovery.search_roots`)
    conventional: str = ""


@dataclass(frozen=True)
class LintConfig:
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    per_path_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class BuildConfig:
    output: str = "dist"
    compression: str = "deflate"


@dataclass(frozen=True)
class InstallDecl:
    """One ``[[install]]`` table: skills the project installs into agent directories
    (``skillpack install`` with no SOURCE installs them; docs/install.md)."""

    #: a ``.skp`` path or a directory (relative to the configuration's directory),
    #: ``oci://``, or a git source (``git+URL[@REF][#path=DIR]``, ``github:OWNER/REPO``)
    source: str
    skills: tuple[str, ...] = ()  #: frontmatter names; empty: every skill
    agents: tuple[str, ...] = ()  #: agent names; empty: the agents found in the project
    link: bool = False
    require_signature: bool = False
    #: the signer policy, by the verification options' field names (``cert_identity``,
    #: ``repository``, ``key`` made absolute, ...)
    signer: Mapping[str, Any] = field(default_factory=dict)


#: ``[[install]]`` keys that name the signer, and the policy fields they set
INSTALL_SIGNER_KEYS = SIGNER_KEYS


@dataclass(frozen=True)
class ProjectMeta:
    """What the configuration says about the project besides its skills: the fields
    ``skillpack plugins`` writes into the host plugin manifests (docs/plugins.md)."""

    name_given: bool = False  #: ``name`` is set (not derived from the directory)
    version_given: bool = False
    description: str = ""
    author: Mapping[str, str] | None = None  #: ``{"name", "email"?, "url"?}``
    homepage: str = ""
    repository: str = ""
    license: str = ""
    keywords: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()  #: ``[plugins] hosts``: the hosts written by default
    #: ``[plugins.HOST]``: fields written into that host's plugin manifest
    extras: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


def _meta(table: Mapping[str, Any]) -> ProjectMeta:
    author = table.get("author")
    plugins = table.get("plugins", {})
    return ProjectMeta(
        name_given="name" in table,
        version_given="version" in table,
        description=table.get("description", ""),
        author={"name": author} if isinstance(author, str) else author,
        homepage=table.get("homepage", ""),
        repository=table.get("repository", ""),
        license=table.get("license", ""),
        keywords=tuple(table.get("keywords", ())),
        hosts=tuple(plugins.get("hosts", ())),
        extras={k: v for k, v in plugins.items() if k != "hosts"},
    )


@dataclass(frozen=True)
class Config:
    """A loaded, validated configuration with every path made absolute."""

    project_dir: Path
    source: Path | None
    name: str
    version: str
    roots: tuple[Root, ...]
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    lock_path: Path = Path(DEFAULT_LOCK)
    lint: LintConfig = field(default_factory=LintConfig)
    build: BuildConfig = field(default_factory=BuildConfig)
    #: ``roots`` is not configured: discovery also searches the agent directories and
    #: catalog groups under the project directory (docs/configuration.md lists them)
    conventional_roots: bool = False
    installs: tuple[InstallDecl, ...] = ()
    meta: ProjectMeta = field(default_factory=ProjectMeta)

    @property
    def source_display(self) -> str:
        return str(self.source) if self.source else "(defaults)"

    @property
    def output_dir(self) -> Path:
        """The bundles' directory (``[build] output``), absolute, symlinks resolved."""
        return (self.project_dir / self.build.output).resolve()


def _read_table(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "CFG001", f"cannot read configuration: {exc}", Location(str(path))
        ) from exc
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            "CFG002", f"not valid TOML: {exc}", Location(str(path)), hint="fix the TOML syntax"
        ) from exc
    if path.name == PYPROJECT:
        table = data.get("tool", {}).get("skillpack")
        if not isinstance(table, dict):
            raise ConfigError("CFG003", "[tool.skillpack] must be a table", Location(str(path)))
        return table
    return data


def _sanitize_name(name: str) -> str:
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in name)
    cleaned = cleaned.strip("-._") or "skills"
    return cleaned


def config_from_table(table: Mapping[str, Any], project_dir: Path, source: Path | None) -> Config:
    """Validate a configuration table and turn it into a :class:`Config`."""
    where = str(source) if source else "(configuration)"
    prefix_key = "tool.skillpack." if source is not None and source.name == PYPROJECT else ""
    # a table that conforms (the usual case, and no configuration file at all) needs no
    # jsonschema, whose import alone takes longer than a small build; it names the rest
    errors = (
        []
        if conforms(table)
        else validation_errors("config.schema.json", dict(table), name_unknown_keys=True)
    )
    if errors:
        key, message = errors[0]
        raise ConfigError(
            "CFG004",
            f"invalid configuration key '{prefix_key}{key}': {message}",
            Location(where),
            # the installed copy: a pip user has no checkout to look in
            hint=f"the accepted keys and values are in {schema_path('config.schema.json')}",
            details=[f"also: '{prefix_key}{k}': {m}" for k, m in errors[1:5]],
        )
    roots: list[Root] = []
    for item in table.get("roots", ["."]):
        if isinstance(item, str):
            root = Root((project_dir / item).resolve(), "")
        else:
            root = Root((project_dir / item["path"]).resolve(), item.get("prefix", ""))
        if root not in roots:  # the same root twice is one root
            roots.append(root)
    for root in roots:
        if not root.path.is_dir():
            raise ConfigError(
                "CFG005",
                f"source root '{root.path}' is not a directory",
                Location(where),
                hint="fix 'roots' or create the directory",
            )
    _refuse_overlapping(roots, project_dir, where)
    lint_table = table.get("lint", {})
    lint = LintConfig(
        select=tuple(lint_table.get("select", ("ALL",))),
        extend_select=tuple(lint_table.get("extend-select", ())),
        ignore=tuple(lint_table.get("ignore", ())),
        severity=dict(lint_table.get("severity", {})),
        per_path_ignores=tuple(
            (pattern, tuple(codes))
            for pattern, codes in sorted(lint_table.get("per-path-ignores", {}).items())
        ),
    )
    build_table = table.get("build", {})
    exclude = tuple(table.get("exclude", DEFAULT_EXCLUDE)) + tuple(table.get("extend-exclude", ()))
    config = Config(
        project_dir=project_dir,
        source=source,
        name=table.get("name") or _sanitize_name(project_dir.name),
        version=table.get("version", "0.0.0"),
        roots=tuple(roots),
        include=tuple(table.get("include", ())),
        exclude=exclude,
        lock_path=(project_dir / table.get("lock", DEFAULT_LOCK)).resolve(),
        lint=lint,
        build=BuildConfig(
            output=build_table.get("output", "dist"),
            compression=build_table.get("compression", "deflate"),
        ),
        conventional_roots="roots" not in table,
        installs=tuple(_install_decl(t, project_dir) for t in table.get("install", ())),
        meta=_meta(table),
    )
    _confine_outputs(config, table, where, prefix_key)
    return config


def _install_decl(table: Mapping[str, Any], project_dir: Path) -> InstallDecl:
    signer: dict[str, Any] = {}
    for key, name in INSTALL_SIGNER_KEYS.items():
        if key in table:
            value = table[key]
            signer[name] = (
                (project_dir / value).resolve() if key in ("key", "trust-config") else value
            )
    return InstallDecl(
        source=table["source"],
        skills=tuple(table.get("skills", ())),
        agents=tuple(table.get("agents", ())),
        link=table.get("link", False),
        require_signature=table.get("require-signature", False),
        signer=signer,
    )


# --- roots and outputs ----------------------------------------------------------------
def _shown(path: Path, project_dir: Path) -> str:
    try:
        return path.relative_to(project_dir.resolve()).as_posix() or "."
    except ValueError:
        return str(path)


def _walked_into(inner: Path, outer: Path) -> bool:
    """Whether the walk of the root ``outer`` reaches ``inner`` (at or below it, without
    passing a dot directory, which discovery never enters)."""
    if inner == outer:
        return True
    if not inner.is_relative_to(outer):
        return False
    return not any(part.startswith(".") for part in inner.relative_to(outer).parts)


def _refuse_overlapping(roots: Sequence[Root], project_dir: Path, where: str) -> None:
    """``CFG007`` when two roots overlap: one directory under two prefixes, or a root the
    walk of another reaches (its skills would be published twice, under two skill paths).
    The same entry twice was merged already."""
    for i, first in enumerate(roots):
        for second in roots[i + 1 :]:
            outer, inner = (
                (first, second) if _walked_into(second.path, first.path) else (second, first)
            )
            if not _walked_into(inner.path, outer.path):
                continue
            a, b = _shown(outer.path, project_dir), _shown(inner.path, project_dir)
            if inner.path == outer.path:
                what = (
                    f"root '{a}' is listed twice, with prefixes "
                    f"'{outer.prefix}' and '{inner.prefix}'"
                )
            else:
                what = f"root '{b}' lies inside root '{a}'"
            raise ConfigError(
                "CFG007",
                f"invalid configuration key 'roots': {what}: its skills would be published "
                "twice, under two skill paths",
                Location(where),
                hint=f"list each directory once: drop '{b}', or replace '{a}' by the "
                "directories beside it",
            )


def _skill_holding(path: Path, config: Config) -> Path | None:
    """The innermost skill directory holding ``path`` (or being it) that discovery could
    find: inside the project directory or a root, and not the project directory itself
    (a project that is one skill keeps its lock and bundles in it, left out of it)."""
    project = config.project_dir.resolve()
    places = [project, *(root.path for root in config.roots)]
    for directory in (path, *path.parents):
        if directory == project or not any(directory.is_relative_to(p) for p in places):
            continue
        if (directory / SKILL_MD).is_file():
            return directory
    return None


def _confine_outputs(config: Config, table: Mapping[str, Any], where: str, prefix: str) -> None:
    """What a configuration makes skillpack write stays inside the project directory and
    out of every skill (``CFG030``, ``CFG031``), before any command does any work."""
    project = config.project_dir.resolve()
    outputs = (
        (f"{prefix}lock", table.get("lock", DEFAULT_LOCK), config.lock_path),
        (f"{prefix}build.output", config.build.output, config.output_dir),
    )
    for key, value, path in outputs:
        shown = f"invalid configuration key '{key}': {value!r}"
        if path == project or not path.is_relative_to(project):
            where_is = "is the project directory" if path == project else "is not inside"
            raise ConfigError(
                "CFG030",
                f"{shown} {where_is} the project directory ({project})",
                Location(where),
                hint="name a path below the configuration's directory (symlinks resolved)",
            )
        skill = _skill_holding(path, config)
        if skill is not None:
            raise ConfigError(
                "CFG031",
                f"{shown} lies inside the skill '{_shown(skill, project)}': skillpack would "
                "write into the skill",
                Location(where),
                hint="name a path outside every skill directory",
            )


def load_config(path: Path) -> Config:
    path = path.resolve()
    return config_from_table(_read_table(path), path.parent, path)


def default_config(project_dir: Path) -> Config:
    project_dir = project_dir.resolve()
    return config_from_table({}, project_dir, None)


def config_at(directory: Path) -> Config:
    """The configuration of the tree at ``directory`` itself (its ``skillpack.toml`` or
    ``[tool.skillpack]`` of its ``pyproject.toml``; never one above it), else the defaults."""
    if (directory / CONFIG_FILE).is_file():
        return load_config(directory / CONFIG_FILE)
    pyproject = directory / PYPROJECT
    if pyproject.is_file() and has_tool_table(pyproject):
        return load_config(pyproject)
    return default_config(directory)


def resolve_config(paths: Sequence[Path] = (), config_file: Path | None = None) -> Config:
    """The configuration for a command run on ``paths``.

    An explicit ``config_file`` wins; otherwise the nearest configuration above the
    first path (or the cwd). With none found, the first path that is a directory is the
    project directory (the cwd when no path is given).
    """
    if config_file is not None:
        if not config_file.is_file():
            raise ConfigError("CFG001", "configuration file not found", Location(str(config_file)))
        return load_config(config_file)
    start = Path(paths[0]) if paths else Path.cwd()
    if not start.exists():
        raise missing_path(start)
    found = find_config(start)
    if found is not None:
        return load_config(found)
    base = start if start.is_dir() else start.parent
    return default_config(base)
