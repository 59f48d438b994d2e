"""One post-LN block's log-odds change in its three parts (the derived rate's terms)."""

import numpy as np
import pytest

from attndepth.errors import InvalidParameter
from attndepth.simulations.measures.fitting import escalation_layers
from attndepth.simulations.measures.rate_terms import postln_rate_terms
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.similarity import scaling_share

CONFIG = StackConfig(variant="post-ln", depth=64, tokens=8, width=32)


def test_the_parts_add_up_to_the_change_and_the_scaling_part_is_q():
    terms = postln_rate_terms(CONFIG, 8, 0)
    layers = escalation_layers(terms.log_odds)[:-1]
    parts = terms.mean - terms.diversity + terms.scaling
    # exact up to LayerNorm's ε (1e-5 against unit variances)
    assert np.abs(parts - terms.total)[layers].max() < 1e-4
    scaling = terms.scaling[layers].mean()
    assert scaling == pytest.approx(scaling_share(0.0, 32), rel=0.1)  # 1/(2d), +2.5 % at d = 32


def test_one_value_matrix_is_an_ablation_of_the_same_stacks():
    product = postln_rate_terms(CONFIG, 4, 1)
    single = postln_rate_terms(CONFIG, 4, 1, single_value_matrix=True)
    assert np.array_equal(product.log_odds[0], single.log_odds[0])  # same inputs
    assert not np.allclose(product.mean, single.mean)


@pytest.mark.parametrize("config", [
    StackConfig(variant="pre-ln", depth=4, tokens=4, width=8),
    StackConfig(variant="post-ln", depth=4, tokens=4, width=8, skip_scale=2.0),
    StackConfig(variant="post-ln", depth=4, tokens=4, width=8, ffn=True),
])
def test_other_blocks_are_refused(config):
    with pytest.raises(InvalidParameter, match="plain post-LN"):
        postln_rate_terms(config, 2, 0)


def test_a_config_that_is_not_a_stack_config_is_refused():
    from attndepth.errors import InvalidType

    with pytest.raises(InvalidType, match="StackConfig"):
        postln_rate_terms("post-ln", 2, 0)
