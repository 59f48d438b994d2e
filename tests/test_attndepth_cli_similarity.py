import json

import pytest

from attndepth.cli import main


def test_similarity_json(capsys):
    assert main(["similarity", "--variant", "post-ln", "--depth", "30", "--tokens", "8",
                 "--width", "32", "--spectra", "--json", "--seeds", "3"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) >= {"layers", "fit", "config", "seconds"}
    assert len(document["layers"]) == 31 and "lambda2" in document["layers"][1]
    assert 0.5 < document["fit"]["slope"] < 0.8


def test_similarity_table(capsys):
    assert main(["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4",
                 "--width", "4"]) == 0
    assert "no fit" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [
    ["--variant", "deep"], ["--tau", "1.5"], ["--temperature", "0"], ["--heads", "3"],
    ["--seeds", "0"], ["--seed", "-1"], ["--tokens", "0"],
])
def test_similarity_bad_input(extra, capsys):
    argv = ["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4", "--width", "4"]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
