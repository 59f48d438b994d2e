"""Sweep specs: TOML parsed and validated into points with stable hashes.

A spec names an observable (key ``measurement``), a grid (lists) and fixed
values of its parameters, and seeds. Every point (observable, parameters,
seed, toolkit version) is identified by the SHA-256 of its canonical JSON.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attndepth.errors import InvalidParameter, shown
from attndepth.input_files import ANY, Schema, describe_path, list_of, obj, read_toml, reader
from attndepth.simulations.sweeps.observables import observables
from attndepth.simulations.version import TOOLKIT_VERSION


@dataclass(frozen=True)
class SweepPoint:
    """One point: measurement, full parameters, seed, and its stable hash.

    ``module`` (not part of the hash) names a module that registers the
    observable, for workers that have not imported it (dask). ``checkpoint``
    (not part of the hash either) is the file a checkpointed observable saves
    itself to while it runs.
    """

    measurement: str
    params: dict[str, Any]
    seed: int
    module: str | None = None
    checkpoint: str | None = None

    @property
    def hash(self) -> str:
        canonical = json.dumps({"measurement": self.measurement, "params": self.params,
                                "seed": self.seed, "version": TOOLKIT_VERSION},
                               sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: the points it will run, in a stable order."""

    measurement: str
    points: tuple[SweepPoint, ...]


def _typed(key: str, value: Any, kind: type) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidParameter(f"spec key {key!r} must be {kind.__name__}, got {shown(value)}")
    return value


#: Most points one sweep may have: a store row and a scheduling task each (about 1 KiB
#: and 1 ms of overhead per point); split larger studies into several specs.
MAX_POINTS = 1_000_000
#: Largest seed a point can carry: the store keeps seeds as SQLite 64-bit integers.
MAX_SEED = 2**63 - 1


def _seeds(raw: Any) -> list[int]:
    if isinstance(raw, list):
        seeds = raw
    elif isinstance(raw, dict) and set(raw) <= {"base", "count"} and "count" in raw:
        base, count = raw.get("base", 0), raw["count"]
        if not isinstance(base, int) or not isinstance(count, int) or count < 1 or base < 0:
            raise InvalidParameter(f"spec key 'seeds' needs non-negative base and count >= 1, got "
                                   f"{raw}")
        if count > MAX_POINTS:
            raise InvalidParameter(f"spec key 'seeds' asks for {count} seeds; a sweep holds at "
                                   "most "
                                   f"{MAX_POINTS} points (split it into several specs)")
        if base + count - 1 > MAX_SEED:
            raise InvalidParameter(f"spec key 'seeds' reaches seed {base + count - 1}; seeds must "
                                   "be "
                                   f"<= 2^63 - 1 = {MAX_SEED} (the store keeps 64-bit integers)")
        seeds = list(range(base, base + count))
    else:
        raise InvalidParameter(f"spec key 'seeds' must be a list or {{base, count}}, got "
                               f"{shown(raw)}")
    if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise InvalidParameter(f"spec key 'seeds' must hold non-negative integers, got "
                               f"{shown(raw)}")
    if max(seeds) > MAX_SEED:
        raise InvalidParameter(f"spec key 'seeds' holds {max(seeds)}; seeds must be <= 2^63 - 1 = "
                               f"{MAX_SEED} (the store keeps 64-bit integers)")
    return seeds


def parse_spec(document: dict[str, Any]) -> SweepSpec:
    """Validate a spec (already parsed from TOML) before anything runs.

    Sections: ``grid`` (lists; every combination), ``zip`` (lists of one
    length that vary together, combined with the grid), ``fixed`` (values).
    An observable may expand a point into several (``Observable.expand``),
    e.g. ``partition = "all"`` of ``seprank`` becomes one point per partition
    size of each ``tokens``.
    """
    unknown = set(document) - {"measurement", "grid", "zip", "fixed", "seeds"}
    if unknown:
        raise InvalidParameter(f"unknown spec key(s): {', '.join(sorted(unknown))}")
    name = document.get("measurement")
    known = observables()
    if name not in known:
        raise InvalidParameter(f"spec key 'measurement' must be one of "
                               f"{', '.join(known)}; got {shown(name)}")
    measurement = known[name]
    grid, zipped = document.get("grid", {}), document.get("zip", {})
    fixed = document.get("fixed", {})
    for section, table in (("grid", grid), ("zip", zipped), ("fixed", fixed)):
        if not isinstance(table, dict):
            raise InvalidParameter(f"spec key {section!r} must be a table")
        for key in table:
            if key not in measurement.parameters:
                raise InvalidParameter(f"spec key '{section}.{key}' is not a parameter of {name} "
                                       f"(known: {', '.join(measurement.parameters)})")
    for first, second in (("grid", "fixed"), ("grid", "zip"), ("zip", "fixed")):
        both = set(document.get(first, {})) & set(document.get(second, {}))
        if both:
            raise InvalidParameter(f"spec keys {sorted(both)} appear in both {first} and {second}")
    for section, table in (("grid", grid), ("zip", zipped)):
        for key, values in table.items():
            if not isinstance(values, list):
                raise InvalidParameter(f"spec key '{section}.{key}' must be a list, got "
                                       f"{shown(values)}")
            if not values:
                raise InvalidParameter(f"spec key '{section}.{key}' is an empty list: the sweep "
                                       "has "
                                       f"no points")
    lengths = {len(values) for values in zipped.values()}
    if len(lengths) > 1:
        raise InvalidParameter(f"spec key 'zip' needs lists of one length, got lengths "
                               f"{sorted(lengths)}")
    typed = {section: {key: [_typed(f"{section}.{key}", v, measurement.parameters[key].kind)
                             for v in values] for key, values in table.items()}
             for section, table in (("grid", grid), ("zip", zipped))}
    base: dict[str, Any] = {}
    for key, parameter in measurement.parameters.items():
        if key in fixed:
            base[key] = _typed(f"fixed.{key}", fixed[key], parameter.kind)
        elif key not in grid and key not in zipped:
            if parameter.default is None:
                raise InvalidParameter(f"spec needs parameter {key!r} of {name} "
                                       f"(in grid, zip or fixed)")
            base[key] = parameter.default
    zip_rows = ([dict(zip(typed["zip"], row, strict=True))
                 for row in zip(*typed["zip"].values(), strict=True)] if zipped else [{}])
    seeds = _seeds(document.get("seeds", [0]))
    size = len(seeds) * len(zip_rows)
    for values in typed["grid"].values():
        size *= len(values)
    if size > MAX_POINTS:
        raise InvalidParameter(f"the spec has {size:.3g} points (grid × zip × seeds); a sweep "
                               "holds at "
                               f"most {MAX_POINTS} (split it into several specs)")
    points: list[SweepPoint] = []
    for combination in itertools.product(*typed["grid"].values()):
        for zip_row in zip_rows:
            params = {**base, **dict(zip(typed["grid"], combination, strict=True)), **zip_row}
            for expanded in measurement.expand_params(params):
                expanded = {key: expanded[key] for key in measurement.parameters}
                points.extend(SweepPoint(name, expanded, seed, module=measurement.module)
                              for seed in seeds)
    return SweepSpec(name, tuple(points))


#: A sweep spec's sections (their keys and values are checked by :func:`parse_spec`).
SPEC_SCHEMA = obj({"measurement": Schema("string"), "grid": obj(extra=list_of(ANY)),
                   "zip": obj(extra=list_of(ANY)), "fixed": obj(extra=ANY),
                   "seeds": Schema(("list", "object"), extra=ANY, items=ANY)},
                  required=("measurement",))


@reader("a sweep spec", "toml")
def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a TOML spec file (:mod:`attndepth.input_files`, then
    :data:`SPEC_SCHEMA` and :func:`parse_spec`); one error naming the file otherwise."""
    source = describe_path("sweep spec", path)
    document = read_toml(path, "sweep spec", SPEC_SCHEMA, max_bytes=16 * 2**20)
    try:
        return parse_spec(document)
    except InvalidParameter as error:
        raise InvalidParameter(f"{source}: {error}") from None
