"""Your claims, our machinery: a user's claims file through verify --claims and pytest.

The file holds one true claim and one deliberately false one; both paths must
report the false one's smallest counterexample.
"""

import subprocess
import sys
import textwrap

import pytest

from attndepth.cli.main import main
from attndepth.framework.registry import load_claims

USER_CLAIMS = textwrap.dedent('''
    from attndepth import Family, Outcome, Theory, claim, verdict_from


    @claim("mine.square", source="arithmetic", statement="n² ≥ 2n for n ≥ 2",
           tolerance="exact", presets={"quick": {"n": 3}, "full": {"n": 10}},
           theory=Theory(SQUARE_BOUND=2), wrong_theory={"SQUARE_BOUND": 5},
           family=Family(parameters={"n": tuple(range(2, 12))}, beyond={"n": (50, 100)}))
    def verify_square(seed, theory, n):
        bound = theory.SQUARE_BOUND * n
        return Outcome(str(bound), str(n * n), verdict_from(n * n >= bound))


    @claim("mine.false", source="wishful thinking", statement="every n is below 7",
           tolerance="exact", presets={"quick": {"n": 3}, "full": {"n": 5}},
           family=Family(parameters={"n": tuple(range(1, 10))}))
    def verify_false(seed, n):
        return Outcome("n < 7", f"n = {n}", verdict_from(n < 7))
''')


def _claims_file(tmp_path, monkeypatch, name: str, text: str):
    """Write a user's claims file; the claims it registers vanish after the test."""
    from attndepth.framework import registry as claims

    # Claims loaded here must not stay registered for the other test modules.
    monkeypatch.setattr(claims, "_REGISTRY", dict(claims.all_claims()))
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def claims_file(tmp_path, monkeypatch):
    return _claims_file(tmp_path, monkeypatch, "user_claims.py", USER_CLAIMS)


def _pytest(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *args], capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_verify_claims_file_runs_and_searches_it(claims_file, capsys):
    assert main(["verify", "--claims", str(claims_file)]) == 0
    out = capsys.readouterr().out
    assert "mine.square" in out and "mine.false" in out and "levine" not in out
    assert main(["verify", "--claims", str(claims_file), "--search", "--draws", "2",
                 "--workers", "1"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "Smallest counterexample: n=7" in out and f"--claims {claims_file}" in out


def test_bad_claims_sources_are_clear_errors(claims_file, tmp_path, capsys):
    assert main(["verify", "--claims", str(tmp_path / "missing.py")]) == 2
    assert "does not exist" in capsys.readouterr().err
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    with pytest.raises(ValueError, match="registered no claim"):
        load_claims(str(empty))
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('oops')\n")
    with pytest.raises(ValueError, match="RuntimeError: oops"):
        load_claims(str(broken))


def test_pytest_runs_claims_as_tests_with_the_counterexample(claims_file, tmp_path):
    run = _pytest(tmp_path, "--attndepth-claims", str(claims_file), "--attndepth-search", "2")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout
    assert "claim mine.false fails" in run.stdout and "Smallest counterexample: n=7" in run.stdout


@pytest.mark.slow
def test_pytest_preset_mode_and_opt_in(claims_file, tmp_path):
    run = _pytest(tmp_path, "--attndepth-claims", str(claims_file))
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr
    quiet = _pytest(tmp_path)  # without the options the plugin adds nothing
    assert "no tests ran" in quiet.stdout


TOOTHLESS = textwrap.dedent('''
    from attndepth import Outcome, Theory, claim, verdict_from


    @claim("mine.toothless", source="a check that reads its theory nowhere",
           statement="3 is below 10", tolerance="exact",
           presets={"quick": {"n": 3}, "full": {"n": 3}}, theory=Theory(LIMIT=10),
           wrong_theory={"LIMIT": 1})
    def verify_toothless(seed, theory, n):
        return Outcome("n < 10", f"n = {n}", verdict_from(n < 10))  # ignores theory.LIMIT
''')


@pytest.fixture
def toothless_file(tmp_path, monkeypatch):
    return _claims_file(tmp_path, monkeypatch, "toothless.py", TOOTHLESS)


def test_verify_claims_runs_each_wrong_theory_and_fails_when_it_does_not_fail(
        claims_file, toothless_file, capsys):
    assert main(["verify", "--claims", str(toothless_file)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "HOLDS mine.toothless" in out
    assert "the verdict is holds, NOT fails" in out
    assert main(["verify", "--claims", str(toothless_file), "--no-wrong-theory"]) == 0
    capsys.readouterr()
    assert main(["verify", "--claims", str(claims_file), "--format", "json"]) == 0
    import json

    document = json.loads(capsys.readouterr().out)
    by_id = {c["claim"]: c for c in document["claims"]}
    assert by_id["mine.square"]["wrong_theory"] == "fails"
    assert by_id["mine.square"]["wrong_theory_caught"] is True
    assert by_id["mine.false"]["wrong_theory"] == "none"  # declared none: said, not failed


@pytest.mark.slow
def test_pytest_collects_the_claims_file_with_real_node_ids_and_nothing_else(
        claims_file, toothless_file, tmp_path):
    (tmp_path / "test_unrelated.py").write_text("def test_unrelated():\n    assert False\n")
    run = _pytest(tmp_path, "--attndepth-claims", str(claims_file), "-vv")  # after -q
    assert "collected 2 items" in run.stdout, run.stdout + run.stderr
    assert "user_claims.py::mine.square PASSED" in run.stdout
    assert "test_unrelated" not in run.stdout and run.returncode == 0
    toothless = _pytest(tmp_path, "--attndepth-claims", str(toothless_file))
    assert toothless.returncode == 1 and "NOT fails" in toothless.stdout
    skipped = _pytest(tmp_path, "--attndepth-claims", str(toothless_file),
                      "--attndepth-no-wrong-theory")
    assert skipped.returncode == 0, skipped.stdout


MALFORMED = textwrap.dedent('''
    from attndepth import Outcome, claim, figure, verdict_from


    @claim("mine.dict", source="-", statement="returns a dict", tolerance="exact",
           presets={"quick": {}, "full": {}})
    def verify_dict(seed):
        return {"verdict": "holds"}


    @claim("mine.fine", source="-", statement="fine", tolerance="exact",
           presets={"quick": {}, "full": {}}, figure="mine.picture")
    def verify_fine(seed):
        return Outcome("1", "1", verdict_from(True))


    def draw(data):
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot(data["x"], data["y"])
        return fig


    @figure("mine.picture", description="a line", draw=draw)
    def compute(preset, seed):
        return {"x": [0, 1, 2], "y": [0, 1, 4]}
''')


@pytest.fixture
def malformed_file(tmp_path, monkeypatch):
    from attndepth.figures import registry as figures

    monkeypatch.setattr(figures, "_USER_FIGURES", {})
    return _claims_file(tmp_path, monkeypatch, "malformed.py", MALFORMED)


def test_a_malformed_user_claim_is_one_line_and_exit_2_while_the_others_run(
        malformed_file, capsys):
    assert main(["verify", "--claims", str(malformed_file)]) == 2
    captured = capsys.readouterr()
    assert "ERROR         mine.dict" in captured.out and "HOLDS         mine.fine" in captured.out
    # one progress line per claim, then one error line
    *progress, line = captured.err.strip().splitlines()
    assert sorted(p.split()[:2] for p in progress) == [["error", "mine.dict"],
                                                       ["holds", "mine.fine"]]
    assert line.startswith("attndepth: error: claim 'mine.dict' could not be run")
    assert "not an Outcome" in line


def test_user_figures_are_drawn_beside_their_claims(malformed_file, tmp_path, capsys):
    out = tmp_path / "figs"
    assert main(["figures", "--claims", str(malformed_file), "--out", str(out)]) == 0
    assert (out / "mine.picture.png").stat().st_size > 0
    assert (out / "mine.picture.csv").read_text().splitlines()[0] == "x,y"
    assert main(["verify", "--claims", str(malformed_file), "--explain", "mine.fine"]) == 0
    assert "attndepth figures --only mine.picture" in capsys.readouterr().out


def test_an_unregistered_figure_name_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    path = _claims_file(tmp_path, monkeypatch, "nofigure.py", MALFORMED.split("def draw")[0]
                        .replace('"mine.picture"', '"mine.pictur"'))
    assert main(["verify", "--claims", str(path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "names figure 'mine.pictur', which is not registered" in line


ESCAPING = textwrap.dedent('''
    from attndepth import Outcome, claim


    class Escapes(BaseException):
        pass


    @claim("mine.escapes", source="s", statement="s", tolerance="exact",
           presets={"quick": {}, "full": {}})
    def verify_escapes(seed):
        raise Escapes("out of the plugin")
''')


def test_a_claim_raising_a_base_exception_is_a_failed_test_not_an_internal_error(
        tmp_path, monkeypatch):
    path = _claims_file(tmp_path, monkeypatch, "escaping.py", ESCAPING)
    run = _pytest(tmp_path, "--attndepth-claims", str(path))
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout + run.stderr
    assert "INTERNALERROR" not in run.stdout + run.stderr
    assert "Escapes: out of the plugin" in run.stdout
