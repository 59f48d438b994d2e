"""Pages generated at build time: the claims table (from the registry) and the gallery.

``python docs/generate.py`` writes them without building the site.
"""

from __future__ import annotations

import sys
from pathlib import Path


def _cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, one line."""
    return " ".join(str(text).split()).replace("|", "\\|")


def claims_table() -> str:
    """Every registered claim: id, statement, source, tolerance, quick verdict inputs."""
    from attndepth.framework.registry import all_claims

    lines = ["# Claims", "",
             "Generated from the registry (`attndepth.framework.registry.all_claims`).",
             "Run them with `attndepth verify`; see where one lives with",
             "`attndepth verify --explain ID`.",
             "The [theory](../theory.md) states and discusses each one.", "",
             "| claim | statement | source | tolerance | figure |",
             "|---|---|---|---|---|"]
    for claim_id, claim in all_claims().items():
        statement = claim.statement + (" *(conjecture)*" if claim.conjecture else "")
        lines.append(f"| `{claim_id}` | {_cell(statement)} | {_cell(claim.source)} | "
                     f"{_cell(claim.tolerance)} | {_cell(claim.figure or '')} |")
    return "\n".join(lines) + "\n"


def gallery(out: Path) -> str:
    """Draw every registered figure (quick preset, seed 0) and a page showing them."""
    from attndepth.figures.registry import all_figures, write_figure

    lines = ["# Gallery", "",
             "Every figure of `attndepth figures` at the quick preset, seed 0, drawn when",
             "this page was built. Each is also written as PDF and as the CSV of its data.",
             "Apply the same style to your own figures with",
             "`plt.style.use(\"attndepth.figures.paper\")`.", ""]
    for name, module in all_figures().items():
        write_figure(name, out, "quick", 0)
        lines += [f"## {name}", "", module.DESCRIPTION + ".", "",
                  f"![{name}](figures/{name}.png)", ""]
    return "\n".join(lines)


#: Sections of the API page: package, title. Subpackages of a section are listed
#: in it unless they have a section of their own.
API_SECTIONS = (
    ("attndepth.framework", "Claims framework: registry, families, search, report"),
    ("attndepth.claims", "The registered claims"),
    ("attndepth.cli", "Command line"),
    ("attndepth.theory", "Theory (SymPy)"),
    ("attndepth.simulations", "Simulations (NumPy, python-flint)"),
    ("attndepth.figures", "Figures (matplotlib)"),
    ("attndepth", "Front door: separation ranks with bounds, the pytest plugin"),
)


def _modules(package: str) -> list[str]:
    """Every module below ``package`` (subpackages' modules too), except private ones
    and those of packages that have a section of their own."""
    import importlib
    import pkgutil

    own = {name for name, _ in API_SECTIONS if name.startswith(package + ".")}
    path = importlib.import_module(package).__path__
    names = []
    for info in pkgutil.walk_packages(path, prefix=package + "."):
        if info.ispkg or any(info.name == o or info.name.startswith(o + ".") for o in own) \
                or any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    return sorted(names)


def api_page() -> str:
    """An automodule entry for every module of every layer (nothing can go missing)."""
    lines = ["API reference", "=============", "",
             "Every module, from its numpydoc docstrings. The names in ``attndepth.__all__``",
             "are the stable public API; everything else may move between releases.", "",
             ".. automodule:: attndepth", "   :no-members:", ""]
    for package, title in API_SECTIONS:
        lines += [title, "-" * len(title), ""]
        for name in _modules(package):
            lines += [f".. automodule:: {name}", ""]
    return "\n".join(lines)


def results_page() -> str:
    """Every default claim run at the quick preset, base seed 0: ``attndepth verify --format
    markdown``, run when the site is built (never pasted)."""
    from attndepth.framework.registry import run_claims
    from attndepth.framework.report import render_markdown

    results = run_claims()
    return "\n".join(["# Results", "",
                      "Every claim `attndepth verify` runs, at the quick preset and base seed 0, "
                      "run when this page was built. Verdict words: see the "
                      "{doc}`theory document <../theory>`.", "",
                      render_markdown(results), ""])


def write_generated(target: Path) -> None:
    """Write ``claims.md``, ``results.md``, ``api.rst`` and ``gallery.md`` (with its
    figures) under ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    (target / "claims.md").write_text(claims_table())
    (target / "results.md").write_text(results_page())
    (target / "api.rst").write_text(api_page())
    (target / "gallery.md").write_text(gallery(target / "figures"))


if __name__ == "__main__":
    write_generated(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
                    / "_generated")
