"""Same command, same seed: the same JSON, byte for byte, once timings are removed."""

import io
import json
from contextlib import redirect_stdout

import pytest

from attndepth.cli import main


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _json_of(argv: list[str]) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(argv) in (0, 1)
    return json.dumps(_without_timings(json.loads(out.getvalue())), sort_keys=True)


@pytest.mark.parametrize("argv", [
    ["verify", "--claim", "levine.degree", "--claim", "yuzhang.escalation", "--format", "json",
     "--seed", "7"],
    ["seprank", "--width", "2", "--depth", "2", "--tokens", "4", "--json", "--seed", "3"],
    ["seprank", "--width", "2", "--depth", "2", "--method", "numeric", "--json"],
    ["similarity", "--variant", "post-ln-deesc-a", "--depth", "12", "--tokens", "6",
     "--width", "8", "--heads", "2", "--tau", "0.5", "--spectra", "--json", "--seed", "11"],
    ["plan", "--params", "3e11", "--json"],
])
def test_same_seed_same_bytes(argv):
    first, second = _json_of(argv), _json_of(argv)
    assert first == second
    document = json.loads(first)
    assert "environment" in document or "environment" in str(document)


def test_json_records_seed_config_and_versions():
    document = json.loads(_json_of(["verify", "--claim", "levine.degree", "--format", "json",
                                    "--seed", "2"]))
    assert document["seed"] == 2
    environment = document["environment"]
    for key in ("attndepth", "numpy", "blas", "python-flint"):
        assert key in environment
    assert document["claims"][0]["params"]
