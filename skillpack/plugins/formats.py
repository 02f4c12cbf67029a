"""The shape each host reads in its manifests, checked over a parsed document.

Each check returns :class:`Problem` values naming a kind of problem (lint's rules SP6xx)
and the pointer of the field at fault, so that lint reports ``file:line:col`` and the
marketplace reader refuses with the same message. What each host requires was read from
its documentation and confirmed against its validator (see
:mod:`skillpack.plugins.hosts`):

* Claude Code (``claude plugin validate``): ``name`` required, a string without spaces,
  kebab-case advised (a warning); ``version``, ``description`` strings; ``author`` an
  object with ``name``; ``keywords`` strings; component paths (``skills``,
  ``commands``, ``agents``, ...) start with ``./`` and never contain ``..``. The
  marketplace needs ``name``, ``owner`` (an object with ``name``) and ``plugins``; each
  entry a unique ``name`` and a ``source``: a ``./`` path, or an object whose
  ``source`` is ``github`` (``repo``), ``url`` (``url``), ``git-subdir`` (``url``,
  ``path``) or ``npm`` (``package``).
* Codex (``codex plugin marketplace add``): the marketplace needs ``name`` and
  ``plugins``; an entry's ``source`` is a path string or an object (``local`` with
  ``path``, ``url``, ``git-subdir``); ``policy.installation`` is one of
  ``NOT_AVAILABLE``, ``AVAILABLE``, ``INSTALLED_BY_DEFAULT`` and
  ``policy.authentication`` one of ``ON_INSTALL``, ``ON_USE`` (any other value makes
  Codex refuse the whole marketplace); ``plugin.json`` needs ``name``.
* Cursor: ``name`` required (lowercase kebab-case), ``skills`` a ``./`` path or a list.
* Gemini CLI (``gemini extensions validate``): ``name`` (letters, digits and dashes)
  and ``version`` required; ``contextFileName`` a string or a list of files that exist.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skillpack.plugins.hosts import CLAUDE, CODEX, CURSOR, GEMINI
from skillpack.plugins.jsonpos import Document, Pointer

#: the kinds of problem (lint gives each its rule, SP6xx)
NOT_JSON = "not-json"
BAD_FIELD = "field"
NOT_KEBAB = "not-kebab-case"
OUTSIDE = "outside"
MISSING_PATH = "missing-path"
MISMATCH = "mismatch"
UNREACHED = "unreached"

KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: what Claude Code accepts in each part of a plugin id (``plugin@marketplace``)
_CLAUDE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_GEMINI_NAME = re.compile(r"^[A-Za-z0-9-]+$")

CODEX_INSTALLATION = ("NOT_AVAILABLE", "AVAILABLE", "INSTALLED_BY_DEFAULT")
CODEX_AUTHENTICATION = ("ON_INSTALL", "ON_USE")

#: the object sources each host's marketplace accepts, with their required string fields
SOURCE_KINDS: dict[str, dict[str, tuple[str, ...]]] = {
    CLAUDE: {
        "github": ("repo",),
        "url": ("url",),
        "git-subdir": ("url", "path"),
        "npm": ("package",),
    },
    CODEX: {"local": ("path",), "url": ("url",), "git-subdir": ("url", "path")},
}

#: Claude Code's plugin.json fields naming paths inside the plugin
CLAUDE_PATH_FIELDS = ("skills", "commands", "agents", "outputStyles", "themes", "monitors")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a manifest: its kind, a message, where."""

    kind: str
    message: str
    pointer: Pointer = ()


def show(pointer: Pointer) -> str:
    """``plugins[0].source``: a pointer as the hosts' validators print it."""
    out = ""
    for part in pointer:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(the document)"


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class _Checker:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.problems: list[Problem] = []

    def add(self, code: str, message: str, pointer: Pointer) -> None:
        self.problems.append(Problem(code, message, pointer))

    def get(self, pointer: Pointer) -> Any:
        value: Any = self.doc.value
        for part in pointer:
            if isinstance(part, int):
                if not isinstance(value, list) or part >= len(value):
                    return None
            elif not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    def has(self, pointer: Pointer) -> bool:
        return pointer in self.doc.values

    def typed(self, pointer: Pointer, kind: type | tuple[type, ...], what: str,
              required: bool = False) -> bool:  # fmt: skip
        """True when the field is present and of ``kind``; a problem otherwise (a
        missing optional field is no problem, and False)."""
        if not self.has(pointer):
            if required:
                self.add(BAD_FIELD, f"'{show(pointer)}' is required: {what}", pointer[:-1])
            return False
        value = self.get(pointer)
        ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
        if not ok:
            self.add(BAD_FIELD, f"'{show(pointer)}' must be {what}, not {_type_name(value)}",
                     pointer)  # fmt: skip
        return ok

    def strings(self, pointer: Pointer, what: str = "an array of strings") -> None:
        if self.typed(pointer, list, what):
            for i in range(len(self.get(pointer))):
                self.typed((*pointer, i), str, "a string")

    def root(self) -> bool:
        if isinstance(self.doc.value, dict):
            return True
        self.add(BAD_FIELD, f"the manifest must be a JSON object, not "
                 f"{_type_name(self.doc.value)}", ())  # fmt: skip
        return False

    def person(self, pointer: Pointer, required: bool = False) -> None:
        if self.typed(pointer, dict, "an object with a 'name'", required):
            self.typed((*pointer, "name"), str, "a string", required=True)
            for key in ("email", "url"):
                self.typed((*pointer, key), str, "a string")


def _name(c: _Checker, host: str, pointer: Pointer, what: str) -> None:
    if not c.typed(pointer, str, "a string", required=True):
        return
    name: str = c.get(pointer)
    if host == GEMINI:
        if not _GEMINI_NAME.match(name):
            c.add(BAD_FIELD, f"invalid {what} name {name!r}: Gemini CLI allows only letters, "
                  "digits and dashes", pointer)  # fmt: skip
            return
    elif not _CLAUDE_ID.match(name):
        c.add(BAD_FIELD, f"invalid {what} name {name!r}: letters, digits, '.', '_' and '-' "
              "only, starting with a letter or digit (no spaces)", pointer)  # fmt: skip
        return
    if not KEBAB.match(name):
        c.add(NOT_KEBAB, f"the {what} name {name!r} is not kebab-case (lowercase letters, "
              "digits and single hyphens)", pointer)  # fmt: skip


def component_path(value: str) -> str | None:
    """Why a path a manifest names inside the plugin is refused, or None."""
    if value.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", value):
        return "an absolute path"
    if ".." in re.split(r"[\\/]", value):
        return "a path containing '..' (it leaves the plugin)"
    return None


def _paths(c: _Checker, host: str, pointer: Pointer) -> None:
    """A path field: a string or an array of strings, each starting with './' for the
    hosts that require it, none leaving the plugin."""
    value = c.get(pointer)
    items: list[tuple[Pointer, Any]]
    if isinstance(value, list):
        items = [((*pointer, i), v) for i, v in enumerate(value)]
    else:
        items = [(pointer, value)]
    for where, item in items:
        if not isinstance(item, str):
            c.add(BAD_FIELD, f"'{show(where)}' must be a path string, not {_type_name(item)}",
                  where)  # fmt: skip
            continue
        why = component_path(item)
        if why:
            c.add(OUTSIDE, f"'{show(where)}' is {why}: {item!r}", where)
        elif host in (CLAUDE, CURSOR, CODEX) and not item.startswith("./"):
            c.add(BAD_FIELD, f"'{show(where)}' must start with './' (relative to the plugin "
                  f"root): {item!r}", where)  # fmt: skip


def check_plugin(host: str, doc: Document) -> list[Problem]:
    """The problems of a host's plugin manifest (``plugin.json``,
    ``gemini-extension.json``)."""
    c = _Checker(doc)
    if not c.root():
        return c.problems
    what = "extension" if host == GEMINI else "plugin"
    _name(c, host, ("name",), what)
    c.typed(("version",), str, "a string", required=host == GEMINI)
    c.typed(("description",), str, "a string")
    if host == GEMINI:
        context = c.get(("contextFileName",))
        if c.has(("contextFileName",)) and not isinstance(context, str):
            c.strings(("contextFileName",), "a file name or an array of them")
        return c.problems
    c.person(("author",))
    for key in ("homepage", "repository", "license"):
        if host == CLAUDE and key == "repository":
            continue  # Claude Code also takes npm's {"type", "url"} form
        c.typed((key,), str, "a string")
    c.strings(("keywords",))
    fields = CLAUDE_PATH_FIELDS if host == CLAUDE else ("skills",)
    for key in fields:
        if c.has((key,)):
            _paths(c, host, (key,))
    return c.problems


def _source(c: _Checker, host: str, pointer: Pointer) -> None:
    value = c.get(pointer)
    if isinstance(value, str):
        why = component_path(value)
        if why:
            c.add(OUTSIDE, f"'{show(pointer)}' is {why}: {value!r}; a relative source is "
                  "resolved from the marketplace root", pointer)  # fmt: skip
        elif (
            host == CLAUDE
            and not value.startswith("./")
            and not (isinstance(c.get(("metadata", "pluginRoot")), str) and "/" not in value)
        ):  # a bare name is a directory of metadata.pluginRoot
            c.add(BAD_FIELD, f"'{show(pointer)}' must start with './' (relative to the "
                  f"marketplace root), or be a bare name under metadata.pluginRoot: "
                  f"{value!r}", pointer)  # fmt: skip
        return
    if not isinstance(value, dict):
        c.add(BAD_FIELD, f"'{show(pointer)}' must be a path or a source object, not "
              f"{_type_name(value)}", pointer)  # fmt: skip
        return
    kinds = SOURCE_KINDS[host]
    if not c.typed((*pointer, "source"), str, "a string", required=True):
        return
    kind = value["source"]
    if kind not in kinds:
        c.add(BAD_FIELD, f"'{show((*pointer, 'source'))}' is {kind!r}: this host takes "
              + ", ".join(repr(k) for k in kinds), (*pointer, "source"))  # fmt: skip
        return
    for key in kinds[kind]:
        c.typed((*pointer, key), str, "a string", required=True)
    for key in ("ref", "sha"):
        c.typed((*pointer, key), str, "a string")
    for key in ("path",) if kind in ("local", "git-subdir") else ():
        path = value.get(key)
        if isinstance(path, str) and (why := component_path(path)):
            c.add(OUTSIDE, f"'{show((*pointer, key))}' is {why}: {path!r}", (*pointer, key))


def check_marketplace(host: str, doc: Document) -> list[Problem]:
    """The problems of a host's marketplace file."""
    c = _Checker(doc)
    if not c.root():
        return c.problems
    _name(c, host, ("name",), "marketplace")
    if host == CLAUDE:
        c.person(("owner",), required=True)
        if c.typed(("metadata", "pluginRoot"), str, "a './' path"):
            _paths(c, host, ("metadata", "pluginRoot"))
    if not c.typed(("plugins",), list, "an array of plugin entries", required=True):
        return c.problems
    seen: dict[str, int] = {}
    for i, entry in enumerate(c.get(("plugins",))):
        at: Pointer = ("plugins", i)
        if not c.typed(at, dict, "a plugin entry (an object)"):
            continue
        _name(c, host, (*at, "name"), "plugin")
        name = entry.get("name")
        if isinstance(name, str):
            if name in seen:
                c.add(BAD_FIELD, f"the plugin name {name!r} is listed twice (first as "
                      f"plugins[{seen[name]}])", (*at, "name"))  # fmt: skip
            seen.setdefault(name, i)
        if c.has((*at, "source")):
            _source(c, host, (*at, "source"))
        else:
            c.add(BAD_FIELD, f"'{show((*at, 'source'))}' is required: where the plugin is", at)
        c.typed((*at, "version"), str, "a string")
        c.typed((*at, "description"), str, "a string")
        if host == CLAUDE:
            c.typed((*at, "strict"), bool, "a boolean")
            if c.has((*at, "skills")):
                _paths(c, host, (*at, "skills"))
        if host == CODEX and c.typed((*at, "policy"), dict, "an object"):
            for key, allowed in (("installation", CODEX_INSTALLATION),
                                 ("authentication", CODEX_AUTHENTICATION)):  # fmt: skip
                where = (*at, "policy", key)
                if c.typed(where, str, "a string") and c.get(where) not in allowed:
                    c.add(BAD_FIELD, f"'{show(where)}' is {c.get(where)!r}: Codex takes "
                          + ", ".join(allowed) + " (any other value makes it refuse the "
                          "whole marketplace)", where)  # fmt: skip
    return c.problems


def skill_paths(host: str, value: Mapping[str, Any]) -> list[str] | None:
    """The skill paths a plugin manifest (or a Claude marketplace entry) names, or None
    when it names none (the host's default, ``skills/``, applies)."""
    if host == GEMINI:
        return None
    skills = value.get("skills")
    if isinstance(skills, str):
        return [skills]
    if isinstance(skills, list):
        return [s for s in skills if isinstance(s, str)]
    return None
