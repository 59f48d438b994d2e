"""The finite-width term of the residual-scaling recursion, tested term by term.

Prints the table of theory document §5 (``noci.residual-scaling``): the relative
error of the measured log-odds growth against the finite-width growth (**)
L[ln(1 + α²) − 2α²/(d(1 + α²))], for

* residual softmax stacks at temperature 10 and 100 (near-uniform attention),
* the uniform-attention model m′ = m(I + αW) with W = W_V W_O (no softmax),
* the same model with one Gaussian W, against its own (**),

and how far (**) lies from Noci et al.'s infinite-width L ln(1 + α²).
Run: ``python examples/residual_scaling/ablation.py`` (about a minute on 2 cores).
"""

import numpy as np

from attndepth.simulations.measures.alignment import alignment_sample
from attndepth.simulations.measures.uniform_model import uniform_model_growth
from attndepth.simulations.models.stacks import StackConfig
from attndepth.theory.residual_scaling import finite_width_growth, log_odds_growth

DEPTH, TOKENS, STACKS = 32, 16, 256


def relative(growth: np.ndarray, predicted: float) -> str:
    """Mean relative error ± its standard error, in percent."""
    error = 100 * (growth.mean() / predicted - 1)
    standard = 100 * growth.std(ddof=1) / np.sqrt(growth.size) / predicted
    return f"{error:+.2f} ± {standard:.2f} %"


def stacks(width: int, scale: float, temperature: float) -> np.ndarray:
    config = StackConfig(variant="residual", depth=DEPTH, tokens=TOKENS, width=width,
                         temperature=temperature, residual_scale=scale)
    return np.concatenate([alignment_sample(config, STACKS // 4, seed).growth
                           for seed in range(4)])


def main() -> None:
    for width in (16, 32, 64, 128):
        for name, scale in (("1", 1.0), ("1/sqrt(L)", DEPTH ** -0.5)):
            product = finite_width_growth(DEPTH, scale, width)
            single = finite_width_growth(DEPTH, scale, width, product_weights=False)
            model = uniform_model_growth(width, DEPTH, scale, STACKS, 1)
            one_matrix = uniform_model_growth(width, DEPTH, scale, STACKS, 2,
                                              product_weights=False)
            limit = 100 * (product / log_odds_growth(DEPTH, scale) - 1)
            print(f"d = {width}, α = {name}: "
                  f"stacks T=10 {relative(stacks(width, scale, 10.0), product)}; "
                  f"T=100 {relative(stacks(width, scale, 100.0), product)}; "
                  f"model W_V W_O {relative(model, product)}; "
                  f"model one W {relative(one_matrix, single)}; "
                  f"(**) vs L ln(1 + α²) {limit:+.2f} %")


if __name__ == "__main__":
    main()
