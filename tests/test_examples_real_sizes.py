"""examples/real_sizes: the script that runs the architectures at their published sizes,
here at toy sizes on the CPU (its results on a GPU are in its RESULTS.md)."""

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the script needs the hf extra")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "real_sizes"))
import real_sizes  # noqa: E402

pytestmark = pytest.mark.slow  # builds models: like the other examples' tests


def test_the_script_writes_every_row_and_the_cpu_device_agreement(monkeypatch, tmp_path):
    monkeypatch.setattr(real_sizes, "CONFIGURATIONS", (("bert", 32, 3, 2), ("llama", 32, 3, 2)))
    monkeypatch.setattr(real_sizes, "TOKENS", 6)
    monkeypatch.setattr(real_sizes, "MODELS", 2)
    # the CPU-against-device row at toy size too
    row = real_sizes._trace_row
    monkeypatch.setattr(real_sizes, "_trace_row", lambda a, w, d, h: row(a, 32, 3, 2))
    monkeypatch.setenv("ATTNDEPTH_TORCH_DEVICE", "cpu")
    real_sizes.main(str(tmp_path / "out.json"))
    written = json.loads((tmp_path / "out.json").read_text())
    assert written["device"] == "cpu" and written["cpu_device_max_difference"] == 0.0
    bert, llama = written["rows"]
    assert len(bert["similarity"]) == len(bert["log_odds"]) == 4
    assert bert["escalation"]["values"]["derived_rate"] > 0 and "escalation" not in llama
