import numpy as np

from attndepth.figures import allocation


def test_rule_curve_monotone_and_above_threshold(quick_data):
    data = quick_data(allocation)
    kind = np.array(data["kind"])
    depth = np.array(data["depth"])[kind == "rule"]
    threshold = np.array(data["threshold_depth"])[kind == "rule"]
    assert np.all(np.diff(depth) > 0)
    assert np.all(threshold < depth)
    assert any("GPT-3 175B" in label for label in data["label"])
