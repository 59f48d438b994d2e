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


def test_the_derived_laws_script_decides_each_configuration(monkeypatch, tmp_path):
    import derived_laws

    monkeypatch.setattr(derived_laws, "CONFIGURATIONS", (
        ("yuzhang.architecture-rate", "bert", 64, 8, 2),
        ("yuzhang.preln-law", "llama", 64, 8, 2)))
    monkeypatch.setattr(derived_laws, "TOKENS", 8)
    monkeypatch.setattr(derived_laws, "INIT_STD", 0.1)
    derived_laws.main(str(tmp_path / "laws.json"))
    rows = json.loads((tmp_path / "laws.json").read_text())["rows"]
    assert [row["architecture"] for row in rows] == ["bert", "llama"]
    for row in rows:
        assert row["verdict"] in ("holds", "fails", "inconclusive") and row["seeds"] >= 4
        assert row["predicted_rise"] > 0 and "the unit-scale rate" in " ".join(row["rivals"])
