"""The rank methods by name: each one object with its own frozen options and one
``measure(config, seed, options)`` that returns a :class:`~attndepth.rank.grids.RankCertificate`.

=========  ======================================================================
name       what it measures (Levine et al. 2020, §3; docs/theory.md §1)
=========  ======================================================================
exact      the whole evaluation matrix of f over GF(p) on growing grids
           (:func:`~attndepth.rank.grids.rank_from_grids`), capped by the best
           proved bound, so a rank that meets it is proved
numeric    the same matrix in float64, ranked by SVD with a threshold (no certificate)
blocks     every homogeneous part f_a against its own proved bound, summed
           (:mod:`~attndepth.rank.degree_blocks`); with ρ = 1 the sum of ρ = 0's
           blocks is a proved lower bound, the rank when it meets bound (d)
           (:func:`residual_block_ranks`)
torus      every part split by torus class at commuting weights (one head, ρ = 0):
           a certified lower bound, the rank when it meets bound (d)
           (:mod:`~attndepth.rank.torus_blocks`)
=========  ======================================================================

``auto`` is ``blocks`` for ρ = 0 and ``exact`` otherwise (:func:`resolve_method`).
The options of a method are a frozen dataclass whose fields are exactly the keywords
it takes (``rank_cap`` only for the whole-matrix methods, ``checkpoint`` only for the
blocks, ``order`` only for the torus): a keyword another method takes is refused with
the list of this one's. Each method checks its time and memory before the work
(:mod:`attndepth.rank.budget`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType
from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
from attndepth.rank.budget import MAX_BLOCK_SECONDS
from attndepth.rank.degree_blocks import (
    BLOCK_PRIME,
    MAX_BLOCK_POINTS,
    BoundViolation,
    measure_block_ranks,
)
from attndepth.rank.evaluation.grid_evaluation import evaluate_structured
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    DEFAULT_MAX_POINTS,
    RankCertificate,
    SeparationRankConfig,
    rank_from_grids,
)
from attndepth.rank.network import LinearAttentionWeights
from attndepth.rank.torus_blocks import DEFAULT_CLASS_POINTS, DEFAULT_ORDER, measure_torus_ranks
from attndepth.theory.separation_rank import (
    SeparationRankBounds,
    degree_block_bounds,
    separation_rank_bounds,
)
from attndepth.validation import check_optional_int


def bounds_for(config: SeparationRankConfig) -> SeparationRankBounds:
    """Every proved upper bound of ``config``'s separation rank (its partition's sizes)."""
    split = config.split
    return separation_rank_bounds(config.width, config.depth, len(split.p_positions),
                                  len(split.q_positions), config.residual)


def block_bounds_for(config: SeparationRankConfig) -> list[int]:
    """The proved bound of each homogeneous part f_a, a = 0 … K (ρ = 0)."""
    split = config.split
    return [block.bound for block in degree_block_bounds(
        config.width, config.depth, len(split.p_positions), len(split.q_positions))]


@dataclass(frozen=True)
class GridOptions:
    """Options of the whole-matrix methods ``exact`` and ``numeric``
    (:func:`~attndepth.rank.grids.rank_from_grids`, which checks them).

    Attributes
    ----------
    prime : the field GF(p) of ``exact`` (unused by ``numeric``).
    margin : saturation needs rank ≤ grid size − margin.
    max_points : points per side at most; beyond it the rank is a lower bound.
    rank_cap : an upper bound known to the caller; the method uses the smaller of it
        and the best proved bound, so a rank that meets it is proved.
    tolerance : ``numeric``: the singular-value threshold (default: NumPy's).
    start_points : the first grid's side (default: the cap plus the margin when it fits).
    progress : a tqdm bar after 2 s.
    evaluator : how f is evaluated on a grid.
    weights : a given network (default: drawn from the seed).
    """

    prime: int = DEFAULT_PRIME
    margin: int = DEFAULT_MARGIN
    max_points: int = DEFAULT_MAX_POINTS
    rank_cap: int | None = None
    tolerance: float | None = None
    start_points: int | None = None
    progress: bool = False
    evaluator: Callable[..., np.ndarray] = evaluate_structured
    weights: LinearAttentionWeights | None = None


@dataclass(frozen=True)
class BlockOptions:
    """Options of the ``blocks`` method
    (:func:`~attndepth.rank.degree_blocks.measure_block_ranks`, which checks them).

    Attributes
    ----------
    prime : the field; below 2^26 the large blocks are ranked by the GEMM LU.
    margin : a block is saturated when its rank ≤ its grid − margin.
    max_points : points per side of the largest block grid.
    max_seconds : refuse up front when the estimated time exceeds it (``inf``: no limit).
    progress : a tqdm bar after 2 s.
    evaluator : how the K + 1 parts are evaluated on a grid.
    checkpoint : a file the measurement saves its progress to and resumes from.
    """

    prime: int = BLOCK_PRIME
    margin: int = DEFAULT_MARGIN
    max_points: int = MAX_BLOCK_POINTS
    max_seconds: float = MAX_BLOCK_SECONDS
    progress: bool = False
    evaluator: Callable[..., np.ndarray] = evaluate_structured
    checkpoint: str | Path | None = None


@dataclass(frozen=True)
class TorusOptions:
    """Options of the ``torus`` method
    (:func:`~attndepth.rank.torus_blocks.measure_torus_ranks`, which checks them).

    Attributes
    ----------
    order : N rotations per coordinate plane; N^⌊d/2⌋ classes.
    prime : p ≡ 1 (mod lcm(4, N)) below 2^26; default: the largest such prime.
    margin : a class is saturated at these weights when its rank ≤ grid − margin.
    max_points : points per side of every class.
    max_seconds : refuse up front when the estimated time exceeds it (``inf``: no limit).
    progress : a tqdm bar after 2 s.
    """

    order: int = DEFAULT_ORDER
    prime: int | None = None
    margin: int = DEFAULT_MARGIN
    max_points: int = DEFAULT_CLASS_POINTS
    max_seconds: float = MAX_BLOCK_SECONDS
    progress: bool = False


def _keywords(options: Any) -> dict[str, Any]:
    """A frozen options object as keyword arguments (shallow: a callable or a network
    passes as itself)."""
    return {spec.name: getattr(options, spec.name) for spec in fields(options)}


class RankMethod(ABC):
    """A way of measuring the separation rank: a name, a frozen options type, a
    ``measure``. Subclasses set :attr:`name`, :attr:`options_type` and :attr:`summary`."""

    #: The name :func:`~attndepth.rank.measure.measure_rank` and ``--method`` take.
    name: str
    #: The frozen dataclass of this method's options; its fields are the keywords it takes.
    options_type: ClassVar[type]
    #: One line: what the method certifies.
    summary: str

    def options(self, **keywords: Any) -> Any:
        """This method's options from keywords (the others at their defaults).

        Raises
        ------
        InvalidParameter
            For a keyword this method does not take, listing those it does.
        """
        taken = [spec.name for spec in fields(self.options_type)]
        unknown = sorted(set(keywords) - set(taken))
        if unknown:
            raise InvalidParameter(f"the {self.name} method takes only the keywords "
                                   f"{', '.join(sorted(taken))}, got {unknown}")
        return self.options_type(**keywords)

    def takes(self, keyword: str) -> bool:
        """Whether ``keyword`` is one of this method's options."""
        return any(spec.name == keyword for spec in fields(self.options_type))

    def check_options(self, options: object) -> Any:
        """``options`` if it is this method's options type (None: the defaults)."""
        if options is None:
            return self.options_type()
        if not isinstance(options, self.options_type):
            raise InvalidType(f"the {self.name} method takes {self.options_type.__name__}, "
                              f"got {type(options).__name__}")
        return options

    def measure(self, config: SeparationRankConfig, seed: int = 0,
                options: Any = None) -> RankCertificate:
        """The certified rank of ``config``'s f with the weights and points of ``seed``.

        Parameters
        ----------
        config : SeparationRankConfig
        seed : int
        options : this method's options type, or None for its defaults.

        Returns
        -------
        RankCertificate
        """
        if not isinstance(config, SeparationRankConfig):
            raise InvalidType(f"config must be a SeparationRankConfig, got "
                              f"{type(config).__name__}")
        return self._measure(config, seed, self.check_options(options))

    @abstractmethod
    def _measure(self, config: SeparationRankConfig, seed: int, options: Any
                 ) -> RankCertificate:
        """:meth:`measure` once ``config`` and ``options`` are checked."""

    def __repr__(self) -> str:
        return f"<rank method {self.name!r}: {self.summary}>"


class WholeMatrix(RankMethod):
    """The whole evaluation matrix on growing grids, capped by the best proved bound."""

    options_type = GridOptions

    def __init__(self, name: str, summary: str) -> None:
        self.name = name
        self.summary = summary

    def _measure(self, config: SeparationRankConfig, seed: int, options: Any
                 ) -> RankCertificate:
        cap = check_optional_int("rank_cap", options.rank_cap, minimum=0)
        best = bounds_for(config).best
        keywords = {**_keywords(options), "rank_cap": best if cap is None else min(cap, best)}
        return rank_from_grids(config, seed, self.name, **keywords)


class DegreeBlocks(RankMethod):
    """Every homogeneous part against its own proved bound (ρ = 1: ρ = 0's blocks)."""

    name = "blocks"
    options_type = BlockOptions
    summary = "each homogeneous part f_a against its bound; proved where every part meets it"

    def _measure(self, config: SeparationRankConfig, seed: int, options: Any
                 ) -> RankCertificate:
        if config.residual:
            return residual_block_ranks(config, seed, options)
        return measure_block_ranks(config, block_bounds_for(config), seed,
                                   **_keywords(options)).certificate(config)


class TorusClasses(RankMethod):
    """Every homogeneous part split by torus class at commuting weights."""

    name = "torus"
    options_type = TorusOptions
    summary = "each part split by torus class at commuting weights: a certified lower bound"

    def _measure(self, config: SeparationRankConfig, seed: int, options: Any
                 ) -> RankCertificate:
        return measure_torus_ranks(config, block_bounds_for(config), seed,
                                   **_keywords(options)).certificate(config)


#: The registry: name → method, in the order ``--method`` lists them.
METHODS: Mapping[str, RankMethod] = MappingProxyType({
    method.name: method for method in (
        WholeMatrix("exact", "the whole matrix over GF(p): saturated, or proved at a bound"),
        WholeMatrix("numeric", "the whole matrix in float64 by SVD: no certificate"),
        DegreeBlocks(),
        TorusClasses(),
    )})
#: What ``method`` may be: ``auto`` (:func:`resolve_method`) or a registered name.
METHOD_NAMES = ("auto", *METHODS)


def resolve_method(config: SeparationRankConfig, method: str | RankMethod) -> RankMethod:
    """The method object for a name: ``auto`` is ``blocks`` (ρ = 0: per-degree blocks) or
    ``exact`` (ρ = 1); a :class:`RankMethod` is itself.

    Raises
    ------
    InvalidParameter
        For a name that is not registered, listing those that are.
    """
    if isinstance(method, RankMethod):
        return method
    if method == "auto":
        return METHODS["blocks" if config.residual == 0 else "exact"]
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameter(f"method must be one of {', '.join(METHOD_NAMES)}, "
                               f"got {method!r}")
    return METHODS[method]


def residual_block_ranks(config: SeparationRankConfig, seed: int = 0,
                         options: BlockOptions | None = None) -> RankCertificate:
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
    options : BlockOptions, optional

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
    options = METHODS["blocks"].check_options(options)
    plain = replace(config, residual=0)
    measured = measure_block_ranks(plain, block_bounds_for(plain), seed, **_keywords(options))
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
