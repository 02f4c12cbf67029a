"""Against the real CNCF distribution registry (Debian's docker-registry 2.8), anonymous:
push and fetch by tag and digest, determinism, the referrers tag schema, tampered
storage, the cache and offline mode, and skopeo as an independent client."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillpack.registry import (
    ClientOptions,
    RegistryClient,
    RegistryError,
    fetch_bundle,
    parse_reference,
    push_bundle,
)
from skillpack.registry.artifact import (
    BUNDLE_ARTIFACT_TYPE,
    OCI_INDEX_MEDIA_TYPE,
    SIGSTORE_BUNDLE_MEDIA_TYPE,
    referrers_tag,
    sha256_digest,
)
from tests.conftest import REPO
from tests.registry.conftest import files_under, require_tool
from tests.registry.servers import DistributionRegistry


def _sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def test_push_then_fetch_by_tag_and_by_digest(
    registry: DistributionRegistry, options: ClientOptions, bundle: Path, tmp_path: Path
) -> None:
    pushed = push_bundle(
        bundle,
        registry.ref("acme/skills", "1.2.3"),
        name="oci-demo",
        version="1.2.3",
        options=options,
    )
    assert str(pushed) == f"oci://{registry.host}/acme/skills@{pushed.manifest_digest}"
    assert pushed.bundle_digest == _sha(bundle) and pushed.signature_digest is None
    cache = tmp_path / "cache"
    by_tag = fetch_bundle(registry.ref("acme/skills", "1.2.3"), cache_dir=cache, options=options)
    assert by_tag.manifest_digest == pushed.manifest_digest
    assert by_tag.bundle_path.read_bytes() == bundle.read_bytes()
    assert (by_tag.name, by_tag.version, by_tag.signature) == ("oci-demo", "1.2.3", None)
    assert by_tag.bundle_path == cache / "blobs" / "sha256" / pushed.bundle_digest[7:]
    assert not [p for p in files_under(cache) if p.name.startswith(".tmp-")]
    by_digest = fetch_bundle(str(pushed), cache_dir=tmp_path / "other", options=options)
    assert by_digest.bundle_path.read_bytes() == bundle.read_bytes()
    assert not by_digest.from_cache
    manifest = json.loads(by_digest.manifest)
    assert manifest["artifactType"] == BUNDLE_ARTIFACT_TYPE
    assert manifest["layers"][0]["annotations"]["org.opencontainers.image.title"] == bundle.name


def test_untagged_push_and_determinism(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    untagged = push_bundle(
        bundle, registry.ref("acme/skills"), name="oci-demo", version="1.2.3", options=options
    )
    assert untagged.tag is None
    again = push_bundle(
        bundle, registry.ref("acme/skills", "x"), name="oci-demo", version="1.2.3", options=options
    )
    elsewhere = push_bundle(
        bundle, registry.ref("other/repo", "y"), name="oci-demo", version="1.2.3", options=options
    )
    assert untagged.manifest_digest == again.manifest_digest == elsewhere.manifest_digest
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    dated = push_bundle(
        bundle,
        registry.ref("acme/skills", "dated"),
        name="oci-demo",
        version="1.2.3",
        options=options,
    )
    dated_again = push_bundle(
        bundle,
        registry.ref("acme/skills", "dated"),
        name="oci-demo",
        version="1.2.3",
        options=options,
    )
    assert dated.manifest_digest == dated_again.manifest_digest != untagged.manifest_digest
    client = RegistryClient(registry.host, "acme/skills", options)
    value = json.loads(client.get_manifest("dated").data)
    assert value["annotations"]["org.opencontainers.image.created"] == "2023-11-14T22:13:20Z"
    assert (
        "org.opencontainers.image.created"
        not in json.loads(client.get_manifest(untagged.manifest_digest).data)["annotations"]
    )
    with pytest.raises(RegistryError) as info:
        push_bundle(bundle, str(untagged), name="n", version="v", options=options)
    assert info.value.code == "REG007"


def test_signature_referrer_by_the_tag_schema(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    signature: Path,
    tmp_path: Path,
) -> None:
    ref = registry.ref("acme/skills", "1.2.3")
    pushed = push_bundle(
        bundle, ref, name="oci-demo", version="1.2.3", signature_path=signature, options=options
    )
    assert pushed.signature_digest is not None
    client = RegistryClient(registry.host, "acme/skills", options)
    index = client.get_manifest(referrers_tag(pushed.manifest_digest))
    assert index.media_type == OCI_INDEX_MEDIA_TYPE
    entries = json.loads(index.data)["manifests"]
    assert [e["digest"] for e in entries] == [pushed.signature_digest]
    assert entries[0]["artifactType"] == SIGSTORE_BUNDLE_MEDIA_TYPE
    signature_manifest = json.loads(client.get_manifest(pushed.signature_digest).data)
    assert signature_manifest["subject"]["digest"] == pushed.manifest_digest
    # the signature manifest itself is not tagged
    tags = client.transport.session.get(
        f"{client.base}/v2/acme/skills/tags/list", timeout=5
    ).json()["tags"]
    assert sorted(tags) == sorted(["1.2.3", referrers_tag(pushed.manifest_digest)])
    # pushing again changes nothing: same digests, one entry
    again = push_bundle(
        bundle, ref, name="oci-demo", version="1.2.3", signature_path=signature, options=options
    )
    assert (again.manifest_digest, again.signature_digest) == (
        pushed.manifest_digest,
        pushed.signature_digest,
    )
    assert client.get_manifest(referrers_tag(pushed.manifest_digest)).digest == index.digest
    got = fetch_bundle(ref, cache_dir=tmp_path / "cache", options=options)
    assert got.signature == signature.read_bytes()
    assert got.signatures == (signature.read_bytes(),)
    (path,) = got.signature_paths
    assert path.read_bytes() == signature.read_bytes() and path.is_relative_to(tmp_path / "cache")


def test_a_blob_changed_in_the_registry_storage_is_refused(
    registry: DistributionRegistry, options: ClientOptions, bundle: Path, tmp_path: Path
) -> None:
    pushed = push_bundle(
        bundle, registry.ref("acme/skills", "1"), name="oci-demo", version="1.2.3", options=options
    )
    data = registry.blob_data(pushed.bundle_digest)
    original = data.read_bytes()
    data.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))  # same size, one bit off
    cache = tmp_path / "cache"
    with pytest.raises(RegistryError) as info:
        fetch_bundle(registry.ref("acme/skills", "1"), cache_dir=cache, options=options)
    assert info.value.code == "REG042" and info.value.exit_code == 1
    assert files_under(cache) == []
    data.write_bytes(original + b"more")  # longer than the descriptor says
    with pytest.raises(RegistryError) as info:
        fetch_bundle(str(pushed), cache_dir=cache, options=options)
    assert info.value.code == "REG043"
    assert files_under(cache) == []


def test_a_manifest_changed_in_the_registry_storage_is_refused(
    registry: DistributionRegistry, options: ClientOptions, bundle: Path, tmp_path: Path
) -> None:
    pushed = push_bundle(
        bundle, registry.ref("acme/skills", "1"), name="oci-demo", version="1.2.3", options=options
    )
    data = registry.blob_data(pushed.manifest_digest)
    data.write_bytes(data.read_bytes().replace(b"oci-demo", b"oci-dem0"))
    cache = tmp_path / "cache"
    for ref in (str(pushed), registry.ref("acme/skills", "1")):
        with pytest.raises(RegistryError) as info:
            fetch_bundle(ref, cache_dir=cache, options=options)
        assert info.value.code in ("REG040", "REG041"), info.value
    assert files_under(cache) == []


def test_cache_needs_no_network_for_a_digest_and_offline_mode(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    signature: Path,
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    tagged = registry.ref("acme/skills", "1.2.3")
    pushed = push_bundle(
        bundle, tagged, name="oci-demo", version="1.2.3", signature_path=signature, options=options
    )
    with pytest.raises(RegistryError) as info:
        fetch_bundle(str(pushed), cache_dir=cache, offline=True)
    assert info.value.code == "REG060" and str(pushed) in info.value.message
    first = fetch_bundle(tagged, cache_dir=cache, options=options)
    registry.__exit__(None, None, None)  # the registry is gone from here on
    again = fetch_bundle(str(pushed), cache_dir=cache, options=options)
    assert again.from_cache and again.bundle_path == first.bundle_path
    assert again.signature == signature.read_bytes()
    assert again.signature_paths == first.signature_paths
    assert [p.read_bytes() for p in again.signature_paths] == [signature.read_bytes()]
    # a fresh process answers a digest from the cache without importing an HTTP library
    code = (
        "import sys\n"
        "from skillpack.registry import ClientOptions, fetch_bundle\n"
        f"got = fetch_bundle({str(pushed)!r}, cache_dir={str(cache)!r}, "
        "options=ClientOptions(timeout=1.0))\n"
        "print(got.from_cache, [m for m in ('requests', 'urllib3') if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert out.stdout.strip() == "True []", out.stderr
    offline_tag = fetch_bundle(tagged, cache_dir=cache, offline=True)
    assert offline_tag.manifest_digest == pushed.manifest_digest and offline_tag.from_cache
    with pytest.raises(RegistryError) as info:
        fetch_bundle(registry.ref("acme/skills", "9.9.9"), cache_dir=cache, offline=True)
    assert info.value.code == "REG060" and "9.9.9" in info.value.message
    # a corrupted cache entry is not used: removed, and missing offline
    first.bundle_path.write_bytes(b"corrupt")
    with pytest.raises(RegistryError) as info:
        fetch_bundle(str(pushed), cache_dir=cache, offline=True)
    assert info.value.code == "REG060"
    assert not first.bundle_path.exists()


def test_cache_location_from_the_environment(
    registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pushed = push_bundle(
        bundle, registry.ref("acme/skills", "1"), name="n", version="v", options=options
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SKILLPACK_CACHE_DIR", raising=False)
    got = fetch_bundle(str(pushed), options=options)
    assert got.bundle_path.is_relative_to(tmp_path / "xdg" / "skillpack" / "oci" / "blobs")
    monkeypatch.setenv("SKILLPACK_CACHE_DIR", str(tmp_path / "own"))
    got = fetch_bundle(str(pushed), options=options)
    assert got.bundle_path.is_relative_to(tmp_path / "own" / "oci" / "blobs")


def test_skopeo_copies_the_same_manifest_and_bytes(
    registry: DistributionRegistry, options: ClientOptions, bundle: Path, tmp_path: Path
) -> None:
    require_tool("skopeo")
    pushed = push_bundle(
        bundle,
        registry.ref("acme/skills", "1.2.3"),
        name="oci-demo",
        version="1.2.3",
        options=options,
    )
    layout = tmp_path / "layout"
    proc = subprocess.run(
        [
            "skopeo",
            "--insecure-policy",
            "copy",
            "--preserve-digests",
            "--src-tls-verify=false",
            "--src-no-creds",
            f"docker://{registry.host}/acme/skills:1.2.3",
            f"oci:{layout}:1.2.3",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    (entry,) = json.loads((layout / "index.json").read_text())["manifests"]
    assert entry["digest"] == pushed.manifest_digest
    blobs = layout / "blobs" / "sha256"
    manifest_bytes = (blobs / pushed.manifest_digest.partition(":")[2]).read_bytes()
    assert sha256_digest(manifest_bytes) == pushed.manifest_digest
    layer = json.loads(manifest_bytes)["layers"][0]
    assert (blobs / layer["digest"].partition(":")[2]).read_bytes() == bundle.read_bytes()


def test_a_reference_without_tag_or_digest_cannot_be_fetched(tmp_path: Path) -> None:
    with pytest.raises(RegistryError) as info:
        fetch_bundle(parse_reference("oci://127.0.0.1:1/a/b"), cache_dir=tmp_path)
    assert info.value.code == "REG006"


def test_a_cached_blob_is_hashed_when_written_and_when_its_stamp_differs(
    registry: DistributionRegistry, options: ClientOptions, bundle: Path, tmp_path: Path
) -> None:
    """verify_cached_blob=False takes a cached blob whose file status is the one stamped
    when its digest was checked without hashing it (the caller checks the content);
    any write to the file changes its status, and it is hashed again."""
    import hashlib

    from skillpack.registry import check_cached_bundle
    from skillpack.registry.cache import Cache

    cache = tmp_path / "cache"
    pushed = push_bundle(
        bundle, registry.ref("acme/skills", "1"), name="n", version="v", options=options
    )
    first = fetch_bundle(str(pushed), cache_dir=cache, options=options)
    assert first.bundle_checked and not first.from_cache
    stamp = cache / "stamps" / "sha256" / first.bundle_digest[7:]
    assert stamp.is_file()  # written with the blob
    reads: list[str] = []
    real = hashlib.file_digest

    def counting(f: object, digest: str) -> object:
        reads.append(digest)
        return real(f, digest)  # type: ignore[arg-type]

    hashlib.file_digest = counting  # type: ignore[assignment]
    try:
        hit = fetch_bundle(str(pushed), cache_dir=cache, verify_cached_blob=False)
        assert hit.from_cache and not hit.bundle_checked and reads == []
        checked = fetch_bundle(str(pushed), cache_dir=cache)
        assert checked.bundle_checked and reads == ["sha256"]
        data = first.bundle_path.read_bytes()
        first.bundle_path.write_bytes(data)  # the same bytes, written again: a new status
        again = fetch_bundle(str(pushed), cache_dir=cache, verify_cached_blob=False)
        assert again.from_cache and reads == ["sha256", "sha256"]  # hashed, stamped again
        fetch_bundle(str(pushed), cache_dir=cache, verify_cached_blob=False)
        assert len(reads) == 2
    finally:
        hashlib.file_digest = real
    # a caller whose own check failed: intact, or removed with its stamp
    assert check_cached_bundle(again)
    first.bundle_path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert not check_cached_bundle(again)
    assert not first.bundle_path.exists() and not stamp.exists()
    assert not Cache(cache).has_blob(first.bundle_digest, check_digest=False)
