"""Git sources as given: ``git+URL[@REF][#path=DIR]`` and ``github:OWNER/REPO[@REF][#path=DIR]``.

REF is a tag, a branch or a commit; it is the last ``@`` of the URL's path (never one
of its user information). The URL is kept with its user information for fetching and
shown (and pinned) without it: :func:`redact`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillpack.errors import Location, UsageError
from skillpack.source.paths import unsafe_path

GIT_PREFIX = "git+"
GITHUB_PREFIX = "github:"
_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")
_OWNER_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_USERINFO = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@]*@")


def is_git_source(text: str) -> bool:
    return text.startswith((GIT_PREFIX, GITHUB_PREFIX))


def redact(text: str) -> str:
    """``text`` with the user information of every URL in it left out."""
    return _USERINFO.sub(lambda m: m.group("scheme"), text)


@dataclass(frozen=True)
class GitSpec:
    url: str  #: as given (user information included): what git fetches
    ref: str | None  #: None: the repository's HEAD
    path: str | None  #: a subdirectory of the tree, ``/``-separated

    @property
    def shown_url(self) -> str:
        return redact(self.url)

    @property
    def key(self) -> str:
        """How the install lock names the source: without user information."""
        text = GIT_PREFIX + self.shown_url + (f"@{self.ref}" if self.ref else "")
        return text + (f"#path={self.path}" if self.path else "")


def _bad(text: str, why: str) -> UsageError:
    return UsageError(
        "GIT002",
        f"{why}: {redact(text)}",
        Location(redact(text)),
        hint="give git+URL[@REF][#path=DIR] (https, ssh, git or file URLs) or "
        "github:OWNER/REPO[@REF][#path=DIR]",
    )


def parse_git_source(text: str) -> GitSpec:
    body, _, fragment = text.partition("#")
    path = None
    if fragment:
        if not fragment.startswith("path="):
            raise _bad(text, "the only fragment is #path=DIR")
        path = fragment[len("path=") :].strip("/")
        if path.startswith("./"):
            path = path[2:]
        if not path or unsafe_path(path) is not None:
            raise _bad(text, "#path= must be a relative directory inside the repository")
    if body.startswith(GITHUB_PREFIX):
        rest = body[len(GITHUB_PREFIX) :]
        repo, _, ref = rest.partition("@")
        if not _OWNER_REPO.fullmatch(repo):
            raise _bad(text, "github: takes OWNER/REPO")
        url = f"https://github.com/{repo}.git"
    elif body.startswith(GIT_PREFIX):
        url = body[len(GIT_PREFIX) :]
        if not url.startswith(_SCHEMES):
            raise _bad(text, "the URL must be https, http, ssh, git or file")
        scheme_end = url.index("://") + 3
        slash = url.find("/", scheme_end)
        if slash < 0:
            raise _bad(text, "the URL has no path")
        at = url.rfind("@", slash)
        ref = ""
        if at >= 0:
            url, ref = url[:at], url[at + 1 :]
    else:
        raise _bad(text, "not a git source")
    if ref == "" and "@" in body[-1:]:
        raise _bad(text, "an empty @REF")
    if ref and (ref.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ref)):
        raise _bad(text, "a ref cannot start with '-' or hold spaces")
    return GitSpec(url, ref or None, path)
