import json

import pytest

from attndepth.cli.main import main


def test_similarity_json(capsys):
    assert main(["similarity", "--variant", "post-ln", "--depth", "30", "--tokens", "8",
                 "--width", "32", "--spectra", "--json", "--seeds", "3"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) >= {"layers", "fit", "config", "seconds"}
    assert len(document["layers"]) == 31 and "lambda2" in document["layers"][1]
    assert 0.5 < document["fit"]["slope"] < 0.8


def _documents(capsys, argv, option, values):
    """The JSON report of ``argv`` with ``option`` set to each of ``values``."""
    documents = []
    for value in values:
        assert main(argv + [option, value]) == 0
        documents.append(json.loads(capsys.readouterr().out))
    return documents


def test_similarity_float32_close_to_float64(capsys):
    argv = ["similarity", "--variant", "post-ln", "--depth", "12", "--tokens", "8",
            "--width", "16", "--json", "--seeds", "2"]
    documents = _documents(capsys, argv, "--dtype", ("float64", "float32"))
    assert documents[1]["config"]["dtype"] == "float32"
    for exact, single in zip(documents[0]["layers"], documents[1]["layers"], strict=True):
        assert abs(exact["t_sim"]["median"] - single["t_sim"]["median"]) < 1e-5


def test_similarity_in_law_escalates_at_the_rate_of_drawn_weights(capsys):
    # 16 stacks each: the median's slope scatters by about 0.01 (0.674 and 0.660 here)
    argv = ["similarity", "--variant", "post-ln", "--depth", "40", "--tokens", "8",
            "--width", "32", "--json", "--seeds", "16"]
    drawn, in_law = _documents(capsys, argv, "--sampling", ("weights", "law"))
    assert in_law["config"]["sampling"] == "law"
    assert abs(in_law["fit"]["slope"] - drawn["fit"]["slope"]) < 0.03


def test_similarity_table(capsys):
    assert main(["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4",
                 "--width", "4"]) == 0
    assert "no fit" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [
    ["--variant", "deep"], ["--tau", "1.5"], ["--temperature", "0"], ["--heads", "3"],
    ["--seeds", "0"], ["--seed", "-1"], ["--tokens", "0"], ["--dtype", "float16"],
    ["--sampling", "exact"],
])
def test_similarity_bad_input(extra, capsys):
    argv = ["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4", "--width", "4"]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.jax
def test_similarity_on_the_jax_backend_gives_the_numpy_numbers(capsys):
    argv = ["similarity", "--variant", "post-ln", "--depth", "12", "--tokens", "8",
            "--width", "16", "--json", "--seeds", "2", "--window", "3"]
    documents = []
    for backend in ("numpy", "jax"):
        assert main(argv + ["--backend", backend]) == 0
        documents.append(json.loads(capsys.readouterr().out))
    assert documents[1]["config"]["backend"] == "jax"
    for ours, theirs in zip(documents[0]["layers"], documents[1]["layers"], strict=True):
        assert abs(ours["log_odds"]["median"] - theirs["log_odds"]["median"]) < 1e-9


@pytest.mark.parametrize("extra, message", [
    (["--device", "gpu"], "--device gpu needs --backend jax"),
    (["--backend", "jax", "--spectra"], "only the numpy backend"),
    (["--backend", "jax", "--sampling", "law"], "sampling='law' runs on NumPy only"),
])
def test_similarity_backend_misuse_is_one_line(extra, message, capsys):
    argv = ["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4", "--width", "4"]
    assert main(argv + extra) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_similarity_without_jax_says_how_to_install_it(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "jax", None)
    argv = ["similarity", "--variant", "pure", "--depth", "2", "--tokens", "4", "--width", "4",
            "--backend", "jax"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert 'pip install -e ".[train]"' in err and len(err.splitlines()) == 1
