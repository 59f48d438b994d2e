"""The public API: every name in ``attndepth.__all__`` resolves, lazily."""

import subprocess
import sys

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
    with pytest.raises(AttributeError, match="no attribute"):
        attndepth.not_a_name  # noqa: B018


def test_import_loads_no_layer():
    code = "import sys, attndepth; print(any(m.startswith('attndepth.') for m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip() == "False", run.stderr
