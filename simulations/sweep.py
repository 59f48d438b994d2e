"""Declarative parameter sweeps over registered measurements.

A spec (TOML) names a measurement, a grid (lists) and fixed values of its
parameters, and seeds::

    measurement = "similarity"
    seeds = [0, 1]                 # or: seeds = { base = 0, count = 4 }
    [grid]
    variant = ["post-ln", "pre-ln"]
    depth = [16, 32]
    [fixed]
    tokens = 16
    width = 32

Every point (measurement, parameters, seed, toolkit version) is identified by
the SHA-256 of its canonical JSON; the store (``attndepth.simulations.store``) keeps one
row per hash, so rerunning a sweep computes only the missing (or failed)
points. Workers compute and return; the driver alone writes, one transaction
per point, as results arrive. The same spec gives the same numbers on every
executor because each point is seeded by its own seed alone.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import time
import tomllib
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from attndepth.simulations.store import PointResult, open_store
from attndepth.simulations.threads import share_cores

try:
    TOOLKIT_VERSION = version("attndepth")
except PackageNotFoundError:  # a source tree without install
    TOOLKIT_VERSION = "0+unknown"


# ---------------------------------------------------------------- measurements


@dataclass(frozen=True)
class Parameter:
    """A measurement parameter: its Python type and default (``None`` = required)."""

    kind: type
    default: Any = None


@dataclass(frozen=True)
class Measurement:
    """A function ``f(seed=..., **params) -> dict`` of JSON-able metrics."""

    name: str
    function: Callable[..., dict[str, Any]]
    parameters: dict[str, Parameter]


_MEASUREMENTS: dict[str, Measurement] = {}


def register_measurement(name: str, function: Callable[..., dict[str, Any]],
                         parameters: dict[str, Parameter]) -> Measurement:
    """Make ``function`` available to sweeps under ``name``.

    ``function`` must be importable by worker processes (a module-level
    function) and return a dict of JSON-serialisable metrics.
    """
    measurement = Measurement(name, function, parameters)
    _MEASUREMENTS[name] = measurement
    return measurement


def measurements() -> dict[str, Measurement]:
    """Registered measurements by name."""
    return dict(_MEASUREMENTS)


def measure_similarity(seed: int, variant: str, depth: int, tokens: int, width: int,
                       heads: int = 1, tau: float = 1.0, temperature: float = 1.0,
                       batch: int = 4, dtype: str = "float64") -> dict[str, Any]:
    """Median t_sim and log-odds per layer of a batch of softmax stacks (in ``dtype``)."""
    from attndepth.simulations.similarity import log_odds, token_similarity
    from attndepth.simulations.stacks import StackConfig, run_stack

    config = StackConfig(variant=variant, depth=depth, tokens=tokens, width=width,
                         heads=heads, tau=tau, temperature=temperature, dtype=dtype)
    states = run_stack(config, batch, seed).states
    similarity = np.median(token_similarity(states), axis=1)
    odds = np.median(log_odds(states), axis=1)
    return {"t_sim_final": float(similarity[-1]), "log_odds_final": float(odds[-1]),
            "t_sim": similarity.tolist(), "log_odds": odds.tolist()}


def measure_separation_rank(seed: int, width: int, depth: int, heads: int = 1, tokens: int = 2,
                            residual: int = 0, partition: str = "balanced",
                            method: str = "exact", max_points: int = 2048) -> dict[str, Any]:
    """Certified (or numeric) separation rank of the analysed network."""
    from attndepth.simulations.seprank import SeprankConfig, measure_rank

    config = SeprankConfig(width=width, depth=depth, heads=heads, tokens=tokens,
                           residual=residual, partition=partition)
    certificate = measure_rank(config, seed, method, max_points=max_points)
    return {"rank": certificate.rank, "saturated": certificate.saturated,
            "reason": certificate.reason, "grid": certificate.grid_p,
            "failure_probability": certificate.failure_probability}


register_measurement("similarity", measure_similarity, {
    "variant": Parameter(str), "depth": Parameter(int), "tokens": Parameter(int),
    "width": Parameter(int), "heads": Parameter(int, 1), "tau": Parameter(float, 1.0),
    "temperature": Parameter(float, 1.0), "batch": Parameter(int, 4),
    "dtype": Parameter(str, "float64"),
})
register_measurement("seprank", measure_separation_rank, {
    "width": Parameter(int), "depth": Parameter(int), "heads": Parameter(int, 1),
    "tokens": Parameter(int, 2), "residual": Parameter(int, 0),
    "partition": Parameter(str, "balanced"), "method": Parameter(str, "exact"),
    "max_points": Parameter(int, 2048),
})


# ---------------------------------------------------------------- specs


@dataclass(frozen=True)
class SweepPoint:
    """One point: measurement, full parameters, seed, and its stable hash."""

    measurement: str
    params: dict[str, Any]
    seed: int

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
        raise ValueError(f"spec key {key!r} must be {kind.__name__}, got {value!r}")
    return value


def _seeds(raw: Any) -> list[int]:
    if isinstance(raw, list):
        seeds = raw
    elif isinstance(raw, dict) and set(raw) <= {"base", "count"} and "count" in raw:
        base, count = raw.get("base", 0), raw["count"]
        if not isinstance(base, int) or not isinstance(count, int) or count < 1 or base < 0:
            raise ValueError(f"spec key 'seeds' needs non-negative base and count >= 1, got {raw}")
        seeds = list(range(base, base + count))
    else:
        raise ValueError(f"spec key 'seeds' must be a list or {{base, count}}, got {raw!r}")
    if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise ValueError(f"spec key 'seeds' must hold non-negative integers, got {raw!r}")
    return seeds


def parse_spec(document: dict[str, Any]) -> SweepSpec:
    """Validate a spec (already parsed from TOML) before anything runs."""
    unknown = set(document) - {"measurement", "grid", "fixed", "seeds"}
    if unknown:
        raise ValueError(f"unknown spec key(s): {', '.join(sorted(unknown))}")
    name = document.get("measurement")
    if name not in _MEASUREMENTS:
        raise ValueError(f"spec key 'measurement' must be one of "
                         f"{', '.join(_MEASUREMENTS)}; got {name!r}")
    measurement = _MEASUREMENTS[name]
    grid, fixed = document.get("grid", {}), document.get("fixed", {})
    for section, table in (("grid", grid), ("fixed", fixed)):
        if not isinstance(table, dict):
            raise ValueError(f"spec key {section!r} must be a table")
        for key in table:
            if key not in measurement.parameters:
                raise ValueError(f"spec key '{section}.{key}' is not a parameter of {name} "
                                 f"(known: {', '.join(measurement.parameters)})")
    both = set(grid) & set(fixed)
    if both:
        raise ValueError(f"spec keys {sorted(both)} appear in both grid and fixed")
    for key, values in grid.items():
        if not isinstance(values, list):
            raise ValueError(f"spec key 'grid.{key}' must be a list, got {values!r}")
        if not values:
            raise ValueError(f"spec key 'grid.{key}' is an empty list: the grid has no points")
    typed_grid = {key: [_typed(f"grid.{key}", v, measurement.parameters[key].kind)
                        for v in values] for key, values in grid.items()}
    base: dict[str, Any] = {}
    for key, parameter in measurement.parameters.items():
        if key in fixed:
            base[key] = _typed(f"fixed.{key}", fixed[key], parameter.kind)
        elif key not in grid:
            if parameter.default is None:
                raise ValueError(f"spec needs parameter {key!r} of {name} (in grid or fixed)")
            base[key] = parameter.default
    typed_grid = {key: [_typed(f"grid.{key}", v, measurement.parameters[key].kind)
                        for v in values] for key, values in grid.items()}
    seeds = _seeds(document.get("seeds", [0]))
    points = []
    for combination in itertools.product(*typed_grid.values()):
        params = {**base, **dict(zip(typed_grid, combination, strict=True))}
        params = {key: params[key] for key in measurement.parameters}
        points.extend(SweepPoint(name, params, seed) for seed in seeds)
    return SweepSpec(name, tuple(points))


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a TOML spec file."""
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise ValueError(f"cannot read spec {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"spec {path} is not valid TOML: {error}") from None
    return parse_spec(document)


# ---------------------------------------------------------------- running


def _environment() -> dict[str, Any]:
    import platform

    return {"python": platform.python_version(), "numpy": np.__version__}


def run_point(point: SweepPoint) -> PointResult:
    """Compute one point (in a worker); an exception becomes a failed result."""
    start = time.perf_counter()
    measurement = _MEASUREMENTS[point.measurement]
    try:
        metrics, error = measurement.function(seed=point.seed, **point.params), None
    except Exception as exc:  # a failing point is recorded, never fatal to the sweep
        metrics = None
        error = f"{type(exc).__name__}: {exc}\n" + "".join(
            traceback.format_exception(exc)[-3:])
    return PointResult(point.hash, point.measurement, point.params, metrics, error, point.seed,
                       TOOLKIT_VERSION, _environment(), time.perf_counter() - start)


@dataclass(frozen=True)
class SweepSummary:
    """Counts at the end of a sweep."""

    total: int
    computed: int
    reused: int
    failed: int


def _local_results(points: list[SweepPoint], workers: int) -> Iterable[PointResult]:
    if workers == 1:
        yield from (run_point(point) for point in points)
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=share_cores,
                             initargs=(workers,)) as pool:
        futures = [pool.submit(run_point, point) for point in points]
        for future in as_completed(futures):
            yield future.result()


def _dask_results(points: list[SweepPoint], scheduler: str, workers: int) -> Iterable[PointResult]:
    try:
        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise ValueError("the dask schedulers need the optional extra: "
                         "pip install -e '.[distributed]'") from None
    if scheduler == "dask-local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
        client.run(share_cores, workers)
    else:
        cluster = None
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as error:
            raise ValueError(f"cannot reach dask scheduler {scheduler}: {error}") from None
    try:
        # retries: a task whose worker dies is rerun elsewhere
        futures = client.map(run_point, points, retries=3, pure=False)
        for future in dask_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_sweep(spec: SweepSpec, store_path: str | Path, scheduler: str = "local",
              workers: int | None = None, progress: bool | None = None) -> SweepSummary:
    """Run the points missing from the store; write each as it finishes.

    scheduler : ``local`` (process pool), ``dask-local`` (a LocalCluster) or
        ``tcp://HOST:PORT`` (an existing dask scheduler).
    workers : worker processes (default: the machine's cores).
    progress : tqdm bar on stderr; default on only when stderr is a terminal.
    """
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    if scheduler not in ("local", "dask-local") and not scheduler.startswith("tcp://"):
        raise ValueError(f"scheduler must be local, dask-local or tcp://HOST:PORT; "
                         f"got {scheduler!r}")
    with open_store(store_path) as store:
        done = store.hashes("ok")
        unique = {point.hash: point for point in spec.points}
        missing = [point for h, point in unique.items() if h not in done]
        reused = len(unique) - len(missing)
        if progress is None:
            progress = sys.stderr.isatty()
        bar = tqdm(total=len(unique), initial=reused, unit="pt", disable=not progress,
                   file=sys.stderr, desc=spec.measurement)
        computed = failed = 0
        results = (_local_results(missing, workers) if scheduler == "local"
                   else _dask_results(missing, scheduler, workers))
        try:
            for result in results:
                store.record(result)
                computed += 1
                failed += result.error is not None
                bar.update(1)
        finally:
            bar.close()
    return SweepSummary(total=len(unique), computed=computed, reused=reused, failed=failed)
