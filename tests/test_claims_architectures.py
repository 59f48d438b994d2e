"""Real architectures as claim members: the own stack unchanged, the norm placement checked."""

import numpy as np
import pytest

from attndepth.claims.architectures import OWN, POST_LN_REFERENCE, trace, with_architecture
from attndepth.pytorch.escalation import POST_NORM, PRE_NORM
from attndepth.simulations.measures.escalation import escalation_trace
from attndepth.simulations.models.stacks import StackConfig


def test_the_own_architecture_is_the_stack_drawn_in_law():
    found = trace(OWN, "post-ln", depth=4, tokens=6, width=8, heads=2, batch=3, seed=5)
    config = StackConfig(variant="post-ln", depth=4, tokens=6, width=8, heads=2,
                         sampling="law")
    before = escalation_trace(config, 3, 5)
    for name in ("log_odds", "similarity", "contraction"):
        np.testing.assert_array_equal(getattr(found, name), getattr(before, name))


@pytest.mark.parametrize(("variant", "wrong"), [("post-ln", PRE_NORM), ("pre-ln", POST_NORM)])
def test_a_model_of_the_other_norm_placement_is_refused(variant, wrong):
    for architecture in wrong:
        with pytest.raises(ValueError, match="architecture must be one of"):
            trace(architecture, variant, depth=2, tokens=4, width=8, batch=1, seed=0)


def test_every_pre_norm_architecture_has_a_post_norm_reference():
    assert set(POST_LN_REFERENCE) == set(PRE_NORM)
    assert set(POST_LN_REFERENCE.values()) <= set(POST_NORM)


def test_presets_gain_the_own_architecture_and_keep_the_rest():
    table = {"quick": {"width": 8}, "full": {"width": 16}}
    assert with_architecture(table) == {"quick": {"width": 8, "architecture": OWN},
                                        "full": {"width": 16, "architecture": OWN}}
    assert table["quick"] == {"width": 8}
