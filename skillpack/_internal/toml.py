"""TOML strings written exactly as tomli-w writes them, without importing it for the
common case: the lock renderer and the install lock's writer use it."""

from __future__ import annotations

import re

#: characters a TOML basic string cannot hold as they are (tomli-w escapes them)
_ESCAPED = re.compile(r'[\x00-\x08\x0a-\x1f\x7f"\\]')


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string, escaped exactly as tomli-w escapes it."""
    if _ESCAPED.search(text) is None:
        return f'"{text}"'
    import tomli_w

    return tomli_w.dumps({"s": text})[4:-1]  # 's = "..."\n': the string as tomli-w escapes it
