import json

import pytest

from attndepth.cli.main import main


def test_plan_params_json(capsys):
    assert main(["plan", "--params", "175e9", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    for key in ("depth_opt", "width_opt", "params", "threshold_depth", "verdict", "ratio"):
        assert key in document
    assert 79 < document["depth_opt"] < 82


def test_plan_shape_human(capsys):
    assert main(["plan", "--depth", "96", "--width", "12288"]) == 0
    assert "too deep" in capsys.readouterr().out


def test_plan_width_and_zoo(capsys):
    assert main(["plan", "--width", "30000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["depth_opt"] > 90
    assert main(["plan", "--zoo"]) == 0
    assert "GPT-3 175B" in capsys.readouterr().out
    assert main(["plan", "--zoo", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) >= 12


@pytest.mark.parametrize("argv", [
    ["plan"], ["plan", "--params", "-5"], ["plan", "--params", "inf"], ["plan", "--params", "10"],
    ["plan", "--width", "50"], ["plan", "--depth", "3"], ["plan", "--zoo", "--width", "1000"],
    ["plan", "--params", "x"], ["plan", "--params", "1e9", "--fit-slope", "-1"],
])
def test_plan_bad_input(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
