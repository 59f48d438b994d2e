"""One import name, and the dependency direction between its layers.

Layers: ``attndepth.theory`` (SymPy) and ``attndepth.simulations`` (NumPy)
never import each other; neither imports ``attndepth.figures`` or the front
door (the other ``attndepth`` modules); figures never import the front door.
"""

import ast
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("theory", "simulations", "figures")
FRONT_DOOR = "front-door"


def _imported(path: Path) -> set[str]:
    """Layers (or plain top-level modules) ``path`` imports; attndepth.X counts as X."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] == "attndepth":
                names.add(parts[1] if len(parts) > 1 and parts[1] in LAYERS else FRONT_DOOR)
            else:
                names.add(parts[0])
    return names


def _sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("folder, forbidden", [
    ("theory", {"simulations", "figures", FRONT_DOOR, "numpy", "matplotlib", "flint"}),
    ("simulations", {"theory", "figures", FRONT_DOOR, "sympy", "matplotlib"}),
    ("figures", {FRONT_DOOR}),
])
def test_layer_imports(folder, forbidden):
    for path in _sources(folder):
        wrong = _imported(path) & forbidden
        assert not wrong, f"{path.name} imports {wrong}"


@pytest.mark.parametrize("folder", ["attndepth", *LAYERS, "tests", "bench"])
def test_nothing_imports_a_bare_layer_name(folder):
    # `import theory` would pick up a user's own theory.py first: always attndepth.theory.
    for path in _sources(folder):
        assert not [name for name in LAYERS if _bare_import(path, name)], path


def _bare_import(path: Path, name: str) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == name for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == name:
            return True
    return False


def test_main_job_needs_no_test_dependencies():
    # `pip install -e . && attndepth verify` must work without the test extra:
    # only simulations/testing.py (the public strategies), the pytest plugin and
    # the random phase of verify --search (imported inside it, extra "search") may
    # import hypothesis or pytest.
    for folder in ("attndepth", *LAYERS):
        for path in _sources(folder):
            if path.name in ("testing.py", "pytest_plugin.py", "search.py"):
                continue
            assert not (_imported(path) & {"hypothesis", "pytest"}), path


def test_installed_distribution_owns_one_import_name(tmp_path):
    # A fresh virtual environment (reusing this one's dependencies), a regular
    # (non-editable) install, run from a directory outside the repository.
    source = tmp_path / "source"  # setuptools builds in the source tree: keep ours clean
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".hypothesis", "figures-out", "docs/_build"))
    env = tmp_path / "venv"
    venv.create(env, system_site_packages=True, with_pip=True)
    python = env / "bin" / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps",
         "--target", tmp_path / "site", str(source)],
        capture_output=True, text=True, cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    top_level = {path.name for path in (tmp_path / "site").iterdir()
                 if not path.name.endswith((".dist-info", ".egg-info")) and path.name != "bin"}
    assert top_level == {"attndepth"}
    probe = (
        "import importlib.util, sys\n"
        f"sys.path.insert(0, {str(tmp_path / 'site')!r})\n"
        "import attndepth.theory, attndepth.simulations, attndepth.figures\n"
        "import attndepth.theory.zoo as zoo\n"
        "assert attndepth.theory.__file__.startswith(sys.path[0]), attndepth.theory.__file__\n"
        "assert len(zoo.load_zoo()) > 10\n"
        "import matplotlib.pyplot as plt\n"
        "plt.style.use('attndepth.figures.paper')\n"
        "names = ('theory', 'simulations', 'figures')\n"
        "print(*(importlib.util.find_spec(name) is None for name in names))\n"
    )
    run = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "True"]
    # The editable install (pip install -e) maps the three folders the same way.
    editable = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-deps", "-e",
                               str(source)], capture_output=True, text=True, cwd=tmp_path)
    assert editable.returncode == 0, editable.stderr
    probe = (
        "import importlib.util, attndepth.theory, attndepth.simulations, attndepth.figures\n"
        f"assert attndepth.theory.__file__.startswith({str(source)!r}), attndepth.theory.__file__\n"
        "print(*(importlib.util.find_spec(n) is None for n in ('theory', 'simulations', "
        "'figures')))\n"
    )
    run = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "True"]


def test_only_the_backend_module_imports_jax():
    # the train extra is optional: one module may import JAX, and only inside functions
    importers = [path.relative_to(ROOT).as_posix() for folder in ("attndepth", *LAYERS)
                 for path in _sources(folder) if "jax" in _imported(path)]
    assert importers == ["simulations/jax_stack.py"], importers
    tree = ast.parse((ROOT / "simulations" / "jax_stack.py").read_text())
    top_level = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert not any("jax" in ast.dump(node) for node in top_level
                   if "attndepth" not in ast.dump(node))
