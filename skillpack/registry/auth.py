"""Registry authentication: where credentials come from, and the challenges.

Credentials, first found wins (resolved only when a registry asks for them):

1. explicit ones from the caller (the CLI's ``--username`` with ``--password-stdin``);
2. ``SKILLPACK_REGISTRY_USERNAME`` and ``SKILLPACK_REGISTRY_PASSWORD`` (CI; both or
   neither), for whatever registry this process talks to;
3. the docker configuration, ``$DOCKER_CONFIG/config.json`` or ``~/.docker/config.json``:
   the registry's ``credHelpers`` entry, else ``credsStore`` (each runs
   ``docker-credential-NAME get`` with the server on stdin), else its ``auths`` entry
   (``auth`` = base64 ``user:password``, or ``username``/``password``, and
   ``identitytoken``);
4. none: anonymous.

Challenges (``WWW-Authenticate``): ``Basic`` sends the credentials on every request;
``Bearer realm=…,service=…,scope=…`` fetches a token from the realm (GET with basic
credentials, or the OAuth2 refresh-token POST for an identity token) for the scope the
operation needs: ``repository:NAME:pull`` to read, ``repository:NAME:pull,push`` to
write. Tokens are kept per scope, so a pull token is never used for a push: a push asks
for its own. Passwords and tokens never appear in messages or reprs: every secret is
registered with the transport, which redacts it, and :class:`Credentials` hides its
secrets in ``repr``.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import requests

from skillpack.registry.errors import registry_error
from skillpack.registry.reference import DOCKER_HUB
from skillpack.registry.transport import Transport, error_parts

ENV_USERNAME = "SKILLPACK_REGISTRY_USERNAME"
ENV_PASSWORD = "SKILLPACK_REGISTRY_PASSWORD"
DOCKER_HUB_SERVER = "https://index.docker.io/v1/"
HELPER_TIMEOUT = 30.0
TOKEN_CLIENT_ID = "skillpack"


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
            values.append(_basic(self.username, self.password))
        return tuple(v for v in values if v)


@dataclass(frozen=True)
class Challenge:
    """One ``WWW-Authenticate`` challenge: a scheme (lowercase) and its parameters."""

    scheme: str
    params: Mapping[str, str] = field(default_factory=dict)


def parse_challenges(header: str) -> list[Challenge]:
    """Parse a ``WWW-Authenticate`` value (RFC 9110 auth-params, quoted strings with
    escapes and commas inside quotes) into its challenges."""
    found: list[tuple[str, dict[str, str]]] = []
    i, n = 0, len(header)
    while i < n:
        while i < n and header[i] in " \t,":
            i += 1
        start = i
        while i < n and header[i] not in " \t,=":
            i += 1
        token = header[start:i]
        if not token:
            break
        j = i
        while j < n and header[j] in " \t":
            j += 1
        if not (j < n and header[j] == "=" and found):
            found.append((token.lower(), {}))
            continue
        i = j + 1
        while i < n and header[i] in " \t":
            i += 1
        if i < n and header[i] == '"':
            i += 1
            chars: list[str] = []
            while i < n and header[i] != '"':
                if header[i] == "\\" and i + 1 < n:
                    i += 1
                chars.append(header[i])
                i += 1
            i += 1
            value = "".join(chars)
        else:
            start = i
            while i < n and header[i] != ",":
                i += 1
            value = header[start:i].strip()
        found[-1][1][token.lower()] = value
    return [Challenge(scheme, params) for scheme, params in found]


def scope_for(repository: str, push: bool) -> str:
    """The token scope an operation on ``repository`` needs."""
    return f"repository:{repository}:{'pull,push' if push else 'pull'}"


# -- credential sources -------------------------------------------------------------------


def resolve_credentials(
    registry: str,
    *,
    explicit: Credentials | None = None,
    environ: Mapping[str, str] | None = None,
    docker_config: Path | None = None,
) -> Credentials | None:
    """The credentials for ``registry`` (a normalised host[:port]), by the precedence
    of the module docstring; ``None`` for anonymous access."""
    if explicit is not None:
        return explicit
    env = os.environ if environ is None else environ
    username, password = env.get(ENV_USERNAME), env.get(ENV_PASSWORD)
    if username or password:
        if not (username and password):
            missing = ENV_PASSWORD if username else ENV_USERNAME
            raise registry_error(
                "REG025",
                f"{ENV_USERNAME} and {ENV_PASSWORD} go together; {missing} is not set",
            )
        return Credentials(username, password, source="environment")
    return docker_credentials(registry, config_dir=docker_config, environ=env)


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


def _basic(username: str, password: str) -> str:
    return base64.b64encode(f"{username}:{password}".encode()).decode("ascii")


# -- the challenge dance ----------------------------------------------------------------


@dataclass
class _Token:
    value: str
    expires: float


class Authenticator:
    """Authorization for one registry: credentials resolved lazily, tokens per scope."""

    def __init__(
        self,
        registry: str,
        transport: Transport,
        *,
        explicit: Credentials | None = None,
        environ: Mapping[str, str] | None = None,
        docker_config: Path | None = None,
    ) -> None:
        self.registry = registry
        self.transport = transport
        self._explicit = explicit
        self._environ = environ
        self._docker_config = docker_config
        self._credentials: Credentials | None = None
        self._resolved = False
        self._basic = False
        self._bearer: Challenge | None = None
        self._tokens: dict[str, _Token] = {}
        if explicit is not None:
            for secret in explicit.secrets():
                transport.add_secret(secret)

    def __repr__(self) -> str:
        return f"Authenticator(registry={self.registry!r})"

    @property
    def credentials(self) -> Credentials | None:
        if not self._resolved:
            self._credentials = resolve_credentials(
                self.registry,
                explicit=self._explicit,
                environ=self._environ,
                docker_config=self._docker_config,
            )
            self._resolved = True
            if self._credentials is not None:
                for secret in self._credentials.secrets():
                    self.transport.add_secret(secret)
        return self._credentials

    def headers(self, scope: str) -> dict[str, str]:
        """The Authorization header for ``scope`` as far as known without a 401."""
        now = time.monotonic()
        # a push token also covers pulls from the same repository
        for candidate in (scope, scope + ",push") if scope.endswith(":pull") else (scope,):
            token = self._tokens.get(candidate)
            if token is not None and token.expires > now:
                return {"Authorization": f"Bearer {token.value}"}
        if self._bearer is not None:
            return {"Authorization": f"Bearer {self._fetch_token(self._bearer, scope)}"}
        if self._basic:
            creds = self.credentials
            if creds is not None and creds.password:
                return {"Authorization": f"Basic {_basic(creds.username, creds.password)}"}
        return {}

    def challenged(self, header: str | None, scope: str) -> bool:
        """Learn from a 401's ``WWW-Authenticate``; True when a retry may succeed now
        (a new token, or basic credentials not sent yet), False when nothing new can be
        tried: the credentials (or their absence) were refused."""
        challenges = parse_challenges(header or "")
        bearer = next((c for c in challenges if c.scheme == "bearer"), None)
        if bearer is not None and bearer.params.get("realm"):
            if scope in self._tokens and bearer.params.get("error") != "invalid_token":
                return False  # the token for this very scope was refused, not expired
            self._tokens.pop(scope, None)
            # remembered without this request's scope and error: later requests of
            # other scopes fetch their own token up front
            self._bearer = Challenge(
                "bearer", {k: v for k, v in bearer.params.items() if k in ("realm", "service")}
            )
            self._fetch_token(self._bearer, scope, bearer.params.get("scope"))
            return True
        if any(c.scheme == "basic" for c in challenges):
            if self._basic:
                return False
            creds = self.credentials
            if creds is None or not creds.password:
                return False
            self._basic = True
            return True
        return False

    def refusal(self, response: requests.Response, scope: str, what: str) -> Exception:
        """The coded error for a 401 or 403 that :meth:`challenged` cannot answer."""
        challenges = parse_challenges(response.headers.get("WWW-Authenticate", ""))
        insufficient = any(c.params.get("error") == "insufficient_scope" for c in challenges)
        creds = self._credentials if self._resolved else None
        action = "push to" if scope.endswith(",push") else "pull from"
        repository = scope.split(":")[1] if scope.count(":") >= 2 else scope
        codes, details = error_parts(response)
        if creds is None and response.status_code == 401:
            return self.transport.error(
                "REG020",
                f"{what}: {self.registry} requires authentication to {action} {repository}",
                hint="log in with docker login, set SKILLPACK_REGISTRY_USERNAME and "
                "SKILLPACK_REGISTRY_PASSWORD, or pass --username with --password-stdin",
                details=details,
                status=response.status_code,
                registry_codes=codes,
            )
        who = (
            f"{creds.username or 'the identity token'} (from {creds.source})"
            if creds
            else "anonymous"
        )
        if response.status_code == 403 or insufficient or self._bearer is not None:
            return self.transport.error(
                "REG022",
                f"{what}: {self.registry} denies {who} the right to {action} {repository}",
                details=details,
                status=response.status_code,
                registry_codes=codes,
            )
        return self.transport.error(
            "REG021",
            f"{what}: {self.registry} refused the credentials of {who}",
            details=details,
            status=response.status_code,
            registry_codes=codes,
        )

    def _fetch_token(self, challenge: Challenge, scope: str, asked: str | None = None) -> str:
        """A token for ``scope`` (and the scopes a challenge ``asked`` for, if any)."""
        realm = challenge.params["realm"]
        service = challenge.params.get("service")
        scopes = [scope]
        if asked:
            scopes += [s for s in asked.split(" ") if s and s != scope]
        self.transport.check_url(realm)
        creds = self.credentials
        headers: dict[str, str] = {}
        if creds is not None and creds.identity_token:
            form = {
                "grant_type": "refresh_token",
                "refresh_token": creds.identity_token,
                "client_id": TOKEN_CLIENT_ID,
                "scope": " ".join(scopes),
            }
            if service:
                form["service"] = service
            response = self.transport.request(
                "POST",
                realm,
                body=urlencode(form).encode("ascii"),
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
        else:
            if creds is not None and creds.password:
                headers["Authorization"] = f"Basic {_basic(creds.username, creds.password)}"
            params: dict[str, str | list[str]] = {"scope": scopes}
            if service:
                params["service"] = service
            if creds is not None and creds.username:
                params["account"] = creds.username
            response = self.transport.request("GET", realm, headers=headers, params=params)
        return self._read_token(response, scope, creds)

    def _read_token(
        self, response: requests.Response, scope: str, creds: Credentials | None
    ) -> str:
        realm_host = urlsplit(response.url or "").netloc
        with response:
            if response.status_code in (401, 403):
                if creds is None:
                    raise self.transport.error(
                        "REG020",
                        f"{self.registry} requires authentication (its token server "
                        f"{realm_host} refused anonymous access for {scope})",
                        hint="log in with docker login, set SKILLPACK_REGISTRY_USERNAME and "
                        "SKILLPACK_REGISTRY_PASSWORD, or pass --username with --password-stdin",
                        status=response.status_code,
                    )
                raise self.transport.error(
                    "REG021",
                    f"the token server {realm_host} of {self.registry} refused the credentials "
                    f"of {creds.username or 'the identity token'} (from {creds.source})",
                    status=response.status_code,
                )
            if response.status_code != 200:
                raise self.transport.error(
                    "REG023",
                    f"the token server {realm_host} of {self.registry} answered HTTP "
                    f"{response.status_code}",
                    status=response.status_code,
                )
            try:
                answer = json.loads(response.content[: 1024 * 1024])
            except ValueError:
                answer = None
        if not isinstance(answer, dict):
            answer = {}
        token = answer.get("token") or answer.get("access_token")
        if not isinstance(token, str) or not token:
            raise self.transport.error(
                "REG023", f"the token server {realm_host} of {self.registry} sent no token"
            )
        self.transport.add_secret(token)
        refresh = answer.get("refresh_token")
        if isinstance(refresh, str):
            self.transport.add_secret(refresh)
        expires_in = answer.get("expires_in")
        lifetime = 60.0
        if isinstance(expires_in, int | float) and not isinstance(expires_in, bool):
            lifetime = float(expires_in) if expires_in > 0 else lifetime
        # a little early, so a token does not expire between the check and the request
        self._tokens[scope] = _Token(token, time.monotonic() + max(lifetime - 10.0, lifetime / 2))
        return token
