"""The Python check of a configuration table gives the published schema's verdict.

:func:`skillpack.source.config_check.conforms` lets a valid configuration through
without jsonschema; jsonschema (on ``schemas/config.schema.json`` itself, not a copy)
is the reference. Tables are generated near the schema: valid values, values of every
TOML type in every place, strings at the edges of each pattern, unknown keys, missing
required keys.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillpack.source.config_check import conforms
from tests.conftest import REPO

SCHEMA = json.loads((REPO / "schemas" / "config.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)

#: strings at the edges of the schema's patterns and enums
EDGES = [
    "", "a", "A", "0", "-a", ".a", "_a", "a-b.c_d", "a+b", "a b", "a/b", "/a", "a/", "a//b",
    "acme/billing", "x~y", "caf\u00e9", "a\n", "\n", "SP", "SP1", "SP12", "SP123", "SP1234",
    "sp123", "ALL", "all", "ALLX", "error", "warning", "info", "warn", "Error", "deflate",
    "stored", "zip", "oci://r/x:1", "a" * 128, "a" * 129, "1" * 64, "1" * 65, "skills",
]  # fmt: skip
TEXT = st.one_of(st.sampled_from(EDGES), st.text(max_size=8))
SCALAR = st.one_of(
    TEXT,
    st.integers(-2, 2),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.datetimes(min_value=datetime.datetime(2000, 1, 1)),
    st.dates(),
)
ANY = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=6,
)


def _maybe(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a value of the right shape, sometimes anything."""
    return st.one_of(good, good, good, ANY)


STRINGS = _maybe(st.lists(_maybe(TEXT), max_size=3))
SELECTORS = _maybe(
    st.lists(_maybe(st.sampled_from(["ALL", "SP", "SP1", "SP123", "SP1234", "x"])), max_size=3)
)


def _table(
    fields: dict[str, st.SearchStrategy[Any]], required: tuple[str, ...] = ()
) -> st.SearchStrategy[dict[str, Any]]:
    """A table of some of ``fields`` (the ``required`` ones usually), now and then an
    unknown key."""

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        keys = draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=4))
        keys += [k for k in required if k not in keys and draw(st.integers(0, 9))]
        table = {key: draw(_maybe(fields[key])) for key in keys}
        if draw(st.integers(0, 9)) == 0:
            table[draw(TEXT)] = draw(ANY)
        return table

    return build()


ROOT = st.one_of(
    TEXT,
    _table({"path": TEXT, "prefix": TEXT}, required=("path",)),
)
LINT = _table(
    {
        "select": SELECTORS,
        "extend-select": SELECTORS,
        "ignore": SELECTORS,
        "severity": st.dictionaries(TEXT, _maybe(TEXT), max_size=3),
        "per-path-ignores": st.dictionaries(TEXT, SELECTORS, max_size=2),
    }
)
INSTALL_KEYS = [
    "key", "cert-identity", "cert-oidc-issuer", "repository", "workflow-ref",
    "workflow-name", "workflow-trigger", "workflow-sha", "trust-config",
]  # fmt: skip
INSTALL = _table(
    {
        "source": TEXT,
        "skills": STRINGS,
        "agents": STRINGS,
        "link": st.booleans(),
        "require-signature": st.booleans(),
        "staging": st.booleans(),
        **{key: TEXT for key in INSTALL_KEYS},
    },
    required=("source",),
)
AUTHOR = st.one_of(TEXT, _table({"name": TEXT, "email": TEXT, "url": TEXT}, required=("name",)))
PLUGINS = _table(
    {
        "hosts": st.lists(_maybe(st.sampled_from(["claude", "codex", "cursor", "gemini", "x"]))),
        **{host: st.dictionaries(TEXT, ANY, max_size=2) for host in ("claude", "codex", "gemini")},
    }
)
CONFIG = _table(
    {
        "name": TEXT,
        "version": TEXT,
        "description": TEXT,
        "author": AUTHOR,
        "homepage": TEXT,
        "keywords": STRINGS,
        "plugins": PLUGINS,
        "roots": st.lists(_maybe(ROOT), max_size=3),
        "include": STRINGS,
        "exclude": STRINGS,
        "extend-exclude": STRINGS,
        "lock": TEXT,
        "lint": LINT,
        "install": st.lists(_maybe(INSTALL), max_size=2),
        "build": _table({"output": TEXT, "compression": TEXT}),
    }
)


# -- valid tables, and valid tables with one departure ------------------------------------

NONEMPTY = st.text(min_size=1, max_size=6)
GOOD_SELECTORS = st.lists(st.sampled_from(["ALL", "SP", "SP1", "SP12", "SP123"]), max_size=3)
GOOD_ROOT = st.one_of(
    NONEMPTY,
    st.fixed_dictionaries(
        {"path": NONEMPTY},
        optional={"prefix": st.sampled_from(["", "acme", "acme/billing", "a.b~c/_d-e"])},
    ),
)
GOOD_INSTALL = st.fixed_dictionaries(
    {"source": NONEMPTY},
    optional={
        "skills": st.lists(NONEMPTY, max_size=2),
        "agents": st.lists(NONEMPTY, max_size=2),
        "link": st.booleans(),
        "require-signature": st.booleans(),
        "staging": st.booleans(),
        **{key: NONEMPTY for key in INSTALL_KEYS},
    },
)
GOOD = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["a", "acme-skills", "A.1_b", "a" * 128]),
        "version": st.sampled_from(["1.0.0", "0", "1.0.0+build.5", "1" * 64]),
        "description": NONEMPTY,
        "author": st.one_of(
            NONEMPTY, st.fixed_dictionaries({"name": NONEMPTY}, optional={"email": NONEMPTY})
        ),
        "license": NONEMPTY,
        "keywords": st.lists(NONEMPTY, max_size=2),
        "plugins": st.fixed_dictionaries(
            {},
            optional={
                "hosts": st.lists(st.sampled_from(["claude", "codex", "cursor", "gemini"])),
                "codex": st.fixed_dictionaries(
                    {}, optional={"interface": st.fixed_dictionaries({"a": st.just(1)})}
                ),
            },
        ),
        "roots": st.lists(GOOD_ROOT, min_size=1, max_size=3),
        "include": st.lists(st.text(max_size=5), max_size=2),
        "exclude": st.lists(st.text(max_size=5), max_size=2),
        "extend-exclude": st.lists(st.text(max_size=5), max_size=2),
        "lock": NONEMPTY,
        "lint": st.fixed_dictionaries(
            {},
            optional={
                "select": GOOD_SELECTORS,
                "extend-select": GOOD_SELECTORS,
                "ignore": GOOD_SELECTORS,
                "severity": st.dictionaries(
                    st.sampled_from(["SP101", "SP999", "SP000"]),
                    st.sampled_from(["error", "warning", "info"]),
                ),
                "per-path-ignores": st.dictionaries(st.text(max_size=4), GOOD_SELECTORS),
            },
        ),
        "install": st.lists(GOOD_INSTALL, max_size=2),
        "build": st.fixed_dictionaries(
            {},
            optional={"output": NONEMPTY, "compression": st.sampled_from(["deflate", "stored"])},
        ),
    },
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a nested table: (path to it)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _places(item, (*path, index))
    return found


@st.composite
def one_departure(draw: st.DrawFn) -> Any:
    """A valid table with one place changed: replaced by anything, a key dropped or an
    unknown key added."""
    table = draw(GOOD)
    path = draw(st.sampled_from(_places(table)))
    if not path:
        return draw(ANY)
    parent: Any = table
    for step in path[:-1]:
        parent = parent[step]
    what = draw(st.sampled_from(["replace", "drop", "add"]))
    if what == "replace":
        parent[path[-1]] = draw(ANY)
    elif what == "drop" and isinstance(parent, dict):
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(TEXT)] = draw(ANY)
    else:
        parent.append(draw(ANY))
    return table


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(GOOD, one_departure(), CONFIG))
def test_the_python_check_gives_the_schemas_verdict(table: Any) -> None:
    assert conforms(table) == VALIDATOR.is_valid(table), table


@pytest.mark.parametrize(
    "table",
    [
        {},
        {"name": "acme-skills", "version": "1.0.0", "roots": ["skills"]},
        {"roots": [{"path": "s", "prefix": "acme/billing"}, "."], "lock": "skillpack.lock"},
        {"lint": {"select": ["ALL"], "ignore": ["SP1"], "severity": {"SP101": "warning"},
                  "per-path-ignores": {"docs/**": ["SP2"]}}},
        {"install": [{"source": "oci://r/acme:1", "agents": ["claude-code"], "link": True,
                      "require-signature": True, "key": "k.pub"}]},
        {"build": {"output": "dist", "compression": "stored"}, "extend-exclude": ["*.tmp"]},
    ],
)  # fmt: skip
def test_typical_configurations_conform(table: dict[str, Any]) -> None:
    assert conforms(table) and VALIDATOR.is_valid(table)


@pytest.mark.parametrize(
    "table",
    [
        {"nme": "x"},
        {"name": "-x"},
        {"name": "x\ny"},
        {"version": 1},
        {"roots": []},
        {"roots": [""]},
        {"roots": [{"prefix": "a"}]},
        {"roots": [{"path": "s", "prefix": "/a"}]},
        {"lint": {"select": ["SP1234"]}},
        {"lint": {"severity": {"SP1": "error"}}},
        {"lint": {"severity": {"SP101": "fatal"}}},
        {"install": [{"agents": ["codex"]}]},
        {"install": [{"source": "x", "link": "yes"}]},
        {"build": {"compression": "zip"}},
        {"include": "*.md"},
        {"lock": datetime.date(2026, 1, 1)},
    ],
)
def test_departures_from_the_schema_do_not_conform(table: dict[str, Any]) -> None:
    assert not conforms(table) and not VALIDATOR.is_valid(table)


def _install_place(key: str) -> Any:
    return lambda v: {"install": [{"source": "x", key: v}]}


#: every place a scalar goes, as a function putting ``value`` there
PLACES = {
    "name": lambda v: {"name": v},
    "version": lambda v: {"version": v},
    "lock": lambda v: {"lock": v},
    "description": lambda v: {"description": v},
    "author": lambda v: {"author": v},
    "author.name": lambda v: {"author": {"name": v}},
    "author.email": lambda v: {"author": {"name": "n", "email": v}},
    "homepage": lambda v: {"homepage": v},
    "repository": lambda v: {"repository": v},
    "license": lambda v: {"license": v},
    "keywords[0]": lambda v: {"keywords": [v]},
    "plugins": lambda v: {"plugins": v},
    "plugins.hosts[0]": lambda v: {"plugins": {"hosts": [v]}},
    "plugins.claude": lambda v: {"plugins": {"claude": v}},
    "roots[0]": lambda v: {"roots": [v]},
    "roots[0].path": lambda v: {"roots": [{"path": v}]},
    "roots[0].prefix": lambda v: {"roots": [{"path": "s", "prefix": v}]},
    "include[0]": lambda v: {"include": [v]},
    "exclude[0]": lambda v: {"exclude": [v]},
    "extend-exclude[0]": lambda v: {"extend-exclude": [v]},
    "lint.select[0]": lambda v: {"lint": {"select": [v]}},
    "lint.extend-select[0]": lambda v: {"lint": {"extend-select": [v]}},
    "lint.ignore[0]": lambda v: {"lint": {"ignore": [v]}},
    "lint.severity key": lambda v: (
        {"lint": {"severity": {v: "error"}}} if isinstance(v, str) else {"lint": {"severity": v}}
    ),
    "lint.severity value": lambda v: {"lint": {"severity": {"SP101": v}}},
    "lint.per-path-ignores value[0]": lambda v: {"lint": {"per-path-ignores": {"x/**": [v]}}},
    "build.output": lambda v: {"build": {"output": v}},
    "build.compression": lambda v: {"build": {"compression": v}},
    "install[0].source": lambda v: {"install": [{"source": v}]},
    "install[0].skills[0]": lambda v: {"install": [{"source": "x", "skills": [v]}]},
    "install[0].agents[0]": lambda v: {"install": [{"source": "x", "agents": [v]}]},
    **{
        f"install[0].{key}": _install_place(key)
        for key in [*INSTALL_KEYS, "link", "require-signature", "staging"]
    },
}  # fmt: skip
VALUES = [
    *EDGES, "ALL", "SP001", "1" * 65, "+1", "1 ", "x", True, False, 0, 1, 1.5, [], ["a"], {},
    {"path": "s"}, datetime.date(2026, 1, 1), datetime.time(1, 2),
]  # fmt: skip


@pytest.mark.parametrize("place", sorted(PLACES))
def test_every_place_at_its_edges(place: str) -> None:
    for value in VALUES:
        table = PLACES[place](value)
        assert conforms(table) == VALIDATOR.is_valid(table), (place, value)
