"""A small OCI distribution-spec client for one repository, on ``requests``.

Why not a library: the PyPI package ``oras`` (oras-py 0.2.43), measured for issue 13,
cannot set a manifest's ``artifactType``, always tags what it pushes (so no untagged
signature manifests or referrer indexes), has no referrers discovery, does not check
digests on pull (a corrupted blob came back silently), fails to push to a token-auth
registry (it keeps using a pull-only token) and retries for about 131 s before
reporting an unreachable registry. What skillpack needs is narrow (push and get blobs
and manifests, list and add referrers), so it is written here on ``requests``, which is
already in the dependency tree through sigstore.

What this client guarantees:

- every manifest it returns matches the digest asked for and the registry's
  ``Docker-Content-Digest``; every blob it streams matches its digest and size, checked
  while streaming (the caller discards what it wrote on an error);
- pushes ask for a push token (``repository:NAME:pull,push``) instead of reusing a pull
  token, and signature manifests and indexes are pushed by digest unless a tag is given;
- referrers come from the OCI 1.1 referrers API where the registry has it, and from
  the referrers tag schema (``sha256-<hex>`` tag holding an image index) where it
  answers 404; :meth:`RegistryClient.add_referrer` maintains that index when the
  registry does not take the ``subject`` itself (no ``OCI-Subject`` header);
- the scheme, time and secret policies of :mod:`skillpack.registry.transport`;
- every failure is a :class:`~skillpack.registry.errors.RegistryError` with a code,
  and for HTTP failures the status and the registry's error codes.

It never decides trust: it moves bytes and checks digests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, NamedTuple
from urllib.parse import urljoin, urlsplit

import requests

from skillpack.registry.artifact import (
    MANIFEST_MEDIA_TYPES,
    MAX_MANIFEST_SIZE,
    OCI_INDEX_MEDIA_TYPE,
    Descriptor,
    index_manifest,
    parse_image_manifest,
    parse_index,
    referrers_tag,
    sha256_digest,
)
from skillpack.registry.auth import Authenticator, scope_for
from skillpack.registry.errors import RegistryError
from skillpack.registry.reference import (
    Reference,
    is_digest,
    normalise_registry,
    parse_reference,
    validate_digest,
    validate_repository,
    validate_tag,
)
from skillpack.registry.transport import Body, ClientOptions, Transport, error_parts, read_body

CHUNK = 1024 * 1024
MAX_REFERRER_PAGES = 16


class Manifest(NamedTuple):
    """A manifest as fetched: its exact bytes, media type and (verified) digest."""

    data: bytes
    media_type: str
    digest: str


class RegistryClient:
    """The distribution API of one repository (``registry`` as host[:port])."""

    def __init__(
        self,
        registry: str,
        repository: str,
        options: ClientOptions | None = None,
        *,
        session: requests.Session | None = None,
    ) -> None:
        self.registry = normalise_registry(registry)
        self.repository = validate_repository(repository)
        self.options = options or ClientOptions()
        self.transport = Transport(self.options, session)
        endpoint = Reference(self.registry, self.repository).endpoint
        self.base = self.transport.base_url(endpoint)  # REG010 here, before any connection
        self.auth = Authenticator(
            self.registry,
            self.transport,
            explicit=self.options.credentials,
            environ=self.options.environ,
            docker_config=self.options.docker_config,
            environment_registry=self.options.environment_registry,
        )
        self._referrers_api: bool | None = None

    @classmethod
    def for_reference(
        cls,
        reference: Reference | str,
        options: ClientOptions | None = None,
        *,
        session: requests.Session | None = None,
    ) -> RegistryClient:
        ref = parse_reference(reference) if isinstance(reference, str) else reference
        return cls(ref.registry, ref.repository, options, session=session)

    def __repr__(self) -> str:
        return f"RegistryClient({self.registry!r}, {self.repository!r})"

    def close(self) -> None:
        self.transport.session.close()

    def __enter__(self) -> RegistryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- blobs -----------------------------------------------------------------------------

    def blob_exists(self, digest: str) -> bool:
        """Whether the repository has the blob ``digest``."""
        validate_digest(digest)
        response = self._send("HEAD", self._url("blobs", digest), what=f"check blob {digest}")
        response.close()
        if response.status_code == 200:
            return True
        if response.status_code == 404:
            return False
        raise self._fail(response, f"check blob {digest}")

    def push_blob(self, data: bytes | Path, digest: str | None = None) -> Descriptor:
        """Upload a blob (monolithic POST then PUT) unless the registry has it; return
        its digest and size (media type ``application/octet-stream``)."""
        body: Body
        if isinstance(data, bytes):
            size, actual = len(data), sha256_digest(data)
            if digest is not None and digest != actual:
                raise ValueError(f"the blob's digest is {actual}, not {digest}")
            body = data
        else:
            path = data
            size = path.stat().st_size
            actual = digest if digest is not None else file_digest(path)

            def body() -> IO[bytes]:
                return path.open("rb")

        what = f"push blob {actual}"
        if self.blob_exists(actual):
            return Descriptor("application/octet-stream", actual, size)
        start = self._send(
            "POST",
            self._url("blobs", "uploads", ""),
            push=True,
            what=what,
            headers={"Content-Length": "0"},
        )
        start.close()
        if start.status_code != 202:
            raise self._fail(start, what)
        location = start.headers.get("Location")
        if not location:
            raise self.transport.error(
                "REG032",
                f"{what}: the registry started an upload without a Location",
                status=start.status_code,
            )
        upload = urljoin(self.base + "/", location)
        done = self._send(
            "PUT",
            upload,
            push=True,
            what=what,
            headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)},
            params={"digest": actual},
            body=body,
        )
        done.close()
        if done.status_code != 201:
            raise self._fail(done, what)
        echoed = done.headers.get("Docker-Content-Digest")
        if echoed and echoed.startswith("sha256:") and echoed != actual:
            raise self.transport.error(
                "REG042",
                f"{what}: the registry stored the blob as {echoed}",
                status=done.status_code,
            )
        return Descriptor("application/octet-stream", actual, size)

    def get_blob(
        self,
        digest: str,
        out: IO[bytes],
        *,
        size: int | None = None,
        max_size: int | None = None,
    ) -> int:
        """Stream the blob ``digest`` into ``out``, checking its size (when given) and
        digest as it comes; return the number of bytes. On an error the bytes already
        written to ``out`` are the caller's to discard."""
        validate_digest(digest)
        what = f"get blob {digest}"
        response = self._send(
            "GET",
            self._url("blobs", digest),
            what=what,
            headers={"Accept-Encoding": "identity"},
            stream=True,
        )
        with response:
            if response.status_code != 200:
                raise self._fail(response, what)
            announced = response.headers.get("Content-Length")
            if (
                size is not None
                and announced is not None
                and announced.isdigit()
                and not response.headers.get("Content-Encoding")
                and int(announced) != size
            ):
                raise self.transport.error(
                    "REG043",
                    f"{what}: the registry announces {announced} bytes, not {size}",
                    status=response.status_code,
                )
            hasher = hashlib.sha256()
            total = 0
            try:
                for chunk in response.iter_content(CHUNK):
                    total += len(chunk)
                    if size is not None and total > size:
                        raise self.transport.error(
                            "REG043",
                            f"{what}: more than the {size} bytes its descriptor says",
                            status=response.status_code,
                        )
                    if max_size is not None and total > max_size:
                        raise self.transport.error(
                            "REG044",
                            f"{what}: larger than {max_size} bytes",
                            status=response.status_code,
                        )
                    hasher.update(chunk)
                    out.write(chunk)
            except requests.exceptions.RequestException as exc:
                timed_out = isinstance(exc, requests.exceptions.Timeout) or "timed out" in str(exc)
                raise self.transport.error(
                    "REG012" if timed_out else "REG011",
                    f"{what}: the transfer broke after {total} bytes",
                    status=response.status_code,
                ) from None
        if size is not None and total != size:
            raise self.transport.error(
                "REG043",
                f"{what}: {total} bytes, not the {size} of its descriptor",
                status=response.status_code,
            )
        actual = "sha256:" + hasher.hexdigest()
        if actual != digest:
            raise self.transport.error(
                "REG042",
                f"{what}: the bytes served have digest {actual}",
                hint=_TAMPERED,
                status=response.status_code,
            )
        return total

    # -- manifests -------------------------------------------------------------------------

    def push_manifest(self, reference: str | None, data: bytes, media_type: str) -> str:
        """Put a manifest at ``reference`` (a tag, its digest, or ``None``: by digest,
        untagged); return its digest."""
        return self._put_manifest(reference, data, media_type)[0]

    def get_manifest(self, reference: str | Reference) -> Manifest:
        """Fetch a manifest by tag or digest, verified against the digest asked for and
        against ``Docker-Content-Digest`` when the registry sends one."""
        target = self._target(reference)
        at = "@" if is_digest(target) else ":"
        what = f"get manifest {self.registry}/{self.repository}{at}{target}"
        response = self._send(
            "GET",
            self._url("manifests", target),
            what=what,
            headers={"Accept": ", ".join(MANIFEST_MEDIA_TYPES)},
            stream=True,
        )
        if response.status_code != 200:
            raise self._fail(response, what)
        data = self._read(response, MAX_MANIFEST_SIZE, what)
        actual = sha256_digest(data)
        if is_digest(target) and actual != target:
            raise self.transport.error(
                "REG040",
                f"{what}: the registry sent a manifest with digest {actual}",
                hint=_TAMPERED,
                status=response.status_code,
            )
        echoed = response.headers.get("Docker-Content-Digest", "").strip()
        if echoed.startswith("sha256:") and echoed != actual:
            raise self.transport.error(
                "REG041",
                f"{what}: Docker-Content-Digest says {echoed}, the bytes are {actual}",
                hint=_TAMPERED,
                status=response.status_code,
            )
        media_type = response.headers.get("Content-Type", "").partition(";")[0].strip()
        if media_type not in MANIFEST_MEDIA_TYPES:
            media_type = _body_media_type(data) or media_type
        return Manifest(data, media_type, actual)

    # -- referrers -------------------------------------------------------------------------

    def referrers(self, digest: str, artifact_type: str | None = None) -> list[Descriptor]:
        """The manifests whose ``subject`` is ``digest`` (of ``artifact_type`` if given),
        from the referrers API, or from the referrers tag schema on a 404."""
        validate_digest(digest)
        entries: list[dict[str, Any]] | None = None
        if self._referrers_api is not False:
            entries = self._referrers_from_api(digest, artifact_type)
        if entries is None:
            entries = self._referrers_from_tag(digest)
        found: list[Descriptor] = []
        seen: set[str] = set()
        for entry in entries:
            descriptor = Descriptor.from_json(entry, "a referrer")
            if artifact_type is not None and descriptor.artifact_type != artifact_type:
                continue
            if descriptor.digest not in seen:
                seen.add(descriptor.digest)
                found.append(descriptor)
        return found

    def add_referrer(self, manifest: bytes, media_type: str) -> str:
        """Push ``manifest`` (which has a ``subject``) untagged; unless the registry
        takes the subject itself (``OCI-Subject``), add it to the referrers tag schema
        index of the subject (fetch, add, push; idempotent, deterministic, one entry per
        digest). Return the manifest's digest."""
        parsed = parse_image_manifest(manifest)
        if parsed.subject is None:
            raise ValueError("a referrer manifest needs a subject")
        subject = parsed.subject.digest
        digest, headers = self._put_manifest(None, manifest, media_type)
        if headers.get("OCI-Subject", "").strip() == subject:
            self._referrers_api = True
            return digest
        tag = referrers_tag(subject)
        entries = self._referrers_from_tag(subject)
        if any(entry.get("digest") == digest for entry in entries):
            return digest
        entry = Descriptor(
            media_type,
            digest,
            len(manifest),
            artifact_type=parsed.artifact_type or parsed.config.media_type,
            annotations=parsed.annotations,
        ).to_json()
        kept: list[dict[str, Any]] = []
        seen: set[str] = set()
        for item in [*entries, entry]:
            if item["digest"] not in seen:
                seen.add(item["digest"])
                kept.append(item)
        self._put_manifest(tag, index_manifest(kept), OCI_INDEX_MEDIA_TYPE)
        return digest

    # -- internals -------------------------------------------------------------------------

    def _referrers_from_api(
        self, digest: str, artifact_type: str | None
    ) -> list[dict[str, Any]] | None:
        what = f"list referrers of {digest}"
        url: str | None = self._url("referrers", digest)
        params: dict[str, str | list[str]] | None = (
            {"artifactType": artifact_type} if artifact_type else None
        )
        entries: list[dict[str, Any]] = []
        pages = 0
        while url is not None:
            response = self._send(
                "GET",
                url,
                what=what,
                headers={"Accept": OCI_INDEX_MEDIA_TYPE},
                params=params,
                stream=True,
            )
            # 404 is the spec's "no referrers API"; 405 and 501 are what some registries
            # that predate it answer instead
            if response.status_code in (404, 405, 501) and pages == 0:
                response.close()
                self._referrers_api = False
                return None
            if response.status_code != 200:
                raise self._fail(response, what)
            self._referrers_api = True
            entries += parse_index(self._read(response, MAX_MANIFEST_SIZE, what))
            pages += 1
            url = _next_link(response, url)
            params = None
            if url is not None and pages >= MAX_REFERRER_PAGES:
                raise self.transport.error(
                    "REG032",
                    f"{what}: more than {MAX_REFERRER_PAGES} pages of referrers",
                    status=response.status_code,
                )
        return entries

    def _referrers_from_tag(self, digest: str) -> list[dict[str, Any]]:
        """The referrers tag schema's index of ``digest``; no tag or no valid index
        means no referrers (as the distribution spec says)."""
        try:
            found = self.get_manifest(referrers_tag(digest))
        except RegistryError as exc:
            if exc.code == "REG030":
                return []
            raise
        try:
            return parse_index(found.data)
        except RegistryError as exc:
            if exc.code == "REG051":
                return []
            raise

    def _put_manifest(
        self, reference: str | None, data: bytes, media_type: str
    ) -> tuple[str, Mapping[str, str]]:
        digest = sha256_digest(data)
        target = digest if reference is None else self._target(reference)
        if is_digest(target) and target != digest:
            raise ValueError(f"the manifest's digest is {digest}, not {target}")
        what = f"push manifest {self.registry}/{self.repository}:{target}"
        if len(data) > MAX_MANIFEST_SIZE:
            raise self.transport.error("REG044", f"{what}: larger than {MAX_MANIFEST_SIZE} bytes")
        response = self._send(
            "PUT",
            self._url("manifests", target),
            push=True,
            what=what,
            headers={"Content-Type": media_type},
            body=data,
        )
        response.close()
        if response.status_code not in (200, 201):
            raise self._fail(response, what)
        echoed = response.headers.get("Docker-Content-Digest", "").strip()
        if echoed.startswith("sha256:") and echoed != digest:
            raise self.transport.error(
                "REG041",
                f"{what}: the registry stored it as {echoed}, the bytes are {digest}",
                status=response.status_code,
            )
        return digest, response.headers

    def _target(self, reference: str | Reference) -> str:
        if isinstance(reference, Reference):
            if reference.target is None:
                raise self.transport.error("REG006", f"{reference} has no tag or digest")
            return reference.target
        return reference if is_digest(reference) else validate_tag(reference)

    def _url(self, *parts: str) -> str:
        return f"{self.base}/v2/{self.repository}/" + "/".join(parts)

    def _send(
        self,
        method: str,
        url: str,
        *,
        what: str,
        push: bool = False,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str | list[str]] | None = None,
        body: Body = None,
        stream: bool = False,
    ) -> requests.Response:
        """One exchange with authorization: answer one 401 challenge, then give up
        with a coded refusal."""
        scope = scope_for(self.repository, push)
        same_host = urlsplit(url).netloc == urlsplit(self.base).netloc
        for attempt in (0, 1):
            sent = dict(headers or {})
            if same_host:
                sent.update(self.auth.headers(scope))
            response = self.transport.request(
                method, url, headers=sent, params=params, body=body, stream=stream
            )
            if response.status_code not in (401, 403):
                return response
            answered = urlsplit(response.url or url).netloc
            if answered and answered != urlsplit(self.base).netloc:
                # a host the registry redirected to (blob storage) asks for credentials:
                # they are the registry's, never sent elsewhere, and its challenge (a
                # token realm of its own choosing) is not answered
                response.close()
                raise self.transport.error(
                    "REG026",
                    f"{what}: {answered}, where {urlsplit(self.base).netloc} redirected the "
                    f"request, answered HTTP {response.status_code} (skillpack sends the "
                    "registry's credentials to the registry only)",
                    hint=f"the storage behind {urlsplit(self.base).netloc} should accept the "
                    "redirect as it is (a signed URL); report it to the registry's operators",
                    status=response.status_code,
                )
            if (
                response.status_code == 401
                and attempt == 0
                and self.auth.challenged(response.headers.get("WWW-Authenticate"), scope)
            ):
                response.close()
                continue
            raise self.auth.refusal(response, scope, what)
        raise AssertionError("unreachable")

    def _read(self, response: requests.Response, limit: int, what: str) -> bytes:
        try:
            return read_body(response, limit, what)
        except requests.exceptions.RequestException as exc:
            timed_out = isinstance(exc, requests.exceptions.Timeout) or "timed out" in str(exc)
            raise self.transport.error(
                "REG012" if timed_out else "REG011",
                f"{what}: the transfer broke",
                status=response.status_code,
            ) from None

    def _fail(self, response: requests.Response, what: str) -> RegistryError:
        codes, details = error_parts(response)
        status = response.status_code
        hint = None
        if status == 404:
            code, message = "REG030", f"{what}: not found"
            hint = (
                "check the repository, tag or digest (skillpack push prints what it pushed), "
                "and that the credentials can see the repository (some registries answer 404 "
                "for a private one)"
            )
        elif status == 413:
            code, message = "REG044", f"{what}: the registry says it is too large"
        else:
            code, message = "REG031", f"{what}: the registry answered HTTP {status}"
        return self.transport.error(
            code, message, hint=hint, details=details, status=status, registry_codes=codes
        )


_TAMPERED = "the registry, a proxy or the storage behind them changed the content; do not use it"


def file_digest(path: Path) -> str:
    """``sha256:HEX`` of a file, read in chunks."""
    hasher = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            hasher.update(chunk)
    return "sha256:" + hasher.hexdigest()


def _body_media_type(data: bytes) -> str | None:
    import json

    try:
        value = json.loads(data)
    except ValueError:
        return None
    media_type = value.get("mediaType") if isinstance(value, dict) else None
    return media_type if isinstance(media_type, str) else None


def _next_link(response: requests.Response, current: str) -> str | None:
    link = response.links.get("next")
    if not link or not link.get("url"):
        return None
    return urljoin(current, link["url"])
