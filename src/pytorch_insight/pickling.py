"""Pickling a dataclass as its constructor's arguments.

A reading process (pipeline/parallel.py) sends back tens of thousands of small dataclasses per
window, and the parent unpickles them while the children still read, on the same cores. By default
a frozen slotted dataclass is rebuilt through a Python-level `__setstate__` from a dict that names
every field in every pickle; as a call of its class on a tuple of its fields it pickles a quarter
smaller and unpickles in half the time.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, TypeVar

Cls = TypeVar("Cls", bound=type)


def by_fields(cls: Cls) -> Cls:
    """`cls` (a dataclass whose every field its constructor takes) pickled as `cls(*fields)`."""
    names = [field.name for field in dataclasses.fields(cls)]
    if not names or any(not field.init for field in dataclasses.fields(cls)):
        raise TypeError(f"{cls.__name__}: every field must be a constructor argument")
    values = attrgetter(*names)
    single = len(names) == 1  # attrgetter of one name gives the value, not a tuple

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, (values(self),) if single else values(self)

    cls.__reduce__ = __reduce__
    return cls
