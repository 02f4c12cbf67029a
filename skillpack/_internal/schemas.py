"""Access to the JSON Schemas shipped in ``schemas/`` (installed as ``skillpack/schemas``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent.parent  # skillpack/


def schema_path(name: str) -> Path:
    """Path of a schema file: installed copy first, then the source checkout."""
    for candidate in (_PACKAGE / "schemas" / name, _PACKAGE.parent / "schemas" / name):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"schema {name} is not installed with skillpack")


@cache
def load_schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_path(name).read_text("utf-8"))
    return data


def _inline(node: Any, defs: dict[str, Any], depth: int = 0) -> Any:
    """``node`` with each ``{"$ref": "#/$defs/<name>", ...}`` replaced by the definition
    merged with the other keywords beside the reference (both apply in 2020-12, so the
    meaning is the same; the schemas here have no recursive definitions)."""
    if isinstance(node, list):
        return [_inline(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs and depth < 32:
        target = _inline(defs[ref[8:]], defs, depth + 1)
        rest = {k: _inline(v, defs, depth) for k, v in node.items() if k != "$ref"}
        if isinstance(target, dict) and not set(target) & set(rest) - {"description"}:
            return {**target, **rest}
    return {k: _inline(v, defs, depth) for k, v in node.items()}


@cache
def _validator(name: str) -> Any:
    """A validator of schema ``name`` with its local definitions inlined: the same
    verdicts, without resolving a reference for every item (a 1,000-skill lock has
    11,000 of them, which took longer than checking everything else)."""
    import jsonschema  # imported here: only configuration and lock checks need it

    schema = load_schema(name)
    inlined = _inline(schema, schema.get("$defs", {}))
    return jsonschema.validators.validator_for(schema)(inlined)


def _unknown_keys(err: Any) -> list[str]:
    """The keys an ``additionalProperties: false`` error is about, sorted."""
    import re

    schema = err.schema if isinstance(err.schema, dict) else {}
    known = set(schema.get("properties", {}))
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    return sorted(
        str(key)
        for key in err.instance
        if key not in known and not any(p.search(str(key)) for p in patterns)
    )


def validation_errors(
    name: str, instance: object, *, name_unknown_keys: bool = False
) -> list[tuple[str, str]]:
    """Validate ``instance`` against schema ``name``: a sorted list of (json-path, message).

    With ``name_unknown_keys``, a key the schema does not allow is named by its own path
    (``lint.selct``, not the table holding it), with the keys allowed there; otherwise
    the messages are jsonschema's.
    """
    validator = _validator(name)
    out = []
    for err in validator.iter_errors(instance):
        base = [str(p) for p in err.absolute_path]
        unknown = (
            _unknown_keys(err)
            if name_unknown_keys
            and err.validator == "additionalProperties"
            and err.validator_value is False
            and isinstance(err.instance, dict)
            else []
        )
        if unknown:
            known = sorted(err.schema.get("properties", {}))
            allowed = f"; the keys here are {', '.join(known)}" if known else ""
            out += [(".".join([*base, key]), f"unknown key{allowed}") for key in unknown]
            continue
        out.append((".".join(base) or "(top level)", err.message))
    return sorted(out)
