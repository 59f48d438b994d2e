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
from attndepth.rank.degree_blocks import (
    BLOCK_PRIME,
    MAX_BLOCK_POINTS,
    MAX_BLOCK_SECONDS,
    BoundViolation,
    measure_block_ranks,
)
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    DEFAULT_MAX_POINTS,
    RankCertificate,
    SeparationRankConfig,
    rank_from_grids,
)
from attndepth.rank.partitions import partitions
from attndepth.rank.torus_blocks import (
    DEFAULT_CLASS_POINTS,
    DEFAULT_ORDER,
    measure_torus_ranks,
)
from attndepth.simulations.settings import setting
from attndepth.simulations.sweeps.observables import (
    Parameter,
    parameters_from,
    register_observable,
)
from attndepth.theory.separation_rank import (
    TIGHT_FAMILY_STATEMENT,
    SeparationRankBounds,
    degree_block_bounds,
    in_tight_family,
    separation_rank_bounds,
)
from attndepth.validation import check_optional_int


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


def bounds_for(config: SeparationRankConfig) -> SeparationRankBounds:
    """Every proved upper bound of ``config``'s separation rank (its partition's sizes)."""
    split = config.split
    return separation_rank_bounds(config.width, config.depth, len(split.p_positions),
                                  len(split.q_positions), config.residual)


#: Methods of :func:`measure_rank`; ``auto`` is ``blocks`` for ρ = 0, else ``exact``.
METHODS = ("auto", "blocks", "torus", "exact", "numeric")
#: Options the block method takes (the grids are set by each block's bound).
BLOCK_OPTIONS = frozenset({"prime", "margin", "max_points", "progress", "evaluator",
                           "max_seconds", "checkpoint"})
#: Options the torus split takes
#: (:func:`~attndepth.rank.torus_blocks.measure_torus_ranks`).
TORUS_OPTIONS = frozenset({"prime", "margin", "max_points", "progress", "max_seconds",
                           "order"})


def residual_block_ranks(config: SeparationRankConfig, seed: int = 0,
                         **options: Any) -> RankCertificate:
    """ρ = 1 from the degree blocks of ρ = 0: a proved lower bound, the rank when tight.

    The top-degree part of f with ρ = 1 is f with ρ = 0 and the same weights,
    and the coefficient matrix of f (ρ = 1) is block triangular with f⁰'s
    degree blocks on its anti-diagonal, so sep(f) ≥ Σ_a sep(f⁰_a) (proof:
    :func:`attndepth.theory.residual_rank.confirm_residual_top_part`). The
    weights drawn from ``seed`` do not depend on ρ, so measuring f⁰'s blocks
    with this seed measures exactly those anti-diagonal blocks. Their
    certified sum is a lower bound of the generic rank with ρ = 1; when it
    meets bound (d) with ρ = 1 the rank is proved (reason ``upper-bound``),
    else the certificate is unsaturated with reason ``lower-bound`` (the
    whole-matrix method measures the rank itself).

    Parameters
    ----------
    config : SeparationRankConfig with ``residual = 1``.
    seed : int
    **options : the keywords of :data:`BLOCK_OPTIONS`.

    Returns
    -------
    RankCertificate
        Method ``blocks``, config with ρ = 1, ``blocks`` the anti-diagonal
        blocks (each certified as a block of f⁰).
    """
    if not isinstance(config, SeparationRankConfig):
        raise InvalidType(f"config must be a SeparationRankConfig, got {type(config).__name__}")
    if config.residual != 1:
        raise InvalidParameter("residual_block_ranks takes a configuration with residual = 1")
    plain = replace(config, residual=0)
    options.setdefault("prime", BLOCK_PRIME)
    measured = measure_block_ranks(plain, block_bounds_for(plain), seed, **options)
    bound = bounds_for(config).best
    if measured.rank > bound:  # a proved lower bound above a proved upper bound
        raise BoundViolation(f"the anti-diagonal blocks sum to {measured.rank}, above the "
                             f"proved bound {bound} with residual = 1; a bound or the "
                             f"evaluation is wrong")
    proved = measured.rank == bound
    certificate = measured.certificate(config)
    return replace(certificate, saturated=proved,
                   reason="upper-bound" if proved else "lower-bound",
                   failure_probability=0.0 if proved else None)


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

    def keywords(self, method: str) -> dict[str, Any]:
        """The keyword arguments of :func:`measure_rank` for a resolved ``method``."""
        blocks, torus = method == "blocks", method == "torus"
        default_prime, default_points = ((BLOCK_PRIME, MAX_BLOCK_POINTS) if blocks else
                                         (None, DEFAULT_CLASS_POINTS) if torus else
                                         (DEFAULT_PRIME, DEFAULT_MAX_POINTS))
        keywords: dict[str, Any] = {
            "margin": self.margin, "progress": self.progress,
            "prime": default_prime if self.prime is None else self.prime,
            "max_points": default_points if self.max_points is None else self.max_points}
        if self.max_seconds is not None:
            if not (blocks or torus):
                raise InvalidParameter("max_seconds (--max-seconds) limits the blocks and "
                                       "torus methods; the exact method is limited by "
                                       "max_points (--max-points)")
            keywords["max_seconds"] = self.max_seconds
        if self.torus_order is not None:
            if not torus:
                raise InvalidParameter(f"torus_order (--torus-order) is an option of the "
                                       f"torus method, not of {method}")
            keywords["order"] = self.torus_order
        return keywords


def resolve_method(config: SeparationRankConfig, method: str) -> str:
    """``auto`` → ``blocks`` (ρ = 0: per-degree blocks) or ``exact`` (ρ = 1); others as given."""
    if method not in METHODS:
        raise InvalidParameter(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "auto":
        return "blocks" if config.residual == 0 else "exact"
    return method


def block_bounds_for(config: SeparationRankConfig) -> list[int]:
    """The proved bound of each homogeneous part f_a, a = 0 … K (ρ = 0)."""
    split = config.split
    return [block.bound for block in degree_block_bounds(
        config.width, config.depth, len(split.p_positions), len(split.q_positions))]


def _check_keywords(method: str, kwargs: dict[str, Any], allowed: frozenset[str],
                    rank_cap: int | None) -> None:
    """Refuse keywords a per-block method does not take (and a rank cap: its blocks
    carry their own bounds)."""
    unknown = set(kwargs) - allowed
    if rank_cap is not None or unknown:
        raise InvalidParameter(f"the {method} method takes only the keywords "
                               f"{', '.join(sorted(allowed))}, got "
                               f"{sorted(unknown) or 'rank_cap'}")


def measure_rank(config: SeparationRankConfig, seed: int = 0, method: str = "exact", *,
                 rank_cap: int | None = None, options: RankOptions | None = None,
                 **kwargs: Any) -> RankCertificate:
    """The certified rank with the proved bounds supplied.

    Parameters
    ----------
    config, seed, **kwargs
        As for :func:`attndepth.rank.grids.rank_from_grids` (methods
        ``exact`` and ``numeric``); for ``blocks`` only the keywords in
        :data:`BLOCK_OPTIONS`
        (:func:`attndepth.rank.degree_blocks.measure_block_ranks`).
    method : str
        One of :data:`METHODS`. ``blocks`` measures every homogeneous part f_a
        against its own proved bound and sums the ranks; with ρ = 1 that sum
        is a proved lower bound, the rank when it meets bound (d)
        (:func:`residual_block_ranks`). ``torus`` splits every part by torus
        class at commuting weights (one head, ρ = 0; keywords
        :data:`TORUS_OPTIONS`, :mod:`~attndepth.rank.torus_blocks`):
        a certified lower bound, the rank when it meets bound (d).
    rank_cap : int, optional
        Whole-matrix methods: an upper bound known to the caller; default: the
        best proved bound (:func:`bounds_for`), so a rank that meets it is
        reported as proved. A cap above the best bound is lowered to it.
    options : RankOptions, optional
        The options whole, with the method's defaults filled in; keywords given
        as well override them.

    Returns
    -------
    RankCertificate
    """
    if not isinstance(config, SeparationRankConfig):
        raise InvalidType(f"config must be a SeparationRankConfig, got {type(config).__name__}")
    rank_cap = check_optional_int("rank_cap", rank_cap, minimum=0)
    method = resolve_method(config, method)
    if options is not None:
        if not isinstance(options, RankOptions):
            raise InvalidType(f"options must be RankOptions, got {type(options).__name__}")
        kwargs = {**options.keywords(method), **kwargs}
    if method == "blocks":
        _check_keywords(method, kwargs, BLOCK_OPTIONS, rank_cap)
        kwargs.setdefault("prime", BLOCK_PRIME)
        if config.residual:
            return residual_block_ranks(config, seed, **kwargs)
        return measure_block_ranks(config, block_bounds_for(config), seed,
                                   **kwargs).certificate(config)
    if method == "torus":
        _check_keywords(method, kwargs, TORUS_OPTIONS, rank_cap)
        return measure_torus_ranks(config, block_bounds_for(config), seed,
                                   **kwargs).certificate(config)
    best = bounds_for(config).best
    cap = best if rank_cap is None else min(rank_cap, best)
    return rank_from_grids(config, seed, method, rank_cap=cap, **kwargs)


def tight_fields(config: SeparationRankConfig) -> dict[str, Any]:
    """``tight_family`` (bool) and ``conjecture`` (the statement) for a configuration."""
    split = config.split
    member = in_tight_family(config.width, config.depth, config.heads, config.residual,
                             len(split.p_positions), len(split.q_positions))
    return {"tight_family": member, "conjecture": TIGHT_FAMILY_STATEMENT}


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


def rank_with_bounds(config: SeparationRankConfig, seed: int = 0, method: str = "exact",
                     **options: Any) -> dict[str, Any]:
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
    limited = resolved in ("blocks", "torus")
    if not limited and max_seconds != MAX_BLOCK_SECONDS:
        raise InvalidParameter("max_seconds limits the blocks and torus methods; the exact "
                               "method is limited by max_points")
    options: dict[str, Any] = {"max_seconds": max_seconds} if limited else {}
    if resolved == "blocks" and checkpoint is not None:
        options["checkpoint"] = checkpoint
    result = rank_with_bounds(config, seed, method, max_points=max_points, **options)
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
