"""Staging directories: work done beside a destination and renamed into place, whose
errors name the destination, never the staging directory (a user has never heard of
``.out.k2j3h4`` and it is gone once the command fails)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from skillpack.errors import SkillpackError

#: a staging name keeps this much of the destination's name, so that any valid
#: destination name gives a valid staging name (at most 255 bytes)
NAME_KEPT = 40


def make_staging(dest: Path, tag: str = "") -> Path:
    """A new empty directory beside ``dest`` (``.<name>.<tag><random>``, short)."""
    return Path(tempfile.mkdtemp(prefix=f".{dest.name[:NAME_KEPT]}.{tag}", dir=dest.parent))


def _swap(text: str, staging: str, dest: str) -> str:
    return text.replace(staging, dest)


@contextlib.contextmanager
def shown_as(staging: Path, dest: Path) -> Iterator[None]:
    """Errors raised in the block that name a path in ``staging`` name it in ``dest``."""
    try:
        yield
    except SkillpackError as exc:
        old, new = str(staging), str(dest)
        location = exc.location
        if location is not None and old in location.path:
            location = replace(location, path=_swap(location.path, old, new))
        exc.message = _swap(exc.message, old, new)
        exc.details = [_swap(d, old, new) for d in exc.details]
        exc.location = location
        exc.args = (exc.render(),)
        raise
    except OSError as exc:
        old, new = str(staging), str(dest)
        for attribute in ("filename", "filename2"):
            value = getattr(exc, attribute, None)
            if isinstance(value, str | os.PathLike) and old in os.fspath(value):
                setattr(exc, attribute, _swap(os.fspath(value), old, new))
        raise
