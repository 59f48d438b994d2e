"""Public hypothesis strategies for property tests of attention conjectures.

Every strategy draws a seed and builds the object with NumPy, so failures
shrink to a small seed and size and replay exactly. Use them in your own
tests::

    from hypothesis import given
    from attndepth.simulations.testing import doubly_stochastic_matrices

    @given(doubly_stochastic_matrices(tokens=4))
    def test_mean_is_preserved(P): ...
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from scipy.stats import ortho_group

from attndepth.simulations.models.blocks import (
    DEESCALATIONS,
    NORM_KINDS,
    NORM_PLACEMENTS,
    PRESETS,
    SKIP_PLACEMENTS,
)
from attndepth.simulations.models.stacks import VARIANTS, StackConfig

_seeds = st.integers(0, 2**32 - 1)
_sizes = st.integers(2, 8)


def _positive_matrix(seed: int, tokens: int, spread: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.exp(spread * rng.standard_normal((tokens, tokens)))


@st.composite
def row_stochastic_matrices(draw, tokens: int | None = None, spread: float = 2.0) -> np.ndarray:
    """Strictly positive row-stochastic n × n matrices (softmax of Gaussian logits)."""
    n = draw(_sizes) if tokens is None else tokens
    P = _positive_matrix(draw(_seeds), n, draw(st.floats(0.1, spread)))
    return P / P.sum(axis=1, keepdims=True)


def _birkhoff(seed: int, tokens: int, symmetric: bool) -> np.ndarray:
    """A doubly stochastic matrix as a convex combination (Birkhoff–von Neumann).

    ``P = w₀Π + Σ_k w_k R_k`` over n random permutation matrices R_k (replaced by
    ``(R_k + R_kᵀ)/2`` when ``symmetric``), with Dirichlet weights and w₀ ≥ 0.05,
    so P ≥ 0.05/n entrywise. Exact: no iteration, nothing to fail to converge.
    """
    rng = np.random.default_rng(seed)
    weights = rng.dirichlet(np.ones(tokens + 1))
    weights = 0.95 * weights + 0.05 * np.eye(tokens + 1)[0]
    P = np.full((tokens, tokens), weights[0] / tokens)
    rows = np.arange(tokens)
    for weight in weights[1:]:
        R = np.zeros((tokens, tokens))
        R[rows, rng.permutation(tokens)] = 1.0
        P += weight * ((R + R.T) / 2 if symmetric else R)
    return P


@st.composite
def doubly_stochastic_matrices(draw, tokens: int | None = None) -> np.ndarray:
    """Strictly positive doubly stochastic matrices (mixtures of permutations and Π)."""
    n = draw(_sizes) if tokens is None else tokens
    return _birkhoff(draw(_seeds), n, symmetric=False)


@st.composite
def symmetric_stochastic_matrices(draw, tokens: int | None = None,
                                  lambda2: float | None = None) -> tuple[np.ndarray, float]:
    """Symmetric doubly stochastic P with a prescribed second eigenvalue modulus λ₂.

    λ₂ is drawn in (0, 1) when None.

    P = Π + t(S − Π) with S a symmetric doubly stochastic mixture of permutations:
    a convex combination of Π and S, so P ≥ 0, and on 1^⊥ its eigenvalues are
    t times those of S. With t = λ₂ / ρ(S − Π) the second-largest modulus is
    exactly λ₂ (when λ₂ ≤ ρ(S − Π); larger targets are clipped to ρ).
    Returns (P, achieved |λ₂|).
    """
    n = draw(_sizes) if tokens is None else tokens
    target = draw(st.floats(0.01, 0.99)) if lambda2 is None else lambda2
    S = _birkhoff(draw(_seeds), n, symmetric=True)
    Pi = np.full((n, n), 1.0 / n)
    radius = np.abs(np.linalg.eigvalsh(S - Pi)).max()
    t = min(1.0, target / radius) if radius > 1e-12 else 0.0
    P = Pi + t * (S - Pi)
    return P, float(t * radius)


@st.composite
def orthogonal_matrices(draw, size: int | None = None) -> np.ndarray:
    """Haar-random orthogonal matrices (scipy.stats.ortho_group)."""
    n = draw(_sizes) if size is None else size
    if n == 1:
        return np.array([[draw(st.sampled_from([-1.0, 1.0]))]])
    return ortho_group.rvs(n, random_state=draw(_seeds))


@st.composite
def token_matrices(draw, tokens: int | None = None, width: int | None = None,
                   alignment: float | None = None) -> np.ndarray:
    """Token matrices X (n × d) = shared token + noise; ``alignment`` sets the noise scale.

    Small noise (alignment near 1) gives the nearly-aligned regime where the
    contraction bounds are non-vacuous.
    """
    n = draw(_sizes) if tokens is None else tokens
    d = draw(st.integers(1, 8)) if width is None else width
    rng = np.random.default_rng(draw(_seeds))
    noise = draw(st.floats(1e-6, 1.0)) if alignment is None else 1 - alignment
    return rng.standard_normal(d) + noise * rng.standard_normal((n, d))


#: Mix-LN shares, nGPT steps and DyT's a₀ that :func:`stack_configs` draws (0 and 1: all
#: pre-LN or all post-LN; 1: nGPT jumps to the branch; a₀ = 0.5 the DyT default).
MIX_RATIOS: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0)
NGPT_STEPS: tuple[float, ...] = (0.05, 0.5, 1.0)
DYT_ALPHAS: tuple[float, ...] = (0.5, 2.0)
#: Decay-mask slopes m the strategy draws (0: none; ALiBi's first head of eight, ½).
DECAYS: tuple[float, ...] = (0.0, 0.5)


def stack_configs(max_depth: int = 6, max_tokens: int = 8,
                  dtypes: tuple[str, ...] = ("float64",), *,
                  variants: tuple[str, ...] = VARIANTS,
                  widths: tuple[int, ...] = (2, 4, 8),
                  heads: tuple[int, ...] = (1, 2),
                  depths: tuple[int, ...] | None = None,
                  tokens: tuple[int, ...] | None = None,
                  temperatures: tuple[float, float] = (0.1, 4.0),
                  taus: tuple[float, float] = (0.0, 1.0),
                  causal: bool | None = None, ffn: bool | None = None,
                  windowed: bool | None = None,
                  residual_scales: tuple[float, ...] = (1.0,),
                  skip_scales: tuple[float, ...] = (1.0, 2.0),
                  norms: tuple[str | None, ...] = (None, *NORM_PLACEMENTS),
                  norm_kinds: tuple[str, ...] = NORM_KINDS,
                  deescalations: tuple[str | None, ...] = (None, *DEESCALATIONS),
                  qk_norm: bool | None = None,
                  norm_scaling: bool | None = None,
                  samplings: tuple[str, ...] = ("weights",),
                  ) -> st.SearchStrategy[StackConfig]:
    """Small valid :class:`~attndepth.simulations.models.stacks.StackConfig` values.

    Every argument pins or narrows one field; the defaults draw every variant
    and every block option (:mod:`~attndepth.simulations.models.blocks`).
    Pass ``norms=(None,)``, ``deescalations=(None,)``, ``skip_scales=(1.0,)``,
    ``norm_kinds=("layer",)`` and ``qk_norm=False`` for the named variants alone.

    Parameters
    ----------
    max_depth, max_tokens : int
        Upper ends of the depth (from 0) and token (from 1) ranges, used when
        ``depths`` / ``tokens`` are not given.
    dtypes : tuple of str
        ``DTYPES`` also draws float32 stacks (then check at float32 tolerances).
    variants, widths, heads, depths, tokens : tuple
        Values to sample from; heads that do not divide the drawn width are
        replaced by 1.
    temperatures, taus : (low, high)
        Ranges of the softmax temperature and the de-escalation strength.
    causal, ffn : bool or None
        Pin the mask or the feed-forward sublayer (None: both drawn).
    windowed : bool or None
        Draw a local attention window (1..tokens) or not (None: either).
    residual_scales, skip_scales : tuple of float
        Branch scales β and skip scales α to sample from (used for variants
        with a skip path; ``pure`` keeps 1).
    norms, norm_kinds, deescalations : tuple
        Normalisation placements (None: the variant's), normaliser kinds and
        de-escalation placements (None: the variant's) to sample from;
        ``pure`` never draws ``deescalation="branch"``.
    qk_norm : bool or None
        Pin QK-normalisation (None: drawn).
    norm_scaling : bool or None
        Pin LayerNorm scaling on pre-LN blocks (None: drawn where the placement is
        ``pre``; other placements never take it).
    samplings : tuple of str
        How the weights are drawn (``StackConfig.sampling``): matrices only by default,
        since a law-sampled stack has no weights for a test to read.
    """
    depth_values = st.sampled_from(depths) if depths else st.integers(0, max_depth)
    token_values = st.sampled_from(tokens) if tokens else st.integers(1, max_tokens)

    @st.composite
    def build(draw) -> StackConfig:
        width = draw(st.sampled_from(widths))
        head = draw(st.sampled_from(heads))
        variant, n = draw(st.sampled_from(variants)), draw(token_values)
        use_window = draw(st.booleans()) if windowed is None else windowed
        pure = variant == "pure"
        deescalation = draw(st.sampled_from(deescalations))
        norm = draw(st.sampled_from(norms))
        if pure and norm in SKIP_PLACEMENTS:  # defined by a skip path the variant lacks
            norm = None
        scalable = not pure and (norm or PRESETS[variant].norm) == "pre"
        scaled = scalable and (draw(st.booleans()) if norm_scaling is None else norm_scaling)
        kind = draw(st.sampled_from(norm_kinds))
        ngpt = norm == "ngpt"  # its step is its only scale; it normalises onto a sphere
        return StackConfig(
            variant=variant, depth=draw(depth_values),
            tokens=n, width=width, heads=head if width % head == 0 else 1,
            window=draw(st.integers(1, n)) if use_window else None,
            residual_scale=1.0 if pure or ngpt else draw(st.sampled_from(residual_scales)),
            skip_scale=1.0 if pure or ngpt else draw(st.sampled_from(skip_scales)),
            norm=norm, norm_kind="rms" if ngpt and kind == "dyt" else kind,
            norm_scaling=scaled,
            deescalation=("none" if ngpt else
                          "sum" if pure and deescalation == "branch" else deescalation),
            qk_norm=draw(st.booleans()) if qk_norm is None else qk_norm,
            tau=draw(st.floats(*taus)), temperature=draw(st.floats(*temperatures)),
            causal=draw(st.booleans()) if causal is None else causal,
            ffn=draw(st.booleans()) if ffn is None else ffn,
            mix_ratio=draw(st.sampled_from(MIX_RATIOS)),
            ngpt_step=draw(st.sampled_from(NGPT_STEPS)),
            dyt_alpha=draw(st.sampled_from(DYT_ALPHAS)),
            decay=draw(st.sampled_from(DECAYS)),
            dtype=draw(st.sampled_from(dtypes)), sampling=draw(st.sampled_from(samplings)))

    return build()


def partition_sizes(max_tokens: int = 6) -> st.SearchStrategy[tuple[int, int]]:
    """Sizes (|P|, |Q|) of a partition with both sides non-empty and N ≤ ``max_tokens``."""
    return st.integers(2, max_tokens).flatmap(
        lambda n: st.integers(1, n - 1).map(lambda p: (p, n - p)))


def partition_specs(max_tokens: int = 6) -> st.SearchStrategy[tuple[int, str]]:
    """``(tokens, spec)`` with an explicit ``"P/Q"`` spec, output position 0 in P."""
    @st.composite
    def build(draw) -> tuple[int, str]:
        n = draw(st.integers(2, max_tokens))
        rest = draw(st.permutations(range(1, n)))
        cut = draw(st.integers(0, n - 2))
        p_side, q_side = sorted([0, *rest[:cut]]), sorted(rest[cut:])
        return n, ",".join(map(str, p_side)) + "/" + ",".join(map(str, q_side))
    return build()


def linear_attention_cases(widths: tuple[int, ...] = (1, 2, 3), max_depth: int = 2,
                           min_tokens: int = 2, max_tokens: int = 4
                           ) -> st.SearchStrategy[tuple[int, int, int, int, int]]:
    """Small linear-attention networks as ``(width, depth, tokens, residual, seed)``.

    Parameters
    ----------
    widths : tuple of int
        Widths to sample from.
    max_depth : int
        Depths 0..max_depth.
    min_tokens, max_tokens : int
        Positions (at least 2: a partition needs both sides).
    """
    return st.tuples(st.sampled_from(widths), st.integers(0, max_depth),
                     st.integers(min_tokens, max_tokens), st.sampled_from([0, 1]),
                     st.integers(0, 1000))
