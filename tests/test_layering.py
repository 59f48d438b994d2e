"""The dependency direction of DESIGN.md: theory and simulations never import each other."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package, forbidden", [
    ("theory", {"simulations", "attndepth", "figures", "numpy", "matplotlib", "flint"}),
    ("simulations", {"theory", "attndepth", "figures", "sympy", "matplotlib"}),
])
def test_layer_imports(package, forbidden):
    for path in (ROOT / package).glob("*.py"):
        assert not (_imports(path) & forbidden), f"{path.name} imports {_imports(path) & forbidden}"


def test_main_job_needs_no_test_dependencies():
    # `pip install -e . && attndepth verify` must work without the test extra:
    # only simulations/testing.py (the public strategies) may import hypothesis.
    for package in ("attndepth", "simulations", "theory", "figures"):
        for path in (ROOT / package).glob("*.py"):
            if path.name == "testing.py":
                continue
            assert not (_imports(path) & {"hypothesis", "pytest"}), path
