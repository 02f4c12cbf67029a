"""The bundle and signature manifests: shape, canonical bytes, SOURCE_DATE_EPOCH."""

from __future__ import annotations

import hashlib
import json

import pytest

from skillpack.errors import SkillpackError
from skillpack.registry import RegistryError
from skillpack.registry.artifact import (
    BUNDLE_ARTIFACT_TYPE,
    BUNDLE_LAYER_MEDIA_TYPE,
    EMPTY_DIGEST,
    EMPTY_JSON,
    OCI_MANIFEST_MEDIA_TYPE,
    SIGSTORE_BUNDLE_MEDIA_TYPE,
    Descriptor,
    bundle_layer,
    bundle_manifest,
    canonical_json,
    created_annotation,
    index_manifest,
    parse_image_manifest,
    parse_index,
    referrers_tag,
    sha256_digest,
    signature_manifest,
)

LAYER = "sha256:" + "1" * 64


def test_the_empty_descriptor_is_the_digest_of_braces() -> None:
    assert "sha256:" + hashlib.sha256(EMPTY_JSON).hexdigest() == EMPTY_DIGEST
    assert EMPTY_JSON == b"{}"


def test_bundle_manifest_shape_and_canonical_bytes() -> None:
    data = bundle_manifest(LAYER, 1234, file_name="a-1.0.skp", name="a", version="1.0")
    value = json.loads(data)
    assert value == {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST_MEDIA_TYPE,
        "artifactType": BUNDLE_ARTIFACT_TYPE,
        "config": {
            "mediaType": "application/vnd.oci.empty.v1+json",
            "digest": EMPTY_DIGEST,
            "size": 2,
        },
        "layers": [
            {
                "mediaType": BUNDLE_LAYER_MEDIA_TYPE,
                "digest": LAYER,
                "size": 1234,
                "annotations": {"org.opencontainers.image.title": "a-1.0.skp"},
            }
        ],
        "annotations": {
            "dev.skillpack.bundle.name": "a",
            "dev.skillpack.bundle.version": "1.0",
            "org.opencontainers.image.title": "a-1.0.skp",
            "org.opencontainers.image.version": "1.0",
        },
    }
    assert data == json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    assert b" " not in data
    again = bundle_manifest(LAYER, 1234, file_name="a-1.0.skp", name="a", version="1.0")
    assert again == data
    parsed = parse_image_manifest(data)
    assert bundle_layer(parsed) == Descriptor(
        BUNDLE_LAYER_MEDIA_TYPE, LAYER, 1234, None, {"org.opencontainers.image.title": "a-1.0.skp"}
    )


def test_created_comes_from_source_date_epoch_only() -> None:
    plain = json.loads(bundle_manifest(LAYER, 1, file_name="f", name="n", version="v"))
    assert "org.opencontainers.image.created" not in plain["annotations"]
    dated = json.loads(
        bundle_manifest(LAYER, 1, file_name="f", name="n", version="v", source_date_epoch="0")
    )
    assert dated["annotations"]["org.opencontainers.image.created"] == "1970-01-01T00:00:00Z"
    assert created_annotation("1700000000") == "2023-11-14T22:13:20Z"
    assert created_annotation("") is None and created_annotation(None) is None
    for bad in ("soon", "-1", "1.5", "99999999999999999999"):
        with pytest.raises(SkillpackError) as info:
            created_annotation(bad)
        assert info.value.code == "BLD007"  # as build refuses it


def test_signature_manifest_refers_to_the_bundle_manifest() -> None:
    subject_bytes = bundle_manifest(LAYER, 1, file_name="f", name="n", version="v")
    subject = Descriptor(OCI_MANIFEST_MEDIA_TYPE, sha256_digest(subject_bytes), len(subject_bytes))
    sig = "sha256:" + "2" * 64
    value = json.loads(signature_manifest(sig, 99, subject, file_name="f.sigstore.json"))
    assert value["artifactType"] == SIGSTORE_BUNDLE_MEDIA_TYPE
    assert value["layers"] == [
        {
            "mediaType": SIGSTORE_BUNDLE_MEDIA_TYPE,
            "digest": sig,
            "size": 99,
            "annotations": {"org.opencontainers.image.title": "f.sigstore.json"},
        }
    ]
    assert value["subject"] == {
        "mediaType": OCI_MANIFEST_MEDIA_TYPE,
        "digest": subject.digest,
        "size": subject.size,
    }
    assert value["config"]["digest"] == EMPTY_DIGEST
    assert "annotations" not in value
    with pytest.raises(RegistryError) as info:
        bundle_layer(parse_image_manifest(canonical_json(value)))
    assert info.value.code == "REG050"


def test_index_and_referrers_tag() -> None:
    entry = Descriptor(OCI_MANIFEST_MEDIA_TYPE, LAYER, 5, "x/y").to_json()
    data = index_manifest([entry])
    assert parse_index(data) == [entry]
    assert json.loads(data)["mediaType"] == "application/vnd.oci.image.index.v1+json"
    assert referrers_tag("sha256:" + "a" * 64) == "sha256-" + "a" * 64


@pytest.mark.parametrize(
    "data",
    [
        b"not json",
        b"[]",
        b'{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json"}',
        b'{"schemaVersion":1,"mediaType":"application/vnd.oci.image.manifest.v1+json"}',
        canonical_json(
            {
                "schemaVersion": 2,
                "mediaType": OCI_MANIFEST_MEDIA_TYPE,
                "config": {"mediaType": "x", "digest": "sha256:1", "size": 2},
                "layers": [],
            }
        ),
        canonical_json(
            {
                "schemaVersion": 2,
                "mediaType": OCI_MANIFEST_MEDIA_TYPE,
                "config": {"mediaType": "x", "digest": EMPTY_DIGEST, "size": -1},
                "layers": [],
            }
        ),
        canonical_json(
            {
                "schemaVersion": 2,
                "mediaType": OCI_MANIFEST_MEDIA_TYPE,
                "config": {"mediaType": "x", "digest": EMPTY_DIGEST, "size": 2},
                "layers": [],
                "annotations": {"a": 1},
            }
        ),
    ],
)
def test_malformed_manifests_are_reg051(data: bytes) -> None:
    with pytest.raises(RegistryError) as info:
        parse_image_manifest(data)
    assert info.value.code == "REG051"


def test_a_bundle_manifest_needs_exactly_one_bundle_layer() -> None:
    value = json.loads(bundle_manifest(LAYER, 1, file_name="f", name="n", version="v"))
    value["layers"].append(dict(value["layers"][0]))
    with pytest.raises(RegistryError) as info:
        bundle_layer(parse_image_manifest(canonical_json(value)))
    assert info.value.code == "REG050"
