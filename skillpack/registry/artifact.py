"""Media types, descriptors and the deterministic OCI 1.1 manifests of a bundle.

A bundle is an OCI image manifest (``application/vnd.oci.image.manifest.v1+json``)
with ``artifactType`` :data:`BUNDLE_ARTIFACT_TYPE`, the OCI empty descriptor as its
config and the ``.skp`` archive as its one layer (:data:`BUNDLE_LAYER_MEDIA_TYPE`). Its
signature is another image manifest, artifactType and one layer of the Sigstore bundle
media type :data:`SIGSTORE_BUNDLE_MEDIA_TYPE`, whose ``subject`` is the bundle manifest's
descriptor: a referrer, found through the referrers API or the referrers tag schema.

Manifest bytes are canonical JSON (sorted keys, no spaces, UTF-8), so the same inputs
always give the same manifest digest. ``org.opencontainers.image.created`` comes from
``SOURCE_DATE_EPOCH`` when it is set and is left out otherwise: never the current time.
See docs/registry.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from skillpack.errors import UsageError
from skillpack.registry.errors import registry_error
from skillpack.registry.reference import is_digest

OCI_MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX_MEDIA_TYPE = "application/vnd.oci.image.index.v1+json"
OCI_EMPTY_MEDIA_TYPE = "application/vnd.oci.empty.v1+json"
DOCKER_MANIFEST_MEDIA_TYPE = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST_MEDIA_TYPE = "application/vnd.docker.distribution.manifest.list.v2+json"
MANIFEST_MEDIA_TYPES = (
    OCI_MANIFEST_MEDIA_TYPE,
    OCI_INDEX_MEDIA_TYPE,
    DOCKER_MANIFEST_MEDIA_TYPE,
    DOCKER_LIST_MEDIA_TYPE,
)

#: the artifact type of a skillpack bundle manifest
BUNDLE_ARTIFACT_TYPE = "application/vnd.skillpack.bundle.v1"
#: the media type of the layer holding the ``.skp`` archive (a ZIP file)
BUNDLE_LAYER_MEDIA_TYPE = "application/vnd.skillpack.bundle.v1+zip"
#: the Sigstore bundle v0.3 media type (cosign's and sigstore's convention)
SIGSTORE_BUNDLE_MEDIA_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json"

EMPTY_JSON = b"{}"
EMPTY_DIGEST = "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"

ANNOTATION_CREATED = "org.opencontainers.image.created"
ANNOTATION_TITLE = "org.opencontainers.image.title"
ANNOTATION_VERSION = "org.opencontainers.image.version"
ANNOTATION_BUNDLE_NAME = "dev.skillpack.bundle.name"
ANNOTATION_BUNDLE_VERSION = "dev.skillpack.bundle.version"

#: manifests larger than this are refused (the distribution spec's 4 MiB floor)
MAX_MANIFEST_SIZE = 4 * 1024 * 1024


def sha256_digest(data: bytes) -> str:
    """``sha256:HEX`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def canonical_json(value: object) -> bytes:
    """Deterministic JSON bytes: sorted keys, compact separators, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


@dataclass(frozen=True)
class Descriptor:
    """An OCI content descriptor."""

    media_type: str
    digest: str
    size: int
    artifact_type: str | None = None
    annotations: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mediaType": self.media_type, "digest": self.digest}
        out["size"] = self.size
        if self.artifact_type is not None:
            out["artifactType"] = self.artifact_type
        if self.annotations:
            out["annotations"] = dict(self.annotations)
        return out

    @classmethod
    def from_json(cls, value: object, what: str = "descriptor") -> Descriptor:
        """Read a descriptor; raise ``REG051`` when a field is missing or mistyped."""
        if not isinstance(value, dict):
            raise _malformed(f"{what} is not a JSON object")
        media_type = value.get("mediaType")
        digest = value.get("digest")
        size = value.get("size")
        artifact_type = value.get("artifactType")
        annotations = value.get("annotations", {})
        if not isinstance(media_type, str) or not media_type:
            raise _malformed(f"{what} has no mediaType")
        if not isinstance(digest, str) or not is_digest(digest):
            raise _malformed(f"{what} has no sha256 digest ({_short(digest)})")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise _malformed(f"{what} has no valid size ({_short(size)})")
        if artifact_type is not None and not isinstance(artifact_type, str):
            raise _malformed(f"{what} has a non-string artifactType")
        if not isinstance(annotations, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in annotations.items()
        ):
            raise _malformed(f"{what} has annotations that are not strings")
        return cls(media_type, digest, size, artifact_type or None, dict(annotations))


EMPTY_CONFIG = Descriptor(OCI_EMPTY_MEDIA_TYPE, EMPTY_DIGEST, len(EMPTY_JSON))


@dataclass(frozen=True)
class ImageManifest:
    """The fields of an OCI image manifest that this package reads."""

    media_type: str
    artifact_type: str | None
    config: Descriptor
    layers: tuple[Descriptor, ...]
    subject: Descriptor | None
    annotations: Mapping[str, str]


def created_annotation(source_date_epoch: str | None) -> str | None:
    """RFC 3339 UTC time of ``SOURCE_DATE_EPOCH`` (``None`` when unset or empty)."""
    if source_date_epoch is None or source_date_epoch.strip() == "":
        return None
    text = source_date_epoch.strip()
    hint = "set it to a Unix time such as $(git log -1 --format=%ct), or unset it"
    if not text.isdigit() or not text.isascii():
        raise UsageError(  # as build refuses it
            "BLD007",
            f"SOURCE_DATE_EPOCH={source_date_epoch!r} is not a number of seconds",
            hint=hint,
        )
    import datetime  # a push's annotation only: a fetch does not need it

    try:
        moment = datetime.datetime.fromtimestamp(int(text), tz=datetime.UTC)
    except (OverflowError, OSError, ValueError):
        raise UsageError(
            "BLD007", f"SOURCE_DATE_EPOCH={source_date_epoch!r} is out of range", hint=hint
        ) from None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def bundle_manifest(
    layer_digest: str,
    layer_size: int,
    *,
    file_name: str,
    name: str,
    version: str,
    source_date_epoch: str | None = None,
) -> bytes:
    """The canonical bytes of a bundle's image manifest."""
    layer = Descriptor(
        BUNDLE_LAYER_MEDIA_TYPE, layer_digest, layer_size, annotations={ANNOTATION_TITLE: file_name}
    )
    annotations = {
        ANNOTATION_BUNDLE_NAME: name,
        ANNOTATION_BUNDLE_VERSION: version,
        ANNOTATION_TITLE: file_name,
        ANNOTATION_VERSION: version,
    }
    return _image_manifest(BUNDLE_ARTIFACT_TYPE, layer, annotations, None, source_date_epoch)


def signature_manifest(
    signature_digest: str,
    signature_size: int,
    subject: Descriptor,
    *,
    file_name: str | None = None,
    source_date_epoch: str | None = None,
) -> bytes:
    """The canonical bytes of a signature manifest that refers to ``subject``."""
    layer = Descriptor(
        SIGSTORE_BUNDLE_MEDIA_TYPE,
        signature_digest,
        signature_size,
        annotations={ANNOTATION_TITLE: file_name} if file_name else {},
    )
    return _image_manifest(SIGSTORE_BUNDLE_MEDIA_TYPE, layer, {}, subject, source_date_epoch)


def _image_manifest(
    artifact_type: str,
    layer: Descriptor,
    annotations: Mapping[str, str],
    subject: Descriptor | None,
    source_date_epoch: str | None,
) -> bytes:
    annotations = dict(annotations)
    created = created_annotation(source_date_epoch)
    if created is not None:
        annotations[ANNOTATION_CREATED] = created
    manifest: dict[str, Any] = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST_MEDIA_TYPE,
        "artifactType": artifact_type,
        "config": EMPTY_CONFIG.to_json(),
        "layers": [layer.to_json()],
    }
    if subject is not None:
        manifest["subject"] = Descriptor(subject.media_type, subject.digest, subject.size).to_json()
    if annotations:
        manifest["annotations"] = annotations
    return canonical_json(manifest)


def parse_json_object(data: bytes, what: str) -> dict[str, Any]:
    """``data`` as a JSON object, or ``REG051``."""
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise _malformed(f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise _malformed(f"{what} is not a JSON object")
    return value


def parse_image_manifest(data: bytes) -> ImageManifest:
    """Read an OCI image manifest; ``REG051`` when it is not one."""
    value = parse_json_object(data, "the manifest")
    media_type = value.get("mediaType")
    if value.get("schemaVersion") != 2 or media_type != OCI_MANIFEST_MEDIA_TYPE:
        raise _malformed(
            f"the manifest is not an OCI image manifest (mediaType {_short(media_type)})"
        )
    layers = value.get("layers")
    if not isinstance(layers, list):
        raise _malformed("the manifest has no layers list")
    artifact_type = value.get("artifactType")
    if artifact_type is not None and not isinstance(artifact_type, str):
        raise _malformed("the manifest has a non-string artifactType")
    annotations = value.get("annotations", {})
    if not isinstance(annotations, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in annotations.items()
    ):
        raise _malformed("the manifest has annotations that are not strings")
    subject = value.get("subject")
    return ImageManifest(
        media_type=media_type,
        artifact_type=artifact_type or None,
        config=Descriptor.from_json(value.get("config"), "the manifest's config"),
        layers=tuple(
            Descriptor.from_json(layer, f"layer {i} of the manifest")
            for i, layer in enumerate(layers)
        ),
        subject=None if subject is None else Descriptor.from_json(subject, "the subject"),
        annotations=dict(annotations),
    )


def bundle_layer(manifest: ImageManifest) -> Descriptor:
    """The one bundle layer of a skillpack bundle manifest; ``REG050`` otherwise."""
    if manifest.artifact_type != BUNDLE_ARTIFACT_TYPE:
        raise registry_error(
            "REG050",
            f"the manifest's artifactType is {_short(manifest.artifact_type)}, "
            f"not {BUNDLE_ARTIFACT_TYPE!r}",
            hint="this reference holds something other than a skillpack bundle",
        )
    layers = [d for d in manifest.layers if d.media_type == BUNDLE_LAYER_MEDIA_TYPE]
    if len(manifest.layers) != 1 or len(layers) != 1:
        raise registry_error(
            "REG050",
            f"a skillpack bundle manifest has exactly one {BUNDLE_LAYER_MEDIA_TYPE} layer; "
            f"this one has {len(manifest.layers)} layer(s), {len(layers)} of that type",
        )
    return layers[0]


def index_manifest(descriptors: Iterable[Mapping[str, Any]]) -> bytes:
    """The canonical bytes of an OCI image index listing ``descriptors`` (JSON objects)."""
    return canonical_json(
        {
            "schemaVersion": 2,
            "mediaType": OCI_INDEX_MEDIA_TYPE,
            "manifests": [dict(d) for d in descriptors],
        }
    )


def parse_index(data: bytes) -> list[dict[str, Any]]:
    """The ``manifests`` of an OCI image index, each checked to be a descriptor."""
    value = parse_json_object(data, "the index")
    if value.get("schemaVersion") != 2 or value.get("mediaType", OCI_INDEX_MEDIA_TYPE) != (
        OCI_INDEX_MEDIA_TYPE
    ):
        raise _malformed(
            f"the index is not an OCI image index (mediaType {_short(value.get('mediaType'))})"
        )
    manifests = value.get("manifests")
    if not isinstance(manifests, list):
        raise _malformed("the index has no manifests list")
    for i, entry in enumerate(manifests):
        Descriptor.from_json(entry, f"entry {i} of the index")
    return manifests


def referrers_tag(digest: str) -> str:
    """The referrers tag schema's tag for ``digest``: ``sha256-<hex>``."""
    algorithm, _, encoded = digest.partition(":")
    return f"{algorithm[:32]}-{encoded[:64]}"


def _malformed(message: str) -> Exception:
    return registry_error("REG051", message)


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."
