"""Does a configuration table conform to ``schemas/config.schema.json``? Checked in Python.

Every ``lint``, ``lock`` and ``build`` of a project with a configuration file validates
it; jsonschema takes longer to import (about 60 ms) than a build of a small project
takes to run. :func:`conforms` gives the schema's verdict for a table read from TOML
without it, and the caller asks jsonschema only for a table that does not conform, to
name what is wrong. ``tests/test_config_check.py`` holds the two verdicts equal on
generated tables (valid ones, and every kind of departure from the schema).

The schema's ``pattern`` keywords are applied as jsonschema applies them (``re.search``
with the same expressions), and its ``type`` keywords as JSON types: a TOML date, a
float or an integer is not a string, a boolean is not an integer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}$")
_PREFIX = re.compile(r"^([A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*)?$")
_SELECTOR = re.compile(r"^(ALL|SP[0-9]{0,3})$")
_RULE = re.compile(r"^SP[0-9]{3}$")
_SEVERITIES = ("error", "warning", "info")
_COMPRESSIONS = ("deflate", "stored")

Check = Callable[[Any], bool]


def _string(value: Any, pattern: re.Pattern[str] | None = None, min_length: int = 0) -> bool:
    return (
        type(value) is str
        and len(value) >= min_length
        and (pattern is None or pattern.search(value) is not None)
    )


def _nonempty(value: Any) -> bool:
    return _string(value, min_length=1)


def _boolean(value: Any) -> bool:
    return type(value) is bool


def _strings(value: Any, item: Check = _string) -> bool:
    return type(value) is list and all(item(v) for v in value)


def _selectors(value: Any) -> bool:
    return _strings(value, lambda v: _string(v, _SELECTOR))


def _table(properties: dict[str, Check], required: tuple[str, ...] = ()) -> Check:
    """An object with ``additionalProperties: false``."""

    def check(value: Any) -> bool:
        if type(value) is not dict or any(key not in value for key in required):
            return False
        for key, item in value.items():
            rule = properties.get(key)
            if rule is None or not rule(item):
                return False
        return True

    return check


_ROOT_TABLE = _table(
    {"path": _nonempty, "prefix": lambda v: _string(v, _PREFIX)}, required=("path",)
)


def _root(value: Any) -> bool:
    return len(value) >= 1 if type(value) is str else _ROOT_TABLE(value)


def _roots(value: Any) -> bool:
    return type(value) is list and len(value) >= 1 and all(_root(v) for v in value)


def _severity(value: Any) -> bool:
    return type(value) is dict and all(
        _string(k, _RULE) and type(v) is str and v in _SEVERITIES for k, v in value.items()
    )


def _per_path_ignores(value: Any) -> bool:
    return type(value) is dict and all(_selectors(v) for v in value.values())


_LINT = _table(
    {
        "select": _selectors,
        "extend-select": _selectors,
        "ignore": _selectors,
        "severity": _severity,
        "per-path-ignores": _per_path_ignores,
    }
)
_INSTALL_ITEM = _table(
    {
        "source": _nonempty,
        "skills": lambda v: _strings(v, _nonempty),
        "agents": lambda v: _strings(v, _nonempty),
        "link": _boolean,
        "require-signature": _boolean,
        "key": _nonempty,
        "cert-identity": _nonempty,
        "cert-oidc-issuer": _nonempty,
        "repository": _nonempty,
        "workflow-ref": _nonempty,
        "workflow-name": _nonempty,
        "workflow-trigger": _nonempty,
        "workflow-sha": _nonempty,
        "trust-config": _nonempty,
        "staging": _boolean,
    },
    required=("source",),
)
_BUILD = _table(
    {"output": _nonempty, "compression": lambda v: type(v) is str and v in _COMPRESSIONS}
)
_AUTHOR = _table({"name": _nonempty, "email": _nonempty, "url": _nonempty}, required=("name",))
_HOSTS = ("claude", "codex", "cursor", "gemini")
_PLUGINS = _table(
    {
        "hosts": lambda v: type(v) is list and all(type(h) is str and h in _HOSTS for h in v),
        **{host: lambda v: type(v) is dict for host in _HOSTS},
    }
)
_TOP = _table(
    {
        "name": lambda v: _string(v, _NAME),
        "version": lambda v: _string(v, _VERSION),
        "description": _nonempty,
        "author": lambda v: _nonempty(v) or _AUTHOR(v),
        "homepage": _nonempty,
        "repository": _nonempty,
        "license": _nonempty,
        "keywords": lambda v: _strings(v, _nonempty),
        "plugins": _PLUGINS,
        "roots": _roots,
        "include": _strings,
        "exclude": _strings,
        "extend-exclude": _strings,
        "lock": _nonempty,
        "lint": _LINT,
        "install": lambda v: type(v) is list and all(_INSTALL_ITEM(i) for i in v),
        "build": _BUILD,
    }
)


def conforms(table: Any) -> bool:
    """True when ``table`` (a configuration as read from TOML) is valid under
    ``schemas/config.schema.json``; False when it is not (then jsonschema says why)."""
    return _TOP(table)
