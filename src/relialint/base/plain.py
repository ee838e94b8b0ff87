"""Plain value classes instead of dataclasses.

A dataclass compiles its methods with ``exec`` when its module is imported, about half a millisecond a class, and
the check path holds forty of them: a fifth of a run on one file (issue 18: start-up is most of what a pre-commit
hook or an editor waits for). The classes write their ``__init__``, so it comes compiled from the bytecode cache,
and name their fields in ``_fields``; the bases here give equality, hashing and ``repr`` over those fields, and
:func:`replace` what ``dataclasses.replace`` gave.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, ClassVar, TypeVar

T = TypeVar("T")


class Fields:
    """Equality and ``repr`` over ``_fields`` (a mutable value: unhashable, like a dataclass with ``eq``)."""

    _fields: ClassVar[tuple[str, ...]] = ()
    _key: ClassVar[Any]  # the fields' values as a tuple (an ``attrgetter``)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = cls._fields
        if not names:  # a base of value classes (Frozen)
            return
        if len(names) == 1:
            one = attrgetter(names[0])
            cls._key = staticmethod(lambda obj: (one(obj),))
        else:
            cls._key = staticmethod(attrgetter(*names))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(self._key(self) == self._key(other))

    # (defining __eq__ makes the class unhashable, as a dataclass with eq and without frozen is)

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inner})"


class Frozen(Fields):
    """A value that is never changed after it is made: hashable over its fields."""

    def __hash__(self) -> int:
        return hash(self._key(self))


def as_dict(obj: Fields) -> dict[str, Any]:
    """The fields of ``obj`` by name, lists copied (``dataclasses.asdict`` for flat values)."""
    return {name: list(value) if isinstance(value, list) else value
            for name, value in zip(obj._fields, obj._key(obj), strict=True)}


def replace(obj: T, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes`` (``dataclasses.replace`` for these classes)."""
    new = object.__new__(type(obj))
    vars(new).update(vars(obj))
    for name, value in changes.items():
        if name not in vars(obj):
            raise TypeError(f"{type(obj).__name__} has no field {name!r}")
        setattr(new, name, value)
    return new
