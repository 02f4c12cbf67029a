"""Registry authentication: the challenges, and tokens per scope.

Credentials (see :mod:`skillpack.registry.credentials` for the sources), first found
wins, resolved only when a registry asks for them: the caller's, then
``SKILLPACK_REGISTRY_USERNAME``/``SKILLPACK_REGISTRY_PASSWORD``, then the docker
configuration (``credHelpers``, ``credsStore``, ``auths``), else anonymous.

Challenges (``WWW-Authenticate``): ``Basic`` sends the credentials on every request;
``Bearer realm=…,service=…,scope=…`` fetches a token from the realm (GET with basic
credentials, or the OAuth2 refresh-token POST for an identity token) for the scope the
operation needs: ``repository:NAME:pull`` to read, ``repository:NAME:pull,push`` to
write. Tokens are kept per scope, so a pull token is never used for a push: a push asks
for its own. Passwords and tokens never appear in messages or reprs: every secret is
registered with the transport, which redacts it, and
:class:`~skillpack.registry.credentials.Credentials` hides its secrets in ``repr``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import requests

from skillpack.registry.credentials import (
    ENV_PASSWORD,
    ENV_REGISTRY,
    ENV_USERNAME,
    Credentials,
    basic_value,
    environment_credentials,
    environment_target,
    resolve_credentials,
)
from skillpack.registry.errors import RegistryError
from skillpack.registry.transport import Transport, error_parts

TOKEN_CLIENT_ID = "skillpack"


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
        environment_registry: str | None = None,
    ) -> None:
        self.registry = registry
        self.transport = transport
        self._explicit = explicit
        self._environ = environ
        self._docker_config = docker_config
        self._environment_registry = environment_registry
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
                environment_registry=self._environment_registry,
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
                return {"Authorization": f"Basic {basic_value(creds.username, creds.password)}"}
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
                hint=self.login_hint(),
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

    def login_hint(self) -> str:
        """How to give credentials for this registry; names the environment's when they
        are set but meant for another registry (they are never sent here)."""
        env = os.environ if self._environ is None else self._environ
        try:
            held = environment_credentials(env) is not None and (
                environment_target(env, self._environment_registry, self.registry) != self.registry
            )
        except RegistryError:
            held = False
        if held:
            return (
                f"{ENV_USERNAME} and {ENV_PASSWORD} are set, but not for {self.registry}: "
                f"they are offered only to the registry {ENV_REGISTRY} names, else to the "
                f"one of the command's own reference; set {ENV_REGISTRY}={self.registry} "
                "to use them here"
            )
        return (
            "log in with docker login, set SKILLPACK_REGISTRY_USERNAME and "
            "SKILLPACK_REGISTRY_PASSWORD, or pass --username with --password-stdin"
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
                headers["Authorization"] = f"Basic {basic_value(creds.username, creds.password)}"
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
                        hint=self.login_hint(),
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
                "REG023",
                f"the token server {realm_host} of {self.registry} sent no token",
                status=response.status_code,
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
