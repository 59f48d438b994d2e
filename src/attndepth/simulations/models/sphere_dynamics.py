"""Tokens as particles on the unit sphere under continuous-time self-attention.

The flow of Geshkovski et al. 2023, §2 (Q = K = V = I, softmax-normalised):
ẋ_i = (I − x_i x_iᵀ) Σ_j softmax_j(β⟨x_i, x_j⟩) x_j, integrated with SciPy's
``solve_ivp`` at stated tolerances: the tokens by LSODA (it turns to BDF once the tokens have
clustered and the flow is stiff), the one-dimensional reduced ODE by DOP853. Nothing here
knows a prediction.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import nnls

from attndepth.errors import InvalidParameter
from attndepth.simulations.seeding import spawn_generators
from attndepth.validation import check_int, check_real, check_seed

#: Relative and absolute tolerances of the integration (DOP853, error per step).
RTOL, ATOL = 1e-11, 1e-13


def attention_velocity(X: np.ndarray, beta: float) -> np.ndarray:
    """The velocity field at X.

    Parameters
    ----------
    X : array, shape (n, d)
        Tokens on the unit sphere (rows).
    beta : float
        Inverse temperature ≥ 0.

    Returns
    -------
    array, shape (n, d)
        (I − x_i x_iᵀ) Σ_j softmax_j(β⟨x_i, x_j⟩) x_j for every i.
    """
    scores = beta * (X @ X.T)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    mean = weights @ X
    return mean - np.sum(mean * X, axis=1, keepdims=True) * X


def integrate_tokens(X0: np.ndarray, beta: float, times: np.ndarray) -> np.ndarray:
    """Token positions at ``times``, by SciPy's LSODA at relative tolerance ``RTOL``.

    Once the tokens have clustered the flow contracts at a fixed rate while it barely
    moves: an explicit method is held to steps at its stability limit (DOP853 made 38,303
    evaluations to t = 10⁴ for six tokens in R³, and left the diameter at its error level,
    about 4e-10, where the flow keeps shrinking it); LSODA switches to BDF there (616
    evaluations, the same positions within 2e-10 and a diameter at round-off).

    Parameters
    ----------
    X0 : array, shape (n, d)
        Start on the unit sphere (rows of norm 1 within 1e-12).
    beta : float
        Inverse temperature ≥ 0.
    times : array, shape (k,)
        Increasing times ≥ 0, the first 0.

    Returns
    -------
    array, shape (k, n, d)
    """
    X0 = np.asarray(X0, dtype=float)
    if X0.ndim != 2 or not np.all(np.isfinite(X0)):
        raise InvalidParameter(f"X0 must be a finite (tokens, width) array, got shape {X0.shape}")
    if np.max(np.abs(np.linalg.norm(X0, axis=1) - 1)) > 1e-12:
        raise InvalidParameter("X0's rows must lie on the unit sphere")
    beta = check_real("beta", beta, minimum=0.0)
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or times.size < 1 or times[0] != 0 or np.any(np.diff(times) <= 0):
        raise InvalidParameter("times must be increasing and start at 0")
    n, d = X0.shape

    def velocity(_, flat):
        return attention_velocity(flat.reshape(n, d), beta).ravel()

    solution = solve_ivp(velocity, (0.0, float(times[-1])), X0.ravel(), method="LSODA",
                         t_eval=times, rtol=RTOL, atol=ATOL)
    if not solution.success:
        raise InvalidParameter(f"the integration failed: {solution.message}")
    return solution.y.T.reshape(times.size, n, d)


def orthonormal_tokens(tokens: int, width: int, seed: int) -> np.ndarray:
    """``tokens`` pairwise orthogonal unit vectors in R^width (a random orthonormal frame).

    Returns
    -------
    array, shape (tokens, width)
    """
    tokens = check_int("tokens", tokens, minimum=1)
    width = check_int("width", width, minimum=tokens)
    generator = spawn_generators(check_seed("seed", seed), 1, 1)[0]
    q, r = np.linalg.qr(generator.standard_normal((width, tokens)))
    return (q * np.sign(np.diag(r))).T


def off_diagonal_inner_products(X: np.ndarray) -> np.ndarray:
    """⟨x_i, x_j⟩ for i < j.

    Parameters
    ----------
    X : array, shape (..., n, d)

    Returns
    -------
    array, shape (..., n(n−1)/2)
    """
    gram = X @ np.swapaxes(X, -1, -2)
    upper = np.triu_indices(X.shape[-2], k=1)
    return gram[..., upper[0], upper[1]]


def integrate_scalar(rate, times: np.ndarray, start: float = 0.0) -> np.ndarray:
    """Solve y′ = rate(y), y(0) = start, at ``times``, at the tolerances of the token flow.

    Parameters
    ----------
    rate : callable
        ``rate(y: float) -> float`` (a theory's right-hand side).
    times : array, shape (k,)
        Increasing, starting at 0.

    Returns
    -------
    array, shape (k,)
    """
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or times.size < 1 or times[0] != 0 or np.any(np.diff(times) <= 0):
        raise InvalidParameter("times must be increasing and start at 0")
    solution = solve_ivp(lambda _, y: [rate(float(y[0]))], (0.0, float(times[-1])), [start],
                         method="DOP853", t_eval=times, rtol=RTOL, atol=ATOL)
    if not solution.success:
        raise InvalidParameter(f"the integration failed: {solution.message}")
    return solution.y[0]


#: Weight of the row Σλ = 1 in the hemisphere test's least-squares problem, and the
#: residual above which 0 lies outside the hull (random points: above 4e-4 in 4,000 draws;
#: 1e-12 and below when inside).
HULL_WEIGHT, HULL_RESIDUAL = 1e4, 1e-7


def in_open_hemisphere(X: np.ndarray) -> bool:
    """Whether the rows of X lie in one open hemisphere: ∃ v with ⟨v, x_i⟩ > 0 for all i.

    By Gordan's alternative, exactly one holds: such a v exists, or some λ ≥ 0,
    λ ≠ 0 has Σ λ_i x_i = 0 — the origin lies in the convex hull of the points.
    So the test is the distance from 0 to the hull: non-negative least squares
    (SciPy's ``nnls``) minimises ‖Xᵀλ‖² + w²(Σλ − 1)² over λ ≥ 0 (w =
    :data:`HULL_WEIGHT`), whose residual is the distance up to a factor
    w/√(w² + D²); the points lie in an open hemisphere iff it exceeds
    :data:`HULL_RESIDUAL`. (A linear program decides the same — it did, 20 times
    slower; the tests compare the two on random draws.)

    Parameters
    ----------
    X : array, shape (n, d)
    """
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    system = np.vstack([X.T, np.full((1, n), HULL_WEIGHT)])
    target = np.zeros(d + 1)
    target[-1] = HULL_WEIGHT
    _, residual = nnls(system, target)
    return bool(residual > HULL_RESIDUAL)


def uniform_sphere_points(tokens: int, dimension: int, generator: np.random.Generator
                          ) -> np.ndarray:
    """``tokens`` independent uniform points on S^{dimension−1}, shape (tokens, dimension)."""
    X = generator.standard_normal((tokens, dimension))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def hemisphere_fraction(tokens: int, dimension: int, trials: int, seed: int) -> int:
    """How many of ``trials`` uniform draws of ``tokens`` points lie in one open hemisphere."""
    tokens = check_int("tokens", tokens, minimum=1)
    dimension = check_int("dimension", dimension, minimum=1)
    trials = check_int("trials", trials, minimum=1, maximum=10**6)
    generator = spawn_generators(check_seed("seed", seed), 1, 1)[0]
    return sum(in_open_hemisphere(uniform_sphere_points(tokens, dimension, generator))
               for _ in range(trials))


def hemisphere_tokens(tokens: int, dimension: int, seed: int) -> np.ndarray:
    """Uniform points of the open hemisphere ⟨x, e_1⟩ > 0, shape (tokens, dimension)."""
    generator = spawn_generators(check_seed("seed", seed), 1, 1)[0]
    X = uniform_sphere_points(check_int("tokens", tokens, minimum=1),
                              check_int("dimension", dimension, minimum=2), generator)
    X[:, 0] = np.abs(X[:, 0])
    return X


def cluster_diameter(path: np.ndarray) -> np.ndarray:
    """Largest pairwise distance ‖x_i − x_j‖ at each time.

    Parameters
    ----------
    path : array, shape (k, n, d)

    Returns
    -------
    array, shape (k,)
    """
    differences = path[:, :, None, :] - path[:, None, :, :]
    return np.sqrt(np.max(np.sum(differences * differences, axis=-1), axis=(1, 2)))
