"""The DeepNorm rate in the declarative form: an expression, an observable, a stack.

The expression is the tutorial's rate at s = 0 (aligned tokens); the toolkit builds
the verify function, the seed sample, the rivals, the wrong theory and a figure.

    attndepth verify --claims examples/deepnorm/deepnorm_declared.py
    attndepth figures --claims examples/deepnorm/deepnorm_declared.py --out figs
"""

import math

import sympy as sp

from attndepth import Family, StackConfig
from attndepth.framework.declarative import derived_claim

alpha, width = sp.symbols("alpha width", positive=True)
k = 1 - 1 / width
MEAN = alpha**2 + k


@derived_claim(
    "mine.deepnorm-declared", observable="log_odds_slope", tolerance=0.03,
    expression=sp.log(MEAN / alpha**2) - (4 * alpha**2 + 2) / (2 * width * MEAN**2),
    source="docs/tutorial.md, the derivation at s = 0",
    statement="DeepNorm post-LN log-odds grow by ln(1 + k/α²) − (4α² + 2)/(2d(α² + k)²).",
    family=Family(parameters={"alpha": (1.0, 1.5, 2.0, 3.0), "width": (32, 64)},
                  fixed={"tokens": 16}),
    presets={"quick": {"alpha": 2.0, "width": 64}, "full": {"alpha": 3.0, "width": 64}},
    rivals={"ln(1 + 1/α²)": (sp.log(1 + 1 / alpha**2), "the d → ∞ limit")},
    wrong=sp.log(2 - 1 / width))  # forgets α: the plain post-LN leading term
def stack(alpha, width, tokens):
    return StackConfig(variant="post-ln", skip_scale=alpha, tokens=tokens, width=width,
                       depth=math.ceil(60 / math.log(1 + 1 / alpha**2)))
