"""The consumer's policy file: which sources install, pull and serve admit, who must
have signed them, which content-scan codes refuse, and which findings were accepted.

Layers, each of which must admit (docs/policy.md):

* the user's policy: ``--policy FILE``, else ``$SKILLPACK_POLICY``, else
  ``$XDG_CONFIG_HOME/skillpack/policy.toml`` (``~/.config/skillpack/policy.toml``);
* every ``skillpack-policy.toml`` from the working directory up to the repository's
  root (:func:`~skillpack.policy.places.project_policies`), each of which can only
  tighten: its sources narrow the user's, its blocked codes add to them, its signers
  add requirements; an ``[[accept]]`` in it is refused (a repository cannot accept
  findings on its consumers' behalf).

The format (TOML)::

    version = 1
    [scan]
    block = ["SP504"]              # warning codes that refuse too (errors always do)
    [[source]]
    match = "oci://ghcr.io/acme/*" # a glob over the source as the lock names it
    key = "keys/acme.pub"          # optional signer: the [[install]] signer keys
    [[accept]]
    skill = "pdf-tools"            # name or skill path
    code = "SP520"
    file = "scripts/install.sh"    # optional: one file, bound to its digest
    digest = "sha256:..."
    reason = "reviewed: installs poppler from the distribution"

Standard library only (``tomllib``): the stdio server reads it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillpack._internal.digest import DIGEST_RE
from skillpack._internal.options import SIGNER_KEYS
from skillpack.errors import EXIT_USAGE, Location, SkillpackError, UsageError
from skillpack.policy import errors as _errors  # noqa: F401  (registers the codes)
from skillpack.policy.places import ENV, project_policies, user_policy

if TYPE_CHECKING:
    from skillpack.policy.admission import Accept

#: the largest policy file read
MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class SourceRule:
    """``[[source]]``: sources matching ``match`` are allowed, signed by ``signer``."""

    match: str
    signer: Mapping[str, Any]  #: SignaturePolicy fields (paths absolute); empty: any
    where: str  #: ``FILE: source[N]``

    def matches(self, source: str) -> bool:
        return fnmatch.fnmatchcase(source, self.match)


@dataclass(frozen=True)
class Layer:
    """One policy file, read."""

    path: Path
    sources: tuple[SourceRule, ...] = ()
    sources_listed: bool = False  #: a [[source]] table exists: only those sources
    block: frozenset[str] = frozenset()
    accepts: tuple[Accept, ...] = ()
    #: its ``[scan] block`` as a refusal names it: ``[scan] block = ["SP521"] in FILE:LINE``
    block_rule: str = ""


@dataclass(frozen=True)
class Policy:
    """The layers in force (the user's first, then the projects', outermost first) and
    the command line's accepts."""

    layers: tuple[Layer, ...] = ()
    cli_accepts: tuple[Accept, ...] = ()

    @classmethod
    def default(cls) -> Policy:
        """No policy file: every scan error refuses, any source, no signer required."""
        return cls()

    def with_accepts(self, accepts: tuple[Accept, ...]) -> Policy:
        return Policy(self.layers, self.cli_accepts + accepts)

    @property
    def accepts(self) -> tuple[Accept, ...]:
        """Accepted findings: the user's policy and the command line (never the
        project's)."""
        return tuple(a for layer in self.layers for a in layer.accepts) + self.cli_accepts

    @property
    def block(self) -> dict[str, str]:
        """Warning codes that refuse too (every layer's), each with the rule that made it
        so (``[scan] block = [...] in FILE:LINE``; several layers' joined by ``; ``), for
        the refusal to name."""
        rules: dict[str, str] = {}
        for layer in self.layers:
            for code in sorted(layer.block):
                earlier = rules.get(code)
                rules[code] = f"{earlier}; {layer.block_rule}" if earlier else layer.block_rule
        return rules

    def check_source(self, source: str, *aliases: str) -> None:
        """Refuse (``ADM003``) a source some layer does not list (by its name or one of
        its ``aliases``: a file's absolute path); the refusal names the file and its
        patterns."""
        names = (source, *aliases)
        for layer in self.layers:
            listed = any(r.matches(name) for r in layer.sources for name in names)
            if layer.sources_listed and not listed:
                patterns = ", ".join(r.match for r in layer.sources)
                raise SkillpackError(
                    "ADM003",
                    f"{source}: not a source the policy admits (its [[source]] patterns: "
                    f"{patterns})",
                    Location(str(layer.path)),
                    hint=f"add a [[source]] matching it to {layer.path}, or use a source it lists",
                )

    def signers(self, source: str) -> list[SourceRule]:
        """The rules with a signer that match ``source``: each must be satisfied."""
        return [r for layer in self.layers for r in layer.sources if r.signer and r.matches(source)]


def load_policy(
    explicit: Path | None,
    start: Path | Iterable[Path] | None,
    environ: Mapping[str, str] | None = None,
) -> Policy:
    """The policy in force: ``explicit`` (``--policy``) or the user's, then every
    project's ``skillpack-policy.toml`` from ``start`` (the working directory; install
    adds its project's directory) up to the repository's root, outermost first
    (:func:`~skillpack.policy.places.project_policies`). A project file that is the
    user's layer itself (``--policy skillpack-policy.toml``) is read once, as that."""
    env = os.environ if environ is None else environ
    layers: list[Layer] = []
    user = explicit or user_policy(env)
    if user is not None:
        layers.append(read_layer(user, project_layer=False, required=explicit is not None
                                 or bool(env.get(ENV))))  # fmt: skip
    for path in project_policies(start) if start is not None else ():
        if user is None or not _same_file(path, user):
            layers.append(read_layer(path, project_layer=True))
    _check_signers_agree(layers)
    return Policy(tuple(layers))


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def signature_policy(policy: Policy, source: str, given: Any) -> Any:
    """The signature check of ``source`` (a ``SignaturePolicy``): ``given`` (the
    command line's, when it asks for a check), else the one signer the consumer's
    policy requires for it, else None. Both given: they must be the same (``ADM003``)."""
    rules = policy.signers(source)
    if not rules:
        return given if given is not None and given.requested else None
    from skillpack.signing.policy import SignaturePolicy

    wanted = [SignaturePolicy(**rule.signer) for rule in rules]
    if given is None or not given.requested:
        if any(w != wanted[0] for w in wanted):
            raise SkillpackError(
                "ADM003", f"{source}: the policy requires more than one signer",
                Location(rules[1].where), hint="keep one signer per source in the policy files",
            )  # fmt: skip
        return wanted[0]
    for rule, required in zip(rules, wanted, strict=True):
        if required != given:
            raise SkillpackError(
                "ADM003",
                f"{source}: the signature options given are not the signer the policy requires",
                Location(rule.where),
                hint="drop the signature options (the policy's signer is checked), or give "
                "exactly its signer",
            )
    return given


def _error(path: Path, key: str, message: str, text: str = "", hint: str = "") -> UsageError:
    line = _line_of(text, key) if text else 0
    return UsageError(
        "ADM004",
        f"{key}: {message}" if key else message,
        Location(str(path), line),
        hint=hint or "see docs/policy.md for the format",
        exit_code=EXIT_USAGE,
    )


def _line_of(text: str, key: str) -> int:
    """The line where ``key`` (``accept[2].digest``: its last name) is written, best
    effort: the N-th table of that name, then the key inside it."""
    parts = re.findall(r"([a-z-]+)(?:\[(\d+)\])?", key)
    offset = 0
    for name, index in parts:
        if index:
            found = [m.start() for m in re.finditer(rf"^\s*\[\[{re.escape(name)}\]\]", text, re.M)]
            if int(index) <= len(found):
                offset = found[int(index) - 1]
            continue
        match = re.compile(rf"^\s*{re.escape(name)}\s*=|^\s*\[{re.escape(name)}\]", re.M)
        hit = match.search(text, offset)
        if hit:
            offset = hit.start()
    return text.count("\n", 0, offset) + 1 if offset or parts else 0


def read_layer(path: Path, *, project_layer: bool, required: bool = True) -> Layer:
    """Read one policy file (``ADM004`` naming the file, line and key when it is bad)."""
    try:
        if not path.is_file():
            raise _error(path, "", "the policy file does not exist or is not a regular file",
                         hint="fix --policy or SKILLPACK_POLICY")  # fmt: skip
        if path.stat().st_size > MAX_BYTES:
            raise _error(path, "", f"the policy file is larger than {MAX_BYTES} bytes")
        raw = path.read_bytes()
    except OSError as exc:
        raise _error(path, "", f"cannot read the policy file: {exc.strerror}") from None
    import tomllib

    try:
        text = raw.decode("utf-8")
        table = tomllib.loads(text)
    except UnicodeDecodeError:
        raise _error(path, "", "the policy file is not UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        raise UsageError("ADM004", f"not valid TOML: {exc}", Location(str(path), line or 0),
                         hint="see docs/policy.md for the format",
                         exit_code=EXIT_USAGE) from None  # fmt: skip
    return _layer(path, table, text, project_layer)


def _layer(path: Path, table: dict[str, Any], text: str, project_layer: bool) -> Layer:
    unknown = sorted(set(table) - {"version", "scan", "source", "accept"})
    if unknown:
        raise _error(path, unknown[0], "unknown key (version, scan, source, accept)", text)
    if table.get("version", 1) != 1:
        raise _error(path, "version", "must be 1", text)
    scan = _table(path, table, "scan", text)
    for key in sorted(set(scan) - {"block"}):
        raise _error(path, f"scan.{key}", "unknown key (block)", text)
    block = scan.get("block", [])
    if not isinstance(block, list) or not all(_is_code(c) for c in block):
        raise _error(path, "scan.block", "must be a list of content-scan codes (SP5xx)", text)
    sources = []
    raw_sources = table.get("source", [])
    if not isinstance(raw_sources, list):
        raise _error(path, "source", "must be [[source]] tables", text)
    for index, item in enumerate(raw_sources, 1):
        sources.append(_source(path, item, f"source[{index}]", text))
    accepts = []
    raw_accepts = table.get("accept", [])
    if not isinstance(raw_accepts, list):
        raise _error(path, "accept", "must be [[accept]] tables", text)
    if raw_accepts and project_layer:
        raise _error(path, "accept[1]", "a project policy cannot accept findings: it can only "
                     "tighten its consumers' policy", text,
                     hint="accept in your own policy (SKILLPACK_POLICY, ~/.config/skillpack/"
                     "policy.toml) or with --accept")  # fmt: skip
    for index, item in enumerate(raw_accepts, 1):
        accepts.append(_accept(path, item, f"accept[{index}]", text))
    listed = ", ".join(f'"{code}"' for code in block)
    line = _line_of(text, "scan.block") if block else 0
    rule = f"[scan] block = [{listed}] in {path}{f':{line}' if line else ''}" if block else ""
    return Layer(path, tuple(sources), "source" in table, frozenset(block), tuple(accepts), rule)


def _table(path: Path, table: Mapping[str, Any], key: str, text: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        raise _error(path, key, "must be a table", text)
    return value


def _is_code(value: object) -> bool:
    return isinstance(value, str) and re.fullmatch(r"SP5\d\d", value) is not None


def _source(path: Path, item: object, key: str, text: str) -> SourceRule:
    if not isinstance(item, dict):
        raise _error(path, key, "must be a table", text)
    for name in sorted(set(item) - {"match", *SIGNER_KEYS}):
        raise _error(path, f"{key}.{name}", f"unknown key (match, {', '.join(SIGNER_KEYS)})",
                     text)  # fmt: skip
    match = item.get("match")
    if not isinstance(match, str) or not match:
        raise _error(path, f"{key}.match", "must be a non-empty glob of sources", text)
    signer: dict[str, Any] = {}
    for name, field_name in SIGNER_KEYS.items():
        if name not in item:
            continue
        value = item[name]
        if name == "staging":
            if not isinstance(value, bool):
                raise _error(path, f"{key}.{name}", "must be true or false", text)
        elif not isinstance(value, str) or not value:
            raise _error(path, f"{key}.{name}", "must be a non-empty string", text)
        if name in ("key", "trust-config"):
            value = (path.parent / value).resolve()
        signer[field_name] = value
    return SourceRule(match, signer, f"{path}: {key}")


def _accept(path: Path, item: object, key: str, text: str) -> Accept:
    if not isinstance(item, dict):
        raise _error(path, key, "must be a table", text)
    for name in sorted(set(item) - {"skill", "code", "file", "digest", "reason"}):
        raise _error(path, f"{key}.{name}", "unknown key (skill, code, file, digest, reason)",
                     text)  # fmt: skip
    skill, code = item.get("skill"), item.get("code")
    if not isinstance(skill, str) or not skill.strip("/"):
        raise _error(path, f"{key}.skill", "must be the skill's name or path", text)
    if not _is_code(code):
        raise _error(path, f"{key}.code", "must be a content-scan code (SP5xx)", text)
    file, digest = item.get("file"), item.get("digest")
    if (file is None) != (digest is None):
        raise _error(path, f"{key}.digest" if file else f"{key}.file",
                     "file and digest go together: an accepted file is bound to its digest",
                     text)  # fmt: skip
    if file is not None and (not isinstance(file, str) or not file or file.startswith("/")):
        raise _error(path, f"{key}.file", "must be the file's path inside the skill", text)
    if digest is not None and (not isinstance(digest, str) or not DIGEST_RE.fullmatch(digest)):
        raise _error(path, f"{key}.digest", "must be sha256:<64 lowercase hex>", text)
    assert isinstance(code, str)
    from skillpack.policy.admission import Accept

    return Accept(skill.strip("/"), code, file, digest, str(path))


def _check_signers_agree(layers: list[Layer]) -> None:
    """Two layers requiring a different key for the same pattern cannot both be met."""
    seen: dict[str, tuple[Path, Mapping[str, Any]]] = {}
    for layer in layers:
        for rule in layer.sources:
            if not rule.signer.get("key"):
                continue
            earlier = seen.get(rule.match)
            if earlier is not None and earlier[1].get("key") != rule.signer["key"]:
                raise UsageError(
                    "ADM004",
                    f"{rule.match}: {earlier[0]} and {layer.path} require different signing "
                    "keys; no bundle can satisfy both",
                    Location(str(layer.path)),
                    hint="make the project's signer the user's, or drop one of them",
                    exit_code=EXIT_USAGE,
                )
            seen[rule.match] = (layer.path, rule.signer)
