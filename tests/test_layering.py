"""One import name, and the dependency direction between its layers.

Layers: ``attndepth.theory`` (SymPy) and ``attndepth.simulations`` (NumPy)
never import each other; ``attndepth.rank`` (separation rank) builds on both;
none of them imports ``attndepth.figures`` or the front door (the other
``attndepth`` modules); figures never import the front door but the claims'
presets, the sizes a figure shares with its claim.
Every layer may import ``attndepth.errors`` and ``attndepth.validation``, which
import no layer themselves. The contracts that say so are import-linter's, in
pyproject.toml; the rest (bare layer names, test-only imports) is checked here.
"""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "attndepth"
LAYERS = ("theory", "simulations", "rank", "pytorch", "figures")
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
            if parts[0] == "attndepth" and parts[1:2] in (["errors"], ["validation"]):
                continue  # the error vocabulary and the input checks: every layer uses them
            if parts[0] == "attndepth":
                names.add(parts[1] if len(parts) > 1 and parts[1] in LAYERS else FRONT_DOOR)
            else:
                names.add(parts[0])
    return names


def _sources(folder: str) -> list[Path]:
    """The modules of a layer, of the front door (``attndepth``: the package less its
    layers), or of a folder at the repository's top (``tests``, ``bench``)."""
    if folder in LAYERS:
        return sorted((PACKAGE / folder).rglob("*.py"))
    if folder == "attndepth":
        return sorted(path for path in PACKAGE.rglob("*.py")
                      if path.relative_to(PACKAGE).parts[0] not in LAYERS)
    return sorted((ROOT / folder).rglob("*.py"))


def test_the_layer_contracts_hold(capsys, monkeypatch):
    """The contracts of pyproject.toml's [tool.importlinter], checked by import-linter
    (pip's test extra): theory, simulations, rank and figures import only what they may."""
    from importlinter.cli import lint_imports

    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True)
    report = capsys.readouterr().out
    assert code == 0, report
    assert "7 kept, 0 broken" in report


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
    # only src/attndepth/simulations/testing.py (the public strategies), the pytest plugin and
    # the random phase of verify --search (imported inside it, extra "search") may
    # import hypothesis or pytest.
    for folder in ("attndepth", *LAYERS):
        for path in _sources(folder):
            if path.name in ("testing.py", "pytest_plugin.py", "search.py"):
                continue
            assert not (_imported(path) & {"hypothesis", "pytest"}), path


@pytest.mark.slow
def test_installed_distribution_owns_one_import_name(tmp_path):
    # A regular (non-editable) install into a folder of its own, imported by this
    # interpreter (its dependencies are this environment's) from outside the repository.
    source = tmp_path / "source"  # setuptools builds in the source tree: keep ours clean
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".hypothesis", "figures-out", "_build",
        ".mypy_cache", ".ruff_cache", ".pytest_cache"))
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--target", tmp_path / "site", str(source)],
        capture_output=True, text=True, cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    top_level = {path.name for path in (tmp_path / "site").iterdir()
                 if not path.name.endswith((".dist-info", ".egg-info")) and path.name != "bin"}
    assert top_level == {"attndepth"}
    assert (tmp_path / "site" / "attndepth" / "py.typed").is_file()
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
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True", "True"]


def test_no_module_is_importable_under_a_second_name():
    # From the repository's root (where pytest puts "." on sys.path for bench/) the
    # layers exist only as attndepth.theory etc.: one file, one module, one registry.
    probe = (
        "import importlib.util, sys\n"
        "sys.path.insert(0, '.')\n"
        "import attndepth\n"
        "print(*(importlib.util.find_spec(n) is None for n in ('theory', 'simulations', "
        "'figures', 'claims', 'cli')), attndepth.__file__)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr
    *missing, origin = run.stdout.split()
    assert missing == ["True"] * 5
    assert Path(origin).is_relative_to(PACKAGE)


def test_only_the_backend_module_imports_jax():
    # the train extra is optional: one module may import JAX, and only inside functions
    importers = [path.relative_to(ROOT).as_posix() for folder in ("attndepth", *LAYERS)
                 for path in _sources(folder) if "jax" in _imported(path)]
    assert importers == ["src/attndepth/simulations/models/jax_stack.py"], importers
    tree = ast.parse((PACKAGE / "simulations" / "models" / "jax_stack.py").read_text())
    top_level = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    assert not any("jax" in ast.dump(node) for node in top_level
                   if "attndepth" not in ast.dump(node))


def test_only_the_pytorch_layer_imports_torch_and_only_inside_functions():
    # the torch and hf extras are optional: `import attndepth.pytorch.observe` works without
    # them, and says which extra to install when a function needs one
    optional = {"torch", "transformers"}
    importers = sorted({path.relative_to(PACKAGE).parts[0] for folder in ("attndepth", *LAYERS)
                        for path in _sources(folder) if _imported(path) & optional})
    assert importers == ["pytorch"], importers
    for path in (PACKAGE / "pytorch").rglob("*.py"):
        top_level = [node for node in ast.parse(path.read_text()).body
                     if isinstance(node, ast.Import | ast.ImportFrom)]
        assert not [node for node in top_level
                    if {alias.name.split(".")[0] for alias in node.names} & optional
                    or (isinstance(node, ast.ImportFrom) and node.module
                        and node.module.split(".")[0] in optional)], path


def test_the_error_vocabulary_imports_nothing_of_attndepth():
    # the standard library only: every layer may import it
    assert not _imported(PACKAGE / "errors.py") & {FRONT_DOOR, *LAYERS}
    assert all(name in sys.stdlib_module_names for name in _imported(PACKAGE / "errors.py"))


def test_the_command_line_hub_is_thin_and_nothing_imports_it():
    """``cli/main.py`` assembles the subcommands and maps errors to exit codes; each
    subcommand lives in its own module and shares plumbing through ``cli/_parsing``."""
    main = PACKAGE / "cli" / "main.py"
    assert len(main.read_text().splitlines()) < 200
    for path in PACKAGE.rglob("*.py"):
        if path == main:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module != "attndepth.cli.main", f"{path} imports cli.main"
            elif isinstance(node, ast.Import):
                assert all(a.name != "attndepth.cli.main" for a in node.names), path


def test_the_shared_checks_import_no_layer_and_numpy_only_when_checking_arrays():
    """``attndepth.validation`` sits beside ``errors``: the SymPy-only theory imports it."""
    tree = ast.parse((PACKAGE / "validation.py").read_text())
    top = {alias.name.split(".")[0] if isinstance(node, ast.Import) else node.module
           for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
           for alias in node.names}
    assert top <= {"__future__", "math", "numbers", "typing", "attndepth.errors"}, top


def _import_graph():
    """Every attndepth module and the attndepth modules it imports (at the top or inside
    a function: a circle through a deferred import is still a circle), by grimp, the
    graph import-linter checks its contracts on."""
    import grimp

    graph = grimp.build_graph("attndepth", cache_dir=None)
    return {module: {imported for imported in graph.find_modules_directly_imported_by(module)
                     if imported.split(".")[0] == "attndepth"}
            for module in graph.modules}, graph


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_the_circle_finder_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others():
    modules, _ = _import_graph()
    assert _circles(modules) == []


def test_no_two_subpackages_import_each_other():
    """Folder by folder too: ``rank.arithmetic`` may use ``simulations.threads``, but
    no folder's modules import a folder whose modules import them back. The imports a
    layering contract allows by name (``ignore_imports`` in pyproject.toml: the figures
    read the claims' presets, a module that imports nothing) are left out."""
    import tomllib

    modules, graph = _import_graph()
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    allowed = [tuple(part.strip() for part in rule.split("->"))
               for contract in contracts["contracts"]
               for rule in contract.get("ignore_imports", [])]
    assert allowed and all(importer.endswith(".**") for importer, _ in allowed)
    for importer, imported in allowed:
        assert not modules[imported], f"{imported}, allowed by name, imports {modules[imported]}"
        for module in modules:
            if module.startswith(importer.removesuffix("**")):
                modules[module].discard(imported)

    def folder(module: str) -> str:
        return module if graph.find_children(module) else module.rpartition(".")[0]

    folders: dict[str, set[str]] = {}
    for module, imported in modules.items():
        for other in imported:
            a, b = folder(module), folder(other)
            if not (a == b or a.startswith(b + ".") or b.startswith(a + ".")):
                folders.setdefault(a, set()).add(b)
    assert _circles(folders) == []
