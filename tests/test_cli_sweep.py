import pytest

from attndepth.cli.main import main

SPEC = """
measurement = "seprank"
seeds = [0]
[grid]
depth = [1, 2]
[fixed]
width = 2
"""


def test_sweep_export_and_rerun(tmp_path, capsys):
    spec = tmp_path / "ranks.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--workers", "1", "--export", str(tmp_path / "r.csv"),
                 "--quiet"]) == 0
    assert "2 computed" in capsys.readouterr().err
    assert main(["sweep", str(spec), "--workers", "1", "--quiet"]) == 0
    assert "2 reused" in capsys.readouterr().err
    text = (tmp_path / "r.csv").read_text()
    assert "rank" in text.splitlines()[0] and len(text.splitlines()) == 3


@pytest.mark.parametrize("content", ["measurement = 'x'", "measurement =", "[grid]\nx=1"])
def test_sweep_bad_spec_exit_2(tmp_path, capsys, content):
    spec = tmp_path / "bad.toml"
    spec.write_text(content)
    assert main(["sweep", str(spec)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_sweep_refuses_foreign_store(tmp_path, capsys):
    spec = tmp_path / "ranks.toml"
    spec.write_text(SPEC)
    foreign = tmp_path / "notes.txt"
    foreign.write_text("precious")
    assert main(["sweep", str(spec), "--store", str(foreign)]) == 2
    assert foreign.read_text() == "precious"


@pytest.mark.parametrize("spec, why", [
    (b'measurement = ["seprank"]\n', "expected a string at .measurement, found a list"),
    (b'# \xff\nmeasurement = "seprank"\n', "is not UTF-8 text"),
    (b"x = " + b"9" * 5000 + b"\n", "an integer of thousands of digits"),
    (b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested deeper than"),
    (b'measurement = "similarity"\nseeds = 1e400\n', "beyond float64's range"),
])
def test_a_hostile_spec_is_one_line_naming_the_file(spec, why, tmp_path, capsys):
    path = tmp_path / "spec.toml"
    path.write_bytes(spec)
    assert main(["sweep", str(path), "--store", str(tmp_path / "s.sqlite")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "sweep spec" in line and "spec.toml" in line and why in line, line
    assert not (tmp_path / "s.sqlite").exists()
