"""The public API: every name in ``attndepth.__all__`` resolves, lazily."""

import math
import subprocess
import sys

import numpy as np
import pytest

import attndepth


@pytest.mark.parametrize("name", attndepth.__all__)
def test_public_name_resolves(name):
    assert getattr(attndepth, name) is not None
    assert name in dir(attndepth)


def test_required_names_are_public():
    assert {"Claim", "Outcome", "register", "run_claim", "run_claims", "StackConfig",
            "run_stack", "SeparationRankConfig", "measure_rank",
            "separation_rank_bounds"} <= set(attndepth.__all__)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="attribute not_a_name"):
        attndepth.not_a_name  # noqa: B018


def test_import_loads_no_layer():
    code = "import sys, attndepth; print(any(m.startswith('attndepth.') for m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr


def test_the_public_api_is_named_once_in_the_stub_static_tools_read():
    """``__init__.pyi`` names each public name once, re-exported (``name as name``) from
    the module that defines it; ``__all__`` is built from it."""
    import ast
    import importlib
    from pathlib import Path

    stub = Path(attndepth.__file__).with_suffix(".pyi")
    tree = ast.parse(stub.read_text())
    names = [(alias.name, alias.asname, node.module) for node in tree.body
             if isinstance(node, ast.ImportFrom) for alias in node.names]
    assert all(name == asname for name, asname, _ in names)
    assert sorted(name for name, _, _ in names) == sorted(attndepth.__all__)
    assert len({name for name, _, _ in names}) == len(names)
    for name, _, module in names:  # defined where the stub says, not merely passed through
        assert getattr(importlib.import_module(f"attndepth.{module}"), name) \
            is getattr(attndepth, name)


#: A small valid call of each public function; the walk replaces one argument at a time.
API_CALLS = {
    "separation_rank_bounds": lambda: dict(width=2, depth=2, p_size=1, q_size=1),
    "threshold_depth": lambda: dict(width=8),
    "postln_rate": lambda: dict(s=0.5, width=16),
    "plan_for_budget": lambda: dict(budget=1e9),
    "run_stack": lambda: dict(config=attndepth.StackConfig(variant="post-ln", depth=2,
                                                           tokens=2, width=4),
                              batch=2, seed=0),
    "measure_rank": lambda: dict(config=attndepth.SeparationRankConfig(width=2, depth=1,
                                                                       tokens=2)),
    "rank_with_bounds": lambda: dict(config=attndepth.SeparationRankConfig(width=2, depth=1,
                                                                           tokens=2)),
    "certified_rank": lambda: dict(config=attndepth.SeparationRankConfig(width=2, depth=1,
                                                                         tokens=2),
                                   seed=0, bound=3),
    "run_claim": lambda: dict(claim_id="levine.degree"),
    "run_claims": lambda: dict(claim_ids=["levine.degree"]),
    "explain": lambda: dict(claim_id="levine.degree"),
    "escalation_rate": lambda: dict(log_odds=np.linspace(0, 60, 64)),
    "atlas": lambda: {},
}
EXTREMES = [10**30, -1, 0, 1e-320, 1e400, math.nan, math.inf, "", "é", None, True, [],
            object()]


@pytest.mark.parametrize("name", sorted(API_CALLS))
def test_every_argument_of_the_public_functions_takes_extreme_values(name):
    """Each argument replaced by each extreme value: a result or an attndepth error (a
    ValueError or TypeError), never another exception; ``claim_ids=None`` or ``[]``
    means every claim, so run_claims' ids are tried with the values that are errors."""
    import inspect
    import warnings

    from attndepth.errors import AttndepthError

    function = getattr(attndepth, name)
    problems = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL):
            continue
        for value in EXTREMES:
            if name == "run_claims" and parameter.name == "claim_ids" \
                    and value in (None, [], ""):
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    function(**{**API_CALLS[name](), parameter.name: value})
            except AttndepthError as error:
                assert isinstance(error, ValueError | TypeError)
            except Exception as error:  # noqa: BLE001 - what the walk is looking for
                problems.append(f"{parameter.name}={value!r}: {type(error).__name__}: "
                                f"{str(error)[:80]}")
    assert not problems, "\n".join(problems)


def test_the_walk_calls_only_public_functions():
    assert set(API_CALLS) <= set(attndepth.__all__)
