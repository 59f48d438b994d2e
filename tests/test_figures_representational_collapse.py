"""The repeated-token figure: the shift falls with n at close to slope −1 at every depth."""

import numpy as np

from attndepth.figures import representational_collapse


def test_the_shift_falls_as_one_over_n(quick_data):
    data = {k: np.array(v) for k, v in quick_data(representational_collapse).items()}
    for variant in representational_collapse.VARIANTS:
        for depth in representational_collapse.DEPTHS:
            rows = (data["variant"] == variant) & (data["depth"].astype(int) == depth)
            slope = np.polyfit(np.log(data["tokens"][rows].astype(float)),
                               data["log_shift"][rows].astype(float), 1)[0]
            assert -1.3 < slope < -0.7, (variant, depth, slope)
