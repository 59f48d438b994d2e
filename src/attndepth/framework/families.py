"""The family a claim is asserted on: typed parameter values, constraints, an order.

A claim's verdict is only as good as the configurations it was checked on. A
:class:`Family` states them separately from the presets: every parameter
with the values enumerated exhaustively (smallest first) and the larger
values that random draws may reach beyond them, constraints between
parameters, fixed keyword arguments, and an adapter that turns one member
into the keyword arguments of the claim's verify function.

``attndepth verify --search`` (:mod:`attndepth.framework.search`) checks every member of
the exhaustive part, then draws members from the whole family with
hypothesis (drawn, not shrunk: the smallest counterexample reported is the smallest
member decided).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from attndepth.errors import InvalidParameter

Member = dict[str, Any]

#: The most members a family's exhaustive part may have (a search runs each of them).
MAX_MEMBERS = 100_000


@dataclass(frozen=True)
class Family:
    """The domain a claim is asserted on.

    Attributes
    ----------
    parameters : mapping of str to tuple
        Each parameter's values checked exhaustively, in increasing size.
    beyond : mapping of str to tuple
        Larger values of some parameters (or, for a categorical parameter such as
        ``architecture``, its costlier values) that only random draws reach.
    constraints : tuple of (str, callable)
        ``(description, predicate(member) -> bool)``; members failing one are
        not in the family.
    fixed : mapping of str to object
        Keyword arguments passed unchanged to the verify function (batch
        sizes and the like: how each member is measured, not what it is).
    adapt : callable or None
        ``adapt(member) -> kwargs`` for verify functions that take another
        shape (e.g. a list of configurations); default: the member itself.
    undecidable : tuple of (str, callable)
        ``(why, predicate(kwargs) -> bool)``: runs the claim cannot decide by
        construction (a comparison with a reference that does not move, say). Such a
        run is not measured: it is ``inconclusive`` at once, its note saying why, instead
        of growing its sample to the largest size for nothing.
    """

    parameters: Mapping[str, tuple]
    beyond: Mapping[str, tuple] = field(default_factory=dict)
    constraints: tuple[tuple[str, Callable[[Member], bool]], ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    adapt: Callable[[Member], dict[str, Any]] | None = None
    undecidable: tuple[tuple[str, Callable[[Mapping[str, Any]], bool]], ...] = ()

    def __post_init__(self) -> None:
        for name, values in {**self.parameters, **self.beyond}.items():
            if not isinstance(values, tuple) or not values:
                raise InvalidParameter(f"family parameter {name!r} needs a non-empty tuple of "
                                       "values")
        unknown = set(self.beyond) - set(self.parameters)
        if unknown:
            raise InvalidParameter(f"family 'beyond' names parameters not in 'parameters': "
                                   f"{sorted(unknown)}")
        exhaustive = math.prod(len(values) for values in self.parameters.values())
        if exhaustive > MAX_MEMBERS:
            raise InvalidParameter(f"the family's exhaustive part has {exhaustive:,} members "
                                   f"(before its constraints), more than the {MAX_MEMBERS:,} "
                                   f"a search checks one by one: keep the smallest values in "
                                   f"'parameters' and move the others to 'beyond', where "
                                   f"random draws reach them")
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))
        object.__setattr__(self, "beyond", MappingProxyType(dict(self.beyond)))
        object.__setattr__(self, "fixed", MappingProxyType(dict(self.fixed)))

    def undecidable_because(self, kwargs: Mapping[str, Any]) -> str | None:
        """Why a run with these keyword arguments cannot be decided by construction (None
        when it can)."""
        for why, predicate in self.undecidable:
            try:
                if predicate(kwargs):
                    return why
            except (TypeError, ValueError, KeyError):
                continue
        return None

    def contains(self, member: Member) -> bool:
        """Whether ``member`` satisfies every constraint."""
        return all(predicate(member) for _, predicate in self.constraints)

    def includes(self, params: Mapping[str, Any]) -> bool | None:
        """Whether a run's parameters lie in the family's domain.

        A numeric parameter lies in the domain when it is within the range of
        the family's values (exhaustive and beyond: they sample an interval); any
        other parameter must be one of its values; every constraint must hold.
        ``None`` when that cannot be read from ``params``: a parameter of the
        family is missing (a family whose ``adapt`` reshapes its members into other
        keyword arguments).

        Parameters
        ----------
        params : mapping
            Keyword arguments of the verify function (a preset with overrides).

        Returns
        -------
        bool or None
        """
        if any(name not in params for name in self.parameters):
            return None
        member = {name: params[name] for name in self.parameters}
        for name, value in member.items():
            values = self.values(name)
            if _numeric(value) and all(_numeric(v) for v in values):
                if not min(values) <= value <= max(values):
                    return False
            elif value not in values:
                return False
        try:
            return self.contains(member)
        except (TypeError, ValueError, KeyError, ZeroDivisionError):
            return False

    def exhaustive(self) -> Iterator[Member]:
        """Every member of the exhaustive part, smallest first (lexicographic in the values)."""
        names = list(self.parameters)
        for values in itertools.product(*(self.parameters[n] for n in names)):
            member = dict(zip(names, values, strict=True))
            if self.contains(member):
                yield member

    def values(self, name: str) -> tuple:
        """All values of a parameter: the exhaustive ones, then those beyond."""
        return self.parameters[name] + self.beyond.get(name, ())

    def order(self, member: Member) -> tuple:
        """A member's place among the members: the positions of its values, compared in
        parameter order (a sort key; the smallest counterexample sorts first)."""
        return tuple(self.values(name).index(member[name]) for name in self.parameters)

    def size(self) -> int:
        """The number of members of the exhaustive part (those satisfying the constraints)."""
        return sum(1 for _ in self.exhaustive())

    def kwargs(self, member: Member) -> dict[str, Any]:
        """Keyword arguments of the verify function for one member."""
        shaped = self.adapt(member) if self.adapt is not None else dict(member)
        return {**self.fixed, **shaped}

    def describe(self) -> str:
        """One line: each parameter's exhaustive range (and beyond), then the constraints."""
        parts = []
        for name, values in self.parameters.items():
            text = f"{name} ∈ {_span(values)}"
            if name in self.beyond:
                text += f" (draws also {_span(self.beyond[name])})"
            parts.append(text)
        parts += [description for description, _ in self.constraints]
        return "; ".join(parts)

    def grid_size(self) -> int:
        """Size of the whole grid, exhaustive and beyond values, before constraints."""
        return math.prod(len(self.values(name)) for name in self.parameters)


def _numeric(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _span(values: tuple) -> str:
    numeric = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    if numeric and len(values) > 2 and list(values) == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return "{" + ", ".join(map(str, values)) + "}"
