"""Fuzzed new surfaces: block specifications, user sublayers, user claims and their return
values, declarations, relations, map grids and checkpoint bytes.

Every case ends in a result or an attndepth error (a ValueError or TypeError), never
another exception, a hang or a silent NaN. Run the many-case profile with
``pytest --hypothesis-profile=fuzz tests/test_fuzz_surfaces.py`` (1,000 cases a test,
11 tests).
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attndepth.errors import AttndepthError
from attndepth.framework import pool_runs, registry
from attndepth.framework.families import Family
from attndepth.framework.relations import (
    first_crossing,
    monotone_margin,
    scaling_exponent,
    subsets,
)
from attndepth.framework.validity import parse_grid
from attndepth.framework.verdicts import VERDICTS
from attndepth.simulations.models.blocks import Sublayer
from attndepth.simulations.models.stacks import StackConfig, run_stack

anything = st.one_of(
    st.integers(-3, 6), st.sampled_from([0, -1, 10**12, 2**63]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.text(max_size=5), st.sampled_from([[], (1,), {"a": 1}, 1.5, 1e308, 1e-308]),
)
scales = st.one_of(anything, st.floats(1e-3, 1e3))


def _attndepth_error_or(call):
    """Run ``call``; an AttndepthError is a clean refusal, anything else propagates."""
    try:
        return call()
    except AttndepthError:
        return None


@given(st.fixed_dictionaries({"depth": st.integers(0, 3), "tokens": st.integers(1, 4),
                              "width": st.sampled_from([2, 4])}, optional={
    "variant": st.sampled_from(["pure", "residual", "post-ln", "pre-ln", "post-ln-deesc-a",
                                "post-ln-deesc-b"]),
    "skip_scale": scales, "residual_scale": scales,
    "norm": st.one_of(anything, st.sampled_from(["none", "pre", "post", "peri"])),
    "norm_kind": st.one_of(anything, st.sampled_from(["layer", "rms"])),
    "deescalation": st.one_of(anything, st.sampled_from(["none", "branch", "sum"])),
    "qk_norm": anything, "norm_scaling": anything, "tau": anything, "sublayer": anything,
    "decay": scales, "heads": st.integers(1, 2)}))
def test_fuzz_block_specifications(fields):
    trajectory = _attndepth_error_or(lambda: run_stack(StackConfig(**fields), 2, 0))
    if trajectory is not None:
        assert np.all(np.isfinite(trajectory.states)), fields


returned = st.one_of(
    anything,
    st.builds(lambda shape, fill: np.full(shape, fill),
              st.sampled_from([(2, 3, 4), (2, 3, 2), (3,), ()]),
              st.sampled_from([0.0, 1.0, math.nan, math.inf, 1e308])))


@given(returned, st.one_of(anything, st.sampled_from([{}, {"w": (4, 4)}, {"w": (0,)},
                                                      {"output": (4, 4)}, {"w": "4"}])))
def test_fuzz_user_sublayers(value, shapes):
    layer = Sublayer("fuzzed", lambda xp, X, w: value, lambda d: shapes)
    config = StackConfig(variant="pre-ln", depth=1, tokens=3, width=4, sublayer=layer)
    trajectory = _attndepth_error_or(lambda: run_stack(config, 2, 0))
    if trajectory is not None:
        assert np.all(np.isfinite(trajectory.states))


outcome_fields = st.tuples(
    st.one_of(st.text(max_size=4), anything), st.one_of(st.text(max_size=4), anything),
    st.one_of(st.sampled_from(["holds", "fails", "inconclusive", "maybe"]), anything))


@given(st.one_of(anything.map(lambda v: ("return", v)), outcome_fields.map(lambda f: ("build", f)),
                 st.just(("raise", None))))
def test_fuzz_user_claim_return_values(case):
    """A verify function returning anything, building a bad Outcome or raising: a verdict
    (error for all but a well-formed Outcome), never an exception out of run_claims."""
    with pytest.MonkeyPatch.context() as patch:  # one registry per example
        patch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))
        _run_fuzzed_claim(*case)


def _run_fuzzed_claim(action, value):
    @registry.claim("mine.fuzzed", source="-", statement="-", tolerance="-",
                    presets={"quick": {}, "full": {}})
    def verify(seed):
        if action == "raise":
            raise ZeroDivisionError("user bug")
        return registry.Outcome(*value) if action == "build" else value

    [result] = pool_runs.run_claims(["mine.fuzzed"], wrong_theory=["mine.fuzzed"])
    assert result.verdict in VERDICTS
    from attndepth.framework.report import render

    for fmt in ("table", "json", "markdown", "latex"):
        assert isinstance(render([result], fmt, "quick", 0), str)


@given(st.fixed_dictionaries({}, optional={
    "expression": st.one_of(anything, st.sampled_from(["width", "1/width", "depth", "x +"])),
    "observable": st.one_of(anything, st.sampled_from(["t_sim_final", "log_odds_slope"])),
    "tolerance": anything, "batch": anything, "seeds": anything,
    "rivals": st.one_of(anything, st.just({"r": ("2*width", "a rival")})),
    "wrong": st.one_of(anything, st.just("width"))}))
def test_fuzz_declarations(fields):
    from attndepth.figures import registry as figures

    with pytest.MonkeyPatch.context() as patch:  # one registry per example
        patch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))
        patch.setattr(figures, "_USER_FIGURES", {})
        _declare(fields)


def _declare(fields):
    from attndepth.framework.declarative import derived_claim

    arguments = dict(expression="1", observable="t_sim_final", tolerance=0.5, source="-",
                     statement="-", family=Family(parameters={"width": (4,)}), batch=2,
                     seeds=(2, 2), presets={"quick": {"width": 4}, "full": {"width": 4}})
    arguments.update(fields)
    declared = _attndepth_error_or(lambda: derived_claim("mine.declared", **arguments)(
        lambda width: StackConfig(variant="pure", depth=2, tokens=3, width=width)))
    if declared is not None:
        [result] = pool_runs.run_claims(["mine.declared"])
        assert result.verdict in VERDICTS


numbers = st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), anything),
                   max_size=5)


@given(numbers, numbers, st.one_of(anything, st.sampled_from(["increasing", "decreasing"])),
       anything)
def test_fuzz_relations(xs, ys, direction, level):
    for call in (lambda: monotone_margin(xs, ys, direction),
                 lambda: scaling_exponent(xs, ys), lambda: first_crossing(xs, ys, level),
                 lambda: subsets(xs, level)):
        value = _attndepth_error_or(call)
        if isinstance(value, float):
            assert not math.isnan(value)


@given(st.lists(st.text(alphabet="wdth=,.-0123456789eabc ", max_size=16), max_size=4))
def test_fuzz_map_grids(items):
    grid = _attndepth_error_or(lambda: parse_grid(items))
    if grid is not None:
        assert all(isinstance(values, tuple) and values for values in grid.values())


@given(st.text(max_size=30))
def test_fuzz_claim_ids_and_did_you_mean(text):
    _attndepth_error_or(lambda: registry.get_claim(text))


columns = st.dictionaries(st.one_of(st.text(max_size=3), anything.filter(
    lambda v: isinstance(v, (int, str)))), st.lists(st.one_of(st.floats(), anything),
                                                    max_size=3), max_size=3)


@given(st.one_of(columns, anything), st.booleans())
def test_fuzz_user_figures(data, draws_a_figure):
    """A user figure's compute returning anything, its draw a figure or not: files, or
    one attndepth error."""
    import tempfile

    import matplotlib.pyplot as plt

    from attndepth.figures import registry as figures

    def draw(values):
        if not draws_a_figure:
            return values
        figure, axes = plt.subplots()
        axes.plot([0, 1], [0, 1])
        return figure

    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as out:
        patch.setattr(figures, "_USER_FIGURES", {})
        figures.figure("mine.fuzzed", description="-", draw=draw)(lambda preset, seed: data)
        _attndepth_error_or(lambda: figures.write_figure("mine.fuzzed", out))
    plt.close("all")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A real checkpoint of a small training run, with everything needed to load it."""
    pytest.importorskip("jax")
    from dataclasses import replace

    from attndepth.simulations.training import jax_model
    from attndepth.simulations.training.tasks import RecallTask

    task = RecallTask(pairs=2, keys=8, values=8)
    config = StackConfig(variant="post-ln", depth=1, tokens=task.length, width=8)
    settings_ = jax_model.TrainingSettings(steps=10, batch=4, evaluate_every=10,
                                           evaluation_size=8)
    path = tmp_path_factory.mktemp("checkpoint") / "run.npz"
    jax_model.train(config, task, settings_, seed=1, checkpoint=path)
    config = replace(config, dtype="float32")
    optimiser, _, _ = jax_model._compiled(config, settings_.learning_rate, settings_.warmup)

    def load(at):
        jnp = jax_model.load_jax().numpy
        params = {k: jnp.asarray(v, dtype=jnp.float32)
                  for k, v in jax_model.init_params(config, task.vocabulary, 1).items()}
        run = jax_model.TrainingRun(config=config, task=task, settings=settings_, seed=1)
        return jax_model._load_checkpoint(at, run, params, optimiser.init(params))

    return path.read_bytes(), load, load(path)


@pytest.mark.jax
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(data=st.data())
def test_fuzz_checkpoint_bytes(checkpoint, tmp_path, data):
    pristine, load, expected = checkpoint
    damaged = bytearray(pristine)
    for _ in range(data.draw(st.integers(1, 3))):
        offset = data.draw(st.integers(0, len(pristine) - 1))
        damaged[offset] ^= data.draw(st.integers(1, 255))
    path = tmp_path / "run.npz"
    path.write_bytes(bytes(damaged))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load(path)
    if loaded is None:  # detected: a fresh start, with one warning naming the file
        assert len(caught) == 1 and str(path) in str(caught[0].message)
        return
    params, _ = loaded  # harmless damage (zip padding, names of nothing read): same numbers
    assert all(np.array_equal(params[k], expected[0][k]) for k in expected[0])


def _cli(argv):
    """One command line: exit 0, 1 or 2, and one stderr line with 2 (as test_fuzz_cli)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from attndepth.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    assert code in (0, 1, 2), (argv, code, err.getvalue())
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1, (argv, err.getvalue())
    assert "Traceback" not in err.getvalue()


cli_values = st.one_of(st.sampled_from(["0", "-1", "nan", "inf", "1e309", "abc", "", "2",
                                        "0.5", "1e-300", "none", "pre", "peri", "rms",
                                        "branch", "sum"]), st.integers(-2, 3).map(str))


@given(st.lists(st.tuples(st.sampled_from(["--skip-scale", "--residual-scale", "--norm",
                                           "--norm-kind", "--deescalation", "--tau"]),
                          cli_values), max_size=4),
       st.booleans(), st.sampled_from(["pure", "residual", "post-ln", "pre-ln"]))
def test_fuzz_similarity_block_options(options, qk_norm, variant):
    argv = ["similarity", "--variant", variant, "--depth", "3", "--tokens", "3", "--width",
            "4", "--seeds", "2", *[token for pair in options for token in pair]]
    _cli(argv + (["--qk-norm"] if qk_norm else []))


@given(cli_values, st.sampled_from(["blocks", "exact", "auto"]), st.integers(1, 3))
def test_fuzz_seprank_work_limits(max_seconds, method, depth):
    _cli(["seprank", "--width", "2", "--depth", str(depth), "--tokens", "3", "--method",
          method, "--max-seconds", max_seconds])
