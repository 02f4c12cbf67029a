"""How the registry client connects: :class:`ClientOptions`, a plain value.

Kept apart from :mod:`skillpack.registry.transport` so that making one imports no HTTP
library: ``serve oci://REPO@sha256:...`` answered from the cache never imports
``requests``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from skillpack.registry.credentials import Credentials


#: ``ClientOptions.environment_registry`` for "no registry": the environment's
#: credentials go nowhere unless ``SKILLPACK_REGISTRY`` names one
NO_REGISTRY = ""


@dataclass(frozen=True)
class ClientOptions:
    """How the registry client connects and authenticates.

    ``timeout``: seconds for one exchange, retries included (default 30). ``retries``:
    extra attempts after a connection error or a 5xx/429 answer (default 2).
    ``insecure``: allow plain http to a host that is not on loopback. ``plain_http``:
    ``None`` picks http for loopback (or insecure) hosts and https otherwise; ``True``
    forces http (refused off loopback unless ``insecure``); ``False`` forces https.
    ``tls_verify``: ``True``, ``False`` or a CA bundle path. ``credentials``: explicit
    credentials (``--username``/``--password-stdin``), tried before the environment and
    the docker configuration. ``docker_config``: the directory of ``config.json``
    (default ``$DOCKER_CONFIG`` or ``~/.docker``). ``environ``: the environment to read
    (default ``os.environ``). ``environment_registry``: the one registry (host[:port])
    ``SKILLPACK_REGISTRY_USERNAME``/``SKILLPACK_REGISTRY_PASSWORD`` are offered to when
    ``SKILLPACK_REGISTRY`` is unset: ``None`` (default) is the registry of the
    reference pushed or fetched; :data:`NO_REGISTRY` (``""``) is none at all
    (``serve`` with sources on several registries).
    """

    timeout: float = 30.0
    retries: int = 2
    insecure: bool = False
    plain_http: bool | None = None
    tls_verify: bool | str = True
    credentials: Credentials | None = None
    docker_config: Path | None = None
    environ: Mapping[str, str] | None = field(default=None, repr=False)
    backoff: float = 0.25
    environment_registry: str | None = None

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ValueError("timeout must be positive")
        if self.retries < 0:
            raise ValueError("retries must be >= 0")
