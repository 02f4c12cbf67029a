"""Bundles as OCI artifacts: push to and fetch from OCI registries (floor 7).

This package moves bytes and checks digests; it never decides trust. A fetched bundle
is verified against its manifest (which is verified against its digest), but its
contents and its signature are the caller's to verify (``bundle/`` and ``signing/``).

Public API (imported lazily, so ``import skillpack.registry`` stays cheap):

- :func:`push_bundle` and :func:`fetch_bundle`, with :class:`PushResult` and
  :class:`FetchResult`;
- :class:`Reference` / :func:`parse_reference` (``oci://`` references);
- :class:`ClientOptions`, :class:`Credentials`, :class:`RegistryClient`, :class:`Cache`;
- :class:`RegistryError` and :data:`CODES` (the ``REG…`` codes).

Media types, layout, authentication, timeouts, cache and codes: docs/registry.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillpack.registry.artifact import Descriptor
    from skillpack.registry.cache import Cache
    from skillpack.registry.client import RegistryClient
    from skillpack.registry.credentials import Credentials
    from skillpack.registry.errors import CODES, RegistryError
    from skillpack.registry.exchange import (
        FetchResult,
        PushResult,
        check_cached_bundle,
        fetch_bundle,
        push_bundle,
    )
    from skillpack.registry.options import ClientOptions
    from skillpack.registry.reference import Reference, parse_reference

_EXPORTS = {
    "Reference": "skillpack.registry.reference",
    "parse_reference": "skillpack.registry.reference",
    "ClientOptions": "skillpack.registry.options",
    "Credentials": "skillpack.registry.credentials",
    "RegistryClient": "skillpack.registry.client",
    "Cache": "skillpack.registry.cache",
    "RegistryError": "skillpack.registry.errors",
    "CODES": "skillpack.registry.errors",
    "Descriptor": "skillpack.registry.artifact",
    "PushResult": "skillpack.registry.exchange",
    "FetchResult": "skillpack.registry.exchange",
    "push_bundle": "skillpack.registry.exchange",
    "fetch_bundle": "skillpack.registry.exchange",
    "check_cached_bundle": "skillpack.registry.exchange",
}

__all__ = [
    "CODES",
    "Cache",
    "ClientOptions",
    "Credentials",
    "Descriptor",
    "FetchResult",
    "PushResult",
    "Reference",
    "RegistryClient",
    "RegistryError",
    "check_cached_bundle",
    "fetch_bundle",
    "parse_reference",
    "push_bundle",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillpack.registry' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
