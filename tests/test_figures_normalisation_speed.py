"""The speed-regulation figure: post-LN aligns first, and each scheme on its clock lies on
nGPT's curve while the aligned clock leaves it."""

import numpy as np

from attndepth.figures import normalisation_speed


def test_the_schemes_share_one_trajectory_on_their_clocks(quick_data):
    data = {k: np.array(v) for k, v in quick_data(normalisation_speed).items()}
    panel, scheme = data["panel"], data["scheme"]
    parameter = data["parameter"].astype(float)
    clock, cosine = data["clock"].astype(float), data["cosine"].astype(float)
    reference = (panel == "b") & (scheme == "nGPT") & (parameter == 0.2)

    def distance(rows):  # mean |cosine − nGPT's cosine at the same clock|, on its range
        rows = rows & (clock <= clock[reference].max())
        return float(np.mean(np.abs(cosine[rows] - np.interp(clock[rows], clock[reference],
                                                             cosine[reference]))))

    depth = data["depth"].astype(float)
    deep = depth >= 8
    for chosen in ((scheme == "Peri-LN") & (parameter <= 1.0), scheme == "pre-LN"):
        assert distance((panel == "b") & chosen & deep) < 0.05
    middle = (depth >= 2) & (depth <= 16)
    assert distance((panel == "b") & (scheme == "Peri-LN, aligned clock") & middle) > 0.1
    first = (panel == "a") & (data["depth"].astype(float) == 1)
    by_scheme = dict(zip(scheme[first], cosine[first], strict=True))
    assert by_scheme["Peri-LN"] > max(by_scheme["post-LN"], by_scheme["nGPT"])
