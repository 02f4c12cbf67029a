"""How a plain scalar resolves, shared by both readers (the ruamel event walk and the
fast path): the YAML 1.2 core schema, refusing what a YAML 1.1 parser reads differently.

References: https://yaml.org/spec/1.2.2/#1032-tag-resolution (1.2 core schema) and
https://yaml.org/type/ (the 1.1 types, as the common 1.1 resolvers implement them).
"""

from __future__ import annotations

import math
import re

from skillpack._internal.canonical import JSONValue
from skillpack.source.frontmatter.model import (
    AMBIGUOUS_SCALAR,
    MAX_SAFE_INT,
    OUT_OF_RANGE,
    FrontmatterError,
)

# YAML 1.2 core schema
_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL12 = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
           "FALSE": False}  # fmt: skip
_INT10 = re.compile(r"[-+]?[0-9]+")
_INT8 = re.compile(r"0o[0-7]+")
_INT16 = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT12 = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF_NAN = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)")
# YAML 1.1 types
_BOOL11 = re.compile(r"(?i:y|yes|n|no|on|off)")
_INT11 = re.compile(
    r"[-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
)
_FLOAT11 = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
)
_TIMESTAMP11 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)
_SPECIAL11 = {"=": "a YAML 1.1 value key", "<<": "a YAML 1.1 merge key"}
#: the longest scalar that starts with an ASCII letter and is not a string in either
#: schema: the words of null, the booleans and YAML 1.1's booleans (``FALSE``); every
#: number, date, key and special value starts with a digit, a sign, a dot, ``~``, ``=``
#: or ``<``
_LONGEST_WORD = 5


def resolve12(s: str) -> JSONValue:
    """How a YAML 1.2 core-schema parser reads the plain scalar ``s``."""
    if _NULL.fullmatch(s):
        return None
    if s in _BOOL12:
        return _BOOL12[s]
    if _INT10.fullmatch(s):
        return int(s)
    if _INT8.fullmatch(s):
        return int(s[2:], 8)
    if _INT16.fullmatch(s):
        return int(s[2:], 16)
    if _FLOAT12.fullmatch(s):
        return float(s)
    if _INF_NAN.fullmatch(s):
        return float(s.replace(".", "").lower().lstrip("+"))
    return s


def yaml11_reading(s: str) -> str | None:
    """What a YAML 1.1 parser would make of ``s`` when it is not a plain string."""
    if s in _SPECIAL11:
        return _SPECIAL11[s]
    if _BOOL11.fullmatch(s) and s not in _BOOL12:
        return "a boolean in YAML 1.1"
    if _TIMESTAMP11.fullmatch(s):
        return "a date or timestamp in YAML 1.1"
    if _INT11.fullmatch(s):
        body = s.lstrip("+-")
        if "_" in s:
            return "a number in YAML 1.1 (digit separators)"
        if ":" in s:
            return "a base-60 number in YAML 1.1"
        if body.startswith("0b"):
            return "a binary number in YAML 1.1"
        if len(body) > 1 and body[0] == "0" and body[1] != "x":
            return "an octal number in YAML 1.1"
        return None
    if _FLOAT11.fullmatch(s) and s not in (".", "+.", "-."):
        if "_" in s or ":" in s:
            return "a number in YAML 1.1 (digit separators or base 60)"
        return None
    return None


def describe_value(value: JSONValue) -> str:
    """What kind of value ``value`` is, for messages: "null", "a boolean", "a list"..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "a string"


def resolve_plain(s: str, line: int, column: int, *, key: bool = False) -> JSONValue:
    """Resolve a plain scalar, refusing any that YAML 1.1 and 1.2 parsers read differently.

    ``key``: the scalar is a mapping key (the messages call it a key, not a value).
    """
    if len(s) > _LONGEST_WORD and s[0].isascii() and s[0].isalpha():
        return s  # no type but a few words starts with a letter (a description, a name)
    reading11 = yaml11_reading(s)
    value = resolve12(s)
    if reading11 is None and isinstance(value, str):
        return value
    quoted = '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    subject = f"key '{s}'" if key else f"plain value '{s}'"
    keep = f"quote it to keep it a string: {quoted}"
    if reading11 is not None:
        raise FrontmatterError(
            AMBIGUOUS_SCALAR,
            f"{subject} is {reading11} but {describe_value(value)} in YAML 1.2",
            line,
            column,
            keep,
        )
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            if _INF_NAN.fullmatch(s):
                raise FrontmatterError(
                    AMBIGUOUS_SCALAR, f"{subject} is not a JSON number", line, column, keep
                )
            raise FrontmatterError(
                OUT_OF_RANGE,
                f"key '{s}' is a number too large for JSON"
                if key
                else f"number '{s}' is too large for a JSON number",
                line,
                column,
                keep,
            )
        if _FLOAT11.fullmatch(s) is None:
            # 1.2 reads a float where 1.1 reads a string ("1e3", "1.5e3")
            raise FrontmatterError(
                AMBIGUOUS_SCALAR,
                f"{subject} is a float in YAML 1.2 but a string in YAML 1.1",
                line,
                column,
                f"quote it to keep it a string ({quoted}) or write the exponent with a sign",
            )
    elif isinstance(value, int) and not isinstance(value, bool):
        if _INT11.fullmatch(s) is None:
            # 1.2 octal "0o10" is a string to 1.1
            raise FrontmatterError(
                AMBIGUOUS_SCALAR,
                f"{subject} is an integer in YAML 1.2 but a string in YAML 1.1",
                line,
                column,
                f"quote it to keep it a string ({quoted}) or write it in decimal",
            )
        if abs(value) > MAX_SAFE_INT:
            raise FrontmatterError(
                OUT_OF_RANGE,
                (f"key '{s}' is an integer" if key else f"integer {s} is")
                + " outside ±(2^53−1), where JSON readers lose precision",
                line,
                column,
                keep,
            )
    return value
