import json

import pytest

from attndepth.cli.main import main


def test_seprank_json_fields(capsys):
    assert main(["seprank", "--width", "2", "--depth", "2", "--tokens", "4", "--json",
                 "--recompute"]) == 0
    document = json.loads(capsys.readouterr().out)
    for key in ("rank", "method", "prime", "grid_p", "grid_q", "saturated", "bounds",
                "seconds", "config"):
        assert key in document
    assert document["rank"] == 18 and document["bounds"]["bigraded"] == 18


def test_seprank_verify_and_numeric(capsys):
    assert main(["seprank", "--width", "3", "--depth", "1", "--tokens", "3", "--verify"]) == 0
    assert "agrees" in capsys.readouterr().out
    assert main(["seprank", "--width", "2", "--depth", "1", "--method", "numeric",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agrees_with_exact"] is True


def test_seprank_same_seed_same_json(capsys):
    argv = ["seprank", "--width", "2", "--depth", "2", "--json", "--seed", "3"]
    main(argv)
    first = json.loads(capsys.readouterr().out)
    main(argv)
    second = json.loads(capsys.readouterr().out)
    for volatile in ("seconds", "eval_seconds", "rank_seconds"):
        first.pop(volatile), second.pop(volatile)
    for block in first["blocks"] + second["blocks"]:
        block.pop("rank_seconds")
    assert first == second


def test_seprank_json_lists_every_block_and_the_whole_matrix_agrees(capsys):
    argv = ["seprank", "--width", "2", "--depth", "3", "--tokens", "3", "--json", "--recompute"]
    assert main(argv) == 0
    blocks = json.loads(capsys.readouterr().out)
    assert blocks["method"] == "blocks" and len(blocks["blocks"]) == 14  # K = 13
    for block in blocks["blocks"]:
        assert set(block) >= {"degree", "grid", "rank", "bound", "reason",
                              "failure_probability"}
        assert block["rank"] <= block["bound"]
    assert blocks["rank"] == sum(block["rank"] for block in blocks["blocks"])
    assert main(argv + ["--method", "exact"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["rank"] == blocks["rank"] and whole["blocks"] == []


def test_seprank_blocks_with_the_residual_give_the_top_degree_parts(capsys):
    """--residual --method blocks: the ρ = 0 blocks, proved here (they meet bound (d));
    auto stays the whole matrix for ρ = 1, with the same rank."""
    argv = ["seprank", "--width", "2", "--depth", "2", "--tokens", "3", "--residual"]
    assert main(argv + ["--method", "blocks", "--json"]) == 0
    blocks = json.loads(capsys.readouterr().out)
    assert (blocks["method"], blocks["reason"]) == ("blocks", "upper-bound")
    assert blocks["config"]["residual"] == 1 and blocks["blocks"]
    assert main(argv + ["--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert whole["method"] == "exact" and whole["rank"] == blocks["rank"]
    assert main(argv + ["--method", "blocks"]) == 0
    assert "parts of top degree" in capsys.readouterr().out


def test_seprank_residual_blocks_below_the_bound_say_lower_bound(capsys):
    argv = ["seprank", "--width", "3", "--depth", "2", "--tokens", "3", "--partition",
            "0/1,2", "--residual", "--method", "blocks"]
    assert main(argv) == 0
    assert "LOWER BOUND only" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [
    ["--width", "0", "--depth", "1"], ["--width", "3", "--depth", "1", "--heads", "2"],
    ["--width", "2", "--depth", "1", "--tokens", "3", "--partition", "1/0,2"],
    ["--width", "2", "--depth", "1", "--tokens", "3", "--partition", "0,1/1,2"],
    ["--width", "2", "--depth", "1", "--prime", "21"], ["--width", "2", "--depth", "-2"],
    ["--width", "2"], ["--width", "2", "--depth", "1", "--seed", "-1"],
    ["--width", "2", "--depth", "1", "--margin", "0"],
])
def test_seprank_bad_input(extra, capsys):
    assert main(["seprank", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_seprank_reports_a_rank_above_a_proved_bound_in_one_line(capsys, monkeypatch):
    from attndepth.rank import degree_blocks

    original = degree_blocks.separating_scales
    monkeypatch.setattr(degree_blocks, "separating_scales",
                        lambda degree, prime: (original(degree, prime)[0],
                                               original(degree, prime)[1][::-1].copy()))
    assert main(["seprank", "--width", "2", "--depth", "2", "--tokens", "4", "--recompute"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("attndepth: check failed:") and len(err.splitlines()) == 1


def test_hours_of_block_work_are_refused_in_one_line(capsys):
    from attndepth.cli.main import main

    assert main(["seprank", "--width", "6", "--depth", "4", "--tokens", "8"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "would take about 2.0 h" in line and "--max-seconds" in line
    assert main(["seprank", "--width", "2", "--depth", "2", "--method", "exact",
                 "--max-seconds", "10"]) == 2
    assert "option of the blocks and torus methods, not of exact" in capsys.readouterr().err


def test_seprank_checkpoint_resumes_the_blocks_and_refuses_the_rest(capsys, tmp_path):
    path = tmp_path / "run.npz"
    argv = ["seprank", "--width", "3", "--depth", "2", "--tokens", "4", "--json",
            "--checkpoint", str(path)]
    assert main(argv) == 0 and path.is_file()
    first = json.loads(capsys.readouterr().out)
    assert main(argv) == 0  # read back: the same ranks and the first run's timings
    again = json.loads(capsys.readouterr().out)
    assert again["blocks"] == first["blocks"] and again["eval_seconds"] == first["eval_seconds"]
    for extra, message in ((["--method", "exact"], "does not save any"),
                           (["--partition", "all"], "one partition")):
        assert main([*argv, *extra]) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert "--checkpoint" in line and message in line
    assert main([*argv[:-1], str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_seprank_torus_reports_its_classes_and_a_lower_bound(capsys):
    argv = ["seprank", "--width", "3", "--depth", "2", "--tokens", "4", "--method", "torus",
            "--torus-order", "4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "rank         49  (torus" in out and "4 classes (N = 4)" in out
    assert "= generic separation rank" in out  # 49 meets bound (d): proved
    assert main([*argv, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["method"] == "torus" and document["config"]["torus_classes"] == 4
    assert all(len(block["class_ranks"]) == 4 for block in document["blocks"])


@pytest.mark.parametrize("extra, message", [
    (["--method", "torus", "--verify"], "--verify compares two saturated ranks"),
    (["--method", "exact", "--torus-order", "4"], "option of the torus method"),
    (["--method", "torus", "--torus-order", "40"], "order"),
    (["--method", "torus", "--prime", "67108859"], "p = 1 mod 12"),
    (["--method", "torus", "--heads", "3"], "one head"),
    (["--method", "torus", "--width", "5", "--depth", "3", "--tokens", "10",
      "--partition", "sizes=5/5", "--max-points", "4096"], "would take about"),
])
def test_seprank_torus_bad_input_is_one_line(extra, message, capsys):
    argv = ["seprank", "--width", "3", "--depth", "2", "--tokens", "4"]
    assert main([*argv, *extra]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert message in line


def test_seprank_prints_its_finished_rank_when_the_last_save_finds_the_disk_full(
        tmp_path, capsys, full_disk):
    argv = ["seprank", "--width", "2", "--depth", "2", "--tokens", "4", "--method", "blocks",
            "--json", "--checkpoint", str(tmp_path / "c.npz")]
    full_disk(0)
    assert main(argv) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["rank"] == 18  # the work, printed
    assert len(captured.err.strip().splitlines()) == 1 and "No space" in captured.err


def test_seprank_stopped_by_a_full_disk_is_exit_3_and_continues(tmp_path, capsys,
                                                                monkeypatch, full_disk):
    from attndepth.rank import block_checkpoint

    argv = ["seprank", "--width", "3", "--depth", "2", "--tokens", "4", "--partition",
            "sizes=2/2", "--method", "blocks", "--json"]
    assert main(argv) == 0
    rank = json.loads(capsys.readouterr().out)["rank"]
    path = tmp_path / "c.npz"
    with monkeypatch.context() as patched:
        patched.setattr(block_checkpoint, "CHECKPOINT_SECONDS", 0.0)  # a save per rank
        full_disk(1, patched)
        assert main([*argv, "--checkpoint", str(path)]) == 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "same command continues" in err
    assert path.stat().st_size > 0  # the first save, kept
    assert main([*argv, "--checkpoint", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["rank"] == rank


def test_a_class_the_atlas_holds_is_answered_from_it(capsys):
    """d = 6, L = 3, N = 2 took 15 minutes to measure; the atlas holds it (27,132, proved)."""
    assert main(["seprank", "--width", "6", "--depth", "3", "--tokens", "2", "--json"]) == 0
    known = json.loads(capsys.readouterr().out)
    assert known["source"] == "atlas" and known["rank"] == 27132
    assert known["certificate"] == "proved" and known["seed"] == 0
    assert known["command"].startswith("attndepth seprank --width 6 --depth 3 --tokens 2")
    assert main(["seprank", "--width", "6", "--depth", "3", "--tokens", "2"]) == 0
    text = capsys.readouterr().out
    assert "from the shipped atlas" in text and "--recompute" in text


@pytest.mark.parametrize("option", [["--recompute"], ["--seed", "1"], ["--method", "exact"],
                                    ["--margin", "9"]])
def test_a_measurement_option_measures_instead(option, capsys):
    assert main(["seprank", "--width", "2", "--depth", "2", "--tokens", "4", "--json",
                 *option]) == 0
    measured = json.loads(capsys.readouterr().out)
    assert "source" not in measured and measured["rank"] == 18 and "grid_p" in measured
