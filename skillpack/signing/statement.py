"""The signed statement: an in-toto Statement v1 about one skillpack archive.

``subject`` is the archive (file name and sha256); ``predicateType`` is
:data:`PREDICATE_TYPE`; the predicate (``schemas/bundle-predicate.schema.json``) binds
the lock inside the archive and every published file ``{uri, digest, size}``. The
statement is serialized as compact JSON with sorted keys, so the same bundle always
yields the same bytes. This module does not import sigstore.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from skillpack._internal.schemas import validation_errors
from skillpack.manifest import DIGEST_RE, Manifest
from skillpack.signing.errors import failed

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
PREDICATE_TYPE = "https://skillpack.dev/bundle/v1"
PREDICATE_SCHEMA = "bundle-predicate.schema.json"


@dataclass(frozen=True, slots=True)
class SignedFile:
    uri: str
    digest: str  #: ``sha256:<hex>``
    size: int


@dataclass(frozen=True)
class BundleStatement:
    """What a skillpack signature says about an archive."""

    archive_name: str
    archive_digest: str  #: ``sha256:<hex>`` of the archive file
    lock_digest: str  #: ``sha256:<hex>`` of the lock inside the archive
    bundle_name: str
    bundle_version: str
    files: tuple[SignedFile, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "_type": STATEMENT_TYPE,
            "subject": [
                {
                    "name": self.archive_name,
                    "digest": {"sha256": self.archive_digest.removeprefix("sha256:")},
                }
            ],
            "predicateType": PREDICATE_TYPE,
            "predicate": {
                "bundle": {"name": self.bundle_name, "version": self.bundle_version},
                "lock": {"digest": self.lock_digest},
                "files": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in self.files],
            },
        }

    def to_bytes(self) -> bytes:
        return json.dumps(
            self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()


def _check_digest(value: str, what: str) -> str:
    if not DIGEST_RE.fullmatch(value):
        raise ValueError(f"{what} must be 'sha256:<64 lowercase hex>', not {value!r}")
    return value


def make_statement(
    archive_name: str, archive_digest: str, lock_digest: str, manifest: Manifest
) -> BundleStatement:
    """The statement for an archive called ``archive_name`` whose sha256 is
    ``archive_digest``, holding a lock with digest ``lock_digest`` that describes
    ``manifest``. Independent of how the archive is laid out."""
    if not archive_name or "/" in archive_name:
        raise ValueError(f"archive name must be a bare file name, not {archive_name!r}")
    files = tuple(
        SignedFile(f.uri, f.digest, f.size)
        for f in sorted(manifest.unique_files().values(), key=lambda f: f.uri.encode())
    )
    return BundleStatement(
        archive_name,
        _check_digest(archive_digest, "archive digest"),
        _check_digest(lock_digest, "lock digest"),
        manifest.name,
        manifest.version,
        files,
    )


def parse_statement(payload: bytes, where: str) -> BundleStatement:
    """Read a signed payload back into a :class:`BundleStatement`.

    Raises SIG008 (not an in-toto statement with one sha256 subject, or a predicate that
    breaks the schema) or SIG009 (another predicate type)."""
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise failed("SIG008", f"signed payload is not JSON: {exc}", where) from None
    if not isinstance(data, dict) or data.get("_type") != STATEMENT_TYPE:
        raise failed("SIG008", "signed payload is not an in-toto Statement v1", where)
    if data.get("predicateType") != PREDICATE_TYPE:
        raise failed(
            "SIG009",
            f"predicate type is {data.get('predicateType')!r}, not {PREDICATE_TYPE!r}",
            where,
            hint="this signature is not a skillpack bundle signature",
        )
    subjects = data.get("subject")
    if not isinstance(subjects, list) or len(subjects) != 1 or not isinstance(subjects[0], dict):
        raise failed("SIG008", "statement must have exactly one subject (the archive)", where)
    subject = subjects[0]
    digest = subject.get("digest")
    sha = digest.get("sha256") if isinstance(digest, dict) else None
    name = subject.get("name")
    if not isinstance(sha, str) or not isinstance(name, str):
        raise failed("SIG008", "statement subject has no name or sha256 digest", where)
    predicate = data.get("predicate")
    files = _predicate_files(predicate)
    problems = [] if files is not None else validation_errors(PREDICATE_SCHEMA, predicate)
    if files is None or problems or not isinstance(predicate, dict):
        raise failed(
            "SIG008",
            "predicate does not match schemas/" + PREDICATE_SCHEMA,
            where,
            details=[f"predicate {path}: {msg}" for path, msg in problems[:10]],
        )
    try:
        archive_digest = _check_digest("sha256:" + sha, "subject digest")
    except ValueError as exc:
        raise failed("SIG008", str(exc), where) from None
    return BundleStatement(
        name,
        archive_digest,
        predicate["lock"]["digest"],
        predicate["bundle"]["name"],
        predicate["bundle"]["version"],
        files,
    )


def _predicate_files(predicate: object) -> tuple[SignedFile, ...] | None:
    """The predicate's files when the predicate is what the schema allows, checked in
    Python (a signed 1,000-skill bundle lists 5,000 files, and a jsonschema pass over
    them took longer than the rest of the signature check); None when it is not, and
    the schema then says why (a test keeps the two judgements the same)."""
    if not isinstance(predicate, dict) or predicate.keys() != {"bundle", "lock", "files"}:
        return None
    bundle, lock, files = predicate["bundle"], predicate["lock"], predicate["files"]
    if not (
        isinstance(bundle, dict)
        and bundle.keys() == {"name", "version"}
        and all(isinstance(v, str) and v for v in bundle.values())
        and isinstance(lock, dict)
        and lock.keys() == {"digest"}
        and isinstance(lock["digest"], str)
        and DIGEST_RE.fullmatch(lock["digest"])
        and isinstance(files, list)
    ):
        return None
    out = []
    keys = {"uri", "digest", "size"}
    for f in files:
        if not (isinstance(f, dict) and f.keys() == keys):
            return None
        uri, digest, size = f["uri"], f["digest"], f["size"]
        if not (
            isinstance(uri, str)
            and uri.startswith("skill://")
            and isinstance(digest, str)
            and DIGEST_RE.fullmatch(digest)
            and (type(size) is int or (type(size) is float and size.is_integer()))
            and size >= 0
        ):
            return None
        out.append(SignedFile(uri, digest, int(size)))
    return tuple(out)
