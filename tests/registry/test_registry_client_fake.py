"""The client against the fake registry: the referrers API, misbehaving registries,
retries and timeouts, and the scheme policy (refused before any connection)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from skillpack.registry import (
    ClientOptions,
    RegistryClient,
    RegistryError,
    fetch_bundle,
    push_bundle,
)
from skillpack.registry.artifact import (
    OCI_MANIFEST_MEDIA_TYPE,
    SIGSTORE_BUNDLE_MEDIA_TYPE,
    Descriptor,
    bundle_manifest,
    referrers_tag,
    sha256_digest,
    signature_manifest,
)
from tests.registry.conftest import files_under
from tests.registry.fake_registry import FakeRegistry
from tests.registry.servers import closed_port


def _client(
    fake: FakeRegistry, options: ClientOptions, repo: str = "acme/skills"
) -> RegistryClient:
    return RegistryClient(fake.host, repo, options)


def _subject(client: RegistryClient) -> tuple[str, bytes]:
    layer = client.push_blob(b"bundle bytes")
    data = bundle_manifest(layer.digest, layer.size, file_name="b.skp", name="b", version="1")
    return client.push_manifest("1", data, OCI_MANIFEST_MEDIA_TYPE), data


def _signature(client: RegistryClient, subject: str, size: int, payload: bytes) -> bytes:
    blob = client.push_blob(payload)
    return signature_manifest(
        blob.digest, blob.size, Descriptor(OCI_MANIFEST_MEDIA_TYPE, subject, size)
    )


def test_referrers_api_is_used_and_no_tag_is_pushed(
    fake: FakeRegistry, options: ClientOptions
) -> None:
    client = _client(fake, options)
    subject, data = _subject(client)
    sig = _signature(client, subject, len(data), b"sig-1")
    digest = client.add_referrer(sig, OCI_MANIFEST_MEDIA_TYPE)
    assert referrers_tag(subject) not in fake.tags  # the registry took the subject
    found = client.referrers(subject, SIGSTORE_BUNDLE_MEDIA_TYPE)
    assert [d.digest for d in found] == [digest]
    assert found[0].artifact_type == SIGSTORE_BUNDLE_MEDIA_TYPE
    assert ("GET", f"/v2/acme/skills/referrers/{subject}") in fake.log
    assert client.referrers(subject, "application/other") == []


def test_referrers_api_pages_and_filters_locally(
    fake: FakeRegistry, options: ClientOptions
) -> None:
    fake.page_size = 2
    client = _client(fake, options)
    subject, data = _subject(client)
    pushed = {
        client.add_referrer(
            _signature(client, subject, len(data), f"s{i}".encode()), OCI_MANIFEST_MEDIA_TYPE
        )
        for i in range(5)
    }
    found = client.referrers(subject)
    assert {d.digest for d in found} == pushed and len(found) == 5
    pages = [p for m, p in fake.log if "/referrers/" in p]
    assert len(pages) == 3


def test_tag_schema_fallback_when_the_api_answers_404(
    fake_without_api: FakeRegistry, options: ClientOptions
) -> None:
    fake = fake_without_api
    client = _client(fake, options)
    subject, data = _subject(client)
    assert client.referrers(subject) == []
    first = client.add_referrer(
        _signature(client, subject, len(data), b"a"), OCI_MANIFEST_MEDIA_TYPE
    )
    tag = referrers_tag(subject)
    index_digest = fake.tags[tag]
    # idempotent: the same referrer again leaves the index as it was
    client.add_referrer(_signature(client, subject, len(data), b"a"), OCI_MANIFEST_MEDIA_TYPE)
    assert fake.tags[tag] == index_digest
    second = client.add_referrer(
        _signature(client, subject, len(data), b"b"), OCI_MANIFEST_MEDIA_TYPE
    )
    index = json.loads(fake.manifests[fake.tags[tag]][0])
    assert [m["digest"] for m in index["manifests"]] == [first, second]
    assert all(m["artifactType"] == SIGSTORE_BUNDLE_MEDIA_TYPE for m in index["manifests"])
    fresh = _client(fake, options)
    assert [d.digest for d in fresh.referrers(subject, SIGSTORE_BUNDLE_MEDIA_TYPE)] == [
        first,
        second,
    ]


def test_a_manifest_for_another_digest_is_refused(
    fake: FakeRegistry, options: ClientOptions, tmp_path: Path
) -> None:
    client = _client(fake, options)
    subject, _data = _subject(client)
    other = bundle_manifest("sha256:" + "0" * 64, 1, file_name="x", name="x", version="x")
    fake.serve_instead[subject] = other
    with pytest.raises(RegistryError) as info:
        client.get_manifest(subject)
    assert info.value.code == "REG040" and info.value.exit_code == 1
    cache = tmp_path / "cache"
    with pytest.raises(RegistryError) as info:
        fetch_bundle(f"{fake.ref('acme/skills')}@{subject}", cache_dir=cache, options=options)
    assert info.value.code == "REG040"
    assert files_under(cache) == []


def test_docker_content_digest_must_match(fake: FakeRegistry, options: ClientOptions) -> None:
    client = _client(fake, options)
    subject, _ = _subject(client)
    fake.digest_header["1"] = "sha256:" + "9" * 64
    with pytest.raises(RegistryError) as info:
        client.get_manifest("1")
    assert info.value.code == "REG041"
    assert client.get_manifest(subject).digest == subject


def test_a_blob_changed_in_the_fake_is_refused(
    fake: FakeRegistry, options: ClientOptions, tmp_path: Path
) -> None:
    client = _client(fake, options)
    blob = client.push_blob(b"original")
    fake.blobs[blob.digest] = b"origina!"
    sink = tmp_path / "sink"
    with sink.open("wb") as out, pytest.raises(RegistryError) as info:
        client.get_blob(blob.digest, out, size=blob.size)
    assert info.value.code == "REG042"
    fake.blobs[blob.digest] = b"originals"
    with sink.open("wb") as out, pytest.raises(RegistryError) as info:
        client.get_blob(blob.digest, out, size=blob.size)
    assert info.value.code == "REG043"


def test_retries_5xx_and_429_honouring_retry_after(
    fake: FakeRegistry, options: ClientOptions
) -> None:
    client = _client(fake, options)
    fake.fail_next = [(429, {"Retry-After": "0"})]
    assert client.blob_exists("sha256:" + "1" * 64) is False
    fake.fail_next = [(503, {}), (503, {}), (503, {})]
    with pytest.raises(RegistryError) as info:
        client.blob_exists("sha256:" + "1" * 64)
    assert info.value.code == "REG031" and info.value.status == 503
    fake.fail_next = [(503, {"Retry-After": "3600"})]  # longer than the budget: no wait
    started = time.monotonic()
    with pytest.raises(RegistryError) as info:
        client.blob_exists("sha256:" + "1" * 64)
    assert time.monotonic() - started < 2
    assert info.value.status == 503


def test_http_errors_carry_status_and_registry_codes(
    fake: FakeRegistry, options: ClientOptions
) -> None:
    client = _client(fake, options)
    with pytest.raises(RegistryError) as info:
        client.get_manifest("missing")
    err = info.value
    assert (
        err.code == "REG030" and err.status == 404 and err.registry_codes == ("MANIFEST_UNKNOWN",)
    )
    assert "HTTP 404" in str(err) and "MANIFEST_UNKNOWN: manifest unknown" in str(err)


def test_a_registry_that_is_down_is_a_quick_coded_error(
    options: ClientOptions, tmp_path: Path, bundle: Path
) -> None:
    port = closed_port()
    started = time.monotonic()
    with pytest.raises(RegistryError) as info:
        fetch_bundle(f"oci://127.0.0.1:{port}/a/b:1", cache_dir=tmp_path / "c", options=options)
    assert time.monotonic() - started < 3
    assert info.value.code == "REG011" and "refused" in info.value.message.lower()
    assert files_under(tmp_path / "c") == []
    with pytest.raises(RegistryError) as info:
        push_bundle(bundle, f"oci://127.0.0.1:{port}/a/b:1", name="n", version="v", options=options)
    assert info.value.code == "REG011"


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_a_registry_that_never_answers_times_out_within_the_budget(
    silent_port: int, options: ClientOptions, tmp_path: Path
) -> None:
    quick = ClientOptions(
        timeout=1.0, retries=2, backoff=0.05, environ={}, docker_config=options.docker_config
    )
    started = time.monotonic()
    with pytest.raises(RegistryError) as info:
        fetch_bundle(
            f"oci://127.0.0.1:{silent_port}/a/b:1", cache_dir=tmp_path / "c", options=quick
        )
    elapsed = time.monotonic() - started
    assert info.value.code == "REG012", info.value
    assert elapsed < 2.5


class _NoNetwork(requests.Session):
    def request(self, *args: object, **kwargs: object) -> requests.Response:  # type: ignore[override]
        raise AssertionError("no connection may be attempted")


def test_plain_http_off_loopback_is_refused_before_connecting() -> None:
    forced = ClientOptions(plain_http=True, environ={})
    with pytest.raises(RegistryError) as info:
        RegistryClient("registry.example.com", "a/b", forced, session=_NoNetwork())
    assert info.value.code == "REG010"
    insecure = ClientOptions(plain_http=True, insecure=True, environ={})
    client = RegistryClient("registry.example.com", "a/b", insecure, session=_NoNetwork())
    assert client.base == "http://registry.example.com"
    assert (
        RegistryClient(
            "registry.example.com", "a/b", ClientOptions(environ={}), session=_NoNetwork()
        ).base
        == "https://registry.example.com"
    )
    for host in ("127.0.0.1:5000", "127.8.9.10", "[::1]:5000", "localhost:1"):
        assert RegistryClient(
            host, "a", ClientOptions(environ={}), session=_NoNetwork()
        ).base.startswith("http://")


def test_a_token_realm_over_plain_http_off_loopback_is_refused(
    fake: FakeRegistry, options: ClientOptions
) -> None:
    fake.challenge = 'Bearer realm="http://auth.example.com/token",service="x"'
    seen: list[str] = []
    original = requests.Session.request

    class Recording(requests.Session):
        def request(self, method: str, url: str, *args: object, **kwargs: object):  # type: ignore[override]
            seen.append(url)
            return original(self, method, url, *args, **kwargs)  # type: ignore[arg-type]

    client = RegistryClient(fake.host, "a/b", options, session=Recording())
    with pytest.raises(RegistryError) as info:
        client.get_manifest("1")
    assert info.value.code == "REG010"
    assert all("auth.example.com" not in url for url in seen)


def test_fetch_with_the_api_finds_the_signature(
    fake: FakeRegistry, options: ClientOptions, bundle: Path, signature: Path, tmp_path: Path
) -> None:
    pushed = push_bundle(
        bundle,
        fake.ref("acme/skills", "1"),
        name="oci-demo",
        version="1.2.3",
        signature_path=signature,
        options=options,
    )
    assert referrers_tag(pushed.manifest_digest) not in fake.tags
    puts = [path for method, path in fake.log if method == "PUT" and "/manifests/" in path]
    # by digest, then the signature, then the tag: the tag never names an unsigned bundle
    assert puts == [
        f"/v2/acme/skills/manifests/{pushed.manifest_digest}",
        f"/v2/acme/skills/manifests/{pushed.signature_digest}",
        "/v2/acme/skills/manifests/1",
    ]
    got = fetch_bundle(fake.ref("acme/skills", "1"), cache_dir=tmp_path / "c", options=options)
    assert got.signature == signature.read_bytes()
    assert got.bundle_path.read_bytes() == bundle.read_bytes()
    assert sha256_digest(got.manifest) == pushed.manifest_digest


def test_loopback_registries_bypass_proxies_from_the_environment(
    fake: FakeRegistry, options: ClientOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://proxy.invalid:3128")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert _client(fake, options).blob_exists("sha256:" + "1" * 64) is False


def test_proxies_from_the_environment_still_apply_off_loopback(
    fake: FakeRegistry, options: ClientOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session does not trust the environment (no netrc), but its proxies are still
    used: a registry off loopback is reached through HTTP_PROXY (the fake registry is
    the proxy here, answering the absolute-form requests), unless NO_PROXY names it."""
    import dataclasses

    from skillpack.registry.transport import _proxies

    monkeypatch.setenv("HTTP_PROXY", f"http://{fake.host}")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    for name in ("NO_PROXY", "no_proxy", "http_proxy", "https_proxy", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    insecure = dataclasses.replace(options, insecure=True)
    client = RegistryClient("registry.test", "acme/skills", insecure)
    assert client.blob_exists("sha256:" + "1" * 64) is False
    assert ("HEAD", "/v2/acme/skills/blobs/sha256:" + "1" * 64) in fake.log
    assert _proxies("https://registry.test/v2/") == {
        "http": f"http://{fake.host}",
        "https": "http://proxy.invalid:3128",
    }
    monkeypatch.setenv("NO_PROXY", "registry.test")
    assert _proxies("https://registry.test/v2/") == {}
    assert _proxies("http://127.0.0.1:5000/v2/") == {}  # loopback: never a proxy


def test_an_upload_without_a_location_shows_the_status(
    fake: FakeRegistry, options: ClientOptions
) -> None:
    fake.fail_next = [(404, {}), (202, {})]  # no such blob yet; an upload with no Location
    with pytest.raises(RegistryError) as info:
        _client(fake, options).push_blob(b"some bytes")
    assert info.value.code == "REG032" and info.value.status == 202
    assert "without a Location\n  HTTP 202" in str(info.value)


def test_the_http_status_is_shown_once() -> None:
    from skillpack.registry.errors import registry_error

    plain = registry_error("REG023", "the token server sent no token", status=200)
    assert plain.details == ["HTTP 200"] and str(plain).endswith("\n  HTTP 200")
    parts = registry_error("REG031", "x", status=500, details=["HTTP 500 Internal Server Error"])
    assert parts.details == ["HTTP 500 Internal Server Error"]
    in_message = registry_error("REG031", "x: the registry answered HTTP 502", status=502)
    assert in_message.details == []
    assert registry_error("REG011", "connection refused").details == []
