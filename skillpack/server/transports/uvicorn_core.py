"""Importing uvicorn's server without uvicorn's command line.

``import uvicorn`` runs ``uvicorn/__init__.py``, which imports ``uvicorn.main``, the
command line: click, the reload and multiprocess supervisors, watchfiles where it is
installed. That is about a third of the time ``import uvicorn`` takes, and
``serve --http`` uses none of it (it runs uvicorn's ``Config`` and ``Server``
itself). :func:`load` registers the ``uvicorn`` package without running its
``__init__`` and imports the modules the server uses. The package's own attributes
(``uvicorn.run``, ``uvicorn.Config``, ``uvicorn.__version__`` ...) are still there
for anything that asks: the first such access runs ``__init__`` then.

Standard library only; imported only for ``serve --http``.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Any

#: The modules ``serve --http`` needs (``uvicorn.server`` imports ``uvicorn.config``).
NEEDED = ("uvicorn.server", "uvicorn.protocols.http.auto")


def load() -> None:
    """Import what ``serve --http`` needs of uvicorn (ImportError when it cannot be)."""
    package = None
    if "uvicorn" not in sys.modules:
        spec = importlib.machinery.PathFinder.find_spec("uvicorn")
        if spec is None or spec.loader is None or not spec.submodule_search_locations:
            import uvicorn  # noqa: F401 - not a package as expected: the ordinary import
        else:
            package = sys.modules["uvicorn"] = _package(spec)
    for name in NEEDED:
        __import__(name)
    if package is not None:
        # what its __init__ would export and uvicorn's own modules import from it
        # (uvicorn.lifespan.off: from uvicorn import Config)
        vars(package).update(
            Config=vars(sys.modules["uvicorn.config"])["Config"],
            Server=vars(sys.modules["uvicorn.server"])["Server"],
        )


def _package(spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
    """The ``uvicorn`` package, its ``__init__`` run on first use of its attributes."""
    package = types.ModuleType(spec.name)
    package.__spec__ = spec
    package.__loader__ = spec.loader
    package.__file__ = spec.origin
    package.__package__ = spec.name
    package.__path__ = list(spec.submodule_search_locations or ())
    state = {"ran": False}

    def __getattr__(name: str) -> Any:  # a module's own hook (PEP 562)
        if not state["ran"]:
            state["ran"] = True
            assert spec.loader is not None
            spec.loader.exec_module(package)
            if name in package.__dict__:
                return package.__dict__[name]
        raise AttributeError(f"module {spec.name!r} has no attribute {name!r}")

    vars(package)["__getattr__"] = __getattr__
    return package
