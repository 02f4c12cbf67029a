"""Access to the JSON Schemas shipped in ``schemas/`` (installed as ``skillpack/schemas``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent


def schema_path(name: str) -> Path:
    """Path of a schema file: installed copy first, then the source checkout."""
    for candidate in (_HERE / "schemas" / name, _HERE.parent / "schemas" / name):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"schema {name} is not installed with skillpack")


@cache
def load_schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_path(name).read_text("utf-8"))
    return data


def validation_errors(name: str, instance: object) -> list[tuple[str, str]]:
    """Validate ``instance`` against schema ``name``: a sorted list of (json-path, message)."""
    import jsonschema  # imported here: only configuration and lock checks need it

    validator_cls = jsonschema.validators.validator_for(load_schema(name))
    validator = validator_cls(load_schema(name))
    out = []
    for err in validator.iter_errors(instance):
        path = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        out.append((path, err.message))
    return sorted(out)
