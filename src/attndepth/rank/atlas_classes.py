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
``max_width``, L ≤ ``max_depth`` (the atlas' scope: 2·10⁵, 8, 5). Bound (d)
grows with |P|, |Q| and L, so the enumeration stops a row of sizes at its first
class above the limit. A class is reachable when its largest block fits the
2 GiB guard (:data:`~attndepth.rank.degree_blocks.MAX_BLOCK_POINTS`),
however long it takes: the few whose estimate passes the blocks' default time
limit are measured with that limit raised (:attr:`AtlasClass.max_seconds`).

One measurement, two rows. A ρ = 1 class measured by the degree blocks measures
exactly the blocks of the ρ = 0 class with the same weights
(:func:`attndepth.rank.methods.residual_block_ranks`: the weights drawn from
a seed do not depend on ρ). So the sweep spec leaves those classes out and
:func:`with_residual_rows` writes their rows from the ρ = 0 rows, with the same
command a user would run to measure them alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

from attndepth.errors import InvalidParameter
from attndepth.rank.atlas_table import Atlas, AtlasRow, seprank_command
from attndepth.rank.budget import MAX_BLOCK_SECONDS
from attndepth.rank.degree_blocks import MAX_BLOCK_POINTS, BoundViolation, estimated_seconds
from attndepth.rank.grids import (
    DEFAULT_MARGIN,
    DEFAULT_MAX_POINTS,
    MAX_EVALUATION_WORK,
)
from attndepth.theory.separation_rank import (
    SeparationRankBounds,
    degree_block_bounds,
    separation_rank_bounds,
)
from attndepth.validation import check_int

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
        :func:`attndepth.rank.degree_blocks.estimated_seconds`.
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
    def derived(self) -> bool:
        """ρ = 1 through the degree blocks: the ρ = 0 class' measurement gives its row
        (module docstring); the sweep spec leaves it out."""
        return self.residual == 1 and self.method == "blocks"

    @property
    def reachable(self) -> bool:
        """Its largest block fits the 2 GiB guard (:data:`MAX_BLOCK_POINTS` per side)."""
        return self.grid <= MAX_BLOCK_POINTS

    @property
    def max_seconds(self) -> float:
        """The time limit its measurement needs: the default (:data:`MAX_BLOCK_SECONDS`),
        or the estimate rounded up to whole hours where that is above it."""
        if self.estimated_seconds <= MAX_BLOCK_SECONDS:
            return MAX_BLOCK_SECONDS
        return 3600.0 * math.ceil(self.estimated_seconds / 3600)

    def command(self, seed: int = 0) -> str:
        """The ``attndepth seprank`` command that measures this class alone."""
        return seprank_command(self.width, self.depth, self.heads, self.residual, self.p_size,
                               self.q_size, self.method, self.max_points, seed,
                               self.max_seconds)


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
    :func:`attndepth.rank.methods.residual_block_ranks`).
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
                "max_points", "max_seconds")


def spec_classes(classes: list[AtlasClass] | None = None,
                 known: Atlas | None = None) -> list[AtlasClass]:
    """The classes a sweep spec measures: reachable, not derived (the ρ = 1 classes of
    the blocks method, :attr:`AtlasClass.derived`), and not in ``known``.

    Parameters
    ----------
    classes : default :func:`atlas_classes` ().
    known : an atlas whose classes are left out (``attndepth atlas spec --missing``).

    Returns
    -------
    list of AtlasClass, in the order given (cheapest first by default).
    """
    if known is not None and not isinstance(known, Atlas):
        raise InvalidParameter(f"known must be an Atlas, got {type(known).__name__}")
    in_scope = [c for c in (atlas_classes() if classes is None else classes) if c.reachable]
    have = set() if known is None else {row.key for row in known}
    measured = [c for c in in_scope if not c.derived and c.key not in have]
    if not measured:
        raise InvalidParameter("no reachable class to write a spec for" if not in_scope
                               else "every reachable class is in the atlas already")
    return measured


def atlas_spec(classes: list[AtlasClass] | None = None, seed: int = 0,
               known: Atlas | None = None) -> str:
    """The sweep spec (TOML) of the reachable classes, cheapest first: one ``seprank``
    point per measured class (:func:`spec_classes`), the classes zipped.

    The ρ = 1 classes of the blocks method get no point of their own: their rows
    come from the ρ = 0 points (:func:`with_residual_rows`, at export).

    Parameters
    ----------
    classes : default :func:`atlas_classes` (); only the reachable ones are written.
    seed : the weights' and grids' seed of every point.
    known : an atlas whose classes are left out (``attndepth atlas spec --missing``):
        the spec then measures only what it lacks.

    Returns
    -------
    str, the text of ``examples/atlas/atlas.toml``.
    """
    classes = spec_classes(classes, known)
    check_int("seed", seed, minimum=0)
    columns = {name: [getattr(c, name) for c in classes] for name in SPEC_COLUMNS}
    lines = [
        "# The separation-rank atlas (attndepth.atlas()): one certified rank per size class",
        "# (d, L, H, rho, |P|, |Q|) with bound (d) <= 2e5 at d <= 8, L <= 5 that fits the 2 GiB",
        "# guard, cheapest first (max_seconds raised where the estimate needs it). Written by",
        "# `attndepth atlas spec`"
        + (" --missing" if known is not None else "") + ";",
        "# run and export with",
        "#   attndepth sweep examples/atlas/atlas.toml --store atlas.sqlite --workers 2",
        "#   attndepth atlas export --store atlas.sqlite",
        f"# {len(classes)} points, about "
        f"{sum(c.estimated_seconds for c in classes) / 3600:.0f} hours estimated on 2 cores;",
        "# the export adds the rho = 1 rows of the blocks method from the rho = 0 points",
        "# (the same measurement).",
        'measurement = "seprank"',
        f"seeds = [{seed}]",
        "[zip]",
    ]
    for name, values in columns.items():
        lines.append(f"{name} = [{', '.join(_toml_value(v) for v in values)}]")
    return "\n".join(lines) + "\n"


def _toml_value(value: object) -> str:
    """One value of a spec column in TOML: a string as a basic string (JSON's escapes
    are TOML's), a number as Python writes it (``inf`` too). The columns stay one line
    each, which a TOML writer (tomli-w: one element a line) would not keep."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # raw beyond ASCII (TOML has no surrogate pairs), DEL escaped
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    return str(value)


def residual_row(plain: AtlasRow) -> AtlasRow:
    """The ρ = 1 row that a ρ = 0 row's degree blocks certify (the same measurement).

    With ρ = 1 the coefficient matrix of f is block triangular with the ρ = 0
    blocks of the same weights on its anti-diagonal, so sep(f, ρ = 1) ≥ Σ_a
    sep(f⁰_a) (:func:`attndepth.theory.residual_rank.confirm_residual_top_part`), and
    the ρ = 0 row's certified rank is a lower bound of the generic ρ = 1 rank; it
    is proved equal where it meets bound (d) with ρ = 1. This is what
    :func:`attndepth.rank.methods.residual_block_ranks` returns for the same
    seed, prime and grids: the row's command measures it again.

    Parameters
    ----------
    plain : a row with ρ = 0 measured by the ``blocks`` method.

    Returns
    -------
    AtlasRow with ρ = 1, its bounds, certificate ``proved`` or ``lower-bound``,
    and the plain row's blocks, prime, seed, grid and seconds.
    """
    if not isinstance(plain, AtlasRow):
        raise InvalidParameter(f"plain must be an AtlasRow, got {type(plain).__name__}")
    if plain.residual != 0 or plain.method != "blocks":
        raise InvalidParameter(f"a rho = 1 row comes from a rho = 0 row of the blocks method, "
                               f"got rho = {plain.residual}, method {plain.method!r}")
    bounds = separation_rank_bounds(plain.width, plain.depth, plain.p_size, plain.q_size, 1)
    if plain.rank > bounds.best:  # a proved lower bound above a proved upper bound
        raise BoundViolation(f"class {plain.key}: the rho = 0 blocks sum to {plain.rank}, "
                             f"above the proved rho = 1 bound {bounds.best}")
    proved = plain.rank == bounds.best
    return replace(plain, residual=1, certificate="proved" if proved else "lower-bound",
                   failure_probability=0.0 if proved else None,
                   bound_monomials=bounds.monomials, bound_q_side=bounds.q_side,
                   bound_p_side=bounds.p_side, bound_bigraded=bounds.bigraded,
                   bound_best=bounds.best)


def with_residual_rows(table: Atlas) -> tuple[Atlas, int]:
    """The atlas with a ρ = 1 row added for every ρ = 0 row whose ρ = 1 class is
    measured by the degree blocks (:attr:`AtlasClass.derived`) and absent.

    Returns
    -------
    (Atlas, number of rows added)
    """
    if not isinstance(table, Atlas):
        raise InvalidParameter(f"table must be an Atlas, got {type(table).__name__}")
    have = {row.key for row in table}
    added = [residual_row(row) for row in table
             if row.residual == 0 and row.method == "blocks"
             and (*row.key[:3], 1, *row.key[4:]) not in have
             and atlas_class(row.width, row.depth, row.heads, 1, row.p_size,
                             row.q_size).derived]
    return Atlas([*table, *added]), len(added)


def merge_atlas(measured: Atlas, previous: Atlas | None = None) -> tuple[Atlas, dict[str, int]]:
    """A sweep's rows joined to an earlier atlas, with the derived ρ = 1 rows.

    A class measured anew replaces its earlier row, and so does the ρ = 1 row
    derived from it; every other earlier row is kept. Then
    :func:`with_residual_rows` adds the ρ = 1 rows the ρ = 0 blocks give.

    Parameters
    ----------
    measured : the rows of a sweep store
        (:func:`attndepth.rank.atlas_table.atlas_from_store`).
    previous : the atlas the rows join (None: the sweep's rows alone).

    Returns
    -------
    (Atlas, {"measured": …, "kept": …, "derived": …}) row counts.
    """
    for name, table in (("measured", measured), ("previous", previous)):
        if table is not None and not isinstance(table, Atlas):
            raise InvalidParameter(f"{name} must be an Atlas, got {type(table).__name__}")
    new = {row.key for row in measured}
    renewed = new | {(*key[:3], 1, *key[4:]) for key in new if key[3] == 0}
    kept = [row for row in (previous or ()) if row.key not in renewed
            or (row.key not in new and row.method != "blocks")]
    merged, derived = with_residual_rows(Atlas([*measured, *kept]))
    return merged, {"measured": len(measured), "kept": len(kept), "derived": derived}
