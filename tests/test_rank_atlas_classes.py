"""The atlas' size classes: the scope, the saturation in |P| and |Q|, the method and cost
of each class, and the sweep spec that measures them."""

import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.rank.atlas_classes import (
    AtlasClass,
    atlas_class,
    atlas_classes,
    atlas_spec,
    divisors,
    merge_atlas,
    residual_row,
    spec_classes,
    with_residual_rows,
)
from attndepth.rank.atlas_table import Atlas, atlas, seprank_command
from attndepth.rank.budget import MAX_BLOCK_SECONDS
from attndepth.rank.degree_blocks import MAX_BLOCK_POINTS, BoundViolation
from attndepth.rank.grids import SeparationRankConfig
from attndepth.rank.measure import rank_with_bounds
from attndepth.simulations.sweeps.sweep_spec import load_spec

ROOT = Path(__file__).resolve().parent.parent


def test_small_scope_lists_every_size_head_and_residual():
    classes = atlas_classes(max_bound=60, max_width=2, max_depth=2)
    keys = {c.key for c in classes}
    assert (1, 1, 1, 0, 2, 1) in keys and (1, 1, 1, 0, 3, 1) not in keys  # |P| ≤ d + 1
    assert (2, 1, 2, 1, 3, 2) in keys and (2, 1, 1, 0, 1, 3) not in keys  # |Q| ≤ d
    assert all(c.bounds.bigraded <= 60 or c.residual for c in classes)
    assert {c.heads for c in classes if c.width == 2} == {1, 2}
    order = [(math.ceil(c.estimated_seconds), c.key) for c in classes]
    assert order == sorted(order)  # cheapest first: a stopped sweep has the cheap classes
    assert len(keys) == len(classes)


def test_divisors_and_bad_classes():
    assert divisors(6) == [1, 2, 3, 6]
    with pytest.raises(ValueError, match="heads must divide"):
        atlas_class(4, 2, 3, 0, 1, 1)
    with pytest.raises(ValueError, match="max_bound"):
        atlas_classes(max_bound=0)


@pytest.mark.parametrize("small, large", [((2, 2, 1, 0, 3, 2), (2, 2, 1, 0, 5, 4)),
                                          ((3, 1, 3, 1, 4, 3), (3, 1, 3, 1, 6, 5))])
def test_ranks_do_not_grow_past_the_saturated_sizes(small, large):
    """The saturation lemma of attndepth.rank.atlas_classes, measured: |P| > d + 1, |Q| > d add
    nothing."""
    ranks = []
    for d, L, H, rho, p, q in (small, large):
        config = SeparationRankConfig(width=d, depth=L, heads=H, residual=rho, tokens=p + q,
                                      partition=f"sizes={p}/{q}")
        ranks.append(rank_with_bounds(config, 0, "exact")["rank"])
    assert ranks[0] == ranks[1]


def test_method_and_cost_of_a_class():
    plain = atlas_class(3, 2, 1, 0, 2, 2)
    assert plain.method == "blocks" and plain.reachable and plain.grid < 100
    residual = atlas_class(3, 2, 1, 1, 2, 2)
    assert residual.method == "exact" and residual.max_points == residual.bounds.best + 8
    large = atlas_class(6, 3, 1, 1, 2, 2)  # too large for one whole matrix: blocks
    assert large.method == "blocks" and not large.reachable
    assert large.memory_bytes > 2 * 2**30
    assert isinstance(plain, AtlasClass) and plain.partition == "sizes=2/2"
    assert plain.command() == seprank_command(3, 2, 1, 0, 2, 2, "blocks", plain.max_points, 0)


def test_a_class_that_fits_the_guard_is_reachable_however_long_it_takes():
    slow = atlas_class(4, 4, 2, 0, 1, 1)  # blocks up to 12,349²; 45 estimated minutes
    assert slow.reachable and slow.grid <= MAX_BLOCK_POINTS
    assert slow.estimated_seconds > MAX_BLOCK_SECONDS
    assert slow.max_seconds >= slow.estimated_seconds and slow.max_seconds % 3600 == 0
    assert f"--max-seconds {slow.max_seconds:.0f} " in slow.command()
    plain = atlas_class(3, 2, 1, 0, 2, 2)
    assert plain.max_seconds == MAX_BLOCK_SECONDS and "--max-seconds" not in plain.command()


def test_the_spec_parses_into_one_point_per_reachable_class(tmp_path):
    classes = atlas_classes(max_bound=60, max_width=2, max_depth=2)
    path = tmp_path / "atlas.toml"
    path.write_text(atlas_spec(classes))
    import attndepth.rank.measure  # noqa: F401  registers the seprank observable

    points = load_spec(path).points
    assert len(points) == len(classes)
    first = points[0].params
    assert first["partition"].startswith("sizes=") and first["method"] in ("blocks", "exact")
    with pytest.raises(ValueError, match="no reachable class"):
        atlas_spec([atlas_class(6, 3, 1, 0, 1, 2)])


@pytest.mark.slow
def test_the_shipped_spec_is_the_one_atlas_spec_writes():
    assert (ROOT / "examples/atlas/atlas.toml").read_text() == atlas_spec()


SHIPPED = atlas()
SHIPPED_DERIVED = [row for row in SHIPPED if row.residual == 1 and row.method == "blocks"]


def test_the_rho_one_rows_of_the_blocks_method_are_their_rho_zero_rows_measured():
    """Eight shipped ρ = 1 rows of the blocks method (d = 2, L = 5) were measured on their
    own, the others derived; residual_row writes each from its ρ = 0 row, the same but
    for the seconds the measurement took."""
    assert len(SHIPPED_DERIVED) >= 8
    for row in SHIPPED_DERIVED:
        derived = residual_row(SHIPPED.find(*row.key[:3], 0, *row.key[4:]))
        assert replace(derived, seconds=row.seconds) == row
    assert {row.certificate for row in SHIPPED_DERIVED} == {"proved", "lower-bound"}


def test_with_residual_rows_adds_exactly_the_derived_classes():
    without = Atlas(row for row in SHIPPED if row not in SHIPPED_DERIVED)
    table, added = with_residual_rows(without)
    assert added == len(SHIPPED_DERIVED) and {r.key for r in table} == {r.key for r in SHIPPED}
    assert with_residual_rows(SHIPPED)[1] == 0  # nothing twice


def test_residual_row_takes_a_rho_zero_row_of_the_blocks_method():
    exact = SHIPPED.find(2, 2, 1, 1, 1, 1)
    for row in (exact, SHIPPED_DERIVED[0]):
        with pytest.raises(ValueError, match="rho = 0 row of the blocks method"):
            residual_row(row)
    with pytest.raises(ValueError, match="AtlasRow"):
        residual_row(exact.key)
    plain = SHIPPED.find(2, 5, 1, 0, 1, 1)
    with pytest.raises(BoundViolation, match="above the proved rho = 1 bound"):
        residual_row(replace(plain, rank=plain.rank + 10**6, bound_best=10**7))


def test_a_merge_replaces_measured_classes_and_their_derived_rows():
    plain = SHIPPED.find(2, 5, 2, 0, 1, 2)
    again = replace(plain, seed=1, seconds=1.0)
    merged, counts = merge_atlas(Atlas([again]), SHIPPED)
    assert counts == {"measured": 1, "kept": len(SHIPPED) - 2, "derived": 1}
    assert merged.find(*plain.key) == again
    assert merged.find(2, 5, 2, 1, 1, 2) == residual_row(again)
    assert len(merged) == len(SHIPPED)
    alone, counts = merge_atlas(Atlas([again]))
    assert len(alone) == 2 and counts["kept"] == 0
    with pytest.raises(ValueError, match="previous must be an Atlas"):
        merge_atlas(Atlas([again]), [plain])


def test_the_spec_measures_neither_derived_nor_known_classes():
    classes = [atlas_class(2, 5, 1, rho, 1, q) for rho in (0, 1) for q in (1, 2)]
    assert [c.derived for c in classes] == [False, False, True, True]
    assert spec_classes(classes) == classes[:2]
    known = Atlas([SHIPPED.find(2, 5, 1, 0, 1, 1)])
    assert spec_classes(classes, known) == classes[1:2]
    assert "# 1 points" in atlas_spec(classes, known=known)
    with pytest.raises(ValueError, match="in the atlas already"):
        spec_classes(classes[:1], known)
    with pytest.raises(ValueError, match="known must be an Atlas"):
        spec_classes(classes, known=[])


@given(st.text(max_size=20), st.integers(-10**6, 10**6),
       st.floats(allow_nan=False), st.booleans())
def test_a_spec_value_reads_back_as_itself(text, number, real, flag):
    import tomllib

    from attndepth.rank.atlas_classes import _toml_value

    for value in (text, number, real, flag):
        assert tomllib.loads(f"x = {_toml_value(value)}")["x"] == value
