"""examples/notebook/tour.ipynb: a valid notebook whose cells run in order."""

import json
from pathlib import Path

import matplotlib

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "notebook" / "tour.ipynb"


def test_the_notebook_is_nbformat_4_and_kept_without_outputs():
    document = json.loads(NOTEBOOK.read_text())
    assert document["nbformat"] == 4
    kinds = {cell["cell_type"] for cell in document["cells"]}
    assert kinds == {"markdown", "code"}
    assert all(cell["outputs"] == [] for cell in document["cells"]
               if cell["cell_type"] == "code")


def test_every_code_cell_runs_in_order_and_the_last_expressions_show_themselves():
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace: dict = {}
    with matplotlib.rc_context():  # the notebook sets the house style: not for other tests
        for cell in json.loads(NOTEBOOK.read_text())["cells"]:
            if cell["cell_type"] == "code":
                exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)
    plt.close("all")
    assert (namespace["result"].verdict, namespace["result"].preset_verdict) == (
        "fails", "holds")
    assert namespace["row"].rank == 275 and namespace["row"].bound_bigraded == 280
    assert repr(namespace["trajectory"]).startswith("Trajectory(4 stacks")
