"""Separation ranks with their bounds: the theory and the measurement joined.

:func:`attndepth.rank.grids.rank_from_grids` measures; it knows no
bound unless given one. This module supplies the proved bounds of
:mod:`attndepth.theory.separation_rank`, so that a rank meeting a bound is
reported as proved (reason ``upper-bound``) whatever the caller passed, and
records every bound, the rank/bound ratio and whether the configuration lies
in the conjectured tight family. The ``seprank`` sweep observable and the
``attndepth seprank`` command both go through :func:`rank_with_bounds`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.atlas_table import Atlas, AtlasRow, atlas
from attndepth.rank.budget import MAX_BLOCK_SECONDS
from attndepth.rank.degree_blocks import BLOCK_PRIME, MAX_BLOCK_POINTS
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    DEFAULT_MAX_POINTS,
    RankCertificate,
    SeparationRankConfig,
)
from attndepth.rank.methods import METHODS, RankMethod, bounds_for, resolve_method
from attndepth.rank.partitions import partitions
from attndepth.rank.torus_blocks import DEFAULT_ORDER
from attndepth.simulations.settings import setting
from attndepth.simulations.sweeps.observables import (
    Parameter,
    parameters_from,
    register_observable,
)
from attndepth.theory.separation_rank import (
    TIGHT_FAMILY_STATEMENT,
    SeparationRankBounds,
    in_tight_family,
    separation_rank_bounds,
)


class RankCase(NamedTuple):
    """A network and the size of P, as the separation-rank claims list them:
    (d, L, H, N, ρ, |P|).

    A tuple, so that a claim's preset stays a plain list in its JSON report and
    ``run_claim(id, configs=[...])`` takes plain tuples; named, and of one length, so
    that no entry's meaning depends on how many there are. The partition is P = the
    output position 0 and the lowest other positions (by the partition symmetry, the
    sizes determine the rank).
    """

    width: int
    depth: int
    heads: int
    tokens: int
    residual: int
    p_size: int

    @classmethod
    def of(cls, values: Sequence[int]) -> RankCase:
        """A RankCase from six integers (d, L, H, N, ρ, |P|), with a clear error otherwise."""
        if isinstance(values, RankCase):
            return values
        if isinstance(values, str | bytes) or len(values) != 6:
            raise InvalidParameter(f"a configuration is six integers (d, L, H, N, ρ, |P|), "
                                   f"got {values!r}")
        return cls(*(int(v) for v in values))

    @classmethod
    def balanced(cls, width: int, depth: int, heads: int, tokens: int,
                 residual: int) -> RankCase:
        """The balanced partition: |P| = ⌈N/2⌉."""
        return cls(width, depth, heads, tokens, residual, (tokens + 1) // 2)

    @property
    def q_size(self) -> int:
        """|Q| = N − |P|."""
        return self.tokens - self.p_size

    def network(self) -> SeparationRankConfig:
        """The measured network and partition."""
        return SeparationRankConfig(width=self.width, depth=self.depth, heads=self.heads,
                                    tokens=self.tokens, residual=self.residual,
                                    partition=f"sizes={self.p_size}/{self.q_size}")

    def bounds(self) -> SeparationRankBounds:
        """Every proved upper bound of the case's separation rank."""
        return separation_rank_bounds(self.width, self.depth, self.p_size, self.q_size,
                                      self.residual)

    def __str__(self) -> str:
        return str(tuple(self))


@dataclass(frozen=True)
class RankOptions:
    """How a rank is measured, passed whole: the field, the saturation margin, the limits.

    ``None`` is the method's default. The command ``attndepth seprank`` takes its
    options from these fields (:mod:`attndepth.simulations.settings`); the values
    are checked where they are used (:func:`rank_from_grids`,
    :func:`~attndepth.rank.degree_blocks.measure_block_ranks`).

    Attributes
    ----------
    prime : the field GF(p); default BLOCK_PRIME for blocks, the largest prime
        p ≡ 1 (mod lcm(4, N)) below 2^26 for torus, DEFAULT_PRIME for exact
        (unused by numeric).
    margin : saturation needs rank ≤ grid size − margin.
    max_points : largest grid per side (per block for blocks, per class for torus);
        beyond it the rank is a lower bound. Default MAX_BLOCK_POINTS for blocks,
        DEFAULT_CLASS_POINTS for torus, DEFAULT_MAX_POINTS otherwise.
    max_seconds : blocks and torus: refuse up front when the estimated time exceeds it
        (default MAX_BLOCK_SECONDS).
    torus_order : torus only: N rotations per plane, N^⌊d/2⌋ classes.
    progress : show progress bars.
    """

    prime: int | None = setting(
        None, symbol="P", description=f"prime of the field (default: {BLOCK_PRIME}, the largest "
                                      f"below 2^26, for blocks; {DEFAULT_PRIME} for exact)")
    margin: int = setting(DEFAULT_MARGIN, symbol="M",
                          description="saturation: rank <= grid size - margin (integer from 1 "
                                      "to 1024)")
    max_points: int | None = setting(
        None, symbol="G", description=f"largest grid per side (per block for blocks); beyond "
                                      f"it the rank is a lower bound (default: "
                                      f"{MAX_BLOCK_POINTS} for blocks, {DEFAULT_MAX_POINTS} "
                                      f"otherwise)")
    max_seconds: float | None = setting(
        None, symbol="T", description=f"blocks and torus: refuse up front when the estimated time "
                                      f"exceeds T seconds (default: {MAX_BLOCK_SECONDS:.0f}, about "
                                      f"ten measured minutes; inf: no limit)")
    torus_order: int | None = setting(
        None, symbol="N", description=f"torus: rotations per coordinate plane, N^(d//2) classes "
                                      f"(default: {DEFAULT_ORDER})")
    progress: bool = False

    def for_method(self, method: str | RankMethod) -> Any:
        """The options of a resolved ``method`` (its options type, :mod:`~attndepth.rank.methods`):
        the fields given here, the method's defaults for those left ``None``.

        Raises
        ------
        InvalidParameter
            For a field set here that the method does not take (``max_seconds`` with the
            whole-matrix methods, ``torus_order`` but with the torus), naming the methods
            that take it.
        """
        chosen = METHODS[method] if isinstance(method, str) else method
        given = {"prime": self.prime, "margin": self.margin, "max_points": self.max_points,
                 "max_seconds": self.max_seconds, "order": self.torus_order,
                 "progress": self.progress}
        for keyword, value in given.items():
            if value is not None and not chosen.takes(keyword):
                flag = {"order": "torus_order"}.get(keyword, keyword)
                owners = [name for name, other in METHODS.items() if other.takes(keyword)]
                raise InvalidParameter(
                    f"{flag} (--{flag.replace('_', '-')}) is an option of the "
                    f"{' and '.join(owners)} method{'s' if len(owners) > 1 else ''}, not of "
                    f"{chosen.name}")
        return chosen.options(**{key: value for key, value in given.items()
                                 if value is not None})


def measure_rank(config: SeparationRankConfig, seed: int = 0,
                 method: str | RankMethod = "exact", *, rank_cap: int | None = None,
                 options: RankOptions | None = None, **keywords: Any) -> RankCertificate:
    """The certified rank with the proved bounds supplied, by a registered method.

    Parameters
    ----------
    config : SeparationRankConfig
    seed : int
        The seed of the weights and the grid points.
    method : str or RankMethod
        A name of :data:`~attndepth.rank.methods.METHOD_NAMES` (``auto``: ``blocks`` for
        ρ = 0, else ``exact``) or a method object. The methods, what each certifies and
        the options each takes: :mod:`attndepth.rank.methods`.
    rank_cap : int, optional
        Whole-matrix methods: an upper bound known to the caller; default: the
        best proved bound (:func:`~attndepth.rank.methods.bounds_for`), so a rank that
        meets it is reported as proved. A cap above the best bound is lowered to it.
    options : RankOptions, optional
        The options whole (:meth:`RankOptions.for_method`), with the method's defaults
        filled in; keywords given as well override them.
    **keywords
        The method's own options (the fields of its options type); any other is refused
        with the list of those it takes.

    Returns
    -------
    RankCertificate
    """
    if not isinstance(config, SeparationRankConfig):
        raise InvalidType(f"config must be a SeparationRankConfig, got {type(config).__name__}")
    chosen = resolve_method(config, method)
    if options is not None and not isinstance(options, RankOptions):
        raise InvalidType(f"options must be RankOptions, got {type(options).__name__}")
    if rank_cap is not None:
        keywords["rank_cap"] = rank_cap
    base = options.for_method(chosen) if options is not None else chosen.options()
    try:
        measured = replace(base, **keywords)
    except TypeError:  # a keyword that is not a field: the method's own message
        measured = chosen.options(**keywords)
    return chosen.measure(config, seed, measured)


@lru_cache(maxsize=1)
def tight_family_refutations() -> tuple[AtlasRow, ...]:
    """The decided classes of the shipped atlas that refute the tight-family conjecture
    (:func:`~attndepth.theory.separation_rank.in_tight_family`; it speaks of H = 1 and
    ρ = 0): rank = bound (d) off the family, or rank < bound (d) on it. Sorted by
    bound (d), then class: the first is the smallest counterexample
    (``levine.bound-tightness`` reports the same)."""
    refuting = [row for row in _shipped_atlas() if row.decided and row.heads == 1
                and row.residual == 0 and ((row.rank == row.bound_bigraded) != in_tight_family(
            row.width, row.depth, row.heads, row.residual, row.p_size, row.q_size))]
    return tuple(sorted(refuting, key=lambda row: (row.bound_bigraded, row.key)))


def tight_fields(config: SeparationRankConfig) -> dict[str, Any]:
    """Where a configuration stands with the tight-family conjecture.

    Returns
    -------
    dict
        ``tight_family`` (bool: in the conjectured family), ``conjecture`` (its
        statement), ``conjecture_status`` (``"refuted"`` when a decided atlas class
        contradicts it, else ``"open"``), ``refutations`` (how many classes do) and
        ``smallest_refutation`` (the first of :func:`tight_family_refutations`: its class
        (d, L, H, ρ, |P|, |Q|), rank, bound (d) and the command that measures it; None
        when it is open).
    """
    split = config.split
    member = in_tight_family(config.width, config.depth, config.heads, config.residual,
                             len(split.p_positions), len(split.q_positions))
    refuted = tight_family_refutations()
    smallest = ({"class": list(refuted[0].key), "rank": refuted[0].rank,
                 "bound_bigraded": refuted[0].bound_bigraded, "command": refuted[0].command}
                if refuted else None)
    return {"tight_family": member, "conjecture": TIGHT_FAMILY_STATEMENT,
            "conjecture_status": "refuted" if refuted else "open",
            "refutations": len(refuted), "smallest_refutation": smallest}


def tight_family_line(result: dict[str, Any]) -> str:
    """The tight-family fields of a result as one line of a report."""
    member = "yes" if result["tight_family"] else "no"
    smallest = result.get("smallest_refutation")
    if smallest is None:
        return (f"{member} (conjecture: rank = bound (d) there; attndepth verify --explain "
                f"levine.bound-tightness)")
    key = ", ".join(str(v) for v in smallest["class"])
    return (f"{member} (a REFUTED conjecture: rank = bound (d) there; the atlas refutes it "
            f"at {result['refutations']} classes, the smallest (d, L, H, rho, |P|, |Q|) = "
            f"({key}): rank {smallest['rank']:,}, bound (d) {smallest['bound_bigraded']:,}; "
            f"attndepth verify --claim levine.bound-tightness)")


@lru_cache(maxsize=1)
def _shipped_atlas() -> Atlas:
    return atlas()


def known_rank(config: SeparationRankConfig) -> AtlasRow | None:
    """The shipped atlas's row for ``config``'s size class, or None when it holds none.

    The atlas (:func:`attndepth.atlas`) keeps one certified rank per class
    (d, L, H, ρ, |P|, |Q|): the rank depends on the partition only through its
    sizes (claim ``levine.partition-symmetry``). Look here before measuring; the
    row carries its certificate, seed, method and the command that measures it
    again.

    Parameters
    ----------
    config : SeparationRankConfig

    Returns
    -------
    AtlasRow or None

    Examples
    --------
    >>> from attndepth import SeparationRankConfig
    >>> row = known_rank(SeparationRankConfig(width=6, depth=3, tokens=2))
    >>> row.rank, row.certificate
    (27132, 'proved')
    """
    if not isinstance(config, SeparationRankConfig):
        raise InvalidType(f"config must be a SeparationRankConfig, got {type(config).__name__}")
    split = config.split
    return _shipped_atlas().find(config.width, config.depth, config.heads, config.residual,
                                 len(split.p_positions), len(split.q_positions))


def atlas_answer(config: SeparationRankConfig) -> dict[str, Any] | None:
    """:func:`rank_with_bounds`'s answer read from the shipped atlas (``source``
    ``"atlas"``: the row's rank, certificate, seed, method, prime and command), or None
    when the atlas does not hold ``config``'s class."""
    row = known_rank(config)
    if row is None:
        return None
    bounds = bounds_for(config).as_dict()
    return {"source": "atlas", "config": config.as_dict(), "rank": row.rank,
            "certificate": row.certificate, "failure_probability": row.failure_probability,
            "method": row.method, "prime": row.prime, "seed": row.seed, "grid": row.grid,
            "measured_seconds": row.seconds, "version": row.version, "command": row.command,
            "bounds": bounds, "ratio": row.rank / bounds["best"], **tight_fields(config)}


def rank_with_bounds(config: SeparationRankConfig, seed: int = 0,
                     method: str | RankMethod = "exact", **options: Any) -> dict[str, Any]:
    """The certificate as a dict with ``bounds``, ``ratio`` (rank / best bound) and the
    tight-family fields."""
    certificate = measure_rank(config, seed, method, **options)
    bounds = bounds_for(config).as_dict()
    return {**certificate.as_dict(), "bounds": bounds,
            "ratio": certificate.rank / bounds["best"], **tight_fields(config)}


def observe_separation_rank(seed: int, width: int, depth: int, heads: int = 1, tokens: int = 2,
                            residual: int = 0, partition: str = "balanced",
                            method: str = "exact",
                            max_points: int = DEFAULT_MAX_POINTS,
                            max_seconds: float = MAX_BLOCK_SECONDS,
                            checkpoint: str | None = None) -> dict[str, Any]:
    """Sweep observable ``seprank``: certified (or numeric) rank, every bound, the ratio.

    Besides the rank and its certificate (``reason``: ``upper-bound`` proved,
    ``margin`` saturated with ``failure_probability``, else a lower bound) the
    point records the method and prime that certified it, the seconds it took,
    and for the blocks method every block short of its bound as
    ``[a, rank, bound]`` in ``short_blocks`` (empty when every block meets its
    bound). ``method`` ``auto`` is recorded resolved. ``max_seconds`` is the
    blocks and torus methods' up-front refusal (:attr:`RankOptions.max_seconds`);
    the whole-matrix methods take only its default. ``checkpoint`` (given by the
    sweep) is the file the blocks method saves its progress to and resumes from
    (:func:`~attndepth.rank.degree_blocks.measure_block_ranks`); the
    other methods do not use it.
    """
    config = SeparationRankConfig(width=width, depth=depth, heads=heads, tokens=tokens,
                                  residual=residual, partition=partition)
    resolved = resolve_method(config, method)
    limited = resolved.takes("max_seconds")
    if not limited and max_seconds != MAX_BLOCK_SECONDS:
        raise InvalidParameter(f"max_seconds limits the blocks and torus methods; the "
                               f"{resolved.name} method is limited by max_points")
    options: dict[str, Any] = {"max_seconds": max_seconds} if limited else {}
    if resolved.takes("checkpoint") and checkpoint is not None:
        options["checkpoint"] = checkpoint
    result = rank_with_bounds(config, seed, resolved, max_points=max_points, **options)
    return {"rank": result["rank"], "saturated": result["saturated"],
            "reason": result["reason"], "grid": result["grid_p"],
            "failure_probability": result["failure_probability"],
            **{f"bound_{name}": value for name, value in result["bounds"].items()},
            "ratio": result["ratio"], "tight_family": result["tight_family"],
            "method": result["method"], "prime": result["prime"],
            "seconds": result["eval_seconds"] + result["rank_seconds"],
            "short_blocks": [[block["degree"], block["rank"], block["bound"]]
                             for block in result["blocks"] if block["rank"] < block["bound"]]}


def _expand_partitions(params: dict[str, Any]) -> list[dict[str, Any]]:
    """``partition = "all"``: one point per partition size of the point's ``tokens``."""
    if params["partition"] != "all":
        return [params]
    return [{**params, "partition": split.label()} for split in partitions(params["tokens"])]


register_observable("seprank", observe_separation_rank, {
    **parameters_from(SeparationRankConfig, ("width", "depth", "heads", "tokens", "partition")),
    "residual": Parameter(int, 0),
    "method": Parameter(str, "exact"), "max_points": Parameter(int, DEFAULT_MAX_POINTS),
    "max_seconds": Parameter(float, MAX_BLOCK_SECONDS),
}, expand=_expand_partitions, checkpointed=True)
