"""Which rules run, at which severity, where: ``select``, ``extend-select``, ``ignore``,
``severity`` and ``per-path-ignores``, from the configuration and the command line.

Selectors work as in ruff: ``ALL``, a full code (``SP101``) or a code prefix (``SP1``,
``SP10``). Settings come in layers (the configuration file, then the command line). In
each layer, every rule is decided by the most specific selector naming it: a rule
matched most specifically by ``select``/``extend-select`` is enabled, by ``ignore`` is
disabled (``ignore`` wins a tie); a rule no selector of the layer names keeps its state
from the layer before, except that a layer with ``select`` starts from nothing.

Structural rules (:data:`~skillpack.lint.catalog.STRUCTURAL`: what ``build`` refuses
whatever the selection) are always enabled, always errors and never ignored for a path:
a selection that would switch one off leaves it reported, its hint saying that it cannot
be ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.errors import ConfigError, Location, UsageError
from skillpack.lint.catalog import ERROR, RULES, SEVERITIES, STRUCTURAL

if TYPE_CHECKING:
    import pathspec

    from skillpack.source.config import Config


@dataclass(frozen=True)
class Layer:
    """One source of rule selection; ``select`` None means "not set in this layer"."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def _specificity(selector: str) -> int:
    return 0 if selector == "ALL" else len(selector)


def _matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    """Selectors that name no rule (typos such as ``SP999`` or ``E501``)."""
    return [s for s in selectors if not (s == "ALL" or any(code.startswith(s) for code in RULES))]


def expand(selectors: Iterable[str]) -> frozenset[str]:
    """Every rule code matched by any of ``selectors``."""
    chosen = tuple(selectors)
    return frozenset(code for code in RULES if any(_matches(s, code) for s in chosen))


def resolve_layers(layers: Sequence[Layer]) -> frozenset[str]:
    """The enabled rule codes after applying ``layers`` in order."""
    enabled: set[str] = set()
    for layer in layers:
        positive = (*(layer.select or ()), *layer.extend_select)
        for code in RULES:
            best_pos = max((_specificity(s) for s in positive if _matches(s, code)), default=-1)
            best_neg = max((_specificity(s) for s in layer.ignore if _matches(s, code)), default=-1)
            if best_neg >= 0 and best_neg >= best_pos:
                enabled.discard(code)
            elif best_pos >= 0:
                enabled.add(code)
            elif layer.select is not None:
                enabled.discard(code)
    return frozenset(enabled)


@dataclass(frozen=True)
class PathIgnore:
    """``per-path-ignores``: rules switched off for paths matching a gitwildmatch pattern."""

    pattern: str
    codes: frozenset[str]
    spec: pathspec.GitIgnoreSpec


@dataclass(frozen=True)
class LintOptions:
    """Everything the engine needs to know about rule selection."""

    enabled: frozenset[str] = frozenset(RULES)
    severity: Mapping[str, str] = field(default_factory=dict)
    base: Path | None = None  #: directory per-path-ignore patterns are relative to
    path_ignores: tuple[PathIgnore, ...] = ()
    #: structural rules the selection would have switched off (kept enabled)
    deselected: frozenset[str] = frozenset()

    def severity_of(self, code: str) -> str:
        if code in STRUCTURAL:
            return ERROR
        return self.severity.get(code) or RULES[code].severity

    def ignored_at(self, code: str, path: Path) -> bool:
        """Whether a per-path ignore switches ``code`` off for ``path`` (never a
        structural rule's)."""
        return code not in STRUCTURAL and self._path_ignored(code, path)

    def _path_ignored(self, code: str, path: Path) -> bool:
        if not self.path_ignores or self.base is None:
            return False
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return False
        return any(code in pi.codes and pi.spec.match_file(rel) for pi in self.path_ignores)

    def overruled(self, code: str, path: Path) -> bool:
        """Whether the selection asked to switch off, lower or ignore (at ``path``) the
        structural rule ``code``: its finding is reported anyway, saying so."""
        if code not in STRUCTURAL:
            return False
        lowered = self.severity.get(code, ERROR) != ERROR
        return code in self.deselected or lowered or self._path_ignored(code, path)

    @classmethod
    def from_config(
        cls,
        config: Config,
        select: Sequence[str] | None = None,
        extend_select: Sequence[str] = (),
        ignore: Sequence[str] = (),
    ) -> LintOptions:
        """Options from the configuration's ``[lint]`` table, then the command line flags."""
        lint = config.lint
        key_prefix = (
            "tool.skillpack." if config.source and config.source.name == "pyproject.toml" else ""
        )

        def config_error(key: str, message: str) -> ConfigError:
            return ConfigError(
                "CFG010",
                f"invalid configuration key '{key_prefix}lint.{key}': {message}",
                Location(config.source_display),
                hint="run 'skillpack rule --all' to list the rule codes",
            )

        for key, values in (
            ("select", lint.select),
            ("extend-select", lint.extend_select),
            ("ignore", lint.ignore),
        ):
            bad = unknown_selectors(values)
            if bad:
                raise config_error(key, f"{', '.join(bad)} matches no rule")
        for code, level in lint.severity.items():
            if code not in RULES:
                raise config_error(f"severity.{code}", "no such rule")
            if level not in SEVERITIES:
                raise config_error(f"severity.{code}", f"'{level}' is not one of {SEVERITIES}")
        for pattern, selectors in lint.per_path_ignores:
            bad = unknown_selectors(selectors)
            if bad:
                raise config_error(
                    f"per-path-ignores.{pattern}", f"{', '.join(bad)} matches no rule"
                )
        flags: tuple[tuple[str, Sequence[str]], ...] = (
            ("--select", select or ()),
            ("--extend-select", extend_select),
            ("--ignore", ignore),
        )
        for flag, given in flags:
            bad = unknown_selectors(given)
            if bad:
                raise UsageError(
                    "USE010",
                    f"{flag}: {', '.join(bad)} matches no rule",
                    hint="run 'skillpack rule --all' to list the rule codes",
                )
        layers = [
            Layer(tuple(lint.select), tuple(lint.extend_select), tuple(lint.ignore)),
            Layer(tuple(select) if select else None, tuple(extend_select), tuple(ignore)),
        ]
        path_ignores: tuple[PathIgnore, ...] = ()
        if lint.per_path_ignores:
            import pathspec

            path_ignores = tuple(
                PathIgnore(pattern, expand(codes), pathspec.GitIgnoreSpec.from_lines([pattern]))
                for pattern, codes in lint.per_path_ignores
            )
        enabled = resolve_layers(layers)
        return cls(
            enabled=enabled | STRUCTURAL,
            severity=dict(lint.severity),
            base=config.project_dir,
            path_ignores=path_ignores,
            deselected=STRUCTURAL - enabled,
        )
