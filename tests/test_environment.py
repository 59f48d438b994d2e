"""The environment variables: each parsed in one place, every one checked at the door of
every command (enumerated from :data:`attndepth.environment.VARIABLES`)."""

import pytest

from attndepth.cli.main import EXIT_BAD_INPUT, main
from attndepth.environment import VARIABLES, check_environment, setting
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
