"""Sweep specs: points, stable hashes, and every malformed spec refused before running."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.simulations.sweeps.sweep_spec import load_spec, parse_spec

SPEC = {"measurement": "similarity", "seeds": {"base": 0, "count": 2},
        "grid": {"variant": ["post-ln", "pre-ln"], "depth": [4, 8]},
        "fixed": {"tokens": 6, "width": 8}}


def test_spec_points_and_stable_hashes():
    spec = parse_spec(SPEC)
    assert len(spec.points) == 8
    assert len({p.hash for p in spec.points}) == 8
    assert [p.hash for p in parse_spec(SPEC).points] == [p.hash for p in spec.points]
    assert spec.points[0].params["heads"] == 1  # default filled in


@pytest.mark.parametrize("document, match", [
    ({"measurement": "nope"}, "measurement"),
    ({**SPEC, "grid": {"depht": [1]}}, "grid.depht"),
    ({**SPEC, "grid": {"depth": []}}, "empty"),
    ({**SPEC, "grid": {"depth": ["4"]}}, "grid.depth"),
    ({**SPEC, "grid": {"depth": 4}}, "must be a list"),
    ({**SPEC, "fixed": {"tokens": 6, "width": 8.5}}, "fixed.width"),
    ({**SPEC, "seeds": []}, "seeds"),
    ({**SPEC, "seeds": [-1]}, "seeds"),
    ({**SPEC, "extra": 1}, "unknown spec key"),
    ({"measurement": "similarity", "fixed": {"depth": 2}}, "variant"),
    ({**SPEC, "zip": {"heads": [1, 2], "tau": [1.0]}}, "one length"),
    ({**SPEC, "zip": {"depth": [4]}}, "both grid and zip"),
])
def test_bad_specs_rejected_before_running(document, match):
    with pytest.raises(ValueError, match=match):
        parse_spec(document)


def test_bad_toml(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("measurement = ")
    with pytest.raises(ValueError, match="TOML"):
        load_spec(path)


def test_zip_varies_parameters_together():
    spec = parse_spec({"measurement": "similarity", "seeds": [0],
                       "grid": {"variant": ["post-ln", "pre-ln"]},
                       "zip": {"depth": [4, 8], "width": [8, 16]}, "fixed": {"tokens": 4}})
    pairs = {(p.params["variant"], p.params["depth"], p.params["width"]) for p in spec.points}
    assert pairs == {(v, d, w) for v in ("post-ln", "pre-ln") for d, w in ((4, 8), (8, 16))}


@settings(max_examples=10)
@given(st.integers(1_000_001, 10**12))
def test_oversized_sweeps_are_refused_before_running(count):
    with pytest.raises(ValueError, match="at most"):
        parse_spec({**SPEC, "seeds": {"base": 0, "count": count}})


@settings(max_examples=10)
@given(st.integers(2**63 - 10, 2**70))
def test_seeds_beyond_64_bits_are_refused(base):
    document = {**SPEC, "seeds": {"base": base, "count": 20}}
    if base + 19 <= 2**63 - 1:
        assert parse_spec(document).points
    else:
        with pytest.raises(ValueError, match=r"2\^63"):
            parse_spec(document)


def test_a_grid_of_a_billion_points_is_refused_up_front():
    grid = {"depth": list(range(1, 1001)), "tokens": list(range(1, 1001)),
            "width": list(range(1, 1001))}
    with pytest.raises(ValueError, match=r"1e\+09 points"):
        parse_spec({"measurement": "similarity", "grid": grid, "fixed": {"variant": "pure"}})


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: Runs per example spec (as their comments and the README say).
EXAMPLE_RUNS = {"experiment_a/pilot_plain.toml": 18, "experiment_a/pilot_deesc.toml": 36,
                "experiment_a/plain.toml": 60, "experiment_a/deesc.toml": 120,
                "experiment_b/quick.toml": 36, "experiment_b/full.toml": 99,
                "atlas/atlas.toml": 3147}
#: The observable of each example spec (training runs, except the separation-rank atlas).
EXAMPLE_MEASUREMENT = {"atlas/atlas.toml": "seprank"}


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.toml")),
                         ids=lambda p: p.relative_to(EXAMPLES).as_posix())
def test_the_example_specs_parse(path):
    import attndepth.rank.measure  # noqa: F401  registers the seprank observable

    spec = load_spec(path)
    name = path.relative_to(EXAMPLES).as_posix()
    assert spec.measurement == EXAMPLE_MEASUREMENT.get(name, "train")
    assert len(spec.points) == EXAMPLE_RUNS[name]
