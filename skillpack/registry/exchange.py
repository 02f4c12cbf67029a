"""Push and fetch: a bundle and its signature referrers to and from a registry, through
the content-addressed cache (what :mod:`skillpack.registry` exports as its API)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillpack.registry.artifact import Descriptor, ImageManifest
    from skillpack.registry.cache import Cache
    from skillpack.registry.client import RegistryClient
    from skillpack.registry.errors import RegistryError
    from skillpack.registry.options import ClientOptions
    from skillpack.registry.reference import Reference

#: signature files larger than this are refused on fetch (Sigstore bundles are a few KiB)
MAX_SIGNATURE_SIZE = 4 * 1024 * 1024
#: the largest bundle blob fetched: what a format-1 bundle can be (ZIP offsets, 4 GiB)
MAX_BUNDLE_BYTES = 0xFFFFFFFF
#: a lower limit for the bundle blobs a fetch accepts (bytes)
MAX_BYTES_ENV = "SKILLPACK_REGISTRY_MAX_BYTES"


def max_bundle_bytes(environ: Mapping[str, str]) -> int:
    """The largest bundle blob accepted: ``SKILLPACK_REGISTRY_MAX_BYTES`` when set (a
    whole number, at most :data:`MAX_BUNDLE_BYTES`), else that maximum."""
    from skillpack.errors import EXIT_USAGE, UsageError

    value = environ.get(MAX_BYTES_ENV, "").strip()
    if not value:
        return MAX_BUNDLE_BYTES
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise UsageError(
            "USE000", f"{MAX_BYTES_ENV}={value!r} is not a number of bytes",
            hint="set it to a whole number of bytes, or unset it", exit_code=EXIT_USAGE,
        )  # fmt: skip
    return min(int(value), MAX_BUNDLE_BYTES)


@dataclass(frozen=True)
class PushResult:
    """What :func:`push_bundle` pushed. ``reference`` is by digest; ``str()`` of the
    result is that reference."""

    reference: Reference
    manifest_digest: str
    tag: str | None
    bundle_digest: str
    bundle_size: int
    signature_digest: str | None

    def __str__(self) -> str:
        return str(self.reference)


@dataclass(frozen=True)
class FetchResult:
    """What :func:`fetch_bundle` fetched. ``bundle_path`` is the verified blob in the
    cache (read it; do not modify it). ``name`` and ``version`` come from the manifest's
    annotations and are not verified. ``signature`` is the first Sigstore bundle
    referrer (``signatures`` has all of them, in the registry's order), or ``None``;
    ``signature_paths`` are the same signatures' files in the cache, in that order.
    ``notes``: what was left out and why (a signature referrer the registry lists but no
    longer has; with ``best_effort_signatures``, referrers that could not be fetched).
    ``bundle_checked``: the blob at ``bundle_path`` was hashed against ``bundle_digest``
    by this fetch; ``False`` only for a blob already cached, fetched with
    ``verify_cached_blob=False`` (its size and its stamp were checked, see
    :mod:`skillpack.registry.cache`: the caller checks the content)."""

    reference: Reference
    manifest_digest: str
    manifest: bytes
    bundle_path: Path
    bundle_digest: str
    bundle_size: int
    name: str | None
    version: str | None
    signatures: tuple[bytes, ...]
    from_cache: bool
    signature_paths: tuple[Path, ...] = ()
    notes: tuple[str, ...] = ()
    bundle_checked: bool = True

    @property
    def signature(self) -> bytes | None:
        return self.signatures[0] if self.signatures else None

    def __str__(self) -> str:
        return str(self.reference)


def push_bundle(
    bundle_path: Path | str,
    ref: Reference | str,
    *,
    name: str,
    version: str,
    signature_path: Path | str | None = None,
    options: ClientOptions | None = None,
    environ: Mapping[str, str] | None = None,
) -> PushResult:
    """Push a ``.skp`` bundle (and its Sigstore signature, as a referrer) to ``ref``.

    ``ref`` is ``oci://REGISTRY/REPOSITORY[:TAG]`` (no tag: the manifest is pushed
    untagged). ``name`` and ``version`` (the verified lock's) become annotations, the
    titles too (``NAME-VERSION.skp`` and ``NAME-VERSION.skp.sigstore.json``: never the
    local file names); ``SOURCE_DATE_EPOCH`` (from ``environ``, default ``os.environ``)
    gives ``org.opencontainers.image.created``. The same bundle, name and version give
    the same manifest digest, whatever the files are called here."""
    from skillpack.registry.artifact import (
        EMPTY_DIGEST,
        EMPTY_JSON,
        OCI_MANIFEST_MEDIA_TYPE,
        Descriptor,
        bundle_manifest,
        signature_manifest,
    )
    from skillpack.registry.client import RegistryClient, file_digest
    from skillpack.registry.errors import registry_error
    from skillpack.registry.reference import parse_reference

    reference = parse_reference(ref) if isinstance(ref, str) else ref
    if reference.digest is not None:
        raise registry_error(
            "REG007",
            f"{reference}: a push goes to a tag or to the repository, not to a digest",
            hint="drop the @sha256:... part; the pushed digest is printed",
        )
    env = os.environ if environ is None else environ
    epoch = env.get("SOURCE_DATE_EPOCH")
    bundle = Path(bundle_path)
    signature_file = Path(signature_path) if signature_path is not None else None
    try:
        bundle_size = bundle.stat().st_size
        bundle_digest = file_digest(bundle)
        signature = signature_file.read_bytes() if signature_file is not None else None
    except OSError as exc:
        raise registry_error(
            "REG053", f"{exc.filename or bundle}: cannot be read ({exc.strerror})"
        ) from None
    title = f"{name}-{version}.skp"  # the manifest depends on the bundle, not on its path
    manifest = bundle_manifest(
        bundle_digest,
        bundle_size,
        file_name=title,
        name=name,
        version=version,
        source_date_epoch=epoch,
    )
    with RegistryClient(
        reference.registry, reference.repository, _options(options, environ)
    ) as client:
        client.push_blob(EMPTY_JSON, EMPTY_DIGEST)
        client.push_blob(bundle, bundle_digest)
        # by digest first, the signature next, the tag last: a tag never names the
        # bundle before its signature is attached
        manifest_digest = client.push_manifest(None, manifest, OCI_MANIFEST_MEDIA_TYPE)
        signature_digest = None
        if signature is not None and signature_file is not None:
            pushed = client.push_blob(signature)
            subject = Descriptor(OCI_MANIFEST_MEDIA_TYPE, manifest_digest, len(manifest))
            referrer = signature_manifest(
                pushed.digest,
                pushed.size,
                subject,
                file_name=f"{title}.sigstore.json",
                source_date_epoch=epoch,
            )
            signature_digest = client.add_referrer(referrer, OCI_MANIFEST_MEDIA_TYPE)
        if reference.tag is not None:
            client.push_manifest(reference.tag, manifest, OCI_MANIFEST_MEDIA_TYPE)
    return PushResult(
        reference=reference.by_digest(manifest_digest),
        manifest_digest=manifest_digest,
        tag=reference.tag,
        bundle_digest=bundle_digest,
        bundle_size=bundle_size,
        signature_digest=signature_digest,
    )


def fetch_bundle(
    ref: Reference | str,
    *,
    cache_dir: Path | str | None = None,
    offline: bool = False,
    signatures: bool = True,
    options: ClientOptions | None = None,
    environ: Mapping[str, str] | None = None,
    refresh_signatures: bool = False,
    best_effort_signatures: bool = False,
    verify_cached_blob: bool = True,
) -> FetchResult:
    """Fetch a bundle into the content-addressed cache and return where it is.

    Checks the manifest against the digest asked for (and ``Docker-Content-Digest``),
    and the blob against the manifest's layer descriptor (size and digest). A reference
    by digest whose manifest, blob and referrer record are all cached needs no network.
    ``offline=True`` uses the cache only (a tag resolves to the digest it last had) and
    raises ``REG060`` naming the reference when something is missing. ``signatures``
    fetches the Sigstore referrers (their bytes, not checked: that is ``signing/``'s).
    ``refresh_signatures`` asks the registry for the referrers even when a digest is
    cached (its manifest and blob are still taken from the cache when intact): for a
    caller whose check of the cached signatures failed, since signatures pushed after
    the first fetch are not in the cache's record. Ignored offline. Nothing is written
    to the cache unless everything fetched checked out.

    A signature referrer the registry lists but no longer has (its manifest or its
    signature blob answers 404: deleted) is skipped, with a note. With
    ``best_effort_signatures`` (a caller that does not need the signatures: they are
    not checked), any other failure while fetching referrers is a note too, never an
    error: the bundle is returned with the signatures fetched so far, and the cache
    records no referrers for it (the next fetch asks again).

    ``verify_cached_blob=False``: a bundle blob already in the cache is not hashed
    again while its file status is the one stamped when its digest was last checked
    (``FetchResult.bundle_checked`` is then ``False``), for a caller that checks its
    content otherwise and, when that fails, calls :func:`check_cached_bundle`: the full
    verification's archive digest against ``bundle_digest``, or the reader's lock,
    index and per-file digests. The cache hashed it as it was written."""
    from skillpack.registry.cache import Cache
    from skillpack.registry.errors import registry_error
    from skillpack.registry.reference import parse_reference

    reference = parse_reference(ref) if isinstance(ref, str) else ref
    if reference.target is None:
        raise registry_error(
            "REG006",
            f"{reference}: say which bundle, with :TAG or @sha256:...",
            hint=f"e.g. {reference}:1.0.0",
        )
    cache = Cache(Path(cache_dir) if cache_dir is not None else None, environ)
    digest = reference.digest
    if digest is None and offline and reference.tag is not None:
        digest = cache.get_tag(reference.registry, reference.repository, reference.tag)
    if digest is not None and not (refresh_signatures and signatures and not offline):
        cached = _from_cache(cache, reference, digest, signatures, verify_cached_blob)
        if cached is not None:
            return cached
    if offline:
        raise registry_error(
            "REG060",
            f"{reference} is not in the cache {cache.root} and the fetch is offline",
            hint="fetch it once online, or drop --offline",
        )
    return _fetch_online(
        cache,
        reference,
        signatures,
        _options(options, environ),
        best_effort_signatures,
        verify_cached_blob,
    )


def check_cached_bundle(fetched: FetchResult) -> bool:
    """Hash the cached blob of ``fetched`` against its digest (for a caller whose check
    of a blob taken unhashed, ``bundle_checked=False``, failed): True when it is
    intact; a copy that changed since it was written is removed (False), and the next
    fetch gets it again."""
    from skillpack.registry.cache import Cache

    # blobs/sha256/<hex> under the cache's root
    return Cache(fetched.bundle_path.parents[2]).has_blob(
        fetched.bundle_digest, fetched.bundle_size
    )


def _options(options: ClientOptions | None, environ: Mapping[str, str] | None) -> ClientOptions:
    """``options`` reading ``environ`` unless they name an environment of their own."""
    from skillpack.registry.options import ClientOptions

    if options is None:
        return ClientOptions(environ=environ)
    if options.environ is None and environ is not None:
        import dataclasses

        return dataclasses.replace(options, environ=environ)
    return options


def _manifest_result(
    reference: Reference,
    manifest_digest: str,
    data: bytes,
    manifest: ImageManifest,
    layer: Descriptor,
    path: Path,
    signatures: tuple[bytes, ...],
    from_cache: bool,
    signature_paths: tuple[Path, ...],
    notes: tuple[str, ...] = (),
    bundle_checked: bool = True,
) -> FetchResult:
    from skillpack.registry.artifact import ANNOTATION_BUNDLE_NAME, ANNOTATION_BUNDLE_VERSION

    return FetchResult(
        reference=reference.by_digest(manifest_digest),
        manifest_digest=manifest_digest,
        manifest=data,
        bundle_path=path,
        bundle_digest=layer.digest,
        bundle_size=layer.size,
        name=manifest.annotations.get(ANNOTATION_BUNDLE_NAME),
        version=manifest.annotations.get(ANNOTATION_BUNDLE_VERSION),
        signatures=signatures,
        from_cache=from_cache,
        signature_paths=signature_paths,
        notes=notes,
        bundle_checked=bundle_checked,
    )


def _from_cache(
    cache: Cache, reference: Reference, digest: str, want_signatures: bool, check_blob: bool
) -> FetchResult | None:
    """The cached bundle ``digest`` if everything it needs is cached and intact."""
    from skillpack.registry.artifact import (
        SIGSTORE_BUNDLE_MEDIA_TYPE,
        Descriptor,
        bundle_layer,
        parse_image_manifest,
        parse_index,
    )

    data = cache.get_bytes(digest)
    if data is None:
        return None
    manifest = parse_image_manifest(data)
    layer = bundle_layer(manifest)
    if not cache.has_blob(layer.digest, layer.size, check_digest=check_blob):
        return None
    found: list[bytes] = []
    paths: list[Path] = []
    if want_signatures:
        index = cache.get_referrers(digest)
        if index is None:
            return None
        for entry in parse_index(index):
            referrer = Descriptor.from_json(entry)
            referrer_data = cache.get_bytes(referrer.digest)
            if referrer_data is None:
                return None
            layers = [
                d
                for d in parse_image_manifest(referrer_data).layers
                if d.media_type == SIGSTORE_BUNDLE_MEDIA_TYPE
            ]
            if not layers:
                continue
            blob = cache.get_bytes(layers[0].digest)
            if blob is None:
                return None
            found.append(blob)
            paths.append(cache.blob_path(layers[0].digest))
    return _manifest_result(
        reference,
        digest,
        data,
        manifest,
        layer,
        cache.blob_path(layer.digest),
        tuple(found),
        True,
        tuple(paths),
        bundle_checked=check_blob,
    )


def _fetch_online(
    cache: Cache,
    reference: Reference,
    want_signatures: bool,
    options: ClientOptions,
    best_effort: bool = False,
    check_cached_blob: bool = True,
) -> FetchResult:
    import contextlib

    from skillpack.registry.artifact import (
        OCI_MANIFEST_MEDIA_TYPE,
        bundle_layer,
        index_manifest,
        parse_image_manifest,
    )
    from skillpack.registry.client import RegistryClient
    from skillpack.registry.errors import registry_error

    with RegistryClient(reference.registry, reference.repository, options) as client:
        fetched = client.get_manifest(reference)
        if fetched.media_type != OCI_MANIFEST_MEDIA_TYPE:
            raise registry_error(
                "REG050",
                f"{reference} is a {fetched.media_type or 'manifest of unknown type'}, not an "
                "OCI image manifest of a skillpack bundle",
            )
        manifest = parse_image_manifest(fetched.data)
        layer = bundle_layer(manifest)
        limit = max_bundle_bytes(options.environ if options.environ is not None else os.environ)
        if layer.size > limit:  # refused at the manifest: not a byte of it is downloaded
            raise registry_error(
                "REG044",
                f"{reference}: the manifest declares a bundle of {layer.size} bytes, more "
                f"than the {limit} allowed",
                hint=f"a format-1 bundle is at most {MAX_BUNDLE_BYTES} bytes; "
                f"{MAX_BYTES_ENV} sets a lower limit",
            )
        cached = cache.has_blob(layer.digest, layer.size, check_digest=check_cached_blob)
        staging = contextlib.nullcontext(None) if cached else cache.stage(layer.digest)
        with staging as staged:
            if staged is not None:
                client.get_blob(layer.digest, staged.file, size=layer.size, max_size=limit)
            small: dict[str, bytes] = {fetched.digest: fetched.data}
            signatures = _Signatures()
            if want_signatures:
                signatures = _fetch_signatures(client, fetched.digest, best_effort)
                small.update(signatures.small)
            # everything checked out: only now does anything reach the cache (get_blob
            # hashed the bytes it wrote as they came: not read again)
            if staged is not None:
                staged.commit(digest_checked=True)
        for digest, data in small.items():
            cache.put_bytes(digest, data)
        if want_signatures and signatures.complete:
            cache.put_referrers(fetched.digest, index_manifest(signatures.entries))
        if reference.digest is None and reference.tag is not None:
            cache.put_tag(reference.registry, reference.repository, reference.tag, fetched.digest)
    return _manifest_result(
        reference,
        fetched.digest,
        fetched.data,
        manifest,
        layer,
        cache.blob_path(layer.digest),
        tuple(signatures.found),
        False,
        tuple(cache.blob_path(d) for d in signatures.blob_digests),
        tuple(signatures.notes),
        bundle_checked=check_cached_blob or not cached,
    )


class _Signatures:
    """The signature referrers fetched for one bundle manifest (a plain class: a
    dataclass costs its import on the cache-hit path too)."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []  #: for the cache's record
        self.found: list[bytes] = []  #: the Sigstore bundles, in order
        self.blob_digests: list[str] = []  #: their digests, in order
        self.small: dict[str, bytes] = {}  #: manifests and blobs to cache
        self.notes: list[str] = []
        self.complete = True  #: every referrer listed was fetched or is gone for good


def _fetch_signatures(client: RegistryClient, subject: str, best_effort: bool) -> _Signatures:
    """Every Sigstore referrer whose manifest names ``subject``. A referrer the registry
    lists but no longer has (404 for its manifest or its blob) is skipped with a note;
    with ``best_effort`` any other failure is a note too and leaves the set incomplete."""
    import io

    from skillpack.registry.artifact import SIGSTORE_BUNDLE_MEDIA_TYPE, parse_image_manifest
    from skillpack.registry.errors import RegistryError

    result = _Signatures()

    def give_up(exc: RegistryError, what: str) -> None:
        if not best_effort:
            raise exc
        result.complete = False
        result.notes.append(f"{what} not fetched, left out: {_one_line(exc)}")

    try:
        descriptors = client.referrers(subject, SIGSTORE_BUNDLE_MEDIA_TYPE)
    except RegistryError as exc:
        give_up(exc, "the signature referrers")
        return result
    for descriptor in descriptors:
        what = f"the signature referrer {descriptor.digest}"
        try:
            referrer = client.get_manifest(descriptor.digest)
            parsed = parse_image_manifest(referrer.data)
            if parsed.subject is None or parsed.subject.digest != subject:
                continue  # an index entry that does not refer to this manifest
            layers = [d for d in parsed.layers if d.media_type == SIGSTORE_BUNDLE_MEDIA_TYPE]
            if len(layers) != 1:
                continue
            buffer = io.BytesIO()
            client.get_blob(
                layers[0].digest, buffer, size=layers[0].size, max_size=MAX_SIGNATURE_SIZE
            )
        except RegistryError as exc:
            if exc.status == 404:
                # listed (the referrers tag schema's index, or the API) but deleted
                result.notes.append(
                    f"{what} is listed but gone from the registry (HTTP 404): skipped"
                )
                continue
            give_up(exc, what)
            continue
        result.small[referrer.digest] = referrer.data
        result.small[layers[0].digest] = buffer.getvalue()
        result.entries.append(descriptor.to_json())
        result.found.append(buffer.getvalue())
        result.blob_digests.append(layers[0].digest)
    return result


def _one_line(exc: RegistryError) -> str:
    """``CODE message; detail; ...`` of an error, on one line (no hint)."""
    return "; ".join([f"{exc.code} {exc.message}", *exc.details])
