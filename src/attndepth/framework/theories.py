"""A claim's theory: the named functions and constants its verify function predicts with.

A claim declares its theory once, beside its statement, and its verify function
receives it as an argument::

    @claim("mine.rate", ..., theory=Theory(my_rate, WIDTH_LIMIT=64),
           wrong_theory={"my_rate": lambda width: 0.5})
    def verify(seed, theory, width):
        predicted = theory.my_rate(width)
        ...

A wrong theory or a rival that replaces a name is a *new* :class:`Theory`
(:meth:`Theory.replaced`), passed to the same verify function: nothing is written
to the claim's module, and two runs of one claim with different theories can
overlap (threads, processes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, NoReturn

from attndepth.errors import InvalidParameter, InvalidType, shown


class Theory(Mapping[str, Any]):
    """A frozen namespace of the functions and constants a claim predicts with.

    Parameters
    ----------
    *functions : callables
        Each is named by its ``__name__`` (``Theory(output_degree)`` is
        ``theory.output_degree``).
    **named
        Further entries by name: constants, or functions under another name.

    Raises
    ------
    InvalidType
        A positional entry is not callable.
    InvalidParameter
        A name is given twice, is not an identifier, is a lambda's, starts with
        ``_``, or is one of the methods of a theory (``keys``, ``items``, ``get``,
        ``values``, ``replaced``).

    Notes
    -----
    Entries are read as attributes (``theory.bulk_edge``) or by key
    (``theory["bulk_edge"]``). A theory cannot be changed; :meth:`replaced` gives
    a new one.
    """

    __slots__ = ("_entries",)
    _entries: Mapping[str, Any]

    def __init__(self, *functions: Callable[..., Any], **named: Any) -> None:
        entries: dict[str, Any] = {}
        for function in functions:
            if not callable(function):
                raise InvalidType(f"a theory's positional entries must be functions (named by "
                                  f"their __name__), got {type(function).__name__}; give "
                                  f"constants by keyword")
            _add(entries, getattr(function, "__name__", ""), function)
        for name, value in named.items():
            _add(entries, name, value)
        object.__setattr__(self, "_entries", MappingProxyType(entries))

    @classmethod
    def of(cls, value: Theory | Mapping[str, Any] | tuple[Callable[..., Any], ...] | None,
           ) -> Theory:
        """A theory from what a claim declares: a Theory, a mapping of names, a tuple of
        functions, or None (the empty theory).

        Raises
        ------
        InvalidType
            Anything else.
        """
        if value is None:
            return cls()
        if isinstance(value, Theory):
            return value
        if isinstance(value, Mapping):
            if not all(isinstance(name, str) for name in value):
                raise InvalidType("a theory's names must be strings")
            return cls(**value)
        if isinstance(value, (tuple, list)):
            return cls(*value)
        raise InvalidType(f"theory must be a Theory, a mapping of names or a tuple of "
                          f"functions, got {type(value).__name__}")

    def replaced(self, names: Mapping[str, Any]) -> Theory:
        """A new theory with ``names`` in place of the entries of the same names.

        Parameters
        ----------
        names : mapping
            Names of this theory and their new values (a rival's, a wrong theory's).

        Raises
        ------
        InvalidParameter
            A name that this theory does not have.
        """
        unknown = sorted(set(names) - set(self._entries))
        if unknown:
            raise InvalidParameter(f"{unknown} are not names of this theory (it has "
                                   f"{sorted(self._entries) or 'none'})")
        new = Theory()
        object.__setattr__(new, "_entries", MappingProxyType({**self._entries, **names}))
        return new

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_entries":  # pickling, copying: not an entry
            raise AttributeError(name)
        try:
            return self._entries[name]
        except KeyError:
            raise AttributeError(f"the theory has no {name!r} (it has "
                                 f"{sorted(self._entries) or 'nothing'}): declare it in the "
                                 f"claim's theory=") from None

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError("a Theory cannot be changed: theory.replaced({...}) makes a new one")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("a Theory cannot be changed")

    def __getitem__(self, name: str) -> Any:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (dict(self._entries),))

    def __repr__(self) -> str:
        return f"Theory({', '.join(self._entries)})"


#: Names a theory entry may not take: they are the methods a theory answers itself.
RESERVED = frozenset(name for name in dir(Theory) if not name.startswith("_"))


def _add(entries: dict[str, Any], name: str, value: Any) -> None:
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidParameter(f"a theory entry needs a name that is an identifier, got "
                               f"{name!r}: give it by keyword, Theory(name=...)")
    if name in RESERVED:
        raise InvalidParameter(f"{name!r} cannot name a theory entry: it is a method of a "
                               f"theory; choose another name")
    if name.startswith("_"):
        raise InvalidParameter(f"{shown(name, 40)} cannot name a theory entry: names that "
                               f"start with '_' belong to Python and to the theory itself "
                               f"(_entries, __class__, __len__); choose another name")
    if name in entries:
        raise InvalidParameter(f"the theory names {name!r} twice")
    entries[name] = value


def _rebuilt(entries: dict[str, Any]) -> Theory:
    return Theory(**entries)
