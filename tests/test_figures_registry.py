import csv

import pytest

from attndepth.figures.registry import all_figures, write_csv, write_figure


def test_every_figure_has_the_interface():
    for name, module in all_figures().items():
        assert module.NAME == name and module.DESCRIPTION
        assert callable(module.compute) and callable(module.draw)


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
