"""The P-side span of the separation-rank bounds, measured: rank of ν(M_P)·x^i_c on points.

``attndepth.theory.separation_rank.p_side_dimension`` counts
h_P(b) = dim span{ν(M_P)·x^i_c : deg ν = b, c ≤ d} by representation theory and
proves it an upper bound. This module measures the span directly: the
functions ν(M_P)·x^i_c, ν running over the monomials of degree b in the
d(d+1)/2 entries of M_P = Σ_{j∈P} x^j x^jᵀ, evaluated exactly over GF(p) at
random points x_P (x^i = the first of the m tokens). The rank of that
evaluation matrix is a certified lower bound of h_P(b) (rank over GF(p) ≤ rank
over ℚ ≤ the dimension of the span), so rank = count proves the count exact.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.rank.arithmetic.modular import DEFAULT_PRIME, check_prime
from attndepth.rank.arithmetic.modular_rank import rank_mod
from attndepth.simulations.seeding import GRID_STREAM, spawn_generators
from attndepth.validation import check_int, check_size

#: Spanning functions accepted (columns of the evaluation matrix).
MAX_FUNCTIONS = 20_000


def p_side_rank(degree: int, width: int, p_size: int, seed: int = 0,
                prime: int = DEFAULT_PRIME, extra_points: int = 16) -> int:
    """GF(prime) rank of {ν(M_P)·x^i_c} evaluated at random points x_P (module docstring).

    Parameters
    ----------
    degree : b, the degree of ν in the entries of M_P.
    width : d.
    p_size : m = |P| tokens (x^i is the first).
    seed : seed of the points.
    extra_points : rows beyond the number of functions (which bounds the rank).

    Returns
    -------
    int
        A certified lower bound of h_P(b).
    """
    degree = check_int("degree", degree, minimum=0)
    width = check_int("width", width, minimum=1)
    p_size = check_int("p_size", p_size, minimum=1)
    prime = check_prime(prime)
    entries = [(r, c) for r in range(width) for c in range(r, width)]
    functions = math.comb(len(entries) + degree - 1, degree) * width
    if functions > MAX_FUNCTIONS:
        raise InvalidParameter(f"{functions} spanning functions (degree {degree}, width {width}) "
                               f"exceed {MAX_FUNCTIONS}")
    points = functions + check_int("extra_points", extra_points, minimum=0)
    check_size("the P-side evaluation matrix", points * functions)
    generator = spawn_generators(seed, 1, GRID_STREAM)[0]
    X = generator.integers(0, prime, (points, p_size, width))
    M = np.zeros((points, width, width), dtype=np.int64)
    for token in range(p_size):
        x = X[:, token]
        M = (M + x[:, :, None] * x[:, None, :] % prime) % prime
    values = np.stack([M[:, r, c] for r, c in entries], axis=1)  # (points, D)
    columns: list[np.ndarray] = []
    for monomial in itertools.combinations_with_replacement(range(len(entries)), degree):
        product = np.ones(points, dtype=np.int64)
        for index in monomial:
            product = product * values[:, index] % prime
        columns.extend(product * X[:, 0, c] % prime for c in range(width))
    return rank_mod(np.stack(columns, axis=1), prime)
