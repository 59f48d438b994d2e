"""What the analysed network's depth law says of ε-separation ranks above the threshold.

Levine et al. 2020 (§4) bound the separation rank of attention without softmax:
below the threshold log₃ d it can grow doubly exponentially in depth (sep ≈
d^{3^L}, ln sep ∝ 3^L), above it exponentially (ln sep linear in L). Asked of
the ε-rank r_ε of a softmax stack, the statement above the threshold is that
the growth g_k = ln r_ε(L₀ + k) − ln r_ε(L₀ + k − 1) per layer stays the first
layer's; the doubly exponential law, continued above the threshold, multiplies
it by 3 per layer. This project asks the question; the papers do not.
"""

from __future__ import annotations


def exponential_growth(first: float, k: int) -> float:
    """The growth of ln r_ε over the k-th layer after the first above the threshold, if
    r_ε grows exponentially in depth: the first layer's, ``first``, at every k.

    Parameters
    ----------
    first : g_1, the growth over the first layer above log₃ d.
    k : layers after it (k ≥ 1).

    Returns
    -------
    float: g_{k+1}.
    """
    return first


def doubly_exponential_growth(first: float, k: int) -> float:
    """The same growth if ln r_ε ∝ 3^L (Levine et al.'s law below the threshold, continued):
    3^k · ``first``.

    Parameters
    ----------
    first : g_1; k : layers after it.

    Returns
    -------
    float: g_{k+1}.
    """
    return 3.0 ** k * first
