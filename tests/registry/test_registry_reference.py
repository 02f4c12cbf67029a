"""oci:// references: the grammar, Docker Hub's normalisation, precise codes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillpack.registry import Reference, RegistryError, parse_reference
from skillpack.registry.errors import CODES

DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    ("text", "registry", "repository", "tag", "digest"),
    [
        ("oci://ghcr.io/acme/skills:1.0.0", "ghcr.io", "acme/skills", "1.0.0", None),
        ("oci://ghcr.io/acme/skills", "ghcr.io", "acme/skills", None, None),
        (f"oci://ghcr.io/acme/skills@{DIGEST}", "ghcr.io", "acme/skills", None, DIGEST),
        (f"oci://ghcr.io/a/b:v1@{DIGEST}", "ghcr.io", "a/b", "v1", DIGEST),
        ("oci://localhost:5000/x:latest", "localhost:5000", "x", "latest", None),
        ("oci://127.0.0.1:05000/x", "127.0.0.1:5000", "x", None, None),
        ("oci://[::1]:5000/a/b/c:t", "[::1]:5000", "a/b/c", "t", None),
        (
            "oci://Registry.Example.COM/a.b_c__d--e/f-g:_T.1-x",
            "registry.example.com",
            "a.b_c__d--e/f-g",
            "_T.1-x",
            None,
        ),
        ("oci://docker.io/alpine:3", "docker.io", "library/alpine", "3", None),
        ("oci://index.docker.io/acme/x", "docker.io", "acme/x", None, None),
        ("oci://registry-1.docker.io/alpine", "docker.io", "library/alpine", None, None),
        ("oci://docker.io:443/alpine", "docker.io:443", "alpine", None, None),
    ],
)
def test_valid_references(
    text: str, registry: str, repository: str, tag: str | None, digest: str | None
) -> None:
    ref = parse_reference(text)
    assert ref == Reference(registry, repository, tag, digest)
    assert parse_reference(str(ref)) == ref


def test_docker_hub_endpoint_and_round_trip() -> None:
    ref = parse_reference("oci://docker.io/alpine:3")
    assert ref.endpoint == "registry-1.docker.io"
    assert str(ref) == "oci://docker.io/library/alpine:3"
    assert parse_reference("oci://ghcr.io/a:1").endpoint == "ghcr.io"


def test_by_digest_and_with_tag() -> None:
    ref = parse_reference("oci://ghcr.io/acme/skills:1.0.0")
    pinned = ref.by_digest(DIGEST)
    assert str(pinned) == f"oci://ghcr.io/acme/skills@{DIGEST}"
    assert pinned.target == DIGEST and ref.target == "1.0.0"
    assert pinned.with_tag("2") == Reference("ghcr.io", "acme/skills", "2")
    with pytest.raises(RegistryError) as info:
        ref.by_digest("sha256:nothex")
    assert info.value.code == "REG005"


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        ("ghcr.io/acme/skills:1", "REG001", "not an oci:// reference"),
        ("https://ghcr.io/acme/skills", "REG001", "not an oci:// reference"),
        ("oci://", "REG001", ""),
        ("oci://ghcr.io/acme skills", "REG001", "spaces"),
        ("oci://ghcr.io/a?x=1", "REG001", "'?'"),
        ("oci://ghcr.io", "REG003", "names no repository"),
        ("oci://ghcr.io/", "REG003", "names no repository"),
        ("oci:///acme/skills", "REG002", "no registry host"),
        ("oci://bad_host/acme", "REG002", "not a valid registry host"),
        ("oci://-bad.example/acme", "REG002", "not a valid registry host"),
        ("oci://ghcr.io:99999/acme", "REG002", "port"),
        ("oci://ghcr.io:abc/acme", "REG002", "port"),
        ("oci://[::1/acme", "REG002", "IPv6"),
        ("oci://[nothex]:5000/acme", "REG002", "IPv6"),
        ("oci://ghcr.io/Acme/skills", "REG003", "lowercase"),
        ("oci://ghcr.io/acme//skills", "REG003", "component"),
        ("oci://ghcr.io/acme/-skills", "REG003", "component"),
        ("oci://ghcr.io/acme/skills.", "REG003", "component"),
        ("oci://ghcr.io/acme/sk___ills", "REG003", "component"),
        ("oci://ghcr.io/" + "a" * 250, "REG003", "longer than 255"),
        ("oci://ghcr.io/acme/skills:", "REG004", "not a valid tag"),
        ("oci://ghcr.io/acme/skills:-x", "REG004", "not a valid tag"),
        ("oci://ghcr.io/acme/skills:" + "t" * 129, "REG004", "not a valid tag"),
        ("oci://ghcr.io/acme/skills@sha256:abc", "REG005", "not a sha256 digest"),
        ("oci://ghcr.io/acme/skills@sha256:" + "AB" * 32, "REG005", "not a sha256 digest"),
        ("oci://ghcr.io/acme/skills@sha512:" + "ab" * 64, "REG005", "'sha512' is not supported"),
        ("oci://ghcr.io/acme/skills@", "REG005", "not a sha256 digest"),
    ],
)
def test_invalid_references_have_precise_codes(text: str, code: str, needle: str) -> None:
    with pytest.raises(RegistryError) as info:
        parse_reference(text)
    assert info.value.code == code, info.value
    assert needle in info.value.message
    assert code in CODES
    assert info.value.exit_code == 2


_component = st.from_regex(r"[a-z0-9]{1,5}((\.|_|__|-{1,2})[a-z0-9]{1,5}){0,2}", fullmatch=True)


@given(
    host=st.sampled_from(["ghcr.io", "localhost:5000", "127.0.0.1:1", "[::1]:8", "a-b.c"]),
    components=st.lists(_component, min_size=1, max_size=4),
    tag=st.none() | st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,20}", fullmatch=True),
    digest=st.none() | st.from_regex(r"sha256:[a-f0-9]{64}", fullmatch=True),
)
def test_round_trip(host: str, components: list[str], tag: str | None, digest: str | None) -> None:
    ref = Reference(host, "/".join(components), tag, digest)
    assert parse_reference(str(ref)) == ref
