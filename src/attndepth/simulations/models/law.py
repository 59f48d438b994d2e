"""Gaussian weight matrices drawn in law: only their products with the tokens.

A block uses each of its weight matrices W (fan-in × fan-out, entries
N(0, σ²/fan-in)) exactly once, as Z W for the states Z (T × fan-in) that reach it,
and W is independent of Z (the weights of block ℓ are independent of the input
and of the blocks before it). Given Z, the columns of Z W are independent
N(0, σ² Z Zᵀ/fan-in). For any factor F with F Fᵀ = Z Zᵀ and H a standard Gaussian
matrix, F H σ/√fan-in has that law (F is T × T when T < fan-in). So the states and
attention matrices of every block, jointly over the depth, have the same law as with
the weights drawn, while each matrix costs T × fan-out Gaussian numbers instead of
fan-in × fan-out (4× fewer for n = 16 tokens at d = 64) and Z W becomes a T × T by
T × fan-out product. Where T ≥ fan-in the factor is Z itself and H is W: the weights
are drawn as they are.

The factor must keep the tokens' differences: tokens that agree to 1e-11 (post-LN
log-odds of 50) differ by less than the round-off of Z Zᵀ. So the mean token is
reflected out first: M = U Z (U the Householder reflection with first column 1/√T)
holds √T times the mean token in its first row and the differences, accurate to ε|z|
as in Z W, in the others; M Mᵀ is then graded rather than ill-conditioned, and
F = U L with L its Cholesky factor. Where a pivot still fails (tokens of lower rank),
L comes from the QR decomposition of Mᵀ, signed to the same factor.

What a law-sampled stack cannot give is the weights: a measurement that reads a
weight matrix, or applies one to other states than the block did (a Jacobian, a
second branch with the same W), needs them drawn (``sampling="weights"``). Applied
again to the states it met in the block, a matrix gives the block's product again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.seeding import LAW_STREAM, spawn_generators
from attndepth.validation import check_finite_array, check_int, check_seed, check_size

#: The matrices of one block in their stream order: name -> (fan-in, fan-out, variance
#: times fan-in) as multiples of the width d; the ReLU layer's input has variance 2/d.
MATRICES: dict[str, tuple[int, int, float]] = {
    "projections": (1, 3, 1.0), "output": (1, 1, 1.0),
    "ffn_in": (1, 4, 2.0), "ffn_out": (4, 1, 1.0)}


def token_factor(Z: np.ndarray) -> np.ndarray:
    """A factor F of Z Zᵀ per stack (F Fᵀ = Z Zᵀ) with min(T, fan-in) columns, which keeps
    the tokens' differences however small (module docstring).

    Parameters
    ----------
    Z : (..., T, fan_in)
        Finite states.

    Returns
    -------
    F : (..., T, min(T, fan_in))
        Z itself where T ≥ fan_in; else U L with U = :func:`mean_reflection` and L the
        Cholesky factor of M Mᵀ, M = U Z: from M Mᵀ where its pivots allow
        (:data:`PIVOT_FLOOR`), from the QR decomposition of Mᵀ elsewhere (tokens of
        lower rank), decided stack by stack. In Z's floating-point type (float64 for
        integers).

    Raises
    ------
    ValueError
        Z is not an array of at least two axes of finite numbers.
    """
    array = np.asarray(Z) if isinstance(Z, np.ndarray) else check_finite_array("Z", Z)
    if array.dtype.kind != "f" or not np.all(np.isfinite(array)):
        array = check_finite_array("Z", array)
    if array.ndim < 2:
        raise InvalidParameter(f"Z must have at least 2 axes (tokens, fan_in), got shape "
                               f"{array.shape}")
    return _factor(array)


#: Smallest Cholesky pivot l_ii², as a fraction of its diagonal entry a_ii, with which a
#: stack's factor is taken from the Gram matrix: √ε of its type (each pivot is then accurate
#: to about √ε relative; 1.5e-8 in float64, 3.5e-4 in float32).
PIVOT_FLOOR: dict[str, float] = {name: float(np.sqrt(np.finfo(name).eps))
                                 for name in ("float64", "float32")}


@functools.lru_cache(maxsize=64)
def mean_reflection(tokens: int) -> np.ndarray:
    """The Householder reflection U (T × T, symmetric, orthogonal) whose first column is
    1/√T: U Z has the mean token (times √T) as its first row and the rest of Z, which sums
    to 0 over the tokens, in the others. Read-only.

    Parameters
    ----------
    tokens : int
        T ≥ 1.

    Returns
    -------
    U : (T, T)
    """
    tokens = check_int("tokens", tokens, minimum=1)
    v = np.full(tokens, 1.0 / np.sqrt(tokens))
    v[0] -= 1.0
    norm = float(v @ v)
    U = np.eye(tokens) if norm == 0.0 else np.eye(tokens) - 2.0 * np.outer(v, v) / norm
    U.flags.writeable = False
    return U


def _factor(Z: np.ndarray) -> np.ndarray:
    """:func:`token_factor` of states known to be finite, in their own type.

    F = U L with U = :func:`mean_reflection` and L the Cholesky factor of M Mᵀ, M = U Z.
    The mean token sits in M's first row and the tokens' differences, however small,
    in the others, so M Mᵀ is graded, not ill-conditioned, where the tokens nearly agree:
    L is taken from it where every pivot l_ii² is at least :data:`PIVOT_FLOOR` of its
    a_ii, and from the QR decomposition of Mᵀ elsewhere (tokens of lower rank), stack by
    stack; both give the same L.
    """
    tokens, fan_in = Z.shape[-2:]
    if tokens >= fan_in:
        return Z
    U = mean_reflection(tokens).astype(Z.dtype, copy=False)
    M = U @ Z
    gram = M @ np.swapaxes(M, -1, -2)
    factor = _cholesky(gram)
    pivots = np.diagonal(factor, axis1=-2, axis2=-1)
    floor = PIVOT_FLOOR.get(Z.dtype.name, PIVOT_FLOOR["float64"])
    inaccurate = np.any(pivots * pivots < floor * np.diagonal(gram, axis1=-2, axis2=-1),
                        axis=-1)
    if inaccurate.any():
        factor[inaccurate] = _qr_factor(M[inaccurate])
    return U @ factor


def _cholesky(grams: np.ndarray) -> np.ndarray:
    """Cholesky factors of (..., T, T) Gram matrices; a singular one's factor is 0 (its
    pivots then fail the floor), each found on its own."""
    try:
        return np.linalg.cholesky(grams)
    except np.linalg.LinAlgError:  # one at a time, so that each stack's factor is its own
        factors = np.zeros_like(grams)
        for index in np.ndindex(grams.shape[:-2]):
            try:
                factors[index] = np.linalg.cholesky(grams[index])
            except np.linalg.LinAlgError:
                pass
        return factors


def _qr_factor(M: np.ndarray) -> np.ndarray:
    """Rᵀ of Mᵀ = Q R (M : (k, T, fan_in), T < fan_in), columns signed to a diagonal ≥ 0:
    the Cholesky factor of M Mᵀ."""
    R = np.linalg.qr(np.swapaxes(M, -1, -2), mode="r")
    signs = np.where(np.diagonal(R, axis1=-2, axis2=-1) < 0, -1.0, 1.0).astype(M.dtype)
    return np.swapaxes(R, -1, -2) * signs[..., None, :]


class GaussianAction:
    """One block's Gaussian matrix W, held as the noise of its action on the tokens.

    ``Z @ action`` is F H (F = :func:`token_factor` of Z, H the held noise, already
    scaled by σ/√fan-in): the law of Z W. Defined for one product only (a second
    product with other states would not be W applied to them).

    Parameters
    ----------
    noise : (..., min(T, fan_in), fan_out) floating-point array
    fan_in : int
        The rows of the W it stands for (≥ 1).

    Raises
    ------
    ValueError
        ``noise`` is not a floating-point array of at least two axes, ``fan_in`` not a
        positive integer; at the product, states that do not fit.
    """

    #: NumPy defers ``ndarray @ action`` to :meth:`__rmatmul__`.
    __array_ufunc__ = None

    def __init__(self, noise: np.ndarray, fan_in: int) -> None:
        if not isinstance(noise, np.ndarray) or noise.dtype.kind != "f" or noise.ndim < 2:
            raise InvalidParameter(f"noise must be a floating-point array of at least 2 axes, "
                                   f"got {type(noise).__name__} "
                                   f"{getattr(noise, 'shape', '')}".rstrip())
        self.noise = noise
        self.fan_in = check_int("fan_in", fan_in, minimum=1)

    def __rmatmul__(self, Z: np.ndarray) -> np.ndarray:
        if not isinstance(Z, np.ndarray) or Z.dtype.kind != "f":
            Z = check_finite_array("Z", Z)
        rows = self.noise.shape[-2]
        if Z.ndim < 2 or Z.shape[-1] != self.fan_in or min(Z.shape[-2], self.fan_in) != rows:
            raise InvalidParameter(f"states of shape {Z.shape} do not fit a matrix of fan-in "
                                   f"{self.fan_in} drawn for {rows} tokens")
        return _factor(Z) @ self.noise


class StackShape:
    """``batch``, ``depth`` and ``width`` of a batch of stacks' arrays, read from its
    ``output`` array, (batch, depth, ..., width)."""

    output: np.ndarray

    @property
    def batch(self) -> int:
        return self.output.shape[0]

    @property
    def depth(self) -> int:
        return self.output.shape[1]

    @property
    def width(self) -> int:
        return self.output.shape[-1]


@dataclass(frozen=True)
class LawWeights(StackShape):
    """The weight matrices of a batch of stacks, drawn in law (module docstring).

    Attributes
    ----------
    projections : (batch, depth, min(T, d), 3d), for ``[W_Q | W_K | W_V]``
    output : (batch, depth, min(T, d), d), for W_O
    ffn_in : (batch, depth, min(T, d), 4d) or None, for the feed-forward input
    ffn_out : (batch, depth, min(T, 4d), d) or None, for its output

    Each holds H σ/√fan-in: standard Gaussian numbers times the weight's standard
    deviation, not a weight matrix.
    """

    projections: np.ndarray
    output: np.ndarray
    ffn_in: np.ndarray | None
    ffn_out: np.ndarray | None

    def _arrays(self) -> dict[str, np.ndarray]:
        arrays = {"projections": self.projections, "output": self.output,
                  "ffn_in": self.ffn_in, "ffn_out": self.ffn_out}
        return {name: array for name, array in arrays.items() if array is not None}

    def _map(self, change: Callable[[np.ndarray], np.ndarray]) -> LawWeights:
        def apply(array: np.ndarray | None) -> np.ndarray | None:
            return None if array is None else change(array)

        return LawWeights(change(self.projections), change(self.output),
                          apply(self.ffn_in), apply(self.ffn_out))

    def astype(self, dtype: str) -> LawWeights:
        """The same noise rounded to ``dtype`` (no copy when already of that type)."""
        return self._map(lambda array: array.astype(dtype, copy=False))

    def stacks(self, start: int, stop: int) -> LawWeights:
        """Stacks ``start .. stop − 1`` of the batch (views), 0 ≤ start < stop ≤ batch."""
        start = check_int("start", start, minimum=0, maximum=self.batch - 1)
        stop = check_int("stop", stop, minimum=start + 1, maximum=self.batch)
        return self._map(lambda array: array[start:stop])

    def blocks(self, depth: int) -> LawWeights:
        """The first ``depth`` blocks (views), 0 ≤ depth ≤ :attr:`depth`: the noise a
        draw of that depth gives (:func:`draw_law_weights`)."""
        depth = check_int("depth", depth, minimum=0, maximum=self.depth)
        return self._map(lambda array: array[:, :depth])

    def layer(self, index: int) -> dict[str, GaussianAction]:
        """Block ``index``'s matrices as :class:`GaussianAction` objects, by the names
        :func:`~attndepth.simulations.models.blocks.block_forward` reads."""
        d = self.width
        return {name: GaussianAction(array[:, index], MATRICES[name][0] * d)
                for name, array in self._arrays().items()}


def law_draws_per_layer(tokens: int, width: int, ffn: bool) -> int:
    """Gaussian numbers one block of one stack draws in law: Σ min(T, fan-in) × fan-out.

    Parameters
    ----------
    tokens, width : int
        T ≥ 1, d ≥ 1.
    ffn : bool
        Whether the block has the feed-forward sublayer (hidden width 4d).

    Returns
    -------
    int
    """
    tokens, width = check_int("tokens", tokens, minimum=1), check_int("width", width, minimum=1)
    if not isinstance(ffn, bool):
        raise InvalidParameter(f"ffn must be True or False, got {ffn!r}")
    names = ("projections", "output", *(("ffn_in", "ffn_out") if ffn else ()))
    return sum(min(tokens, rows * width) * columns * width
               for rows, columns, _ in (MATRICES[name] for name in names))


def draw_law_weights(depth: int, tokens: int, width: int, ffn: bool, batch: int, seed: int,
                     first: int = 0) -> LawWeights:
    """Draw the noise of :class:`LawWeights` for stacks ``first .. first + batch − 1``.

    Stack k's numbers come from its own stream (``SeedSequence(seed)`` child k,
    :data:`~attndepth.simulations.seeding.LAW_STREAM`) in one call, block after block,
    within a block in the order of :data:`MATRICES`: they depend on (tokens, width, ffn,
    seed, k) alone, and the blocks of a shallower stack are the first blocks of a deeper
    one (:meth:`LawWeights.blocks`).

    Parameters
    ----------
    depth, tokens, width : int
        L ≥ 0, T ≥ 1, d ≥ 1.
    ffn : bool
        Whether blocks have the ReLU feed-forward sublayer (hidden width 4d).
    batch, seed, first : int

    Returns
    -------
    LawWeights
        Views into one (batch, depth, numbers per block) array.
    """
    depth = check_int("depth", depth, minimum=0)
    tokens, width = check_int("tokens", tokens, minimum=1), check_int("width", width, minimum=1)
    batch, seed = check_int("batch", batch, minimum=1), check_seed("seed", seed)
    per_block = law_draws_per_layer(tokens, width, ffn)
    check_size("the stack's weights drawn in law", batch * depth * per_block)
    numbers = np.empty((batch, depth, per_block))
    for k, rng in enumerate(spawn_generators(seed, batch, LAW_STREAM, first)):
        rng.standard_normal(out=numbers[k])
    arrays, offset = {}, 0
    for name in ("projections", "output", *(("ffn_in", "ffn_out") if ffn else ())):
        rows, columns, variance = MATRICES[name]
        shape = (min(tokens, rows * width), columns * width)
        size = shape[0] * shape[1]
        array = numbers[:, :, offset:offset + size].reshape(batch, depth, *shape)
        array *= np.sqrt(variance / (rows * width))
        arrays[name], offset = array, offset + size
    return LawWeights(projections=arrays["projections"], output=arrays["output"],
                      ffn_in=arrays.get("ffn_in"), ffn_out=arrays.get("ffn_out"))
