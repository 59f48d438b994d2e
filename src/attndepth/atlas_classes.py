"""The atlas' size classes: every (d, L, H, ρ, |P|, |Q|) it covers, its bounds and its cost.

A *size class* fixes everything the generic separation rank of f = y^{L,i}_p
depends on: width d, depth L, heads H (dividing d), residual ρ ∈ {0, 1} and
the partition's sizes |P|, |Q| (:func:`attndepth.theory.separation_rank.partition_invariant`).

Saturation in the sizes (why |P| ≤ d + 1 and |Q| ≤ d cover every size).
By the structural lemma f = F(x^i, M_P, M_Q) with M_S = Σ_{j∈S} x^j x^jᵀ.
Over ℂ every symmetric d × d matrix is XᵀX for some X ∈ ℂ^{d×d}, so for |Q| ≥ d
the map x_Q ↦ M_Q is dominant onto Sym_d(ℂ); a polynomial on Sym_d that vanishes
on a dense image vanishes, so pulling back along it is injective and
sep = dim span_{x_P} {F(x^i, M_P, ·)} (as functions on Sym_d) does not depend on
|Q| ≥ d. Likewise (x^i, x_{P∖i}) ↦ (x^i, M_P) = (x^i, x^i x^iᵀ + M_{P∖i}) is
dominant onto ℂ^d × Sym_d once |P| − 1 ≥ d. Hence
sep(d, L, H, ρ, |P|, |Q|) = sep(d, L, H, ρ, min(|P|, d + 1), min(|Q|, d)): the
atlas' rows at |P| = d + 1 or |Q| = d stand for every larger size. (At |P| = d
the image of (x^i, M_P) is the hypersurface x^iᵀ M_P⁻¹ x^i = 1, not dense, so
|P| = d + 1 is a class of its own even where its bounds equal |P| = d's.)

The classes enumerated are those with bound (d) ≤ ``max_bound`` at d ≤
``max_width``, L ≤ ``max_depth`` (the issue's scope: 2·10⁵, 8, 5). Bound (d)
grows with |P|, |Q| and L, so the enumeration stops a row of sizes at its first
class above the limit.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from attndepth.errors import InvalidParameter
from attndepth.simulations.exact.atlas_table import seprank_command
from attndepth.simulations.exact.degree_blocks import (
    MAX_BLOCK_POINTS,
    MAX_BLOCK_SECONDS,
    estimated_seconds,
)
from attndepth.simulations.exact.separation_rank import (
    DEFAULT_MARGIN,
    DEFAULT_MAX_POINTS,
    MAX_EVALUATION_WORK,
)
from attndepth.simulations.validation import check_int
from attndepth.theory.separation_rank import (
    SeparationRankBounds,
    degree_block_bounds,
    separation_rank_bounds,
)

#: The issue's scope: bound (d) at most this, at d ≤ 8 and L ≤ 5.
ATLAS_MAX_BOUND = 200_000
ATLAS_MAX_WIDTH = 8
ATLAS_MAX_DEPTH = 5


@dataclass(frozen=True)
class AtlasClass:
    """One size class, its proved bounds and how the atlas measures it.

    Attributes
    ----------
    width, depth, heads, residual, p_size, q_size : d, L, H, ρ, |P|, |Q|.
    bounds : every proved upper bound (with this class' ρ).
    method : ``exact`` (whole evaluation matrix; ρ = 1 where it fits) or
        ``blocks`` (the degree blocks; with ρ = 1 a proved lower bound).
    grid : points per side of the largest matrix formed (the largest block's).
    max_points : the grid cap handed to the measurement.
    estimated_seconds : the up-front time estimate on this machine (2 cores),
        :func:`attndepth.simulations.exact.degree_blocks.estimated_seconds`.
    """

    width: int
    depth: int
    heads: int
    residual: int
    p_size: int
    q_size: int
    bounds: SeparationRankBounds
    method: str
    grid: int
    max_points: int
    estimated_seconds: float

    @property
    def tokens(self) -> int:
        return self.p_size + self.q_size

    @property
    def partition(self) -> str:
        return f"sizes={self.p_size}/{self.q_size}"

    @property
    def key(self) -> tuple[int, int, int, int, int, int]:
        """The class as ``(d, L, H, ρ, |P|, |Q|)``."""
        return (self.width, self.depth, self.heads, self.residual, self.p_size, self.q_size)

    @property
    def memory_bytes(self) -> int:
        """The float64 copy of the largest matrix, the dominant allocation."""
        return 8 * self.grid * self.grid

    @property
    def reachable(self) -> bool:
        """Fits the 2 GiB guard and the ten-minute estimate (:data:`MAX_BLOCK_SECONDS`)."""
        return self.grid <= MAX_BLOCK_POINTS and self.estimated_seconds <= MAX_BLOCK_SECONDS

    def command(self, seed: int = 0) -> str:
        """The ``attndepth seprank`` command that measures this class alone."""
        return seprank_command(self.width, self.depth, self.heads, self.residual, self.p_size,
                               self.q_size, self.method, self.max_points, seed)


def divisors(width: int) -> list[int]:
    """The head counts H of width d: the divisors of d, ascending."""
    return [h for h in range(1, width + 1) if width % h == 0]


def _whole_matrix_fits(bounds: SeparationRankBounds, width: int, depth: int) -> int | None:
    """The grid of one whole-matrix evaluation when it fits its limits, else None."""
    grid = bounds.best + DEFAULT_MARGIN
    work = float(grid) ** 2 * max(1, depth) * width ** 4
    return grid if grid <= DEFAULT_MAX_POINTS and work <= MAX_EVALUATION_WORK else None


def atlas_class(width: int, depth: int, heads: int, residual: int, p_size: int,
                q_size: int) -> AtlasClass:
    """The class (d, L, H, ρ, |P|, |Q|) with its bounds, method, grid and time estimate.

    ρ = 0 is measured by degree blocks (each against its own bound, grids of
    bound_a + margin points). ρ = 1 is measured as a whole matrix when one
    evaluation of best bound + margin points per side fits the exact method's
    limits, else by the degree blocks of ρ = 0 (a proved lower bound, the rank
    where it meets bound (d) with ρ = 1;
    :func:`attndepth.separation_rank.residual_block_ranks`).
    """
    for name, value in (("width", width), ("depth", depth), ("heads", heads),
                        ("p_size", p_size), ("q_size", q_size)):
        check_int(name, value, minimum=1)
    if width % heads:
        raise InvalidParameter(f"heads must divide width={width}, got heads={heads}")
    bounds = separation_rank_bounds(width, depth, p_size, q_size, residual)
    whole = _whole_matrix_fits(bounds, width, depth) if residual else None
    if whole is not None:
        return AtlasClass(width, depth, heads, residual, p_size, q_size, bounds, "exact",
                          whole, whole, estimated_seconds([whole]))
    sizes = [block.bound + DEFAULT_MARGIN
             for block in degree_block_bounds(width, depth, p_size, q_size)]
    grid = max(sizes)
    return AtlasClass(width, depth, heads, residual, p_size, q_size, bounds, "blocks", grid,
                      min(grid, MAX_BLOCK_POINTS), estimated_seconds(sizes))


def _size_rows(width: int, depth: int, max_bound: int) -> Iterator[tuple[int, int]]:
    """(|P|, |Q|) with ρ = 0 bound (d) ≤ max_bound, |P| ≤ d + 1, |Q| ≤ d."""
    for p_size in range(1, width + 2):
        for q_size in range(1, width + 1):
            if separation_rank_bounds(width, depth, p_size, q_size).bigraded > max_bound:
                break
            yield p_size, q_size


def atlas_classes(max_bound: int = ATLAS_MAX_BOUND, max_width: int = ATLAS_MAX_WIDTH,
                  max_depth: int = ATLAS_MAX_DEPTH) -> list[AtlasClass]:
    """Every class of the atlas' scope, cheapest first (then by (d, L, H, ρ, |P|, |Q|)).

    Parameters
    ----------
    max_bound : int
        Largest bound (d) (with ρ = 0; the ρ = 1 class of the same sizes comes
        along, its bound (d) is at most this wherever the ρ = 0 one is).
    max_width, max_depth : int
        d ≤ max_width, 1 ≤ L ≤ max_depth.

    Returns
    -------
    list of AtlasClass, reachable or not (:attr:`AtlasClass.reachable`).
    """
    max_bound = check_int("max_bound", max_bound, minimum=1)
    max_width = check_int("max_width", max_width, minimum=1, maximum=64)
    max_depth = check_int("max_depth", max_depth, minimum=1, maximum=8)
    classes = []
    for width in range(1, max_width + 1):
        for depth in range(1, max_depth + 1):
            sizes = list(_size_rows(width, depth, max_bound))
            if not sizes:
                break
            classes += [atlas_class(width, depth, heads, residual, p_size, q_size)
                        for heads in divisors(width) for residual in (0, 1)
                        for p_size, q_size in sizes]
    return sorted(classes, key=lambda c: (math.ceil(c.estimated_seconds), c.key))


#: The columns of the atlas spec's ``zip`` table, in order.
SPEC_COLUMNS = ("width", "depth", "heads", "residual", "tokens", "partition", "method",
                "max_points")


def atlas_spec(classes: list[AtlasClass] | None = None, seed: int = 0) -> str:
    """The sweep spec (TOML) of the reachable classes, cheapest first: one ``seprank``
    point per class, the classes zipped.

    Parameters
    ----------
    classes : default :func:`atlas_classes` (); only the reachable ones are written.
    seed : the weights' and grids' seed of every point.

    Returns
    -------
    str, the text of ``examples/atlas/atlas.toml``.
    """
    classes = [c for c in (atlas_classes() if classes is None else classes) if c.reachable]
    if not classes:
        raise InvalidParameter("no reachable class to write a spec for")
    check_int("seed", seed, minimum=0)
    columns = {name: [getattr(c, name) for c in classes] for name in SPEC_COLUMNS}
    lines = [
        "# The separation-rank atlas (attndepth.atlas()): one certified rank per size class",
        "# (d, L, H, rho, |P|, |Q|) with bound (d) <= 2e5 at d <= 8, L <= 5 that fits the 2 GiB",
        "# guard and the ten-minute estimate, cheapest first. Written by `attndepth atlas spec`;",
        "# run and export with",
        "#   attndepth sweep examples/atlas/atlas.toml --store atlas.sqlite --workers 2",
        "#   attndepth atlas export --store atlas.sqlite",
        f"# {len(classes)} classes, about {sum(c.estimated_seconds for c in classes) / 3600:.0f}"
        " hours estimated on 2 cores (the estimate runs 1-2.4x high).",
        'measurement = "seprank"',
        f"seeds = [{seed}]",
        "[zip]",
    ]
    for name, values in columns.items():
        lines.append(f"{name} = [{', '.join(_toml_value(v) for v in values)}]")
    return "\n".join(lines) + "\n"


def _toml_value(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)
