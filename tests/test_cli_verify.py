"""``attndepth verify``: reports, files, seeds, listing and explaining claims."""

import json

import pytest

from attndepth.cli.main import main
from attndepth.framework.registry import get_claim


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


MARKED = '''
from attndepth import Outcome, claim

@claim("mine.marks", source="s", statement="s", tolerance="t",
       presets={"quick": {}, "full": {}})
def marks(seed):
    open("ran", "w").close()
    return Outcome("1", "1", "holds")
'''
RECORD = '{"attndepth_domain_record": 1, "claims": %s}'


def test_a_damaged_record_is_refused_before_any_claim_runs(tmp_path, monkeypatch, capsys):
    """The examples of the reliability trial: each one line, exit 2, no claim measured."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(MARKED)
    record = tmp_path / "record.json"
    monkeypatch.setenv("ATTNDEPTH_DOMAIN_RECORD", str(record))
    for text, why in [
            (RECORD % '{"x": {"failures": [], "search": 5}}', "at .claims.x.search"),
            (RECORD % '{"x": {"failures": [], "map": []}}', "at .claims.x.map"),
            (RECORD % ('{"x": {"failures": [{"member": {}, "verdict": "fails", "seed": '
                       + "9" * 5000 + "}]}}"), "an integer of 5,000 digits"),
            ("[" * 200_000 + "]" * 200_000, "nested deeper than"),
            ("garbage", "is not JSON")]:
        record.write_text(text)
        for argv in (["verify", "--claims", "mine.py", "--format", "json"],
                     ["verify", "--claim", "levine.degree"]):
            assert main(argv) == 2, (argv, text[:40])
            [line] = capsys.readouterr().err.strip().splitlines()
            assert "domain record" in line and why in line, line
            assert not (tmp_path / "ran").exists()


def test_a_member_is_read_at_the_door(capsys):
    for member, why in [("[1]", "must be a JSON object"),
                        ('{"tokens": 1e400}', "1e400 is beyond float64's range"),
                        ('{"tokens": ' + "9" * 5000 + "}", "an integer of 5,000 digits"),
                        ("[" * 100_000, "nested deeper than")]:
        assert main(["verify", "--claim", "yuzhang.linear-rate-fixed", "--member",
                     member]) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert why in line and len(line) < 300, line


def test_a_member_names_only_what_differs_from_the_preset(capsys):
    """One key: the preset gives the family's other parameters (and the report says the
    whole member it ran; the family's fixed values the rest, as for every member)."""
    code = main(["verify", "--claim", "levine.degree", "--member", '{"width": 2}',
                 "--format", "json"])
    ran = json.loads(capsys.readouterr().out)["claims"][0]["params"]
    found = get_claim("levine.degree")
    preset = found.presets["quick"]
    assert code in (0, 1) and ran["width"] == 2
    assert all(ran[name] == preset[name] for name in found.family.parameters
               if name != "width")


@pytest.mark.parametrize(("member", "why"), [
    ('{"widht": 4}', "'widht' is not a parameter of the family of levine.degree"),
    ('{"width": 4, "x": 1}', "'x' is not a parameter")])
def test_a_member_key_outside_the_family_is_named(member, why, capsys):
    assert main(["verify", "--claim", "levine.degree", "--member", member]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert why in line, line


FAILING = '''
from attndepth import Family, Outcome, claim

for k in range(8):
    @claim(f"mine.fails{k}", source="s", statement="s", tolerance="t",
           presets={"quick": {"x": 1}, "full": {"x": 1}},
           family=Family(parameters={"x": (1, 2)}))
    def verify(seed, x):
        return Outcome("1", "2", "fails")
'''


@pytest.mark.slow
def test_eight_concurrent_member_records_keep_all_eight(tmp_path):
    """The trial's example: eight ``verify --member --record`` into one record at once."""
    import subprocess
    import sys

    from attndepth.framework.domain import read_record

    (tmp_path / "mine.py").write_text(FAILING)
    runs = [subprocess.Popen([sys.executable, "-m", "attndepth.cli.main", "verify",
                              "--claims", "mine.py", "--claim", f"mine.fails{k}", "--member",
                              '{"x": 1}', "--record", "record.json", "--no-wrong-theory"],
                             cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True) for k in range(8)]
    for run in runs:
        assert run.wait(timeout=300) == 1, run.stderr.read()
    assert set(read_record(tmp_path / "record.json")) == {f"mine.fails{k}" for k in range(8)}


MODEL = '''
import torch


def post_ln(seed, *, width, depth, heads, tokens):
    layer = torch.nn.TransformerEncoderLayer(width, heads, 4 * width, dropout=0.0,
                                             batch_first=True, norm_first=False)
    return torch.nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
'''


def test_model_needs_a_claim_that_takes_an_architecture(tmp_path, capsys):
    pytest.importorskip("torch", reason="the torch extra")
    (tmp_path / "mine.py").write_text(MODEL)
    assert main(["verify", "--model", f"{tmp_path / 'mine.py'}:post_ln", "--claim",
                 "levine.degree"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "takes no architecture" in line and "yuzhang.escalation" in line


@pytest.mark.slow
def test_a_registered_claim_runs_on_a_users_model_from_the_command_line(tmp_path, capsys):
    pytest.importorskip("torch", reason="the torch extra")
    (tmp_path / "mine.py").write_text(MODEL)
    spec = f"{tmp_path / 'mine.py'}:post_ln"
    code = main(["verify", "--model", spec, "--claim", "yuzhang.escalation", "--format",
                 "json"])
    [result] = json.loads(capsys.readouterr().out)["claims"]
    assert code == 0 and result["params"]["architecture"] == spec
    assert result["in_family"] is False and result["verdict"] is None  # no verdict of the claim
    assert result["preset_verdict"] in ("holds", "fails")  # the run's own


DECORATIVE = '''
from attndepth import Estimate, Outcome, Theory, claim

def rate(width):
    return 0.5

def shown_limit(width):
    return 0.69

@claim("mine.decorative", source="s", statement="s",
       presets={"quick": {"width": 8}, "full": {"width": 8}},
       estimate=Estimate("slope", "predicted", (-0.1, 0.1), seeds=(2, 2)),
       theory=Theory(rate, shown_limit), wrong_theory={"rate": lambda width: 5.0})
def verify(seed, theory, width):
    limit = theory.shown_limit(width)  # printed, never compared
    return Outcome(values={"slope": 0.5 + 0.001 * seed, "predicted": theory.rate(width)},
                   note=f"the limit is {limit}")
'''


def test_a_users_claim_with_a_decorative_theory_entry_is_refused(tmp_path, capsys,
                                                                   monkeypatch):
    from attndepth.framework import registry

    # the claim loaded here must not stay registered for the other tests of this worker
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry.all_claims()))
    path = tmp_path / "mine.py"
    path.write_text(DECORATIVE)
    assert main(["verify", "--claims", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'shown_limit' changes no judged number" in err[0], err
    assert "'rate'" not in err[0]
    # every way of measuring the claim refuses it first: one member, a search
    for extra in (["--member", '{"width": 8}'], ["--search"]):
        assert main(["verify", "--claims", str(path), *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "'shown_limit'" in err[0], (extra, err)
    # the user may still run it, saying so; attndepth's own claims are checked on demand
    assert main(["verify", "--claims", str(path), "--no-theory-check"]) == 0
    assert main(["verify", "--claim", "levine.degree", "--theory-check"]) == 0
