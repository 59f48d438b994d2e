"""The expected token Gram matrix through a stack, from the block's configuration.

The prediction of the architecture claims (theory document §3, "The architectures people
build"). Over a block's independent Gaussian weights, with near-uniform attention P
(logits of small variance, as at the 0.02 initialisations), the tokens' Gram matrix
g = XXᵀ/d moves by a deterministic map:

- attention adds β² P ĝ Pᵀ (E[(PXW)(PXW)ᵀ] = β² P X Xᵀ Pᵀ for W = W_V W_O independent of
  X; the cross term with the skip has mean zero);
- the FFN adds ω K(ĝ) + σ_{b₂}² entry by entry (E f(x_a)·f(x_b)/d for a per-token map
  with independent weights, K the activation's kernel);
- a normaliser rescales every token to squared norm d (ĝ: g with unit diagonal), keeping
  k = 1 − 1/d of each added branch (LayerNorm's centring) or all of it (RMSNorm).

Post-norm blocks normalise after each sum; pre-norm blocks feed ĝ to the branches and
add to the unnormalised stream. The log-odds ln(‖ΠX‖²/‖(I − Π)X‖²) of g is the claims'
measured quantity; its aligned limit is
:func:`attndepth.theory.architecture_rates.aligned_rate_expression` (post-norm) and
:func:`~attndepth.theory.architecture_rates.preln_law_expression` (pre-norm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.special import expit, ndtr

from attndepth.errors import InvalidParameter
from attndepth.validation import check_choice, check_int, check_real

#: The FFN activations with a kernel: φ, and ``swiglu`` (silu(xW_g) ⊙ xW_u).
ACTIVATIONS: tuple[str, ...] = ("relu", "gelu", "gelu_tanh", "silu", "swiglu")
#: Gauss–Hermite nodes per axis of the kernel's double integral.
QUADRATURE_NODES = 64
#: Points of ρ ∈ [−1, 1] at which the kernel is tabulated (linear interpolation between).
KERNEL_GRID = 801
#: The smallest squared norm the log-odds take a logarithm of.
TINY = np.finfo(np.float64).tiny


def _phi(activation: str, z: np.ndarray) -> np.ndarray:
    if activation == "relu":
        return np.maximum(z, 0.0)
    if activation == "gelu":
        return z * ndtr(z)
    if activation == "gelu_tanh":
        return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))
    return z * expit(z)  # silu, and swiglu's gate


def _phi_prime(activation: str, z: np.ndarray) -> np.ndarray:
    if activation == "relu":
        return (z > 0).astype(float)
    if activation == "gelu":
        return ndtr(z) + z * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    if activation == "gelu_tanh":
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (z + 0.044715 * z**3))
        return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * 0.044715 * z * z)
    s = expit(z)
    return s * (1 + z * (1 - s))


@dataclass(frozen=True)
class KernelTable:
    """K(ρ) = E φ(a)φ(b) on a grid of the tokens' correlation ρ, and its ends.

    Attributes
    ----------
    rho, values : (KERNEL_GRID,) arrays
    at_one : K(1) (= E φ(a)²)
    slope_at_one : K′(1) (= v E φ′(a)², Price's theorem; SwiGLU: its product rule)
    """

    rho: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    at_one: float
    slope_at_one: float

    def __call__(self, correlation: np.ndarray) -> np.ndarray:
        """K at each entry of ``correlation`` (clipped to [−1, 1])."""
        return np.interp(np.clip(correlation, -1.0, 1.0), self.rho, self.values)


@lru_cache(maxsize=64)
def activation_kernel(activation: str, variance: float, bias_variance: float = 0.0,
                      up_variance: float = 0.0) -> KernelTable:
    """The kernel of an FFN's activation for tokens of squared norm d.

    Parameters
    ----------
    activation : one of :data:`ACTIVATIONS`.
    variance : v = d σ₁² > 0, the pre-activation's variance from the weights.
    bias_variance : σ_{b₁}² >= 0, from its bias (shared by every token).
    up_variance : SwiGLU only: d σ_u² > 0, the variance of the linear ``up`` branch.

    Returns
    -------
    KernelTable
        K(ρ) = E φ(a)φ(b) with Var a = Var b = v + σ_b², Cov = ρv + σ_b²: ReLU's
        arc-cosine closed form, the smooth activations by 2-D Gauss–Hermite
        (:data:`QUADRATURE_NODES` per axis); SwiGLU: K_silu(ρ) · ρ d σ_u².
    """
    activation = check_choice("activation", activation, ACTIVATIONS)
    check_real("variance", variance, minimum=0)
    check_real("bias_variance", bias_variance, minimum=0)
    check_real("up_variance", up_variance, minimum=0)
    if variance + bias_variance <= 0:
        raise InvalidParameter("an activation kernel needs variance + bias_variance > 0")
    if activation == "swiglu" and up_variance <= 0:
        raise InvalidParameter("a SwiGLU kernel needs up_variance > 0")
    nodes, weights = np.polynomial.hermite_e.hermegauss(QUADRATURE_NODES)
    weights = weights / weights.sum()
    total = variance + bias_variance
    rho = np.linspace(-1.0, 1.0, KERNEL_GRID)
    correlation = np.clip((rho * variance + bias_variance) / total, -1.0, 1.0)
    a = math.sqrt(total) * nodes  # (q,)
    phi_a = _phi(activation, a)
    weight2 = weights[:, None] * weights[None, :]
    values = np.empty(KERNEL_GRID)
    if activation == "relu":  # the arc-cosine kernel (Cho & Saul 2009), exact at the kink
        values = total / (2 * math.pi) * (np.sqrt(1 - correlation**2)
                                          + (math.pi - np.arccos(correlation)) * correlation)
    for i, c in enumerate(correlation if activation != "relu" else ()):
        b = math.sqrt(total) * (c * nodes[:, None] + math.sqrt(max(1 - c * c, 0.0)) * nodes)
        values[i] = np.sum(weight2 * phi_a[:, None] * _phi(activation, b))
    at_one = float(np.sum(weights * phi_a**2))
    slope = variance * float(np.sum(weights * _phi_prime(activation, a) ** 2))
    if activation == "swiglu":
        values = values * rho * up_variance
        slope, at_one = (slope + at_one) * up_variance, at_one * up_variance
    return KernelTable(rho, values, at_one, slope)


@dataclass(frozen=True)
class BlockGains:
    """What a block's configuration fixes for the Gram map, per token of squared norm d.

    Attributes
    ----------
    placement : ``post`` (normalise after each residual sum) or ``pre`` (before each
        branch).
    norm_kind : ``layer`` or ``rms``.
    causal : whether attention is masked to earlier positions.
    attention_gain : β² = (d σ_V²)(d σ_O²).
    activation : one of :data:`ACTIVATIONS`, or None (no FFN).
    ffn_output_gain : ω = h σ₂² (hidden width times the output weights' variance).
    preactivation_variance : d σ₁².
    preactivation_bias_variance : σ_{b₁}².
    output_bias_variance : σ_{b₂}².
    up_variance : SwiGLU's d σ_u² (0 otherwise).
    input_scale : the input stream's squared norm per coordinate (pre-norm stacks: the
        embeddings' variance; 1 after a norm).
    shared_layers : every block has the same weights (``torch.nn.TransformerEncoder``
        copies its layer): outside the derivation, which draws each block's weights
        independently.
    source : where the numbers were read.
    """

    placement: str
    norm_kind: str
    causal: bool
    attention_gain: float
    activation: str | None = None
    ffn_output_gain: float = 0.0
    preactivation_variance: float = 0.0
    preactivation_bias_variance: float = 0.0
    output_bias_variance: float = 0.0
    up_variance: float = 0.0
    input_scale: float = 1.0
    shared_layers: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        check_choice("placement", self.placement, ("post", "pre"))
        check_choice("norm_kind", self.norm_kind, ("layer", "rms"))
        if self.activation is not None:
            check_choice("activation", self.activation, ACTIVATIONS)
        check_real("attention_gain", self.attention_gain, minimum=0)
        check_real("input_scale", self.input_scale, minimum=0)
        if self.input_scale <= 0:
            raise InvalidParameter(f"input_scale must be > 0, got {self.input_scale}")

    def kernel(self) -> KernelTable | None:
        """The FFN's :func:`activation_kernel`, or None without an FFN."""
        if self.activation is None:
            return None
        return activation_kernel(self.activation, self.preactivation_variance,
                                 self.preactivation_bias_variance, self.up_variance)

    def ffn_gains(self) -> tuple[float, float]:
        """(γ_m, γ_d): the FFN's gain along a token and along a small deviation
        (:mod:`attndepth.theory.architecture_rates`); (0, 0) without an FFN."""
        kernel = self.kernel()
        if kernel is None:
            return 0.0, 0.0
        return (self.ffn_output_gain * kernel.at_one + self.output_bias_variance,
                self.ffn_output_gain * kernel.slope_at_one)


def _normalised(g: np.ndarray) -> np.ndarray:
    scale = np.sqrt(np.diag(g))
    return g / np.outer(scale, scale)


def _attended(g: np.ndarray, causal: bool) -> np.ndarray:
    """E[P X (P X)ᵀ]/d for uniform attention (causal: row i averages tokens 0…i)."""
    n = g.shape[0]
    if not causal:
        return np.full_like(g, g.mean())
    counts = np.arange(1, n + 1, dtype=float)
    left = np.cumsum(g, axis=0) / counts[:, None]
    return np.cumsum(left, axis=1) / counts[None, :]


def gram_log_odds_of(g: np.ndarray) -> float:
    """ln(‖ΠX‖²/‖(I − Π)X‖²) of a Gram matrix g = XXᵀ/d (n × n)."""
    mean_part = float(g.mean())
    diversity = float(np.trace(g)) / g.shape[0] - mean_part
    return math.log(max(mean_part, TINY)) - math.log(max(diversity, TINY))


def start_gram(tokens: int, start_similarity: float, input_scale: float = 1.0) -> np.ndarray:
    """The exchangeable input Gram s₀((1 − ρ₀)I + ρ₀11ᵀ) with t_sim = ``start_similarity``.

    ρ₀ = (n t₀ − 1)/(n − 1): every pair of tokens equally alike (random token ids and
    independent position embeddings).
    """
    tokens = check_int("tokens", tokens, minimum=2)
    check_real("start_similarity", start_similarity, minimum=0, maximum=1)
    rho = (tokens * start_similarity - 1) / (tokens - 1)
    return input_scale * ((1 - rho) * np.eye(tokens) + rho)


def gram_log_odds(gains: BlockGains, *, tokens: int, width: int, depth: int,
                  start_similarity: float) -> np.ndarray:
    """The predicted log-odds after each block of a stack with these gains.

    Parameters
    ----------
    gains : BlockGains
    tokens, width, depth : n >= 2, d >= 2, L >= 0.
    start_similarity : t_sim of the input (row 0 of a trace).

    Returns
    -------
    (depth + 1,) float array
        Row 0 the input's log-odds. Once the predicted diversity falls below the
        float64 range the log-odds stop growing (they are then far beyond any window).
    """
    width = check_int("width", width, minimum=2)
    depth = check_int("depth", depth, minimum=0)
    g = start_gram(tokens, start_similarity, gains.input_scale)
    keep = 1 - 1 / width if gains.norm_kind == "layer" else 1.0
    beta2 = keep * gains.attention_gain
    kernel = gains.kernel()

    def branch(normalised: np.ndarray) -> np.ndarray:
        """The FFN's addition to the Gram matrix (none without an FFN)."""
        if kernel is None:
            return np.zeros_like(normalised)
        return keep * (gains.ffn_output_gain * kernel(normalised)
                       + gains.output_bias_variance)

    out = [gram_log_odds_of(g)]
    for _ in range(depth):
        if gains.placement == "post":
            g = _normalised(g + beta2 * _attended(g, gains.causal))
            g = _normalised(g + branch(g))
        else:
            g = g + beta2 * _attended(_normalised(g), gains.causal)
            g = g + branch(_normalised(g))
        out.append(gram_log_odds_of(g))
    return np.array(out)
