"""A derivation of your own, checked as attndepth checks its own claims.

Run it with ``attndepth verify --claims examples/own_claim/postln_rate.py``; search its
family with ``--search``; map it with ``attndepth map mine.postln-rate --claims
examples/own_claim/postln_rate.py --grid width=16,32,64,128``.
"""

import math

from attndepth import Estimate, Family, Outcome, Rival, StackConfig, Theory, claim, run_stack
from attndepth.simulations.measures.fitting import escalation_rate
from attndepth.simulations.measures.similarity import log_odds


def my_rate(width: int) -> float:
    """My derivation: the post-LN log-odds slope is ln(2 − 1/d) − 3/(4d)."""
    return math.log(2 - 1 / width) - 3 / (4 * width)


@claim("mine.postln-rate", source="my notes, eq. (3)",
       statement="Post-LN log-odds grow by ln(2 − 1/d) − 3/(4d) per layer.",
       presets={"quick": {"width": 64}, "full": {"width": 128}},
       family=Family(parameters={"width": (32, 64, 128)}, beyond={"width": (16,)}),
       estimate=Estimate("slope", "predicted", (-0.02, 0.02), seeds=(4, 16),
                         label="relative error of the slope", quantity="log-odds slope"),
       rivals=(Rival("ln 2", "the infinite-width limit", predicted=lambda v, p: math.log(2)),),
       theory=Theory(my_rate), wrong_theory={"my_rate": lambda width: 0.5})
def verify(seed: int, theory: Theory, width: int) -> Outcome:
    stacks = run_stack(StackConfig(variant="post-ln", depth=96, tokens=16, width=width),
                       batch=8, seed=seed)
    slope = escalation_rate(log_odds(stacks.states)).slope
    return Outcome(values={"slope": slope, "predicted": theory.my_rate(width)})
