"""The one verified fetch (floor 7): an ``oci://`` reference to an open bundle, fetched
through the cache, verified in full (or, for serve, on each read), its signature checked
under a policy and its content judged by admission. pull, verify, inspect, install and
serve all fetch through :func:`fetch_verified`; a bundle file is opened the same way by
:func:`open_verified`."""

from skillpack.fetch.verified import (
    Fetched,
    Opened,
    fetch_unopened,
    fetch_verified,
    is_reference,
    naming_failures,
    open_verified,
    signer_line,
)

__all__ = [
    "Fetched",
    "Opened",
    "fetch_unopened",
    "fetch_verified",
    "is_reference",
    "naming_failures",
    "open_verified",
    "signer_line",
]
