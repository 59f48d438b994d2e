"""Resolving power: the bisection against closed forms, its invariants as a property, and
the sequential test's evidence carrying it."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attndepth.framework.declarations import Estimate
from attndepth.framework.evidence import Interval, decide
from attndepth.framework.model import Outcome
from attndepth.framework.resolving import TOLERANCE, absolute_scale, resolving_power


def _shifted(low: float, high: float, relative: bool):
    """interval_at for a sample whose unperturbed error interval is [low, high]
    (prediction 1): an absolute error moves by −ε, a relative one maps to
    (e + 1)/(1 + ε) − 1."""
    def interval_at(perturb):
        p = float(np.asarray(perturb(np.array([1.0])))[0])
        if relative:
            lo, hi = (low + 1) / p - 1, (high + 1) / p - 1
        else:
            lo, hi = low - (p - 1), high - (p - 1)
        return Interval((lo + hi) / 2, lo, hi, 8)
    return interval_at


def test_absolute_bounds_are_the_closed_forms():
    low, high, b = -0.02, 0.04, 0.1
    power = resolving_power("e", False, (-b, b), _shifted(low, high, False), 2 * b)
    step = TOLERANCE * 0.2
    assert power.held_up == pytest.approx(low + b, abs=step)
    assert power.caught_up == pytest.approx(high + b, abs=step)
    assert power.held_down == pytest.approx(b - high, abs=step)
    assert power.caught_down == pytest.approx(b - low, abs=step)


def test_relative_bounds_are_the_closed_forms():
    low, high, b = -0.01, 0.005, 0.05
    power = resolving_power("e", True, (-b, b), _shifted(low, high, True), 1.0)
    # up: (low + 1)/(1 + ε) − 1 = −b at the edge of holding; (high + 1)/(1 + ε) − 1 = −b
    assert power.held_up == pytest.approx((1 + low) / (1 - b) - 1, abs=TOLERANCE)
    assert power.caught_up == pytest.approx((1 + high) / (1 - b) - 1, abs=TOLERANCE)
    assert power.held_down == pytest.approx(1 - (1 + high) / (1 + b), abs=TOLERANCE)
    assert power.caught_down == pytest.approx(1 - (1 + low) / (1 + b), abs=TOLERANCE)
    assert "catches +" in power.describe() and "still holds (n = 8)" in power.describe()


def test_a_one_sided_band_catches_nothing_on_its_open_side():
    power = resolving_power("e", False, (-0.1, math.inf), _shifted(0.0, 0.02, False), 1.0)
    assert power.caught_down is None and power.held_down is not None
    assert power.caught_up == pytest.approx(0.12, abs=1e-3)


def test_a_claim_that_fails_holds_at_no_perturbation():
    power = resolving_power("e", False, (-0.1, 0.1), _shifted(0.2, 0.3, False), 0.2)
    assert power.held_up is None and power.held_down is None
    assert power.caught_up == 0.0
    assert "no perturbation holds" in power.describe()


def test_no_interval_no_resolving_power():
    assert resolving_power("e", True, (-0.1, 0.1), lambda perturb: None, 1.0) is None


def test_absolute_scale_is_the_band_else_the_prediction():
    assert absolute_scale((-0.1, 0.1), 5.0) == pytest.approx(0.2)
    assert absolute_scale((-math.inf, 0.1), 5.0) == 5.0
    assert absolute_scale((-math.inf, 0.1), 0.0) == 1.0


@given(low=st.floats(-0.5, 0.5), width=st.floats(0.0, 0.4), band=st.floats(0.01, 0.5),
       relative=st.booleans())
def test_held_lies_inside_and_caught_outside(low, width, band, relative):
    high = low + width
    interval_at = _shifted(low, high, relative)
    power = resolving_power("e", relative, (-band, band), interval_at, 2 * band)

    def position(epsilon, sign):
        factor = 1 + sign * epsilon
        return interval_at(lambda p: p * factor if relative
                           else p + sign * epsilon).position((-band, band))

    for sign, held, caught in ((1, power.held_up, power.caught_up),
                               (-1, power.held_down, power.caught_down)):
        if held is not None:
            assert position(held, sign) == "inside"
        if caught is not None:
            assert position(caught, sign) == "outside"
        if held is not None and caught is not None:
            assert held <= caught


def test_the_sequential_tests_evidence_carries_it():
    def run(seeds, theory, shown=True):
        return [Outcome("p", "m", "holds", values={
            "m": 1.0 + 0.01 * np.random.default_rng(seed).standard_normal(), "p": 1.0})
            for seed in seeds]

    estimate = Estimate("m", "p", (-0.05, 0.05), seeds=(8, 8))
    evidence, _ = decide(run, {}, 0, estimate)
    [power] = evidence.resolving
    assert 0.03 < power.held_up < power.caught_up < 0.07
    assert evidence.as_dict()["resolving_power"][0]["perturbation"] == "relative"


def test_the_shipped_record_is_the_kept_verify_numbers_and_the_theory_table():
    # one run writes both (docs/resolving_power.py, tests/verify_numbers.py): a record
    # re-made alone, or a table edited by hand, shows here
    import importlib.util
    import json
    from pathlib import Path

    from attndepth.framework.resolving import recorded_powers
    from tests.verify_numbers import _same, recorded

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("resolving_table",
                                                  root / "docs" / "resolving_power.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    record = json.loads(script.RECORD.read_text())["claims"]
    assert record and set(record) == set(recorded_powers())
    kept = recorded()
    for claim, entries in record.items():
        for k, entry in enumerate(entries):
            for key in ("held_up", "caught_up", "held_down", "caught_down", "n"):
                path = f"evidence.resolving_power[{k}].{key}"
                if isinstance(entry[key], int | float):
                    assert _same(kept[claim][path], entry[key], path), (claim, path)
    assert script.table(record) in (root / "docs" / "theory.md").read_text()


def test_explain_prints_the_recorded_resolving_power():
    from attndepth.framework.explaining import explain

    text = explain("yuzhang.linear-rate-fixed")
    assert "resolving   rel. error of the slope: catches +" in text
    assert "(quick preset, base seed 0)" in text
