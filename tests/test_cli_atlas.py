"""``attndepth atlas``: spec and export from the command line, errors in one line."""

import subprocess
import sys

import pytest

from attndepth.cli import atlas as atlas_cli
from attndepth.cli.main import main
from attndepth.rank.atlas_table import atlas, write_atlas


@pytest.fixture
def store(tmp_path):
    """A finished sweep of two atlas points: (2, 1, 1, 0, 1, 1) and (2, 2, 1, 0, 2, 1)."""
    spec = tmp_path / "spec.toml"
    spec.write_text('measurement = "seprank"\nseeds = [0]\n[zip]\nwidth = [2, 2]\n'
                    'depth = [1, 2]\ntokens = [2, 3]\npartition = ["sizes=1/1", "sizes=2/1"]\n'
                    'method = ["blocks", "blocks"]\nmax_points = [64, 64]\n')
    path = tmp_path / "s.sqlite"
    assert main(["sweep", str(spec), "--store", str(path), "--workers", "1", "--quiet"]) == 0
    return path


def test_export_writes_the_atlas_of_a_store(tmp_path, store, capsys):
    out = tmp_path / "atlas.csv"
    assert main(["atlas", "export", "--store", str(store), "--out", str(out)]) == 0
    assert f"{out}: 2 size classes" in capsys.readouterr().out
    assert [row.key for row in atlas(out)] == [(2, 1, 1, 0, 1, 1), (2, 2, 1, 0, 2, 1)]


def test_spec_writes_the_reachable_classes(tmp_path, monkeypatch, capsys):
    from attndepth.rank import atlas_classes

    small = atlas_classes.atlas_classes(max_bound=40, max_width=2, max_depth=1)
    monkeypatch.setattr(atlas_cli, "atlas_classes", lambda: small)
    out = tmp_path / "a" / "atlas.toml"
    assert main(["atlas", "spec", "--out", str(out)]) == 0
    assert f"{len(small)} classes of {len(small)} in scope" in capsys.readouterr().out
    assert out.read_text().startswith("# The separation-rank atlas")


def test_a_missing_store_exits_2_with_one_line(tmp_path):
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "atlas", "export",
                          "--store", str(tmp_path / "none.sqlite"), "--out",
                          str(tmp_path / "x.csv")], capture_output=True, text=True)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "does not exist" in run.stderr and not (tmp_path / "x.csv").exists()


def test_export_joins_the_file_it_writes_unless_told_to_replace(tmp_path, store, capsys):
    out = tmp_path / "atlas.csv"
    write_atlas(atlas().where(width=3, depth=1), out)
    before = len(atlas(out))
    assert main(["atlas", "export", "--store", str(store), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"{before + 2} size classes (2 from the store, {before} kept" in said
    assert (2, 1, 1, 0, 1, 1) in {row.key for row in atlas(out)}
    assert main(["atlas", "export", "--store", str(store), "--out", str(out),
                 "--replace"]) == 0
    assert [row.key for row in atlas(out)] == [(2, 1, 1, 0, 1, 1), (2, 2, 1, 0, 2, 1)]


def test_spec_missing_measures_what_the_atlas_lacks(tmp_path, monkeypatch, capsys):
    from attndepth.rank import atlas_classes

    small = atlas_classes.atlas_classes(max_bound=40, max_width=2, max_depth=1)
    monkeypatch.setattr(atlas_cli, "atlas_classes", lambda: small)
    known = tmp_path / "known.csv"
    write_atlas(atlas().where(width=1), known)
    out = tmp_path / "rest.toml"
    assert main(["atlas", "spec", "--missing", "--atlas", str(known), "--out", str(out)]) == 0
    rest = [c for c in small if c.width == 2]
    assert f"{len(rest)} points for {len(small)} classes" in capsys.readouterr().out
    assert "width = [2, " in out.read_text() and "# " + str(len(rest)) + " points" in \
        out.read_text()
    write_atlas(atlas().where(depth=1), known)
    assert main(["atlas", "spec", "--missing", "--atlas", str(known), "--out", str(out)]) == 2
    assert "every reachable class is in the atlas already" in capsys.readouterr().err


def test_an_atlas_without_missing_is_refused(tmp_path, capsys):
    assert main(["atlas", "spec", "--atlas", str(tmp_path / "a.csv"),
                 "--out", str(tmp_path / "s.toml")]) == 2
    assert "add --missing" in capsys.readouterr().err and not (tmp_path / "s.toml").exists()


def test_knees_writes_the_certificates_of_each_regime_and_keeps_the_others(tmp_path, capsys):
    out = tmp_path / "knees.csv"
    assert main(["atlas", "knees", "--regime", "2,2", "--regime", "3,1", "--out",
                 str(out)]) == 0
    from attndepth.rank.knee_certificates import read_certificates

    first = read_certificates(out)
    assert {(c.width, c.q_size) for c in first} == {(2, 2), (3, 1)}
    assert main(["atlas", "knees", "--regime", "2,2", "--out", str(out)]) == 0
    # the same seed measures the same ranks (the seconds differ), the other regime kept
    assert [(c.width, c.q_size, c.depth, c.rank, c.command) for c in read_certificates(out)] \
        == [(c.width, c.q_size, c.depth, c.rank, c.command) for c in first]
    assert "1 certificates measured" in capsys.readouterr().out


@pytest.mark.parametrize(("regime", "message"), [("5", "D,Q"), ("3,7", "q must be"),
                                                 ("12,1", "width must be")])
def test_knees_refuses_a_bad_regime_in_one_line(tmp_path, regime, message):
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "atlas", "knees",
                          "--regime", regime, "--out", str(tmp_path / "k.csv")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert message in run.stderr and not (tmp_path / "k.csv").exists()


def test_knees_never_writes_over_a_file_of_another_kind(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    assert main(["atlas", "knees", "--regime", "2,2", "--out", str(other)]) == 2
    assert other.read_text() == "my notes\n"
