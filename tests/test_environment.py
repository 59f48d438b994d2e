"""The environment variables: each parsed in one place, every one checked at the door of
every command (enumerated from :data:`attndepth.environment.VARIABLES`), and read or
written nowhere else."""

import contextlib
import os
from pathlib import Path

import pytest

import attndepth
from attndepth.cli.main import EXIT_BAD_INPUT, main
from attndepth.environment import (
    VARIABLES,
    cache_folder,
    check_environment,
    is_set,
    keep_hypothesis_files_in_cache,
    set_here,
    setting,
)
from attndepth.errors import InvalidParameter

#: Values no variable takes (each echoed shortened in the refusal).
HOSTILE = ["abc", "9" * 5000, "x" * 100_000, "-1", "nan", "inf", "1e400", " ", "٣",
           "cudaXYZ", "cuda:abc", "cuda:-1", "cuda:1000"]
#: A valid value of each variable (a new variable needs one here).
VALID = {"ATTNDEPTH_THREADS": "2", "ATTNDEPTH_CLAIM_SECONDS": "30",
         "ATTNDEPTH_CLAIM_MEMORY": "1.5", "ATTNDEPTH_DOMAIN_RECORD": "record.json",
         "ATTNDEPTH_TORCH_DEVICE": "cuda:1"}


def test_every_variable_has_a_valid_value_here():
    assert set(VALID) == set(VARIABLES)


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_a_valid_value_is_parsed(name, monkeypatch):
    monkeypatch.setenv(name, VALID[name])
    assert setting(name) is not None
    check_environment()


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_unset_is_none(name, monkeypatch):
    monkeypatch.delenv(name, raising=False)
    assert setting(name) is None


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_every_command_refuses_a_hostile_value_in_one_short_line(name, monkeypatch, capsys):
    refused = 0
    for value in HOSTILE:
        monkeypatch.setenv(name, value)
        try:
            setting(name)
        except InvalidParameter:
            refused += 1
            code = main(["plan", "--params", "1e9"])
            err = capsys.readouterr().err
            assert code == EXIT_BAD_INPUT, (name, value[:20])
            [line] = err.strip().splitlines()
            assert name in line and len(line) < 200, line
    assert refused >= 2  # a path takes most text: the too long ones at least


def test_seprank_refuses_a_bad_thread_count_instead_of_ignoring_it(monkeypatch, capsys):
    for value in ("abc", "65", "9" * 5000):
        monkeypatch.setenv("ATTNDEPTH_THREADS", value)
        assert main(["seprank", "--width", "2", "--depth", "2"]) == EXIT_BAD_INPUT
        [line] = capsys.readouterr().err.strip().splitlines()
        assert "ATTNDEPTH_THREADS must be an integer from 1 to 64" in line and len(line) < 200


@pytest.mark.parametrize("device", ["cudaXYZ", "cuda:abc", "cuda:-1", "cuda:01", "CPU",
                                    "c" * 100_000])
def test_only_a_device_torch_names_is_taken(device, monkeypatch):
    monkeypatch.setenv("ATTNDEPTH_TORCH_DEVICE", device)
    with pytest.raises(InvalidParameter, match="cpu, cuda or cuda:N") as refused:
        setting("ATTNDEPTH_TORCH_DEVICE")
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_a_value_set_here_is_checked_as_a_read_one_is(name, monkeypatch):
    monkeypatch.setenv(name, "")  # restored after the test, whatever set_here writes
    set_here(name, VALID[name])
    assert is_set(name) and setting(name) is not None
    for value in HOSTILE:
        with contextlib.suppress(InvalidParameter):
            set_here(name, value)
            assert setting(name) is not None  # what it accepted, it reads back


def test_the_cache_follows_xdg_and_hypothesis_keeps_its_files_there(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    assert cache_folder() == tmp_path / "attndepth"
    keep_hypothesis_files_in_cache()
    assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"].startswith(str(tmp_path))
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", "mine")
    keep_hypothesis_files_in_cache()  # the user's choice stays
    assert os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] == "mine"


def test_no_other_module_reads_or_writes_the_environment():
    """Every variable goes through this module: ``os.environ`` and ``os.getenv`` appear
    nowhere else in the package (the CLI reads none of its own either)."""
    package = Path(attndepth.__file__).parent
    for path in package.rglob("*.py"):
        if path.name != "environment.py":
            text = path.read_text()
            assert "os.environ" not in text and "getenv" not in text, path
