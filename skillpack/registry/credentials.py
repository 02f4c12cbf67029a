"""Where registry credentials come from, first found wins:

1. explicit ones from the caller (the CLI's ``--username`` with ``--password-stdin``);
2. ``SKILLPACK_REGISTRY_USERNAME`` and ``SKILLPACK_REGISTRY_PASSWORD`` (CI; both or
   neither), for one registry only: the one ``SKILLPACK_REGISTRY`` names
   (``host[:port]``) when it is set, else the registry of the command's own reference
   (``environment_registry``: the caller's choice, by default the registry asked);
   every other registry is asked with the sources below, never with these;
3. the docker configuration, ``$DOCKER_CONFIG/config.json`` or ``~/.docker/config.json``:
   the registry's ``credHelpers`` entry, else ``credsStore`` (each runs
   ``docker-credential-NAME get`` with the server on stdin), else its ``auths`` entry
   (``auth`` = base64 ``user:password``, or ``username``/``password``, and
   ``identitytoken``);
4. none: anonymous.

:class:`Credentials` never shows its secrets in ``repr``; a failing helper's output is
never shown (it may hold secrets).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from skillpack.registry.errors import RegistryError, registry_error
from skillpack.registry.reference import DOCKER_HUB, normalise_registry

ENV_USERNAME = "SKILLPACK_REGISTRY_USERNAME"
ENV_PASSWORD = "SKILLPACK_REGISTRY_PASSWORD"
#: the one registry (``host[:port]``) the environment's credentials are for
ENV_REGISTRY = "SKILLPACK_REGISTRY"

DOCKER_HUB_SERVER = "https://index.docker.io/v1/"
HELPER_TIMEOUT = 30.0


@dataclass(frozen=True, repr=False)
class Credentials:
    """A username with a password, or an identity (refresh) token. ``source`` says
    where they came from, for messages; the secrets never show in ``repr``."""

    username: str
    password: str = ""
    identity_token: str | None = None
    source: str = "explicit"

    def __repr__(self) -> str:
        secret = "identity token" if self.identity_token else "password"
        return f"Credentials(username={self.username!r}, {secret}=***, source={self.source!r})"

    def secrets(self) -> tuple[str, ...]:
        values = [self.password, self.identity_token or ""]
        if self.password:
            values.append(basic_value(self.username, self.password))
        return tuple(v for v in values if v)


def basic_value(username: str, password: str) -> str:
    """The value of a Basic Authorization header (itself a secret)."""
    return base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


def resolve_credentials(
    registry: str,
    *,
    explicit: Credentials | None = None,
    environ: Mapping[str, str] | None = None,
    docker_config: Path | None = None,
    environment_registry: str | None = None,
) -> Credentials | None:
    """The credentials for ``registry`` (a normalised host[:port]), by the precedence
    of the module docstring; ``None`` for anonymous access. ``environment_registry``:
    the registry the environment's credentials are for when ``SKILLPACK_REGISTRY`` is
    unset (``None``: ``registry`` itself; :data:`~skillpack.registry.options.NO_REGISTRY`: none)."""
    if explicit is not None:
        return explicit
    env = os.environ if environ is None else environ
    found = environment_credentials(env)
    if found is not None and environment_target(env, environment_registry, registry) == registry:
        return found
    return docker_credentials(registry, config_dir=docker_config, environ=env)


def environment_credentials(environ: Mapping[str, str]) -> Credentials | None:
    """``SKILLPACK_REGISTRY_USERNAME`` and ``SKILLPACK_REGISTRY_PASSWORD``, or ``None``
    when neither is set (one alone is ``REG025``)."""
    username, password = environ.get(ENV_USERNAME), environ.get(ENV_PASSWORD)
    if not (username or password):
        return None
    if not (username and password):
        missing = ENV_PASSWORD if username else ENV_USERNAME
        raise registry_error(
            "REG025",
            f"{ENV_USERNAME} and {ENV_PASSWORD} go together; {missing} is not set",
        )
    return Credentials(username, password, source="environment")


def environment_target(
    environ: Mapping[str, str], environment_registry: str | None, registry: str
) -> str | None:
    """The one registry the environment's credentials may be sent to: the one
    ``SKILLPACK_REGISTRY`` names, else ``environment_registry`` (``None``: ``registry``;
    :data:`~skillpack.registry.options.NO_REGISTRY`: none, returned as ``None``)."""
    named = environ.get(ENV_REGISTRY, "").strip()
    if named:
        if "://" in named or "/" in named:
            raise registry_error(
                "REG025",
                f"{ENV_REGISTRY}={named!r}: name the registry as host[:port]",
                hint=f"e.g. {ENV_REGISTRY}=ghcr.io",
            )
        try:
            return normalise_registry(named, f"{ENV_REGISTRY}={named}")
        except RegistryError as exc:
            raise registry_error("REG025", exc.message, hint=exc.hint) from None
    if environment_registry is None:
        return registry
    return environment_registry or None  # options.NO_REGISTRY ("") is none


def docker_config_path(
    config_dir: Path | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """``config.json`` in ``config_dir``, ``$DOCKER_CONFIG`` or ``~/.docker``."""
    env = os.environ if environ is None else environ
    if config_dir is None:
        config_dir = Path(env["DOCKER_CONFIG"]) if env.get("DOCKER_CONFIG") else None
    if config_dir is None:
        home = env.get("HOME") or str(Path.home())
        config_dir = Path(home) / ".docker"
    return config_dir / "config.json"


def docker_credentials(
    registry: str, *, config_dir: Path | None = None, environ: Mapping[str, str] | None = None
) -> Credentials | None:
    """Credentials for ``registry`` from the docker configuration, or ``None``."""
    path = docker_config_path(config_dir, environ)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise registry_error("REG025", f"{path}: cannot be read ({type(exc).__name__})") from None
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise registry_error(
            "REG025", f"{path}: not valid JSON (line {getattr(exc, 'lineno', '?')})"
        ) from None
    if not isinstance(config, dict):
        raise registry_error("REG025", f"{path}: not a JSON object")
    keys = _config_keys(registry)
    helpers = config.get("credHelpers")
    helper = None
    if isinstance(helpers, dict):
        helper = next((helpers[k] for k in helpers if _normalise_key(k) in keys), None)
    store = config.get("credsStore")
    for name in (helper, store):
        if isinstance(name, str) and name:
            found = helper_credentials(name, registry)
            if found is not None:
                return found
    auths = config.get("auths")
    if not isinstance(auths, dict):
        return None
    for key, entry in auths.items():
        if _normalise_key(key) in keys and isinstance(entry, dict):
            found = _auth_entry(entry, path, key)
            if found is not None:
                return found
    return None


def helper_credentials(name: str, registry: str) -> Credentials | None:
    """Ask ``docker-credential-NAME get`` for ``registry``; ``None`` when it has none."""
    program = f"docker-credential-{name}"
    executable = shutil.which(program)
    if executable is None:
        raise registry_error(
            "REG024",
            f"the docker configuration names the credential helper {program!r}, which is "
            "not on PATH",
            hint="install it, or remove credsStore/credHelpers from the docker configuration",
        )
    server = DOCKER_HUB_SERVER if registry == DOCKER_HUB else registry
    try:
        proc = subprocess.run(
            [executable, "get"],
            input=server.encode(),
            capture_output=True,
            timeout=HELPER_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise registry_error(
            "REG024", f"{program} get did not answer within {HELPER_TIMEOUT:g} s"
        ) from None
    except OSError as exc:
        raise registry_error("REG024", f"{program} cannot be run ({exc.strerror})") from None
    if proc.returncode != 0:
        if b"credentials not found" in (proc.stdout + proc.stderr).lower():
            return None
        # the helper's output is not shown: it may hold secrets
        raise registry_error("REG024", f"{program} get failed (exit status {proc.returncode})")
    try:
        answer = json.loads(proc.stdout)
        username, secret = answer["Username"], answer["Secret"]
    except (ValueError, KeyError, TypeError):
        raise registry_error("REG024", f"{program} get answered something unusable") from None
    if not isinstance(username, str) or not isinstance(secret, str) or not secret:
        raise registry_error("REG024", f"{program} get answered something unusable")
    source = f"credential helper {program}"
    if username == "<token>":
        return Credentials("", identity_token=secret, source=source)
    return Credentials(username, secret, source=source)


def _auth_entry(entry: Mapping[str, object], path: Path, key: str) -> Credentials | None:
    username = entry.get("username")
    password = entry.get("password")
    token = entry.get("identitytoken")
    auth = entry.get("auth")
    if isinstance(auth, str) and auth:
        try:
            decoded = base64.b64decode(auth, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise registry_error(
                "REG025", f"{path}: auths[{key!r}].auth is not base64 of user:password"
            ) from None
        username, sep, password = decoded.partition(":")
        if not sep:
            raise registry_error(
                "REG025", f"{path}: auths[{key!r}].auth is not base64 of user:password"
            )
    source = f"docker configuration {path}"
    if isinstance(token, str) and token:
        return Credentials(
            username if isinstance(username, str) else "", identity_token=token, source=source
        )
    if isinstance(username, str) and username and isinstance(password, str) and password:
        return Credentials(username, password, source=source)
    return None


def _config_keys(registry: str) -> frozenset[str]:
    if registry == DOCKER_HUB:
        return frozenset({"docker.io", "index.docker.io", "registry-1.docker.io"})
    return frozenset({registry})


def _normalise_key(key: str) -> str:
    """``https://host:port/v1/`` -> ``host:port`` (docker config keys vary)."""
    key = key.strip()
    if "://" in key:
        key = urlsplit(key).netloc
    return key.partition("/")[0].lower()
