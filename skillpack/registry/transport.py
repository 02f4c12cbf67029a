"""HTTP for the registry client: the scheme policy, bounded timeouts and retries,
redirects, and keeping secrets out of every message.

- **Scheme.** ``https`` by default. Plain ``http`` only for loopback hosts
  (127.0.0.0/8, ::1, ``localhost``) or when the caller passes ``insecure=True``
  (``--insecure-registry``); any other ``http://`` URL (a registry, a token realm, a
  redirect) is refused with ``REG010`` before a connection is opened.
- **Time.** Each exchange (connect, send, wait for the answer's headers, retries and
  their pauses included) has ``timeout`` seconds in all; while a body streams, each
  read waits at most ``timeout`` seconds. Connection errors, 5xx and 429 answers are
  retried at most ``retries`` times with a short backoff, honouring ``Retry-After``
  only when it fits in what is left of the budget. An unreachable registry is a coded
  error (``REG011``/``REG012``) within the timeout, never minutes.
- **Secrets.** :meth:`Transport.redact` replaces every password and token the
  authenticator registered; nothing here logs headers or bodies.
- **The environment.** Proxies come from it (``HTTPS_PROXY``, ``NO_PROXY``, ..., as
  ``requests`` reads them), except for loopback hosts, and a CA bundle from
  ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE`` when ``tls_verify`` is ``True``; but never
  credentials: the session does not trust the environment (``trust_env=False``), so
  ``~/.netrc`` or ``$NETRC`` never replaces the Authorization header the client
  chose, nor adds one to an anonymous request. Credentials are the authenticator's
  alone (:mod:`skillpack.registry.credentials`).
"""

from __future__ import annotations

import email.utils
import ipaddress
import json
import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from typing import IO
from urllib.parse import urljoin, urlsplit

import requests

from skillpack.registry.errors import RegistryError, registry_error
from skillpack.registry.options import ClientOptions

__all__ = ["Body", "ClientOptions", "Transport", "error_parts", "read_body"]

log = logging.getLogger("skillpack.registry")

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_REDIRECTS = 5
USER_AGENT = "skillpack-registry/1"

#: a request body: bytes, or a function that opens a fresh file each attempt
Body = bytes | Callable[[], IO[bytes]] | None


def host_of(endpoint: str) -> str:
    """The host part of ``host[:port]`` (brackets of an IPv6 address removed)."""
    if endpoint.startswith("["):
        return endpoint[1 : endpoint.find("]")]
    return endpoint.partition(":")[0]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (no port) is ``localhost``, in 127.0.0.0/8 or ``::1``."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Transport:
    """One ``requests`` session with the policies of the module docstring."""

    def __init__(self, options: ClientOptions, session: requests.Session | None = None) -> None:
        self.options = options
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        # never netrc credentials: proxies and the CA bundle are taken from the
        # environment explicitly, per request (_proxies, _verify)
        self.session.trust_env = False
        self._secrets: set[str] = set()

    # -- URLs --------------------------------------------------------------------------

    def base_url(self, endpoint: str) -> str:
        """``scheme://endpoint`` for a registry, by the scheme policy."""
        loopback = is_loopback(host_of(endpoint))
        plain = self.options.plain_http
        if plain is None:
            plain = loopback or self.options.insecure
        url = f"{'http' if plain else 'https'}://{endpoint}"
        self.check_url(url)
        return url

    def check_url(self, url: str) -> None:
        """Refuse (``REG010``) a plain-http URL off loopback unless insecure, and any
        scheme but http and https; this never connects."""
        parts = urlsplit(url)
        if parts.scheme == "https":
            return
        if parts.scheme != "http":
            raise registry_error("REG032", f"refusing a {parts.scheme or 'relative'} URL: {url}")
        if self.options.insecure or is_loopback(parts.hostname or ""):
            return
        raise registry_error(
            "REG010",
            f"refusing plain http to {parts.netloc}: only loopback registries may be "
            "reached without TLS",
            hint="use https, or pass --insecure-registry (insecure=True) for a registry you "
            "trust on this network",
        )

    # -- secrets ---------------------------------------------------------------------------

    def add_secret(self, secret: str | None) -> None:
        """Never show ``secret`` in a message (see :meth:`redact`)."""
        if secret and len(secret) >= 3:
            self._secrets.add(secret)

    def redact(self, text: str) -> str:
        """``text`` with every registered secret replaced by ``***``."""
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, "***")
        return text

    def error(
        self,
        code: str,
        message: str,
        *,
        hint: str | None = None,
        details: list[str] | None = None,
        status: int | None = None,
        registry_codes: tuple[str, ...] = (),
    ) -> RegistryError:
        """A :class:`RegistryError` whose texts have been redacted."""
        return registry_error(
            code,
            self.redact(message),
            hint=None if hint is None else self.redact(hint),
            details=[self.redact(d) for d in details or ()],
            status=status,
            registry_codes=tuple(self.redact(c) for c in registry_codes),
        )

    # -- requests --------------------------------------------------------------------------

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str | list[str]] | None = None,
        body: Body = None,
        stream: bool = False,
        follow_redirects: bool = True,
    ) -> requests.Response:
        """Send one exchange with retries and redirects (GET and HEAD only); the answer
        may be any status: callers decide what an HTTP error means."""
        deadline = time.monotonic() + self.options.timeout
        hops = 0
        while True:
            self.check_url(url)
            response = self._attempts(method, url, headers, params, body, stream, deadline)
            if not (
                follow_redirects
                and method in ("GET", "HEAD")
                and response.status_code in (301, 302, 303, 307, 308)
            ):
                return response
            location = response.headers.get("Location")
            response.close()
            hops += 1
            if not location or hops > MAX_REDIRECTS:
                raise self.error(
                    "REG014",
                    f"{method} {_path(url)}: "
                    + ("a redirect without a Location" if not location else "too many redirects"),
                    status=response.status_code,
                )
            target = urljoin(url, location)
            if urlsplit(target).netloc != urlsplit(url).netloc:
                # credentials are for the registry, never for the storage it redirects to
                headers = {k: v for k, v in (headers or {}).items() if k.lower() != "authorization"}
            url, params = target, None

    def _attempts(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None,
        params: Mapping[str, str | list[str]] | None,
        body: Body,
        stream: bool,
        deadline: float,
    ) -> requests.Response:
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self.error(
                    "REG012",
                    f"{method} {_host(url)}{_path(url)}: no answer within "
                    f"{self.options.timeout:g} s",
                    hint="the registry is slow or unreachable; raise the timeout to wait longer",
                )
            data: bytes | IO[bytes] | None = body() if callable(body) else body
            proxies = _proxies(url)
            try:
                response = self.session.request(
                    method,
                    url,
                    headers=dict(headers or {}),
                    params=params,
                    data=data,
                    stream=stream,
                    timeout=(remaining, remaining),
                    allow_redirects=False,
                    verify=self._verify(),
                    proxies=proxies,
                )
            except requests.exceptions.SSLError as exc:
                raise self.error(
                    "REG013",
                    f"TLS failure talking to {_host(url)}: {_reason(exc)}",
                    hint="check the registry's certificate; --insecure-registry only allows "
                    "plain http",
                ) from None
            except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
                if self._pause(attempt, None, deadline):
                    attempt += 1
                    continue
                timed_out = isinstance(exc, requests.exceptions.Timeout)
                raise self.error(
                    "REG012" if timed_out else "REG011",
                    f"{method} {_host(url)}{_path(url)}: {_reason(exc)} "
                    f"(after {attempt + 1} attempt{'s' if attempt else ''})",
                    hint="check the registry address and that it is up",
                ) from None
            except requests.exceptions.RequestException as exc:
                raise self.error(
                    "REG011", f"{method} {_host(url)}{_path(url)}: {_reason(exc)}"
                ) from None
            finally:
                if data is not None and not isinstance(data, bytes):
                    data.close()
            log.debug("%s %s -> %d", method, _path(url), response.status_code)
            if response.status_code in RETRY_STATUSES and self._pause(
                attempt, response.headers.get("Retry-After"), deadline
            ):
                response.close()
                attempt += 1
                continue
            return response

    def _verify(self) -> bool | str:
        """``tls_verify``; when it is ``True``, the CA bundle the environment names
        (``REQUESTS_CA_BUNDLE``, then ``CURL_CA_BUNDLE``), as ``requests`` would read it."""
        verify = self.options.tls_verify
        if verify is True:
            return os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
        return verify

    def _pause(self, attempt: int, retry_after: str | None, deadline: float) -> bool:
        """Sleep before another attempt if one is allowed and fits the budget."""
        if attempt >= self.options.retries:
            return False
        delay = self.options.backoff * (2**attempt)
        asked = _retry_after_seconds(retry_after)
        if asked is not None:
            delay = max(delay, asked)
        if time.monotonic() + delay >= deadline:
            return False
        time.sleep(delay)
        return True


def _proxies(url: str) -> dict[str, str]:
    """The proxies of the environment for ``url`` (none for loopback, none when
    ``NO_PROXY`` matches), as ``requests`` finds them with ``trust_env``."""
    if is_loopback(urlsplit(url).hostname or ""):
        return {}
    return dict(requests.utils.get_environ_proxies(url))


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


_ERRNO = re.compile(r"\[Errno -?\d+\] ([^'\"()\]]+)")


def _reason(exc: BaseException) -> str:
    """A short cause of a requests exception, without object reprs."""
    text = str(exc)
    match = _ERRNO.search(text)
    if match:
        return match.group(1).strip().rstrip(".,")
    lowered = text.lower()
    if "timed out" in lowered or isinstance(exc, requests.exceptions.Timeout):
        return "timed out"
    if "name or service not known" in lowered or "nodename nor servname" in lowered:
        return "host name not found"
    if "certificate" in lowered:
        return "certificate verification failed"
    if isinstance(exc, requests.exceptions.ConnectionError):
        return "connection failed"
    return type(exc).__name__


def _host(url: str) -> str:
    return urlsplit(url).netloc


def _path(url: str) -> str:
    return urlsplit(url).path


def read_body(response: requests.Response, limit: int, what: str) -> bytes:
    """The whole body of ``response``, refused (``REG044``) past ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    with response:
        for chunk in response.iter_content(65536):
            total += len(chunk)
            if total > limit:
                raise registry_error(
                    "REG044",
                    f"{what} is larger than {limit} bytes; refusing to read more",
                    status=response.status_code,
                )
            chunks.append(chunk)
    return b"".join(chunks)


def error_parts(response: requests.Response) -> tuple[tuple[str, ...], list[str]]:
    """The registry's error codes (``errors[].code`` of its JSON body) and detail lines
    (the status, then ``CODE: message`` for each), reading at most 64 KiB of the body."""
    data = b""
    try:
        with response:
            for chunk in response.iter_content(8192):
                data += chunk
                if len(data) >= 65536:
                    break
    except (requests.exceptions.RequestException, RuntimeError):
        pass
    details = [f"HTTP {response.status_code} {response.reason or ''}".rstrip()]
    codes: list[str] = []
    try:
        errors = json.loads(data).get("errors")
    except (ValueError, AttributeError, UnicodeDecodeError):
        errors = None
    if isinstance(errors, list):
        for entry in errors[:5]:
            if not isinstance(entry, dict):
                continue
            code = entry.get("code")
            message = entry.get("message")
            if isinstance(code, str) and code:
                codes.append(code[:64])
                text = f"registry error {code[:64]}"
                if isinstance(message, str) and message:
                    text += f": {message[:200]}"
                details.append(text)
    return tuple(codes), details
