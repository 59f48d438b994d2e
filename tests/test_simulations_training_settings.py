"""Training settings: described once, checked on construction, without JAX."""

import pytest

from attndepth.errors import InvalidParameter
from attndepth.simulations.settings import settings_of
from attndepth.simulations.training.settings import TrainingSettings


def test_defaults_are_the_commands_and_the_sweeps():
    from attndepth.simulations.sweeps.observables import observables

    defaults = {name: s.default for name, s in settings_of(TrainingSettings).items()}
    assert defaults == {"steps": 600, "batch": 64, "learning_rate": 3e-3, "warmup": 0,
                        "evaluate_every": 100, "evaluation_size": 256}
    parameters = observables()["train"].parameters
    assert all(parameters[name].default == value for name, value in defaults.items())


@pytest.mark.parametrize("bad", [dict(steps=0), dict(batch=0), dict(learning_rate=0.0),
                                 dict(warmup=-1), dict(evaluate_every=0),
                                 dict(evaluation_size=0), dict(steps=True)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(InvalidParameter):
        TrainingSettings(**bad)
