"""Authentication against the real registry: htpasswd (basic) and bearer tokens from
the test token server; the push scope; coded refusals; secrets kept out of output."""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import replace
from pathlib import Path

import pytest

from skillpack.registry import (
    ClientOptions,
    Credentials,
    RegistryClient,
    RegistryError,
    fetch_bundle,
    push_bundle,
)
from tests.registry.conftest import (
    PASSWORDS,
    READER,
    REFRESH_TOKEN,
    USERS,
    WRITER,
    files_under,
)
from tests.registry.servers import DistributionRegistry, TokenServer


def _with(options: ClientOptions, user: str, password: str) -> ClientOptions:
    return replace(options, credentials=Credentials(user, password))


def test_basic_auth_push_and_fetch(
    basic_registry: DistributionRegistry,
    options: ClientOptions,
    bundle: Path,
    signature: Path,
    tmp_path: Path,
) -> None:
    alice = _with(options, "alice", USERS["alice"])
    pushed = push_bundle(
        bundle,
        basic_registry.ref("acme/skills", "1"),
        name="n",
        version="v",
        signature_path=signature,
        options=alice,
    )
    got = fetch_bundle(str(pushed), cache_dir=tmp_path / "c", options=alice)
    assert got.bundle_path.read_bytes() == bundle.read_bytes()
    assert got.signature == signature.read_bytes()


def test_basic_auth_from_the_environment_and_docker_config(
    basic_registry: DistributionRegistry, options: ClientOptions, bundle: Path, tmp_path: Path
) -> None:
    env = {"SKILLPACK_REGISTRY_USERNAME": "bob", "SKILLPACK_REGISTRY_PASSWORD": USERS["bob"]}
    pushed = push_bundle(
        bundle,
        basic_registry.ref("acme/skills", "1"),
        name="n",
        version="v",
        options=replace(options, environ=env),
    )
    config = tmp_path / "docker"
    config.mkdir()
    auth = base64.b64encode(f"alice:{USERS['alice']}".encode()).decode()
    (config / "config.json").write_text(
        json.dumps({"auths": {basic_registry.host: {"auth": auth}}})
    )
    got = fetch_bundle(
        str(pushed), cache_dir=tmp_path / "c", options=replace(options, docker_config=config)
    )
    assert got.manifest_digest == pushed.manifest_digest


def test_basic_auth_refusals(
    basic_registry: DistributionRegistry, options: ClientOptions, tmp_path: Path
) -> None:
    ref = basic_registry.ref("acme/skills", "1")
    with pytest.raises(RegistryError) as info:
        fetch_bundle(ref, cache_dir=tmp_path / "c", options=options)
    assert info.value.code == "REG020" and info.value.status == 401
    with pytest.raises(RegistryError) as info:
        fetch_bundle(ref, cache_dir=tmp_path / "c", options=_with(options, "alice", "wrong-pw"))
    assert info.value.code == "REG021" and info.value.status == 401
    assert "wrong-pw" not in str(info.value)
    assert files_under(tmp_path / "c") == []


def test_a_push_asks_for_the_push_scope_after_a_pull(
    bearer_registry: DistributionRegistry,
    token_server: TokenServer,
    options: ClientOptions,
    tmp_path: Path,
) -> None:
    writer = _with(options, WRITER, PASSWORDS[WRITER])
    client = RegistryClient(bearer_registry.host, "acme/skills", writer)
    assert client.blob_exists("sha256:" + "0" * 64) is False  # a pull token
    assert token_server.requests[-1]["scopes"] == ["repository:acme/skills:pull"]
    blob = client.push_blob(b"pushed with its own token")
    assert any("repository:acme/skills:pull,push" in r["scopes"] for r in token_server.requests)
    sink = tmp_path / "blob"
    with sink.open("wb") as out:
        client.get_blob(blob.digest, out, size=blob.size)
    assert sink.read_bytes() == b"pushed with its own token"


def test_bearer_round_trip_and_refusals(
    bearer_registry: DistributionRegistry,
    token_server: TokenServer,
    options: ClientOptions,
    bundle: Path,
    signature: Path,
    tmp_path: Path,
) -> None:
    ref = bearer_registry.ref("acme/skills", "1.2.3")
    writer = _with(options, WRITER, PASSWORDS[WRITER])
    pushed = push_bundle(
        bundle, ref, name="n", version="v", signature_path=signature, options=writer
    )
    reader = _with(options, READER, PASSWORDS[READER])
    got = fetch_bundle(ref, cache_dir=tmp_path / "c", options=reader)
    assert got.manifest_digest == pushed.manifest_digest
    assert got.signature == signature.read_bytes()
    # a reader can pull but has no push right: asked for it, refused with a code
    with pytest.raises(RegistryError) as info:
        push_bundle(
            bundle, bearer_registry.ref("acme/skills", "2"), name="n", version="v2", options=reader
        )
    assert info.value.code == "REG022" and info.value.status == 401
    assert "push" in info.value.message
    assert any(
        r.get("user") == READER and "repository:acme/skills:pull,push" in r["scopes"]
        for r in token_server.requests
    )
    # anonymous: the token server grants nothing
    with pytest.raises(RegistryError) as info:
        fetch_bundle(ref, cache_dir=tmp_path / "anon", options=options)
    assert info.value.code == "REG020"
    # a wrong password: the token server refuses it
    with pytest.raises(RegistryError) as info:
        fetch_bundle(ref, cache_dir=tmp_path / "wrong", options=_with(options, WRITER, "nope-pw"))
    assert info.value.code == "REG021"
    assert files_under(tmp_path / "anon") == [] and files_under(tmp_path / "wrong") == []


def test_an_identity_token_from_the_docker_config(
    bearer_registry: DistributionRegistry,
    token_server: TokenServer,
    options: ClientOptions,
    bundle: Path,
    tmp_path: Path,
) -> None:
    config = tmp_path / "docker"
    config.mkdir()
    (config / "config.json").write_text(
        json.dumps({"auths": {bearer_registry.host: {"identitytoken": REFRESH_TOKEN}}})
    )
    pushed = push_bundle(
        bundle,
        bearer_registry.ref("acme/skills", "1"),
        name="n",
        version="v",
        options=replace(options, docker_config=config),
    )
    assert pushed.manifest_digest
    assert token_server.requests and all(r["method"] == "POST" for r in token_server.requests)


def test_secrets_never_appear_in_errors_reprs_or_logs(
    bearer_registry: DistributionRegistry,
    basic_registry: DistributionRegistry,
    token_server: TokenServer,
    options: ClientOptions,
    bundle: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    texts: list[str] = []
    writer = _with(options, WRITER, PASSWORDS[WRITER])
    reader = _with(options, READER, PASSWORDS[READER])
    pushed = push_bundle(
        bundle, bearer_registry.ref("acme/skills", "1"), name="n", version="v", options=writer
    )
    client = RegistryClient(bearer_registry.host, "acme/skills", reader)
    client.get_manifest(pushed.manifest_digest)
    texts += [repr(client), repr(client.auth), repr(reader), repr(client.options), str(pushed)]
    attempts = [
        lambda: push_bundle(
            bundle, bearer_registry.ref("acme/skills", "2"), name="n", version="v", options=reader
        ),
        lambda: fetch_bundle(
            bearer_registry.ref("acme/skills", "1"),
            cache_dir=tmp_path / "c",
            options=_with(options, WRITER, PASSWORDS[READER]),
        ),
        lambda: fetch_bundle(
            basic_registry.ref("acme/skills", "1"),
            cache_dir=tmp_path / "c",
            options=_with(options, "alice", PASSWORDS[WRITER]),
        ),
        lambda: fetch_bundle(
            basic_registry.ref("acme/skills", "1"),
            cache_dir=tmp_path / "c",
            options=_with(options, "alice", USERS["alice"]),
        ),
    ]
    for attempt in attempts:
        with pytest.raises(RegistryError) as info:
            attempt()
        texts += [str(info.value), repr(info.value), *info.value.details]
    texts += [record.getMessage() for record in caplog.records]
    secrets = [*PASSWORDS.values(), *USERS.values(), *token_server.issued]
    secrets += [
        base64.b64encode(f"{u}:{p}".encode()).decode()
        for u, p in [
            (WRITER, PASSWORDS[WRITER]),
            (READER, PASSWORDS[READER]),
            ("alice", USERS["alice"]),
            ("alice", PASSWORDS[WRITER]),
        ]
    ]
    assert token_server.issued
    blob = "\n".join(texts)
    for secret in secrets:
        assert secret not in blob
