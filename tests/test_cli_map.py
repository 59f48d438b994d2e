"""``attndepth map``: the files it writes, what it prints, and its one-line errors."""

import csv

from attndepth.cli.main import main


def test_map_writes_the_figure_and_its_data(tmp_path, capsys):
    out = tmp_path / "maps"
    assert main(["map", "levine.threshold", "--grid", "width=2,3,4", "--grid", "q_size=1",
                 "--value", "offset", "--band=-1,1", "--no-fit", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "{'width': 2, 'q_size': 1}  fails" in printed.out
    assert "levine.threshold  map  width=3, q_size=1  indistinguishable" in printed.err
    for suffix in (".png", ".pdf", ".csv"):
        assert (out / f"levine.threshold{suffix}").stat().st_size > 0
    rows = list(csv.DictReader(open(out / "levine.threshold.csv")))
    assert [row["width"] for row in rows] == ["2", "3", "4"] and rows[0]["verdict"] == "fails"


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    for argv in (["map", "levine.threshold", "--grid", "width"],
                 ["map", "levine.threshold", "--grid", "width=2", "--grid", "q_size=1"],
                 ["map", "levine.threshold", "--grid", "width=2", "--grid", "q_size=1",
                  "--value", "offset", "--band", "1"],
                 ["map", "nope.claim", "--grid", "width=2"]):
        assert main([*argv, "--out", str(tmp_path)]) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1, err


STOPS = '''
from attndepth import Estimate, Family, Outcome, claim

@claim("mine.stops", source="s", statement="s", tolerance="t",
       presets={"quick": {"x": 1}, "full": {"x": 1}}, family=Family(parameters={"x": (1, 2, 3)}),
       estimate=Estimate("m", "p", (-0.1, 0.1), seeds=(2, 2)))
def verify(seed, x):
    if x == 2:
        raise KeyboardInterrupt  # Ctrl-C while the second point runs
    return Outcome("0", "0", "holds", values={"m": 0.0, "p": 0.0})
'''


def test_ctrl_c_writes_the_points_computed_and_exits_130(tmp_path, capsys, monkeypatch):
    from attndepth.framework import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))  # leaves no claim
    (tmp_path / "stops.py").write_text(STOPS)
    out = tmp_path / "maps"
    assert main(["map", "mine.stops", "--claims", str(tmp_path / "stops.py"), "--grid",
                 "x=1,2,3", "--out", str(out), "--quiet"]) == 130
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("attndepth: interrupted: 1 of 3 points computed and written")
    rows = list(csv.DictReader(open(out / "mine.stops.csv")))
    assert [row["x"] for row in rows] == ["1"]
