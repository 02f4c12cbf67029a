"""What identifies a lock skillpack wrote: its first three lines, in a fixed form.

A fast reader takes the index digest from them without parsing the TOML (they are
top-level key/value pairs whatever follows, so reading them is unambiguous), and a
command that writes a lock replaces only a file that starts with them. Kept apart from
:mod:`skillpack.lockfile.lock`: a bundle's fast open (serve's start) checks a lock by
these lines and its body's digest, and a build refuses a foreign file at the lock's path
before it imports what renders a lock.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

#: The first three lines of every lock skillpack writes (the third one's digest is the
#: group).
PROLOGUE_RE = re.compile(
    rb'lock-version = "1\.0"\ncreated-by = "[A-Za-z0-9 ._+/-]*"\n'
    rb'index-digest = "(sha256:[0-9a-f]{64})"\n'
)


def split_lock(data: bytes) -> tuple[str, bytes] | None:
    """(``index-digest``, body) of lock bytes that start with the prologue, else None."""
    match = PROLOGUE_RE.match(data)
    if match is None:
        return None
    return match.group(1).decode("ascii"), data[match.end() :]


def is_lock_file(path: Path) -> bool:
    """Whether the file at ``path`` is a lock skillpack wrote: it starts with the fixed
    prologue (its body may be stale or edited; only skillpack's own locks are replaced)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError:
        return False
    return PROLOGUE_RE.match(head) is not None


def lock_body_digest(body: bytes | memoryview) -> str:
    """The digest the index records of the lock's body (the bytes after the prologue)."""
    return "sha256:" + hashlib.sha256(body).hexdigest()
