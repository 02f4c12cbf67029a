"""Dataclasses pickled by value: ``cls(*fields)``, derived from the fields.

Forked workers send back thousands of manifest entries, findings and archive entries
(:mod:`skillpack._internal.parallel`). By default a slots dataclass pickles through
``__getstate__``/``__setstate__`` (its fields as a state object, then one
``object.__setattr__`` per field on loading), several times slower than calling the
class with its field values. :class:`ByFields` gives a dataclass that form, computed
once per class from :func:`dataclasses.fields`, so no class writes out its field list.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable

Getter = Callable[[object], tuple[object, ...]]
_GETTERS: dict[type, Getter] = {}


def _getter(cls: type) -> Getter:
    fields = dataclasses.fields(cls)
    late = [f.name for f in fields if not f.init]
    if late:  # a programming error: cls(*values) could not set them
        raise TypeError(f"{cls.__name__}: fields {late} are not __init__ parameters")
    names = [f.name for f in fields]
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda obj: (get(obj),)
    return operator.attrgetter(*names)


class ByFields:
    """Mixin for a dataclass whose every field is an ``__init__`` parameter: pickled as a
    call of its class with its field values, in field order."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        cls = type(self)
        getter = _GETTERS.get(cls)
        if getter is None:
            getter = _GETTERS[cls] = _getter(cls)
        return cls, getter(self)
