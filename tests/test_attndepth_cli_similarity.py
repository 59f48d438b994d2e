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


def test_similarity_float32_close_to_float64(capsys):
    argv = ["similarity", "--variant", "post-ln", "--depth", "12", "--tokens", "8",
            "--width", "16", "--json", "--seeds", "2"]
    documents = []
    for dtype in ("float64", "float32"):
        assert main(argv + ["--dtype", dtype]) == 0
        documents.append(json.loads(capsys.readouterr().out))
    assert documents[1]["config"]["dtype"] == "float32"
    for exact, single in zip(documents[0]["layers"], documents[1]["layers"], strict=True):
        assert abs(exact["t_sim"]["median"] - single["t_sim"]["median"]) < 1e-5


def test_similarity_table(capsys):
    assert main(["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4",
                 "--width", "4"]) == 0
    assert "no fit" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [
    ["--variant", "deep"], ["--tau", "1.5"], ["--temperature", "0"], ["--heads", "3"],
    ["--seeds", "0"], ["--seed", "-1"], ["--tokens", "0"], ["--dtype", "float16"],
])
def test_similarity_bad_input(extra, capsys):
    argv = ["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4", "--width", "4"]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
