"""``--plugin NAME``: the source of one plugin of a repository's marketplace.

The marketplace (``.claude-plugin/marketplace.json``, else
``.agents/plugins/marketplace.json``) is read with :func:`skillpack.plugins.read_marketplace`
from the source's tree: a git source at the commit its ref names now (the file read
from the fetched commit, nothing checked out), or a directory. The plugin's source
becomes an ordinary source, installed and pinned like any:

- a relative source: the same repository and ref, ``#path=`` the plugin's directory
  (a directory source: the plugin's directory);
- ``github``: ``github:OWNER/REPO@SHA`` (or ``@REF``); ``url``: ``git+URL@SHA``;
  ``git-subdir``: ``git+URL@SHA#path=PATH``; the commit is pinned in the install lock;
- ``npm`` is refused: skillpack fetches nothing from npm.
"""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from skillpack.errors import Location, SkillpackError, UsageError
from skillpack.gitsource.git import fetch_commit, git_cache_dir, resolve, run_git

if TYPE_CHECKING:
    from skillpack.plugins import PluginSource

from skillpack.gitsource.spec import (
    GIT_PREFIX,
    GITHUB_PREFIX,
    GitSpec,
    is_git_source,
    parse_git_source,
)


def plugin_source(source: str, name: str, base: Path) -> str:
    """The source of the plugin ``name`` of ``source``'s marketplace (a git source, or
    a directory relative to ``base``)."""
    from skillpack.plugins.hosts import HOSTS, MARKETPLACE_HOSTS

    if is_git_source(source):
        spec = parse_git_source(source)
        with tempfile.TemporaryDirectory(prefix="skillpack-marketplace-") as tmp:
            root = Path(tmp)
            _marketplace_files(spec, root, [HOSTS[h].marketplace for h in MARKETPLACE_HOSTS])
            try:
                return _pick(root, MARKETPLACE_HOSTS, name, spec, None)
            except SkillpackError as exc:  # name the file in the repository, not here
                where = exc.location
                if where is None or not where.path.startswith(str(root)):
                    raise
                inside = Path(where.path).relative_to(root).as_posix()
                located = Location(f"{spec.key}: {inside}", where.line, where.column)
                raise SkillpackError(exc.code, exc.message, located, exc.hint,
                                     details=exc.details) from None  # fmt: skip
    directory = Path(source) if Path(source).is_absolute() else base / source
    if not directory.is_dir():
        raise UsageError(
            "USE000",
            f"--plugin needs a git source or a directory: {source}",
            hint="give git+URL[@REF], github:OWNER/REPO[@REF] or a directory",
        )
    return _pick(directory, MARKETPLACE_HOSTS, name, None, source)


def _marketplace_files(spec: GitSpec, root: Path, names: list[str]) -> None:
    """The marketplace files of ``spec``'s tree at the commit its ref names now, written
    under ``root`` (read with ``cat-file``: no filter, no checkout)."""
    now = resolve(spec)
    repo = fetch_commit(spec, now.commit, git_cache_dir(), ref=now.ref)
    for rel in names:
        inside = posixpath.join(spec.path, rel) if spec.path else rel
        try:
            data = run_git(["cat-file", "blob", f"{now.commit}:{inside}"], cwd=repo,
                           what=spec.key)  # fmt: skip
        except SkillpackError:
            continue
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _pick(root: Path, hosts: tuple[str, ...], name: str, spec: GitSpec | None,
          directory: str | None) -> str:  # fmt: skip
    """The source of the plugin ``name`` in the first marketplace under ``root`` listing it."""
    from skillpack.plugins import Marketplace, MarketplacePlugin, read_marketplace

    found: MarketplacePlugin | None = None
    last: Marketplace | None = None
    errors: list[SkillpackError] = []
    for host in hosts:
        try:
            market = read_marketplace(root, host)
        except SkillpackError as exc:
            if exc.code != "PLG001":
                raise
            errors.append(exc)
            continue
        found = market.plugin(name)
        if found is not None:
            break
        last = market
    if found is None:
        shown = spec.key if spec is not None else str(directory)
        if len(errors) == len(hosts):
            raise UsageError("PLG001", f"{shown} has no marketplace (.claude-plugin/"
                             "marketplace.json or .agents/plugins/marketplace.json)",
                             Location(shown))  # fmt: skip
        assert last is not None
        found = last.require(name)  # PLG004 listing its plugins
    return _as_source(found.source, spec, directory, name)


def _at(sha: str, ref: str) -> str:
    return f"@{sha or ref}" if sha or ref else ""


def _as_source(src: PluginSource, spec: GitSpec | None, directory: str | None, name: str) -> str:
    if src.kind == "relative":
        if spec is not None:
            path = posixpath.join(spec.path, src.path) if spec.path else src.path
            head = GIT_PREFIX + spec.url + (f"@{spec.ref}" if spec.ref else "")
            return head + (f"#path={path}" if path else "")
        assert directory is not None
        return posixpath.join(directory, src.path) if src.path else directory
    if src.kind == "github":
        return f"{GITHUB_PREFIX}{src.repo}{_at(src.sha, src.ref)}"
    if src.kind in ("url", "git-subdir"):
        text = f"{GIT_PREFIX}{src.url}{_at(src.sha, src.ref)}"
        if src.kind == "git-subdir" and src.path:
            text += f"#path={src.path}"
        parse_git_source(text)  # GIT002 for a URL git sources do not take
        return text
    raise UsageError(
        "GIT002",
        f"plugin {name!r} comes from npm ({src.package}); skillpack fetches nothing from npm",
        hint="install it from its git repository",
    )
