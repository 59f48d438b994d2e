"""Pages generated at build time: the claims table (from the registry), the gallery and
the executed notebooks.

``python docs/generate.py`` writes them without building the site.
"""

from __future__ import annotations

import sys
import time
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
             # the style sheet gives this table's statement and tolerance room to read
             '<div class="claims-table">', "",
             "| claim | statement | source | tolerance | figure |",
             "|---|---|---|---|---|"]
    for claim_id, claim in all_claims().items():
        statement = claim.statement + (" *(conjecture)*" if claim.conjecture else "")
        lines.append(f"| `{claim_id}` | {_cell(statement)} | {_cell(claim.source)} | "
                     f"{_cell(claim.tolerance)} | {_cell(claim.figure or '')} |")
    return "\n".join(lines) + "\n\n</div>\n"


#: A directory of figures already drawn at the quick preset and seed 0 (the figure tests
#: save theirs there when ``.ci/run`` sets it); the gallery copies them instead of drawing.
DRAWN_FIGURES = "ATTNDEPTH_FIGURES_DIR"
#: CSS pixels per inch: a figure is shown at its printed size (3.25 or 6.75 in wide).
CSS_DPI = 96


def _drawn(name: str, out: Path) -> bool:
    """Copy figure ``name`` from :data:`DRAWN_FIGURES` into ``out``; whether it was there."""
    import os
    import shutil

    source = os.environ.get(DRAWN_FIGURES)
    if not source:
        return False
    paths = [Path(source) / f"{name}.{ext}" for ext in ("pdf", "png", "csv")]
    if not all(path.is_file() for path in paths):
        return False
    out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        shutil.copyfile(path, out / path.name)
    return True


def gallery(out: Path) -> str:
    """Every registered figure (quick preset, seed 0) at its printed size, with links to its
    PDF and CSV; figures the tests drew (:data:`DRAWN_FIGURES`) are reused, the others drawn."""
    import matplotlib.image

    from attndepth.figures.registry import all_figures, write_figure
    from attndepth.figures.style import PNG_DPI

    lines = ["# Gallery", "",
             "Every figure of `attndepth figures` at the quick preset, seed 0, drawn when",
             "this site was built, at its printed size (journal column widths). Each links",
             "its PDF and the CSV of its data. Apply the same style to your own figures",
             "with `plt.style.use(\"attndepth.figures.paper\")`.", ""]
    for name, module in all_figures().items():
        if _drawn(name, out):
            _say(f"  figure {name}: reused")
        else:
            _say(f"  figure {name}: drawn")
            write_figure(name, out, "quick", 0)
        height, width = matplotlib.image.imread(out / f"{name}.png").shape[:2]
        inches = width / PNG_DPI
        lines += [f"## {name}", "", module.DESCRIPTION + ".", "",
                  f"```{{image}} figures/{name}.png", f":alt: {name}",
                  f":width: {round(inches * CSS_DPI)}px", "```", "",
                  f"{{download}}`PDF <figures/{name}.pdf>` · "
                  f"{{download}}`CSV <figures/{name}.csv>`", ""]
    return "\n".join(lines + extra_figures(out))


#: The trained models drawn beside their initialisation in the gallery, and the sample.
TRAINED_FIGURE = ("observe-trained", ("minilm-l6", "smollm2-135m"), 16, 64)


def extra_figures(out: Path) -> list[str]:
    """The gallery's entries for the figures that need extras (not registered, since
    ``attndepth figures`` runs without them): :func:`trained_figure` and
    :func:`architecture_figure`."""
    return trained_figure(out) + architecture_figure(out)


def _unregistered_figure(out: Path, name: str, text: str, draw) -> list[str]:
    """A gallery entry: ``draw()`` returns (figure, data), or raises ImportError or
    MissingExtra where an extra is missing (the entry then says what)."""
    import matplotlib.image

    from attndepth.errors import MissingExtra
    from attndepth.figures.registry import save
    from attndepth.figures.style import PNG_DPI

    lines = [f"## {name}", "", text, ""]
    try:
        figure, data = draw()
    except (ImportError, MissingExtra) as error:
        _say(f"  figure {name}: not drawn ({str(error).splitlines()[0]})")
        return lines + [f"Not drawn when this site was built: {error}", ""]
    _say(f"  figure {name}: drawn")
    save(figure, data, name, out)
    height, width = matplotlib.image.imread(out / f"{name}.png").shape[:2]
    return lines + [f"```{{image}} figures/{name}.png", f":alt: {name}",
                    f":width: {round(width / PNG_DPI * CSS_DPI)}px", "```", "",
                    f"{{download}}`PDF <figures/{name}.pdf>` · "
                    f"{{download}}`CSV <figures/{name}.csv>`", ""]


def trained_figure(out: Path) -> list[str]:
    """The gallery's entry for ``attndepth observe --figure``: both trained models beside
    their initialisation (seed 0) on 16 windows of 64 tokens — or, where their packages
    are not installed, the command that draws it."""
    name, models, windows, tokens = TRAINED_FIGURE

    def draw():
        from attndepth.figures.trained_profiles import draw_profiles, profile_columns
        from attndepth.pytorch.pretrained import pretrained
        from attndepth.pytorch.profiles import layer_profile

        profiles = []
        for model in models:
            loaded = pretrained(model)
            profiles += [layer_profile(loaded, windows=windows, tokens=tokens, seed=0,
                                       initialised_seed=seed) for seed in (None, 0)]
        data = profile_columns(profiles)
        return draw_profiles(data), data

    return _unregistered_figure(out, name, "Trained models beside the same architectures "
                                "at their own initialisation, per layer, on windows of the "
                                "shipped text (`attndepth observe MODEL --figure DIR`; the "
                                "theory document's section on trained networks).", draw)


def architecture_figure(out: Path) -> list[str]:
    """The gallery's entry for :mod:`attndepth.figures.architecture_rates` at its quick
    size, seed 0 (needs the torch and hf extras)."""
    from attndepth.figures import architecture_rates

    def draw():
        from attndepth.pytorch.loading import load_transformers

        load_transformers()  # MissingExtra without torch and transformers
        data = architecture_rates.architecture_columns("quick", 0)
        return architecture_rates.draw_architecture_rates(data), data

    return _unregistered_figure(out, architecture_rates.NAME,
                                architecture_rates.DESCRIPTION[0].upper()
                                + architecture_rates.DESCRIPTION[1:] + " (the theory "
                                "document's section on the laws from the configuration).",
                                draw)


#: Sections of the API reference, in reading order: package, title. The front door comes
#: first; subpackages of a section are listed in it unless they have a section of their own.
API_SECTIONS = (
    ("attndepth", "Front door: the errors, the input checks, the pytest plugin"),
    ("attndepth.framework", "Claims framework: registry, families, search, report"),
    ("attndepth.claims", "The registered claims"),
    ("attndepth.theory", "Theory (SymPy)"),
    ("attndepth.simulations", "Simulations (NumPy, python-flint)"),
    ("attndepth.rank", "Separation rank: engines, methods, the atlas"),
    ("attndepth.pytorch", "PyTorch models: observe, architectures, the bridge (extra torch)"),
    ("attndepth.figures", "Figures (matplotlib)"),
    ("attndepth.cli", "Command line"),
)


def _modules(package: str) -> list[str]:
    """Every module below ``package`` (subpackages' modules too), except private ones
    and those of packages that have a section of their own; for ``attndepth`` itself,
    its top-level modules only."""
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


def api_pages() -> dict[str, str]:
    """The API reference: an index (``api/index.rst``) of sections, and one page per
    module (``api/<module>.rst``) from its numpydoc docstrings; nothing can go missing."""
    lines = ["API reference", "=============", "",
             "One page per module, from its numpydoc docstrings, the front door first. The",
             "names in ``attndepth.__all__`` are the stable public API; everything else may",
             "move between releases.", "",
             ".. automodule:: attndepth", "   :no-members:", ""]
    pages = {}
    for package, title in API_SECTIONS:
        modules = _modules(package)
        lines += [title, "-" * len(title), "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {name}" for name in modules] + [""]
        for name in modules:
            pages[f"{name}.rst"] = "\n".join([name, "=" * len(name), "",
                                              f".. automodule:: {name}", ""])
    pages["index.rst"] = "\n".join(lines)
    return pages


#: Below :data:`DRAWN_FIGURES`: each default claim's quick run as the tests ran it
#: (``<claim id>.json``, :func:`attndepth.framework.report.markdown_part`).
RUN_RESULTS = "results"


def _saved_parts(claim_ids: list[str]) -> dict[str, dict]:
    """The parts the quick-preset tests saved under :data:`DRAWN_FIGURES` (none without it)."""
    import json
    import os

    source = os.environ.get(DRAWN_FIGURES)
    if not source:
        return {}
    found = {}
    for claim_id in claim_ids:
        path = Path(source) / RUN_RESULTS / f"{claim_id}.json"
        if path.is_file():
            found[claim_id] = json.loads(path.read_text(encoding="utf-8"))
    return found


def results_page() -> str:
    """Every default claim run at the quick preset, base seed 0: ``attndepth verify --format
    markdown``, run when the site is built (never pasted). A claim the tests already ran so
    (:data:`RUN_RESULTS`) is taken from them; the others are run here."""
    from attndepth.framework.pool_runs import run_claims
    from attndepth.framework.registry import default_claims
    from attndepth.framework.report import join_markdown, markdown_part
    from attndepth.simulations.threads import available_cores

    claim_ids = default_claims()
    parts = _saved_parts(claim_ids)
    missing = [claim_id for claim_id in claim_ids if claim_id not in parts]
    _say(f"  {len(parts)} claims as the tests ran them, {len(missing)} run here")
    if missing:  # as `attndepth verify` runs them
        parts |= {r.id: markdown_part(r) for r in run_claims(missing, jobs=available_cores())}
    return "\n".join(["# Results", "",
                      "Every claim `attndepth verify` runs, at the quick preset and base seed 0, "
                      "run when this page was built. Verdict words: see the "
                      "{doc}`theory document <../theory>`.", "",
                      join_markdown([parts[claim_id] for claim_id in claim_ids]), ""])


def _conjecture_rows() -> list[str]:
    """One table row per atlas conjecture: support, refutations, the smallest refutation
    (from the quick run a test saved, :data:`RUN_RESULTS`, or run here)."""
    from attndepth.claims.rank_conjectures import CONJECTURES
    from attndepth.framework.running import run_claim

    rows = ["| conjecture | verdict | supporting classes | refuting classes | smallest "
            "refutation (d, L, H, ρ, \\|P\\|, \\|Q\\|) |", "|---|---|---|---|---|"]
    saved = _saved_parts(list(CONJECTURES))
    for claim_id in CONJECTURES:
        if "atlas" in saved.get(claim_id, {}):  # the quick run a test made
            values = saved[claim_id]["atlas"]
            verdict = values["verdict"]
        else:
            result = run_claim(claim_id, "quick")
            values, verdict = result.outcome.values, f"{result.verdict}"
        smallest = values["smallest_refutation"]
        rows.append(f"| `{claim_id}` | {verdict} | {values['support']} | "
                    f"{values['refutations']} | {tuple(smallest) if smallest else '—'} |")
    return rows


def _classes(count: int) -> str:
    return f"{count:,} class" + ("" if count == 1 else "es")


def _missing_classes(scope: list, table) -> list[str]:
    """The atlas page's section on the classes in scope that it lacks: those the machine
    reaches but no sweep has measured yet (each with the command that measures it), and
    those beyond its reach (the 2 GiB guard)."""
    from attndepth.rank.degree_blocks import MAX_BLOCK_POINTS

    keys = {row.key for row in table}
    missing = [c for c in scope if c.reachable and c.key not in keys]
    beyond = [c for c in scope if not c.reachable]
    lines = ["## Not in the atlas", ""]
    if missing:
        hours = sum(c.estimated_seconds for c in missing if not c.derived) / 3600
        lines += [f"**Reachable, not measured yet: {_classes(len(missing))}** (about {hours:.1f} "
                  "hours of estimate on 2 cores; `attndepth atlas spec --missing` writes "
                  "their sweep). Rows marked *derived* come with their ρ = 0 class.", "",
                  '<div class="atlas-table">', "",
                  "| (d, L, H, ρ, \\|P\\|, \\|Q\\|) | bound (d) | estimate | command |",
                  "|---|---|---|---|"]
        lines += [f"| {c.key} | {c.bounds.bigraded:,} | "
                  f"{'derived' if c.derived else _estimate(c.estimated_seconds)} | "
                  f"`{c.command()}` |" for c in missing]
        lines += ["", "</div>", ""]
    else:
        lines += ["Every class the machine reaches is in the atlas.", ""]
    if beyond:
        lines += [f"**Beyond reach: {_classes(len(beyond))}**, whose largest block exceeds "
                  f"the 2 GiB guard ({MAX_BLOCK_POINTS:,}² float64): "
                  + ", ".join(str(c.key) for c in beyond) + ".", ""]
    return lines


def _estimate(seconds: float) -> str:
    """An up-front estimate in minutes, or hours from two hours on."""
    return f"{seconds / 3600:.1f} h" if seconds >= 7200 else f"{seconds / 60:.0f} min"


def atlas_page(target: Path) -> str:
    """The atlas: coverage, the figure, the conjectures against it, and every row by width
    (from :func:`attndepth.atlas`; the CSV is copied next to the page for download)."""
    import collections
    import shutil
    from importlib import resources

    from attndepth.rank.atlas_classes import ATLAS_MAX_BOUND, atlas_classes
    from attndepth.rank.atlas_table import ATLAS_RESOURCE, atlas

    table = atlas()
    source = resources.files(ATLAS_RESOURCE[0]).joinpath(ATLAS_RESOURCE[1])
    with resources.as_file(source) as path:
        shutil.copyfile(path, target / "atlas.csv")
    certificates = collections.Counter(row.certificate for row in table)
    scope = atlas_classes()  # about 20 s: every class in scope, with its cost
    reachable = sum(c.reachable for c in scope)
    lines = [
        "# The separation-rank atlas", "",
        "One certified separation rank per size class (d, L, H, ρ, \\|P\\|, \\|Q\\|) of the "
        "analysed linear-attention network (Levine et al. 2020), with every proved bound and "
        "its certificate: **proved** (the rank met a proved upper bound), **saturated** (the "
        "grids stopped the rank from growing; equal to the generic rank except with the "
        "stated failure probability) or **lower bound**. Rows at \\|P\\| = d + 1 and "
        "\\|Q\\| = d stand for every larger size (the saturation lemma in "
        "`attndepth.rank.atlas_classes`).", "",
        "```python",
        "import attndepth",
        "table = attndepth.atlas()               # every row; table.to_pandas() with pandas",
        "table.find(4, 3, 1, 0, 2, 2)            # d, L, H, rho, |P|, |Q|",
        "```", "",
        "Regenerate it (resumable; a killed sweep keeps every finished class):", "",
        "```bash",
        "attndepth atlas spec                                   # examples/atlas/atlas.toml",
        "attndepth sweep examples/atlas/atlas.toml --store atlas.sqlite --workers 2",
        "attndepth atlas export --store atlas.sqlite             # the shipped CSV",
        "```", "",
        "To complete the shipped atlas instead, `attndepth atlas spec --missing --out "
        "rest.toml` writes a sweep of the classes it lacks; `attndepth atlas export` "
        "joins the new rows to the file's. The ρ = 1 classes that only the degree blocks "
        "of ρ = 0 reach are not swept: the export writes them from the ρ = 0 rows (the same "
        "measurement).", "",
        f"**Coverage.** {len(table):,} classes of the {reachable:,} the machine reaches "
        f"(the {len(scope):,} in scope — bound (d) ≤ {ATLAS_MAX_BOUND:,}, d ≤ 8, L ≤ 5 — "
        f"less {len(scope) - reachable} beyond the 2 GiB guard); "
        f"{certificates['proved']:,} proved, {certificates['saturated']:,} "
        f"saturated, {certificates['lower-bound']:,} lower bounds; largest rank "
        f"{max(row.rank for row in table):,}; "
        f"{sum(row.seconds for row in table) / 3600:.1f} hours to run every row's command "
        f"again. "
        f"{{download}}`The whole atlas as CSV <atlas.csv>` (with each row's command).", "",
        "```{image} figures/atlas.png", ":alt: rank / bound (d) of every atlas class",
        ":width: 648px", "```", "",
        "## Conjectures against the whole atlas", "",
        "Each is a registered claim (`attndepth verify --claim ID`); its note names the "
        "smallest refutation with the command that measures it again, and "
        "`attndepth verify --search --claim ID` visits every atlas row of its domain.", "",
        *_conjecture_rows(), "",
        *_missing_classes(scope, table)]
    for width in sorted({row.width for row in table}):
        lines += [f"## d = {width}", "", '<div class="atlas-table">', "",
                  "| L | H | ρ | \\|P\\| | \\|Q\\| | rank | bound (d) | deficit | "
                  "certificate | failure prob. | short blocks [a, rank, bound] |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in table.where(width=width):
            probability = ("" if row.failure_probability is None
                           else f"{row.failure_probability:.1e}" if row.failure_probability
                           else "0")
            blocks = " ".join(f"[{a}, {r:,}, {b:,}]" for a, r, b in row.short_blocks)
            lines.append(f"| {row.depth} | {row.heads} | {row.residual} | {row.p_size} | "
                         f"{row.q_size} | {row.rank:,} | {row.bound_bigraded:,} | "
                         f"{row.deficit:,} | {row.certificate} | {probability} | {blocks} |")
        lines += ["", "</div>", ""]
    return "\n".join(lines)


NOTEBOOKS = Path(__file__).resolve().parent.parent / "examples" / "notebook"


def _run_cell(source: str, namespace: dict) -> tuple[str, object]:
    """Execute one code cell as a notebook does: its printed text, and the value of its
    last line when that is an expression (None otherwise)."""
    import ast
    import contextlib
    import io

    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, "<cell>", "exec"), namespace)
        value = (eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)
                 if last is not None else None)
    return printed.getvalue(), value


def notebook_page(notebook: Path, out: Path) -> str:
    """One notebook executed, as a Markdown page: its Markdown cells, its code, what each
    cell printed, the rich view of its last value (``_repr_html_``, else ``repr``) and
    the figures it drew (saved under ``out``). Claims the notebook registers are removed
    again, so that the claims table shows attndepth's own."""
    import json
    import shutil

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attndepth.framework import registry

    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(notebook, out / notebook.name)
    parts: list[str] = []
    namespace: dict = {"__name__": "__main__"}
    before = set(registry.all_claims())  # the built-in ones loaded: they stay
    drawn = 0
    try:
        with matplotlib.rc_context():
            for cell in json.loads(notebook.read_text())["cells"]:
                source = "".join(cell["source"])
                if cell["cell_type"] == "markdown":
                    parts.append(source)
                    if not parts[:-1]:  # under the title: where to get the notebook
                        parts.append(f"Executed when the documentation was built; "
                                     f"{{download}}`download the notebook <{notebook.name}>` "
                                     f"(`examples/notebook/{notebook.name}`).")
                    continue
                parts.append(f"```python\n{source}\n```")
                printed, value = _run_cell(source, namespace)
                if printed:
                    parts.append(f"```text\n{printed.rstrip()}\n```")
                if hasattr(value, "_repr_html_"):
                    parts.append(f"```{{raw}} html\n{value._repr_html_()}\n```")
                elif value is not None and not hasattr(value, "figure"):
                    parts.append(f"```text\n{value!r}\n```")
                for number in plt.get_fignums():
                    drawn += 1
                    name = f"{notebook.stem}-{drawn}.png"
                    plt.figure(number).savefig(out / name, dpi=150, bbox_inches="tight")
                    parts.append(f"![a figure the cell drew]({name})")
                plt.close("all")
    finally:
        for added in set(registry._REGISTRY) - before:
            del registry._REGISTRY[added]
    return "\n\n".join(parts) + "\n"


def notebook_pages(out: Path) -> dict[str, str]:
    """Every notebook of ``examples/notebook`` executed (:func:`notebook_page`), and an
    index: file name -> page."""
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    pages = {f"{path.stem}.md": notebook_page(path, out) for path in notebooks}
    pages["index.md"] = ("# Notebooks\n\nWhat a theorist does with attndepth in a notebook, "
                         "executed when this documentation was built.\n\n```{toctree}\n"
                         ":maxdepth: 1\n\n" + "\n".join(path.stem for path in notebooks)
                         + "\n```\n")
    return pages


def write_generated(target: Path) -> None:
    """Write ``claims.md``, ``results.md``, ``api/`` (an index and a page per module),
    ``gallery.md`` (with its figures), ``atlas.md`` (with its CSV) and ``notebooks/``
    (each notebook executed, and an index) under ``target``."""
    import shutil

    target.mkdir(parents=True, exist_ok=True)
    _say("the claims table")
    (target / "claims.md").write_text(claims_table())
    _say("the results: every claim at its quick preset (about 20 s on 2 cores)")
    (target / "results.md").write_text(results_page())
    shutil.rmtree(target / "api", ignore_errors=True)  # no page of a module since removed
    (target / "api").mkdir()
    _say("the API pages")
    for name, text in api_pages().items():
        (target / "api" / name).write_text(text)
    _say("the gallery (figures the tests drew are reused: $" + DRAWN_FIGURES + ")")
    (target / "gallery.md").write_text(gallery(target / "figures"))
    _say("the atlas page")
    (target / "atlas.md").write_text(atlas_page(target))
    _say("the notebooks, each executed")
    for name, text in notebook_pages(target / "notebooks").items():
        (target / "notebooks" / name).write_text(text)
    _say("done")


_START = time.monotonic()


def _say(step: str) -> None:
    """One line of the build's progress on stderr, with the seconds since it began."""
    print(f"docs [{time.monotonic() - _START:5.0f} s] {step}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    write_generated(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
                    / "_generated")
