"""examples/notebook/*.ipynb: valid notebooks whose cells run in order."""

import json
from pathlib import Path

import matplotlib
import pytest

FOLDER = Path(__file__).resolve().parent.parent / "examples" / "notebook"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))


def _run(notebook: Path) -> dict:
    """Execute the code cells in order in one namespace (claims they register are removed
    again afterwards, so that other tests see attndepth's registry)."""
    from attndepth.framework import registry

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before = set(registry.all_claims())  # the built-in ones loaded: they stay
    namespace: dict = {}
    try:
        with matplotlib.rc_context():  # the notebooks set the house style: not for others
            for cell in json.loads(notebook.read_text())["cells"]:
                if cell["cell_type"] == "code":
                    exec(compile("".join(cell["source"]), str(notebook), "exec"), namespace)
    finally:
        plt.close("all")
        for added in set(registry._REGISTRY) - before:
            del registry._REGISTRY[added]
    return namespace


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_each_notebook_is_nbformat_4_and_kept_without_outputs(notebook):
    document = json.loads(notebook.read_text())
    assert document["nbformat"] == 4
    kinds = {cell["cell_type"] for cell in document["cells"]}
    assert kinds == {"markdown", "code"}
    assert all(cell["outputs"] == [] for cell in document["cells"]
               if cell["cell_type"] == "code")


def test_the_tour_runs_and_its_last_expressions_show_themselves():
    namespace = _run(FOLDER / "tour.ipynb")
    assert (namespace["result"].verdict, namespace["result"].preset_verdict) == (
        "fails", "holds")
    assert namespace["row"].rank == 275 and namespace["row"].bound_bigraded == 280
    assert repr(namespace["trajectory"]).startswith("Trajectory(4 stacks")


def test_a_conjecture_of_your_own_is_indistinguishable_at_its_preset_and_refuted():
    namespace = _run(FOLDER / "own_claim.ipynb")
    assert namespace["result"].verdict == "indistinguishable"
    assert namespace["narrow"].verdict == "fails"
    summary = namespace["report"].summary()
    assert "Smallest counterexample: overlap=0.25, width=64" in summary
    assert "run_claim('mine.half-point'" in summary  # a session's claim: the Python call
