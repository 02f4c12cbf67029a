"""Where credentials come from, the WWW-Authenticate parser, and secrets kept out."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from skillpack.registry import ClientOptions, Credentials, RegistryClient, RegistryError
from skillpack.registry.auth import parse_challenges, scope_for
from skillpack.registry.credentials import docker_config_path, resolve_credentials
from skillpack.registry.options import NO_REGISTRY


def _config(directory: Path, value: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(value), encoding="utf-8")
    return directory


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_challenges_with_quoted_commas_and_escapes() -> None:
    header = (
        'Bearer realm="https://auth.example/token",service="registry.example",'
        'scope="repository:a/b:pull,push",error="insufficient_scope", '
        'Basic realm="x \\"quoted\\""'
    )
    bearer, basic = parse_challenges(header)
    assert bearer.scheme == "bearer"
    assert dict(bearer.params) == {
        "realm": "https://auth.example/token",
        "service": "registry.example",
        "scope": "repository:a/b:pull,push",
        "error": "insufficient_scope",
    }
    assert basic.scheme == "basic" and basic.params["realm"] == 'x "quoted"'
    assert parse_challenges("") == []
    assert parse_challenges("Bearer realm=https://t.example/x,service=s")[0].params == {
        "realm": "https://t.example/x",
        "service": "s",
    }


def test_scopes() -> None:
    assert scope_for("a/b", push=False) == "repository:a/b:pull"
    assert scope_for("a/b", push=True) == "repository:a/b:pull,push"


def test_docker_config_location(tmp_path: Path) -> None:
    assert docker_config_path(environ={"DOCKER_CONFIG": str(tmp_path)}) == tmp_path / "config.json"
    assert docker_config_path(environ={"HOME": str(tmp_path)}) == tmp_path / ".docker/config.json"


def test_auths_entries(tmp_path: Path) -> None:
    d = _config(
        tmp_path / "d",
        {
            "auths": {
                "https://reg.example:5000/v1/": {"auth": _b64("u1:p:w1")},
                "plain.example": {"username": "u2", "password": "p2"},
                "https://index.docker.io/v1/": {"auth": _b64("hub:hubpw")},
                "token.example": {"auth": _b64("u3:p3"), "identitytoken": "idt"},
                "empty.example": {},
            }
        },
    )
    env = {"DOCKER_CONFIG": str(d)}
    one = resolve_credentials("reg.example:5000", environ=env)
    assert one is not None and (one.username, one.password) == ("u1", "p:w1")
    assert "docker configuration" in one.source
    two = resolve_credentials("plain.example", environ=env)
    assert two is not None and (two.username, two.password) == ("u2", "p2")
    hub = resolve_credentials("docker.io", environ=env)
    assert hub is not None and hub.username == "hub"
    token = resolve_credentials("token.example", environ=env)
    assert token is not None and token.identity_token == "idt" and token.username == "u3"
    assert resolve_credentials("empty.example", environ=env) is None
    assert resolve_credentials("other.example", environ=env) is None
    assert resolve_credentials("reg.example", environ=env) is None  # the port matters


def test_precedence_explicit_then_environment_then_docker(tmp_path: Path) -> None:
    d = _config(tmp_path / "d", {"auths": {"r.example": {"auth": _b64("docker:dpw")}}})
    env = {
        "DOCKER_CONFIG": str(d),
        "SKILLPACK_REGISTRY_USERNAME": "ci",
        "SKILLPACK_REGISTRY_PASSWORD": "cipw",
    }
    explicit = Credentials("me", "mypw")
    assert resolve_credentials("r.example", explicit=explicit, environ=env) is explicit
    from_env = resolve_credentials("r.example", environ=env)
    assert from_env is not None and from_env.username == "ci" and from_env.source == "environment"
    del env["SKILLPACK_REGISTRY_USERNAME"], env["SKILLPACK_REGISTRY_PASSWORD"]
    from_docker = resolve_credentials("r.example", environ=env)
    assert from_docker is not None and from_docker.username == "docker"


def test_half_of_the_environment_pair_is_refused() -> None:
    with pytest.raises(RegistryError) as info:
        resolve_credentials("r.example", environ={"SKILLPACK_REGISTRY_USERNAME": "ci"})
    assert info.value.code == "REG025"
    assert "SKILLPACK_REGISTRY_PASSWORD" in info.value.message


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[]",
        json.dumps({"auths": {"r.example": {"auth": "!!!"}}}),
        json.dumps({"auths": {"r.example": {"auth": _b64("nocolon")}}}),
    ],
)
def test_broken_docker_configurations(tmp_path: Path, content: str) -> None:
    (tmp_path / "config.json").write_text(content, encoding="utf-8")
    with pytest.raises(RegistryError) as info:
        resolve_credentials("r.example", environ={"DOCKER_CONFIG": str(tmp_path)})
    assert info.value.code == "REG025"
    assert str(tmp_path) in info.value.message


def _helper(bin_dir: Path, name: str, script: str) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / f"docker-credential-{name}"
    path.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    path.chmod(0o755)


def test_credential_helpers_and_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    log = tmp_path / "helper.log"
    _helper(
        bin_dir,
        "pass",
        f'read server; echo "$1 $server" >> {log}\n'
        'case "$server" in\n'
        '  helped.example) echo \'{"ServerURL":"x","Username":"hu","Secret":"hs"}\' ;;\n'
        '  https://index.docker.io/v1/) echo \'{"Username":"<token>","Secret":"hubtok"}\' ;;\n'
        '  *) echo "credentials not found in native keychain"; exit 1 ;;\n'
        "esac\n",
    )
    _helper(bin_dir, "broken", 'echo "secret-leak"; exit 3\n')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    d = _config(
        tmp_path / "d",
        {
            "credsStore": "pass",
            "credHelpers": {"broken.example": "broken", "missing.example": "nothere"},
            "auths": {"fallback.example": {"auth": _b64("fu:fp")}},
        },
    )
    env = {"DOCKER_CONFIG": str(d)}
    helped = resolve_credentials("helped.example", environ=env)
    assert helped is not None and (helped.username, helped.password) == ("hu", "hs")
    assert helped.source == "credential helper docker-credential-pass"
    hub = resolve_credentials("docker.io", environ=env)
    assert hub is not None and hub.identity_token == "hubtok" and hub.username == ""
    # the store has nothing for it: the auths entry answers
    fallback = resolve_credentials("fallback.example", environ=env)
    assert fallback is not None and fallback.username == "fu"
    assert "get helped.example" in log.read_text()
    with pytest.raises(RegistryError) as info:
        resolve_credentials("broken.example", environ=env)
    assert info.value.code == "REG024" and "exit status 3" in info.value.message
    assert "secret-leak" not in str(info.value)
    with pytest.raises(RegistryError) as info:
        resolve_credentials("missing.example", environ=env)
    assert info.value.code == "REG024" and "docker-credential-nothere" in info.value.message


def test_reprs_hide_secrets(tmp_path: Path) -> None:
    creds = Credentials("user", "hunter2-password", identity_token=None)
    token = Credentials("", identity_token="refresh-token-value")
    options = ClientOptions(credentials=creds, environ={"SKILLPACK_REGISTRY_PASSWORD": "envpw"})
    client = RegistryClient("127.0.0.1:9", "a/b", options)
    for text in (
        repr(creds),
        str(creds),
        repr(token),
        repr(options),
        repr(client),
        repr(client.auth),
        repr(client.transport.options),
    ):
        assert "hunter2-password" not in text
        assert "refresh-token-value" not in text
        assert "envpw" not in text
    assert "user" in repr(creds)


def test_environment_credentials_are_for_one_registry(tmp_path: Path) -> None:
    d = _config(tmp_path / "d", {"auths": {"other.example": {"auth": _b64("docker:dpw")}}})
    env = {
        "DOCKER_CONFIG": str(d),
        "SKILLPACK_REGISTRY_USERNAME": "ci",
        "SKILLPACK_REGISTRY_PASSWORD": "cipw",
    }

    def user(registry: str, environ: dict[str, str], **kwargs: str | None) -> str | None:
        found = resolve_credentials(registry, environ=environ, **kwargs)  # type: ignore[arg-type]
        return None if found is None else found.username

    # unset: the registry of the command's own reference (by default the one asked)
    assert user("r.example", env) == "ci"
    assert user("r.example", env, environment_registry="r.example") == "ci"
    assert user("x.example", env, environment_registry="r.example") is None
    assert user("other.example", env, environment_registry="r.example") == "docker"
    assert user("r.example", env, environment_registry=NO_REGISTRY) is None
    # SKILLPACK_REGISTRY names the one registry, whatever the caller says
    pinned = {**env, "SKILLPACK_REGISTRY": "R.example:5000"}
    assert user("r.example:5000", pinned, environment_registry=NO_REGISTRY) == "ci"
    assert user("r.example", pinned) is None  # the port matters
    assert user("other.example", pinned) == "docker"
    hub = {**env, "SKILLPACK_REGISTRY": "index.docker.io"}
    assert user("docker.io", hub) == "ci"
    for bad in ("https://r.example", "r.example/v2", "not a host", "r.example:port"):
        with pytest.raises(RegistryError) as info:
            resolve_credentials("r.example", environ={**env, "SKILLPACK_REGISTRY": bad})
        assert info.value.code == "REG025", bad
    # no environment credentials: SKILLPACK_REGISTRY alone changes nothing
    alone = {"DOCKER_CONFIG": str(d), "SKILLPACK_REGISTRY": "not a host"}
    assert resolve_credentials("other.example", environ=alone) is not None
