"""The serve options over HTTP: ``--prefix``, ``--ttl-ms``, ``--cache-scope``,
``--page-size``, ``--no-directory-read`` and ``--require-signature --key`` keep their
stdio meaning behind ``--http``, in both eras (a key-mode signature made with
``skillpack keygen`` and ``skillpack sign --key``, as a publisher would)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli_env, run_cli
from tests.http.conftest import HttpServer, initialize, rpc, session_headers, start_server

SKILLS = "io.modelcontextprotocol/skills"
PREFIXED = "skill://acme/pdf-processing/SKILL.md"
OPTIONS = (
    "--prefix",
    "acme",
    "--ttl-ms",
    "1234",
    "--cache-scope",
    "private",
    "--page-size",
    "2",
    "--no-directory-read",
)


def _keypair(directory: Path) -> tuple[Path, Path]:
    made = run_cli("keygen", "--out-dir", directory)
    assert made.returncode == 0, made.stderr
    return directory / "skillpack.key", directory / "skillpack.pub"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _keypair(tmp_path_factory.mktemp("keys"))


@pytest.fixture(scope="module")
def signed(
    examples_skp: Path, keys: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A copy of the example bundle with a key-mode signature beside it."""
    bundle = tmp_path_factory.mktemp("signed") / "acme-skills.skp"
    shutil.copyfile(examples_skp, bundle)
    made = run_cli("sign", bundle, "--key", keys[0])
    assert made.returncode == 0, made.stderr
    assert bundle.with_name("acme-skills.skp.sigstore.json").is_file()
    return bundle


@pytest.fixture(scope="module")
def options_server(signed: Path, keys: tuple[Path, Path]) -> Iterator[HttpServer]:
    running = start_server(*OPTIONS, "--require-signature", "--key", keys[1], signed)
    yield running
    assert running.stop() == 0


def _result(response: Any) -> dict[str, Any]:
    assert response.status == 200, (response.status, response.body)
    result: dict[str, Any] = response.json()["result"]
    return result


def _pages(fetch: Any, key: str) -> list[list[Any]]:
    """Every page of a paginated list, following nextCursor."""
    pages: list[list[Any]] = []
    cursor = None
    while True:
        result = fetch({"cursor": cursor} if cursor else {})
        pages.append(result[key])
        cursor = result.get("nextCursor")
        if cursor is None:
            return pages
        assert len(pages) < 50, "the cursors never end"


def test_the_signature_is_verified_before_serving(options_server: HttpServer) -> None:
    line = options_server.wait_for(r"signed by key")
    assert "acme-skills.skp" in line and "verified" in line
    listening = options_server.wait_for(r"listening on")
    assert options_server.lines.index(line) < options_server.lines.index(listening)


def test_modern_results_carry_the_options(options_server: HttpServer) -> None:
    discover = _result(options_server.modern("server/discover"))
    assert discover["capabilities"]["extensions"][SKILLS] == {}  # no directoryRead
    assert (discover["ttlMs"], discover["cacheScope"]) == (1234, "private")

    def listing(method: str, key: str) -> list[list[Any]]:
        def fetch(params: dict[str, Any]) -> dict[str, Any]:
            result = _result(options_server.modern(method, params))
            assert (result["ttlMs"], result["cacheScope"]) == (1234, "private")
            return result

        return _pages(fetch, key)

    resources = listing("resources/list", "resources")
    assert [len(page) for page in resources] == [2, 2, 2, 2, 2]  # 10 files, 2 a page
    uris = [r["uri"] for page in resources for r in page]
    assert len(set(uris)) == 10 and all(u.startswith("skill://acme/") for u in uris)
    assert PREFIXED in uris
    skills = listing("skills/list", "skills")
    assert [len(page) for page in skills] == [2, 2, 1]
    assert all(s["uri"].startswith("skill://acme/") for page in skills for s in page)

    read = _result(options_server.modern("resources/read", {"uri": PREFIXED}))
    assert (read["ttlMs"], read["cacheScope"]) == (1234, "private")
    assert read["contents"][0]["uri"] == PREFIXED
    assert read["contents"][0]["text"].startswith("---\nname: pdf-processing\n")
    got = _result(options_server.modern("skills/get", {"uri": PREFIXED}))
    assert (got["ttlMs"], got["cacheScope"]) == (1234, "private")

    unprefixed = options_server.modern("resources/read", {"uri": "skill://pdf-processing/SKILL.md"})
    assert unprefixed.status == 400 and unprefixed.json()["error"]["code"] == -32602
    directory = options_server.modern("resources/directory/read", {"uri": "skill://acme"})
    assert directory.status == 404 and directory.json()["error"]["code"] == -32601


def test_a_legacy_session_gets_the_options_too(options_server: HttpServer) -> None:
    session, result = initialize(options_server)
    assert result["capabilities"]["extensions"][SKILLS] == {}
    headers = session_headers(session)
    number = iter(range(2, 100))

    def fetch(params: dict[str, Any]) -> dict[str, Any]:
        response = options_server.request(
            "POST", rpc("resources/list", params, next(number)), headers
        )
        page = _result(response)
        assert "ttlMs" not in page and "cacheScope" not in page  # legacy shapes
        return page

    pages = _pages(fetch, "resources")
    assert [len(page) for page in pages] == [2, 2, 2, 2, 2]
    read = options_server.request("POST", rpc("resources/read", {"uri": PREFIXED}, 50), headers)
    assert _result(read)["contents"][0]["uri"] == PREFIXED
    directory = options_server.request(
        "POST", rpc("resources/directory/read", {"uri": "skill://acme"}, 51), headers
    )
    assert directory.status == 200 and directory.json()["error"]["code"] == -32601
    assert options_server.request("DELETE", None, headers).status == 204


def _serve_http(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``serve --http`` that is expected to exit before it listens."""
    return subprocess.run(
        [sys.executable, "-m", "skillpack", "serve", "--http", "127.0.0.1:0", *map(str, args)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )


def test_a_bundle_without_a_good_signature_is_refused_before_listening(
    examples_skp: Path, signed: Path, keys: tuple[Path, Path], tmp_path: Path
) -> None:
    unsigned = tmp_path / "unsigned.skp"
    shutil.copyfile(examples_skp, unsigned)
    refused = _serve_http(*OPTIONS, "--require-signature", "--key", keys[1], unsigned)
    assert refused.returncode == 1, refused.stderr
    assert "SIG001" in refused.stderr and "listening on" not in refused.stderr
    _, other = _keypair(tmp_path / "other")
    wrong_key = _serve_http("--require-signature", "--key", other, signed)
    assert wrong_key.returncode == 1, wrong_key.stderr
    assert "SIG013" in wrong_key.stderr and "listening on" not in wrong_key.stderr
