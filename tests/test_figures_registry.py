import ast
import csv
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from attndepth.figures import registry
from attndepth.figures.registry import all_figures, write_csv, write_figure

FIGURES = Path(registry.__file__).parent


def test_every_figure_module_is_found_in_the_theory_documents_order():
    """Discovery, not a list: every module of attndepth.figures defining compute and draw
    is a figure, listed by its SECTION."""
    defined = set()
    for path in FIGURES.glob("*.py"):
        tree = ast.parse(path.read_text())
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        if {"compute", "draw"} <= functions:
            defined.add(path.stem)
    assert defined == {module.__name__.rsplit(".", 1)[1] for module in all_figures().values()}
    assert all(module.DESCRIPTION for module in all_figures().values())
    sections = [module.SECTION for module in all_figures().values()]
    assert sections == sorted(sections) and len(set(sections)) == len(sections)


def test_a_written_figure_has_its_data_as_csv(tmp_path, quick_data):
    pdf, png, table = write_figure("allocation", tmp_path)
    assert pdf.read_bytes().startswith(b"%PDF") and png.read_bytes()[1:4] == b"PNG"
    data = all_figures()["allocation"].compute("quick", 0)
    rows = list(csv.DictReader(open(table)))
    assert len(rows) == len(data["depth"])
    assert [float(r["depth"]) for r in rows] == pytest.approx(data["depth"])


def test_write_csv_roundtrip(tmp_path):
    path = tmp_path / "x.csv"
    write_csv({"a": [1, 2], "b": ["u", "v"]}, path)
    assert list(csv.reader(open(path))) == [["a", "b"], ["1", "u"], ["2", "v"]]
    with pytest.raises(ValueError, match="length"):
        write_csv({"a": [1], "b": [1, 2]}, path)


def test_unknown_figure_and_preset(tmp_path):
    with pytest.raises(ValueError, match="unknown figure"):
        write_figure("nope", tmp_path)
    with pytest.raises(ValueError, match="preset"):
        write_figure("similarity_depth", tmp_path, preset="huge")


def test_a_user_figure_is_checked_where_it_is_registered_and_drawn(tmp_path, monkeypatch):
    import pytest

    from attndepth.figures import registry

    monkeypatch.setattr(registry, "_USER_FIGURES", {})
    with pytest.raises(ValueError, match="is taken"):
        registry.figure("allocation", description="clash", draw=lambda data: None)(
            lambda preset, seed: {})
    registry.figure("mine.none", description="draws nothing", draw=lambda data: None)(
        lambda preset, seed: {"x": [1]})
    with pytest.raises(TypeError, match="not a matplotlib Figure"):
        registry.write_figure("mine.none", tmp_path)
    registry.figure("mine.list", description="bad data", draw=lambda data: None)(
        lambda preset, seed: [1, 2])
    with pytest.raises(TypeError, match="must return a dict"):
        registry.write_figure("mine.list", tmp_path)


def test_a_full_disk_keeps_the_earlier_figure_whole(tmp_path, monkeypatch):
    import errno

    import matplotlib.figure

    from attndepth.errors import DiskFull
    from attndepth.figures.registry import save

    figure, _ = plt.subplots()
    data = {"x": [1, 2], "y": [3, 4]}
    first = save(figure, data, "mine", tmp_path)
    before = [path.read_bytes() for path in first]

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    figure, _ = plt.subplots()
    with pytest.raises(DiskFull, match="left as it was"):
        save(figure, data, "mine", tmp_path)
    assert [path.read_bytes() for path in first] == before
    assert not list(tmp_path.glob(".*partial"))


def test_a_file_of_the_user_where_a_figure_goes_is_refused_before_computing(tmp_path):
    (tmp_path / "similarity_depth.png").write_text("my own picture notes")
    with pytest.raises(ValueError, match="left untouched"):
        write_figure("similarity_depth", tmp_path)
    assert (tmp_path / "similarity_depth.png").read_text() == "my own picture notes"


def test_a_user_figure_that_raises_is_one_error_naming_it(tmp_path, monkeypatch):
    from attndepth.errors import UserCodeFailed

    monkeypatch.setattr(registry, "_USER_FIGURES", {})

    def compute(preset, seed):
        raise SystemExit(0)

    def draw(data):
        raise RecursionError("deep")

    registry.figure("mine.exits", description="exits", draw=draw)(compute)
    with pytest.raises(UserCodeFailed, match="figure 'mine.exits'.s compute function raised "
                                             "SystemExit"):
        registry.write_figure("mine.exits", tmp_path)
    registry.figure("mine.deep", description="deep", draw=draw)(lambda p, s: {"x": [1]})
    with pytest.raises(UserCodeFailed, match="draw function raised RecursionError: deep"):
        registry.write_figure("mine.deep", tmp_path)
