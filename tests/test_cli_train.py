"""``attndepth train``: one training run from the command line."""

import json
import sys

import pytest

from attndepth.cli.main import main

ARGV = ["train", "--variant", "pre-ln", "--depth", "2", "--width", "8", "--pairs", "2",
        "--steps", "20", "--batch", "16", "--evaluate-every", "10"]


@pytest.mark.jax
def test_train_prints_its_curves_and_json(capsys):
    assert main(ARGV) == 0
    table = capsys.readouterr().out
    assert "chance loss 2.773" in table and table.count("\n") >= 4
    assert main(ARGV + ["--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["steps"] == [10, 20] and len(document["t_sim_per_layer"][-1]) == 3
    assert document["config"]["dtype"] == "float32" and "environment" in document


@pytest.mark.parametrize("extra, message", [
    (["--heads", "3"], "heads"), (["--learning-rate", "0"], "learning_rate"),
    (["--pairs", "0"], "pairs"), (["--tau", "2"], "tau"),
])
def test_train_bad_input_is_one_line(extra, message, capsys):
    assert main(ARGV + extra) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_train_without_jax_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "jax", None)
    assert main(ARGV) == 2
    err = capsys.readouterr().err.strip()
    assert 'pip install -e ".[train]"' in err and len(err.splitlines()) == 1


@pytest.mark.jax
def test_train_resumes_from_its_checkpoint_and_refuses_another_runs(tmp_path, capsys):
    checkpoint = ["--checkpoint", str(tmp_path / "run.npz"), "--json", "--ffn"]
    assert main(ARGV + checkpoint) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(ARGV + checkpoint) == 0  # finished: read back, nothing trained again
    again = json.loads(capsys.readouterr().out)
    assert again["validation_loss"] == first["validation_loss"]
    assert first["config"]["ffn"] is True
    assert main(ARGV + checkpoint + ["--seed", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "belongs to another run" in err and len(err.splitlines()) == 1
