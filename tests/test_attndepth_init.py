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


def test_all_is_a_literal_that_static_tools_can_read():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(attndepth.__file__).read_text())
    [literal] = [node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(t, "id", "") == "__all__" for t in node.targets)]
    assert isinstance(literal, ast.List)
    assert [element.value for element in literal.elts] == sorted(attndepth._PUBLIC)
    # and every public name is imported under TYPE_CHECKING from the module _PUBLIC names
    [guarded] = [node for node in tree.body if isinstance(node, ast.If)
                 and getattr(node.test, "id", "") == "TYPE_CHECKING"]
    imported = {alias.name: statement.module for statement in guarded.body
                for alias in statement.names}
    assert imported == attndepth._PUBLIC
