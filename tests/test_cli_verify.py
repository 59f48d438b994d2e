"""``attndepth verify``: reports, files, seeds, listing and explaining claims."""

import json

from attndepth.cli.main import main


def test_verify_one_claim_json(capsys):
    code = main(["verify", "--claim", "levine.degree", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    document = json.loads(out)
    assert [c["claim"] for c in document["claims"]] == ["levine.degree"]


def test_verify_writes_out_file(tmp_path, capsys):
    target = tmp_path / "report.md"
    assert main(["verify", "--claim", "levine.degree", "--format", "markdown",
                 "--out", str(target)]) == 0
    assert "levine.degree" in target.read_text()


def test_verify_same_seed_same_json_values(capsys):
    main(["verify", "--claim", "levine.degree", "--format", "json", "--seed", "5"])
    first = json.loads(capsys.readouterr().out)["claims"][0]["values"]
    main(["verify", "--claim", "levine.degree", "--format", "json", "--seed", "5"])
    second = json.loads(capsys.readouterr().out)["claims"][0]["values"]
    assert first == second


def test_verify_list_and_explain(capsys):
    assert main(["verify", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    from attndepth.framework.registry import all_claims

    assert [line.split()[0] for line in listed] == list(all_claims())
    assert main(["verify", "--explain", "yuzhang.linear-rate-postln"]) == 0
    out = capsys.readouterr().out
    assert "src/attndepth/theory/similarity.py" in out
    assert "src/attndepth/figures/postln_rate.py" in out
    assert main(["verify", "--explain", "nope"]) == 2
    assert "unknown claim" in capsys.readouterr().err


def test_verify_exits_1_on_an_error_verdict(monkeypatch, capsys):
    from attndepth.framework import registry as claims

    def verify(seed):
        raise ZeroDivisionError("no")

    monkeypatch.setitem(claims._REGISTRY, "test.broken",
                        claims.Claim("test.broken", "s", "s", "t", verify,
                                     {"quick": {}, "full": {}}))
    assert main(["verify", "--claim", "test.broken"]) == 1
    assert "ERROR" in capsys.readouterr().out


def test_verify_says_each_finished_claim_on_stderr_when_not_a_terminal(capsys):
    assert main(["verify", "--claim", "levine.1t-width", "--claim", "levine.gpt3-too-deep",
                 "--jobs", "2"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("indistinguishable ") for line in lines)
    assert {line.split()[1] for line in lines} == {"levine.1t-width", "levine.gpt3-too-deep"}
    assert sorted(line.split()[-1] for line in lines) == ["[1/2]", "[2/2]"]


def test_verify_refuses_a_user_claim_naming_an_unregistered_figure(tmp_path, capsys,
                                                                   monkeypatch):
    from attndepth.framework import registry as claims

    monkeypatch.setattr(claims, "_REGISTRY", dict(claims.all_claims()))  # the claim leaves
    source = tmp_path / "pictured.py"
    source.write_text(
        "from attndepth import Outcome, claim, verdict_from\n\n\n"
        "@claim('mine.pictured', source='-', statement='s', tolerance='exact',\n"
        "       presets={'quick': {}, 'full': {}}, figure='nowhere')\n"
        "def verify_pictured(seed):\n"
        "    return Outcome('1', '1', verdict_from(True))\n")
    assert main(["verify", "--claims", str(source)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nowhere" in err[0]


def test_verify_without_figures_does_not_import_matplotlib():
    # the figure registry imports pyplot (a third of a second); a plain run never draws
    import subprocess
    import sys

    script = ("import sys\nfrom attndepth.cli.main import main\n"
              "assert main(['verify', '--claim', 'levine.degree']) == 0\n"
              "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
