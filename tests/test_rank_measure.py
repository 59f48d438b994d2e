"""Ranks with their bounds: proved whenever a bound is met, ratio and tight-family fields,
and the seprank sweep observable (partition "all" expands to one point per size)."""

import pytest

from attndepth import measure_rank
from attndepth.rank.grids import SeparationRankConfig, rank_from_grids
from attndepth.rank.measure import rank_with_bounds, tight_fields
from attndepth.rank.methods import bounds_for
from attndepth.simulations.sweeps.store import open_store
from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep


def test_a_rank_that_meets_a_bound_is_proved_without_a_cap_from_the_caller():
    config = SeparationRankConfig(width=2, depth=2, tokens=2)
    assert measure_rank(config, 0).reason == "upper-bound"
    assert rank_from_grids(config, 0).reason != "upper-bound"  # knows no bound
    capped = measure_rank(config, 0, rank_cap=10**6)  # lowered to the best proved bound
    assert capped.reason == "upper-bound" and capped.rank == bounds_for(config).best


def test_rank_with_bounds_fields():
    below = rank_with_bounds(SeparationRankConfig(width=3, depth=2, tokens=3, partition="0/1,2"))
    assert below["rank"] == 39 and below["bounds"]["bigraded"] == 41
    assert below["ratio"] == 39 / 41 and below["tight_family"] is False
    assert "conjecture" in below["conjecture"]
    assert tight_fields(SeparationRankConfig(width=3, depth=2, tokens=4,
                                             partition="sizes=3/1"))["tight_family"]


def test_a_refuted_conjecture_is_reported_refuted_with_its_smallest_counterexample():
    """#45: seprank reported tight_family with the conjecture's text as if it held."""
    from attndepth.claims.rank_conjectures import (
        _one_head_plain,
        _tight_agrees,
        against_atlas,
    )
    from attndepth.framework.registry import get_claim
    from attndepth.rank.measure import tight_family_line

    fields = tight_fields(SeparationRankConfig(width=6, depth=2, tokens=3,
                                               partition="sizes=2/1"))
    assert fields["tight_family"] and fields["conjecture_status"] == "refuted"
    smallest = fields["smallest_refutation"]
    assert (smallest["class"], smallest["rank"], smallest["bound_bigraded"]) == (
        [6, 2, 1, 0, 2, 1], 275, 280)
    theory = get_claim("levine.bound-tightness").theory
    claimed = against_atlas("atlas", _one_head_plain, lambda row: _tight_agrees(row, theory))
    assert fields["refutations"] == len(claimed.refutations)
    assert "REFUTED" in tight_family_line({**fields, "tight_family": False})


def test_seprank_sweep_expands_partitions_and_records_bounds(tmp_path):
    spec = parse_spec({"measurement": "seprank", "zip": {"width": [2, 3], "depth": [2, 1]},
                       "fixed": {"tokens": 3, "partition": "all"}})
    assert len(spec.points) == 4  # two zipped networks × two partition sizes
    assert {p.params["partition"] for p in spec.points} == {"0/1,2", "0,1/2"}
    run_sweep(spec, tmp_path / "s.sqlite", workers=1, progress=False)
    rows = open_store(tmp_path / "s.sqlite").rows()
    assert all({"bound_best", "bound_bigraded", "ratio", "tight_family"} <= set(r["metrics"])
               for r in rows)
    assert all(0 < r["metrics"]["ratio"] <= 1 for r in rows)


def test_residual_blocks_prove_the_rank_where_rho_zero_is_tight():
    """ρ = 1 through its top-degree blocks (the ρ = 0 network, same weights): proved when
    they meet bound (d), equal to the whole-matrix rank."""
    config = SeparationRankConfig(width=2, depth=2, tokens=4, residual=1)
    blocks = measure_rank(config, seed=3, method="blocks")
    whole = measure_rank(config, seed=3, method="exact")
    assert blocks.reason == "upper-bound" and blocks.saturated
    assert blocks.rank == whole.rank == bounds_for(config).best
    assert blocks.config["residual"] == 1 and blocks.failure_probability == 0.0


def test_residual_blocks_below_bound_are_a_lower_bound_only():
    config = SeparationRankConfig(width=3, depth=2, tokens=3, partition="0/1,2", residual=1)
    blocks = measure_rank(config, seed=0, method="blocks")
    assert (blocks.rank, blocks.reason, blocks.saturated) == (39, "lower-bound", False)
    assert blocks.failure_probability is None
    assert measure_rank(config, seed=0, method="exact").rank == 39  # the conjecture's case


def test_the_seprank_observable_takes_its_schema_from_the_config():
    from attndepth.simulations.sweeps.observables import observables

    seprank = observables()["seprank"].parameters
    assert seprank["width"].default is None and seprank["depth"].default is None  # required
    assert seprank["heads"].default == 1 and seprank["partition"].default == "balanced"


def test_the_seprank_observable_takes_a_time_limit_for_the_blocks_only():
    from attndepth.rank.measure import observe_separation_rank

    blocks = {"width": 3, "depth": 2, "tokens": 4, "partition": "sizes=2/2",
              "method": "blocks", "max_points": 10**4}
    assert observe_separation_rank(0, max_seconds=60.0, **blocks)["rank"] > 0
    with pytest.raises(ValueError, match="more than the limit"):  # refused up front
        observe_separation_rank(0, max_seconds=1e-9, **blocks)
    with pytest.raises(ValueError, match="max_seconds limits the blocks"):
        observe_separation_rank(0, width=2, depth=2, method="exact", max_seconds=60.0)


def test_the_seprank_observable_resumes_the_blocks_from_its_checkpoint(tmp_path):
    from attndepth.rank.measure import observe_separation_rank
    from attndepth.simulations.sweeps.observables import observables

    assert observables()["seprank"].checkpointed  # a sweep hands each point a file
    path = tmp_path / "point.npz"
    blocks = {"width": 3, "depth": 2, "tokens": 4, "partition": "sizes=2/2",
              "method": "blocks", "max_points": 10**4, "checkpoint": str(path)}
    first = observe_separation_rank(0, **blocks)
    assert path.is_file()  # kept until the sweep has committed the row
    assert observe_separation_rank(0, **blocks) == first  # read back, timings included
    exact = observe_separation_rank(0, width=2, depth=2, method="exact",
                                    checkpoint=str(tmp_path / "exact.npz"))
    assert exact["method"] == "exact" and not (tmp_path / "exact.npz").exists()


def test_rank_options_travel_whole_with_each_methods_defaults():
    from attndepth.rank.arithmetic.modular import DEFAULT_PRIME
    from attndepth.rank.degree_blocks import BLOCK_PRIME, MAX_BLOCK_POINTS
    from attndepth.rank.measure import RankOptions

    options = RankOptions(margin=4)
    assert options.for_method("blocks").prime == BLOCK_PRIME
    assert options.for_method("blocks").max_points == MAX_BLOCK_POINTS
    assert options.for_method("blocks").margin == 4
    assert options.for_method("exact").prime == DEFAULT_PRIME
    config = SeparationRankConfig(width=2, depth=2, tokens=2)
    assert measure_rank(config, 0, "exact", options=options).rank == 15
    with pytest.raises(ValueError, match="max_seconds"):
        RankOptions(max_seconds=5.0).for_method("exact")
    with pytest.raises(TypeError, match="RankOptions"):
        measure_rank(config, 0, options={"margin": 4})


def test_the_torus_method_is_a_lower_bound_proved_where_it_meets_bound_d():
    from attndepth.rank.measure import RankOptions
    from attndepth.rank.methods import TorusOptions
    from attndepth.rank.torus_blocks import DEFAULT_CLASS_POINTS

    options = RankOptions(torus_order=4)
    assert options.for_method("torus") == TorusOptions(order=4)
    assert options.for_method("torus").max_points == DEFAULT_CLASS_POINTS
    with pytest.raises(ValueError, match="option of the torus method, not of blocks"):
        options.for_method("blocks")
    proved = measure_rank(SeparationRankConfig(width=3, depth=2, tokens=4), 0, "torus",
                          options=options)
    assert proved.method == "torus" and proved.rank == 49 and proved.reason == "upper-bound"
    short = rank_with_bounds(SeparationRankConfig(width=3, depth=3, tokens=6), 0, "torus",
                             order=4, max_points=400)
    assert short["rank"] == 3098 and short["reason"] == "lower-bound"
    assert short["rank"] < short["bounds"]["best"] == 3102
    with pytest.raises(ValueError, match="torus method takes only"):
        measure_rank(SeparationRankConfig(width=3, depth=2, tokens=4), 0, "torus", threads=2)


def test_a_class_the_atlas_holds_is_known_without_measuring():
    from attndepth.rank.measure import atlas_answer, known_rank

    config = SeparationRankConfig(width=6, depth=3, tokens=2)
    row = known_rank(config)
    assert (row.rank, row.certificate, row.key) == (27132, "proved", (6, 3, 1, 0, 1, 1))
    answer = atlas_answer(config)
    assert answer["source"] == "atlas" and answer["ratio"] == 1.0
    assert answer["bounds"]["bigraded"] == 27132 and answer["command"] == row.command
    # the rank depends on the partition only through its sizes: any split of 1 + 1 is it
    assert known_rank(SeparationRankConfig(width=6, depth=3, tokens=2,
                                           partition="sizes=1/1")) == row
    beyond = SeparationRankConfig(width=9, depth=5, tokens=2)  # no class of the atlas
    assert known_rank(beyond) is None and atlas_answer(beyond) is None
    with pytest.raises(TypeError, match="SeparationRankConfig"):
        known_rank((6, 3, 2))
