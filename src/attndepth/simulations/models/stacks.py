"""Seeded random softmax attention stacks, batched over seeds.

Softmax attention (Yu & Zhang 2023, §3): ``P = softmax(Q Kᵀ/(√d_k T))``
per head. A block is described by a
:class:`~attndepth.simulations.models.blocks.BlockSpec` (normalisation
placement and kind, skip and branch scales, de-escalation, QK-normalisation)
and run by the one block definition of
:mod:`~attndepth.simulations.models.blocks`. The named variants are presets of
that specification:

  ========================  ===============================================
  ``pure``                  X ← A(X)                   (Dong et al. 2021)
  ``residual``              X ← αX + β A(X)
  ``post-ln``               X ← LN(αX + β A(X))        (α > 1: DeepNorm)
  ``pre-ln``                X ← αX + β A(LN(X))
  ``post-ln-deesc-a``       X ← LN(αX + (I − τΠ) β A(X))
  ``post-ln-deesc-b``       X ← LN((I − τΠ)(αX + β A(X)))
  ========================  ===============================================

  with the skip scale α (``skip_scale``, 1 by default; Wang et al. 2022's
  DeepNorm takes α > 1) and the branch scale β (``residual_scale``, 1 by
  default; Noci et al. 2022 scale the branches by 1/√L). The fields ``norm``
  (none, pre, post, peri), ``norm_kind`` (layer, rms), ``deescalation``
  (none, branch, sum), ``qk_norm`` and ``sublayer`` change the preset.

  where ``A(X) = concat_h(P_h X W_V^h) W_O`` (so ``A(X) = Σ_h P_h X W_h`` with
  ``W_h = W_V^h W_O^h``), ``Π = 11ᵀ/n`` and LN is LayerNorm without affine
  parameters. An optional ReLU feed-forward sublayer follows each attention
  sublayer with the same residual/normalisation placement.

The linear-attention model of Levine et al. lives in
:mod:`attndepth.rank.network`, the reuse of drawn weights in
:mod:`attndepth.simulations.models.weight_cache`.

Arrays are ``(batch, tokens, width)``; weights carry ``(batch, depth, ...)``.
Weights are Gaussian with variance ``1/fan_in`` so a layer neither inflates nor
shrinks a typical token (the scale the post-LN rate in
``attndepth.theory.similarity`` assumes). Weights for stack ``k`` come from the
``SeedSequence(seed)`` child ``k`` (see ``attndepth.simulations.seeding``); the draws loop
over stacks, the computation never does. ``StackConfig(sampling="law")`` draws each
matrix only as its product with the states (the same law of states and attention, far
fewer numbers where the tokens are fewer than the width:
:mod:`~attndepth.simulations.models.law`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, cast

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType, Overflow
from attndepth.simulations.models.blocks import (
    DEESCALATIONS,
    NORM_EPS,
    NORM_KINDS,
    NORM_PLACEMENTS,
    NUMPY,
    PRESETS,
    BlockSpec,
    Sublayer,
    attention_logits,
    block_forward,
    mix_heads,
)
from attndepth.simulations.models.law import (
    LawWeights,
    StackShape,
    draw_law_weights,
    law_draws_per_layer,
)
from attndepth.simulations.models.weight_cache import WeightCache
from attndepth.simulations.seeding import WEIGHTS_STREAM, spawn_generators
from attndepth.simulations.settings import setting
from attndepth.validation import (
    check_choice,
    check_finite_array,
    check_int,
    check_real,
    check_seed,
    check_size,
)

VARIANTS: tuple[str, ...] = (
    "pure",
    "residual",
    "post-ln",
    "pre-ln",
    "post-ln-deesc-a",
    "post-ln-deesc-b",
)

#: LayerNorm epsilon added to the per-token variance.
LAYER_NORM_EPS = NORM_EPS
#: Hidden width of the optional feed-forward sublayer, as a multiple of width.
FFN_EXPANSION = 4
#: Floating-point types a softmax stack can run in.
DTYPES: tuple[str, ...] = ("float64", "float32")
#: How the Gaussian weights are drawn: as matrices, or in law as their products with the
#: tokens (:mod:`~attndepth.simulations.models.law`).
SAMPLINGS: tuple[str, ...] = ("weights", "law")


@dataclass(frozen=True)
class StackConfig:
    """Shape and variant of a softmax attention stack.

    Parameters
    ----------
    variant : one of :data:`VARIANTS`.
    depth : number of blocks L >= 0.
    tokens : sequence length n >= 1.
    width : model width d >= 1.
    heads : number of heads H, dividing ``width``.
    tau : de-escalation strength τ in [0, 1] (used by the ``deesc`` variants).
    temperature : softmax temperature T > 0; logits are divided by √d_k·T.
    causal : mask attention to earlier positions (P stays row-stochastic).
    ffn : add a ReLU feed-forward sublayer after each attention sublayer.
    residual_scale : β > 0 multiplying every residual branch (attention, FFN and
        sublayer); 1 is the plain stack, ``1/sqrt(depth)`` the scaling of Noci
        et al. 2022 (arXiv 2206.03126). Only variants with a residual branch
        accept β ≠ 1. It scales the *branch*; DeepNorm's α is ``skip_scale``.
    window : None (full attention) or w >= 1: token i attends to the tokens j
        with ``|i − j| < w`` (a band of width 2w − 1), or, with ``causal``, to
        i − w < j <= i (a sliding window of w tokens); Wu et al. 2024
        (arXiv 2405.18781) study such local masks.
    dtype : ``float64`` (default) or ``float32``. The same Gaussian draws are
        rounded to float32, and the stack then runs in float32 (1.4–2.4× faster,
        bench/RESULTS.md). Tolerated by the token-similarity measurements
        (t_sim, log-odds and their slopes, computed in float64 from the float32
        states; the bench reports the deviation), not by checks at rounding
        level: ``P1 = 1`` holds only to ~1e-7 and Dong's residual cannot be
        followed below ~1e-7 of its start.
    skip_scale : α > 0 multiplying the skip path, X ← N(αX + βF(X)) (DeepNorm,
        Wang et al. 2022, arXiv 2203.00555). Not for ``pure`` (no skip path).
    norm : None (the variant's placement) or one of
        :data:`~attndepth.simulations.models.blocks.NORM_PLACEMENTS`:
        ``none``, ``pre``, ``post`` or ``peri`` (normalise the branch's input and
        output, X ← αX + βN(F(N(X)))).
    norm_kind : ``layer`` (LayerNorm, default) or ``rms`` (RMSNorm).
    deescalation : None (the variant's) or ``none``, ``branch`` (placement a)
        or ``sum`` (placement b), with strength ``tau``.
    qk_norm : normalise each head's queries and keys before the logits.
    norm_scaling : LayerNorm scaling (Sun et al. 2025, arXiv 2502.05795): block ℓ of a
        pre-LN stack reads LN(X)/√ℓ (ℓ = 1, …, L). Pre-LN placement only.
    mix_ratio : ρ in [0, 1], Mix-LN's share of post-LN blocks (``norm="mix"``): blocks
        1 … ⌊ρL⌋ are post-LN, the rest pre-LN (Li et al. 2024, arXiv 2412.13795; 0.25).
    ngpt_step : a in (0, 1], nGPT's step towards the normalised branch (``norm="ngpt"``;
        the eigen learning rate as initialised, 0.05; Loshchilov et al. 2024).
    dyt_alpha : a₀ > 0 of DyT, tanh(a₀x) in place of the normaliser (``norm_kind="dyt"``;
        Zhu et al. 2025, arXiv 2503.10622; 0.5).
    decay : m ≥ 0 of a decay mask: the scaled logits less m·|i − j| (ALiBi's bias with
        ``causal``; Wu et al. 2025, arXiv 2502.01951). 0 (default): none.
    sampling : ``weights`` (default: every Gaussian matrix is drawn) or ``law``: each
        matrix is drawn only as its product with the states that reach it
        (:mod:`~attndepth.simulations.models.law`): the states and attention
        matrices have the same joint law, each matrix costs T × fan-out numbers
        instead of fan-in × fan-out, and there are no weights to read (a
        measurement that reads them refuses such a stack). Not with a ``sublayer``.
    sublayer : None or a :class:`~attndepth.simulations.models.blocks.Sublayer`,
        a user branch run after the attention (and feed-forward) sublayer.

    The resolved block is :attr:`block`; :meth:`as_dict` records the fields
    above only where they differ from their defaults, so records of the named
    variants read as before.
    """

    variant: str = setting("post-ln", description="block variant", choices=VARIANTS)
    depth: int = setting(16, description="number of blocks (integer >= 0)", symbol="L")
    tokens: int = setting(16, description="tokens per sequence (integer >= 1)", symbol="N")
    width: int = setting(32, description="model width (integer >= 1, divisible by heads)",
                         symbol="D")
    heads: int = setting(1, description="attention heads (integer >= 1 dividing the width)",
                         symbol="H")
    tau: float = setting(1.0, description="de-escalation strength in [0, 1] (where the block "
                                          "de-escalates)", symbol="T")
    temperature: float = setting(1.0, description="softmax temperature (number > 0)", symbol="B")
    causal: bool = setting(False, description="causal (lower-triangular) mask")
    ffn: bool = setting(False, description="add a ReLU feed-forward sublayer (hidden width 4d) to "
                                           "every block")
    residual_scale: float = setting(
        1.0, description="scale of every residual branch, X + B*F(X) (number > 0; Noci et al. use "
                         "1/sqrt(L); not for variant pure)", symbol="B")
    window: int | None = setting(
        None, description="local attention: token i sees the tokens j with abs(i - j) < W (with "
                          "causal: the W tokens up to i); integer >= 1, default all", symbol="W")
    dtype: str = setting("float64", description="float32 runs 1.3-2x faster; fine for t_sim and "
                                                "log-odds, not for rounding-level checks",
                         choices=DTYPES)
    skip_scale: float = setting(
        1.0, description="scale of the skip path, N(A*X + F(X)) (number > 0; DeepNorm takes A > 1; "
                         "not for variant pure)", symbol="A")
    norm: str | None = setting(
        None, description="normalisation placement in place of the variant's: none, pre, post, "
                          "peri (normalise the branch's input and output; Peri-LN), mix "
                          "(Mix-LN: the first blocks post, the rest pre) or ngpt (a step on "
                          "the sphere)", choices=NORM_PLACEMENTS)
    norm_kind: str = setting("layer", description="layer (LayerNorm), rms (RMSNorm) or dyt "
                                                  "(tanh(a*x), DyT)", choices=NORM_KINDS)
    deescalation: str | None = setting(
        None, description="de-escalation (I - tau*Pi) in place of the variant's: none, branch "
                          "(placement a) or sum (placement b)", choices=DEESCALATIONS)
    qk_norm: bool = setting(False, description="normalise each head's queries and keys before the "
                                               "logits")
    norm_scaling: bool = setting(False, description="LayerNorm scaling: block l of a pre-LN stack "
                                                    "reads LN(X)/sqrt(l) (Sun et al. 2025)")
    mix_ratio: float = setting(0.25, description="Mix-LN: share of post-LN blocks, the first "
                                                 "floor(R*L) (number in [0, 1]; norm mix)",
                               symbol="R")
    ngpt_step: float = setting(0.05, description="nGPT: step towards the normalised branch "
                                                 "(number in (0, 1]; norm ngpt)", symbol="A")
    dyt_alpha: float = setting(0.5, description="DyT: a in tanh(a*x) (number > 0; norm_kind "
                                                "dyt)", symbol="A")
    decay: float = setting(0.0, description="decay mask: each scaled logit less M*abs(i - j) "
                                            "(number >= 0; with causal, ALiBi's bias)",
                           symbol="M")
    sampling: str = setting(
        "weights", description="weights: draw every Gaussian matrix; law: draw only its product "
                               "with the tokens (the same law of states and attention, "
                               "T*fan-out numbers a matrix instead of fan-in*fan-out; no "
                               "weights to read)", choices=SAMPLINGS)
    sublayer: Sublayer | None = None
    block: BlockSpec = field(init=False, repr=False, compare=False)

    def __repr__(self) -> str:
        """The variant and sizes, then only the fields that differ from their defaults
        (``StackConfig(**...)`` of the shown fields gives the same configuration)."""
        shown = ("variant", "depth", "tokens", "width")
        parts = [f"{name}={getattr(self, name)!r}" for name in shown]
        for item in fields(self):
            if item.name in shown or not item.repr or item.default is MISSING:
                continue
            value = getattr(self, item.name)
            if value != item.default:
                parts.append(f"{item.name}={value!r}")
        return f"StackConfig({', '.join(parts)})"

    def _shown_fields(self) -> list[tuple[str, Any, str]]:
        """(name, value, description) of the variant, the sizes and every field that
        differs from its default: what the reprs show."""
        shown = ("variant", "depth", "tokens", "width")
        rows = []
        for item in fields(self):
            if not item.repr or item.default is MISSING:
                continue
            value = getattr(self, item.name)
            if item.name in shown or value != item.default:
                if isinstance(value, Sublayer):
                    value = value.name
                rows.append((item.name, value, item.metadata.get("description", "")))
        return rows

    def _repr_html_(self) -> str:  # Jupyter
        """The fields :meth:`__repr__` shows, with what each means, as an HTML table."""
        from attndepth.html_table import html_table

        return html_table(f"StackConfig: {self.variant}, L = {self.depth}, n = "
                          f"{self.tokens}, d = {self.width}", self._shown_fields(),
                          header=("field", "value", "meaning"),
                          footer="fields at their defaults are not shown")

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        check_choice("dtype", self.dtype, DTYPES)
        check_choice("sampling", self.sampling, SAMPLINGS)
        object.__setattr__(self, "depth", check_int("depth", self.depth, minimum=0))
        object.__setattr__(self, "tokens", check_int("tokens", self.tokens, minimum=1))
        object.__setattr__(self, "width", check_int("width", self.width, minimum=1))
        heads = check_int("heads", self.heads, minimum=1)
        if self.width % heads:
            raise InvalidParameter(f"heads must divide width={self.width}, got heads={heads}")
        object.__setattr__(self, "heads", heads)
        temperature = check_real("temperature", self.temperature, 0.0, strict_minimum=True)
        object.__setattr__(self, "temperature", temperature)
        for flag in ("causal", "ffn", "norm_scaling"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidParameter(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.window is not None:
            object.__setattr__(self, "window", check_int("window", self.window, minimum=1))
        if self.norm is not None:
            check_choice("norm", self.norm, NORM_PLACEMENTS)
        if self.deescalation is not None:
            check_choice("deescalation", self.deescalation, DEESCALATIONS)
        if self.sublayer is not None and not isinstance(self.sublayer, Sublayer):
            raise InvalidType(f"sublayer must be a Sublayer, got {type(self.sublayer).__name__}")
        if self.sublayer is not None and self.sampling == "law":
            raise InvalidParameter("sampling='law' draws the stack's own matrices in law; a "
                                   "sublayer's weights are its own: use sampling='weights'")
        mix_ratio = check_real("mix_ratio", self.mix_ratio, 0.0, 1.0)
        object.__setattr__(self, "mix_ratio", mix_ratio)
        preset = PRESETS[self.variant]
        if not preset.skip:
            for name in ("residual_scale", "skip_scale"):
                if getattr(self, name) != 1.0:
                    raise InvalidParameter(f"{name} needs a residual branch; the pure variant "
                                           f"has none (it is X ← F(X))")
        norm = self.norm or preset.norm
        block = BlockSpec(
            skip=preset.skip, norm=norm, norm_kind=self.norm_kind,
            skip_scale=self.skip_scale, residual_scale=self.residual_scale,
            deescalation=self.deescalation or preset.deescalation, tau=self.tau,
            qk_norm=self.qk_norm, norm_scaling=self.norm_scaling,
            mix_post_blocks=int(math.floor(mix_ratio * self.depth)) if norm == "mix" else 0,
            ngpt_step=self.ngpt_step,
            dyt_alpha=self.dyt_alpha, decay=self.decay)
        for name in ("tau", "residual_scale", "skip_scale", "ngpt_step", "dyt_alpha", "decay"):
            object.__setattr__(self, name, getattr(block, name))
        object.__setattr__(self, "block", block)

    @property
    def head_dim(self) -> int:
        """d_k = width / heads."""
        return self.width // self.heads

    def as_dict(self) -> dict:
        """Plain dict, for JSON records: the block fields only where not at their defaults.

        A sublayer is recorded by its name.
        """
        record = {}
        for spec in fields(self):
            if spec.name == "block":
                continue
            value = getattr(self, spec.name)
            if spec.name in BLOCK_FIELDS and value == spec.default:
                continue
            record[spec.name] = value.name if isinstance(value, Sublayer) else value
        return record


#: The fields added after the named variants (omitted from records at their defaults, so
#: records of the named variants read as before).
BLOCK_FIELDS: frozenset[str] = frozenset(
    {"skip_scale", "norm", "norm_kind", "deescalation", "qk_norm", "norm_scaling", "sublayer",
     "sampling", "mix_ratio", "ngpt_step", "dyt_alpha", "decay"})


@dataclass(frozen=True)
class SoftmaxWeights(StackShape):
    """Weights of a batch of softmax stacks.

    Attributes
    ----------
    projections : (batch, depth, width, 3·width), ``[W_Q | W_K | W_V]`` side by
        side so one matmul per layer gives Q, K and V; ``query``, ``key`` and
        ``value`` are views of its three column blocks.
    output : (batch, depth, width, width)
    ffn_in : (batch, depth, width, 4·width) or None
    ffn_out : (batch, depth, 4·width, width) or None
    extra : ``{name: (batch, depth, *shape)}``, a user sublayer's weights (empty without one)

    Head h uses the column block ``h·d_k:(h+1)·d_k`` of query/key/value and the
    same row block of output.
    """

    projections: np.ndarray
    output: np.ndarray
    ffn_in: np.ndarray | None
    ffn_out: np.ndarray | None
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)

    def astype(self, dtype: str) -> SoftmaxWeights:
        """The same weights rounded to ``dtype`` (no copy when already of that type)."""
        def cast(array: np.ndarray | None) -> np.ndarray | None:
            return None if array is None else array.astype(dtype, copy=False)

        return SoftmaxWeights(self.projections.astype(dtype, copy=False),
                              self.output.astype(dtype, copy=False), cast(self.ffn_in),
                              cast(self.ffn_out),
                              {name: array.astype(dtype, copy=False)
                               for name, array in self.extra.items()})

    def stacks(self, start: int, stop: int) -> SoftmaxWeights:
        """Stacks ``start .. stop − 1`` of the batch (views, no copy).

        Parameters
        ----------
        start, stop : int
            0 ≤ start < stop ≤ ``batch``.

        Returns
        -------
        SoftmaxWeights
            Every array (stop − start, depth, ...), read-only where this one is.
        """
        start = check_int("start", start, minimum=0, maximum=self.batch - 1)
        stop = check_int("stop", stop, minimum=start + 1, maximum=self.batch)

        def part(array: np.ndarray | None) -> np.ndarray | None:
            return None if array is None else array[start:stop]

        return SoftmaxWeights(self.projections[start:stop], self.output[start:stop],
                              part(self.ffn_in), part(self.ffn_out),
                              {name: array[start:stop] for name, array in self.extra.items()})

    def layer(self, index: int) -> dict[str, np.ndarray]:
        """Block ``index``'s weights by name, each (batch, ...), for
        :func:`~attndepth.simulations.models.blocks.block_forward`."""
        arrays = {"projections": self.projections, "output": self.output,
                  "ffn_in": self.ffn_in, "ffn_out": self.ffn_out, **self.extra}
        return {name: array[:, index] for name, array in arrays.items() if array is not None}

    @property
    def query(self) -> np.ndarray:
        """(batch, depth, width, width) view."""
        return self.projections[..., :self.width]

    @property
    def key(self) -> np.ndarray:
        """(batch, depth, width, width) view."""
        return self.projections[..., self.width:2 * self.width]

    @property
    def value(self) -> np.ndarray:
        """(batch, depth, width, width) view."""
        return self.projections[..., 2 * self.width:]


#: Recent softmax weight draws, keyed by (depth, width, ffn, sublayer shapes, seed, first,
#: batch); a range of stacks inside a kept one is served from it.
WEIGHTS = WeightCache()


def draw_softmax_weights(config: StackConfig, batch: int, seed: int,
                         first: int = 0) -> SoftmaxWeights:
    """Draw Gaussian weights (variance 1/fan_in; ReLU input layer 2/fan_in).

    Per stack the stream order is q, k, v, o, ffn_in, ffn_out, then a user
    sublayer's weights in its ``shapes`` order, each (depth, ...) in one call;
    the numbers do not depend on the layout they are stored in, and a sublayer
    leaves the stack's own weights unchanged. The weights depend on (depth,
    width, ffn, the sublayer's shapes, batch, seed) only, not on the block
    specification, heads or temperature: recent draws (up to
    ``weight_cache.WEIGHT_CACHE_BYTES``) are returned again, read-only.

    Raises
    ------
    ValueError
        ``config.sampling`` is ``law``: such a stack has no weight matrices.
    """
    if config.sampling == "law":
        raise InvalidParameter("this reads the stack's weight matrices, which "
                               "sampling='law' never draws: use sampling='weights'")
    batch = check_int("batch", batch, minimum=1)
    first = check_int("first", first, minimum=0)
    draw = (config.depth, config.width, config.ffn, _sublayer_shapes(config),
            check_seed("seed", seed))

    def part_of(cached_key: Hashable, cached: SoftmaxWeights) -> SoftmaxWeights | None:
        # stack k depends on (seed, k) alone: stacks first..first+batch−1 of any cached
        # range that holds them are the numbers a new draw would give
        *cached_draw, cached_first, cached_batch = cast(tuple, cached_key)
        start = first - cached_first
        if tuple(cached_draw) != draw or start < 0 or start + batch > cached_batch:
            return None
        return cached.stacks(start, start + batch)

    return WEIGHTS.get_or_draw((*draw, first, batch),
                               lambda: _draw_softmax_weights(config, batch, seed, first),
                               part_of)


def _sublayer_shapes(config: StackConfig) -> tuple[tuple[str, tuple[int, ...]], ...]:
    if config.sublayer is None:
        return ()
    return tuple(config.sublayer.weight_shapes(config.width).items())


def weights_per_layer(config: StackConfig) -> int:
    """Number of weights of one block: 4d² (+ 8d² with the FFN, + the sublayer's)."""
    d = config.width
    own = sum(int(np.prod(shape)) for _, shape in _sublayer_shapes(config))
    return (4 + (2 * FFN_EXPANSION if config.ffn else 0)) * d * d + own


def draws_per_layer(config: StackConfig) -> int:
    """Gaussian numbers one block of one stack draws: its weights
    (:func:`weights_per_layer`), or with ``sampling="law"`` their noise
    (:func:`~attndepth.simulations.models.law.law_draws_per_layer`)."""
    if config.sampling == "law":
        return law_draws_per_layer(config.tokens, config.width, config.ffn)
    return weights_per_layer(config)


#: Byte alignment of drawn weights: XLA's CPU client takes a NumPy buffer aligned to 64
#: bytes as it is (``jax.device_put`` without a copy: 0.09 ms against 4–11 ms for the 25 MB
#: of 64 stacks of d = 32, L = 16), and NumPy's own allocations are aligned to 16 only.
WEIGHT_ALIGNMENT = 64


def _aligned_empty(shape: tuple[int, ...], alignment: int = WEIGHT_ALIGNMENT) -> np.ndarray:
    """An uninitialised C-contiguous float64 array whose data starts at a multiple of
    ``alignment`` bytes (a view into a slightly larger buffer)."""
    count = int(np.prod(shape))
    raw = np.empty(count * 8 + alignment, dtype=np.uint8)
    offset = -raw.ctypes.data % alignment
    return raw[offset:offset + count * 8].view(np.float64).reshape(shape)


def _draw_softmax_weights(config: StackConfig, batch: int, seed: int,
                          first: int = 0) -> SoftmaxWeights:
    d, depth = config.width, config.depth
    check_size("the stack's weights", batch * depth * weights_per_layer(config))
    extra = {name: _aligned_empty((batch, depth, *shape))
             for name, shape in _sublayer_shapes(config)}
    hidden = FFN_EXPANSION * d
    projections = _aligned_empty((batch, depth, d, 3 * d))
    arrays = {"output": _aligned_empty((batch, depth, d, d))}
    if config.ffn:
        arrays.update(ffn_in=_aligned_empty((batch, depth, d, hidden)),
                      ffn_out=_aligned_empty((batch, depth, hidden, d)))
    block = np.empty((depth, d, d))  # the generator writes contiguous blocks only
    for k, rng in enumerate(spawn_generators(seed, batch, WEIGHTS_STREAM, first)):
        for part in range(3):
            rng.standard_normal(out=block)
            projections[k, ..., part * d:(part + 1) * d] = block
        for array in (*arrays.values(), *extra.values()):
            rng.standard_normal(out=array[k])
    for array in extra.values():
        array /= np.sqrt(array.shape[-2] if array.ndim > 3 else array.shape[-1])
    projections /= np.sqrt(d)  # variance 1/fan_in
    arrays["output"] /= np.sqrt(d)
    if config.ffn:
        arrays["ffn_in"] *= np.sqrt(2.0 / d)  # He initialisation for the ReLU layer
        arrays["ffn_out"] /= np.sqrt(hidden)
    return SoftmaxWeights(projections=projections, output=arrays["output"],
                          ffn_in=arrays.get("ffn_in"), ffn_out=arrays.get("ffn_out"),
                          extra=extra)


def layer_norm(X: np.ndarray) -> np.ndarray:
    """LayerNorm without affine parameters, per token.

    ``LN(X) = D⁻¹ X C`` with ``C = I − 11ᵀ/d`` (feature centring, acting on the
    right) and ``D = diag(std of each token)`` (acting on the left); the
    NumPy kernel of :mod:`~attndepth.simulations.models.blocks`.

    X : (..., tokens, width) -> same shape.
    """
    return NUMPY.layer_norm(X)


def remove_token_mean(X: np.ndarray, tau: float) -> np.ndarray:
    """De-escalation ``(I − τΠ) X`` with ``Π = 11ᵀ/n`` (Yu & Zhang 2023).

    X : (..., tokens, width) -> same shape.
    """
    return X - tau * X.mean(axis=-2, keepdims=True)


def softmax_attention(
    X: np.ndarray,
    query: np.ndarray,
    key: np.ndarray,
    heads: int,
    temperature: float = 1.0,
    causal: bool = False,
    window: int | None = None,
) -> np.ndarray:
    """Attention matrices of every head.

    Parameters
    ----------
    X : (batch, tokens, width)
    query, key : (batch, width, width)

    Returns
    -------
    P : (batch, heads, tokens, tokens), row-stochastic (``P 1 = 1``).
    """
    return attention_from_projections(X @ query, X @ key, heads, temperature, causal, window)


def attention_mask(tokens: int, causal: bool = False, window: int | None = None
                   ) -> np.ndarray | None:
    """Where attention is *forbidden*: (tokens, tokens) bool, or None for full attention.

    ``causal`` forbids j > i; ``window`` = w forbids ``|i − j| >= w``. Every row
    keeps its diagonal, so every masked softmax row stays a distribution.
    """
    if not causal and window is None:
        return None
    index = np.arange(tokens)
    offset = index[:, None] - index[None, :]  # i − j
    forbidden = np.zeros((tokens, tokens), dtype=bool)
    if causal:
        forbidden |= offset < 0
    if window is not None:
        forbidden |= np.abs(offset) >= window
    return forbidden


def attention_from_projections(
    Q: np.ndarray, K: np.ndarray, heads: int, temperature: float = 1.0, causal: bool = False,
    window: int | None = None,
) -> np.ndarray:
    """``P_h = softmax(Q_h K_hᵀ/(√d_k T))`` from projected tokens, in place on the logits.

    Q, K : (batch, tokens, width), any strides; returns (batch, heads, tokens, tokens).
    ``causal`` and ``window`` mask the logits (:func:`attention_mask`).
    """
    dk = Q.shape[-1] // heads
    return NUMPY.softmax(attention_logits(Q, K, heads), 1.0 / (np.sqrt(dk) * temperature),
                         attention_mask(Q.shape[1], causal, window))


def attention_output(
    X: np.ndarray, P: np.ndarray, value: np.ndarray, output: np.ndarray
) -> np.ndarray:
    """``A(X) = concat_h(P_h X W_V^h) W_O``.

    X : (batch, tokens, width); P : (batch, heads, tokens, tokens);
    value, output : (batch, width, width). Returns (batch, tokens, width).
    """
    return mix_values(P, X @ value, output)


def mix_values(P: np.ndarray, V: np.ndarray, output: np.ndarray) -> np.ndarray:
    """``concat_h(P_h V_h) W_O`` from projected values V : (batch, tokens, width)."""
    return mix_heads(P, V, output)


@dataclass(frozen=True)
class LayerRecord:
    """One block of a stack: its input, its attention matrices and its output.

    Attributes
    ----------
    layer : block index, 0-based.
    inputs, outputs : (batch, tokens, width)
    attention : (batch, heads, tokens, tokens)
    """

    layer: int
    inputs: np.ndarray
    attention: np.ndarray
    outputs: np.ndarray


def iterate_stack(
    config: StackConfig, weights: SoftmaxWeights | LawWeights, X0: np.ndarray
) -> Iterator[LayerRecord]:
    """Run a softmax stack block by block, yielding each block's record.

    Nothing is recomputed: a metric at depth l uses the yielded arrays.

    weights : as :func:`draw_run` draws them for ``config`` (drawn in law where
    ``config.sampling`` is ``law``).
    X0 : (batch, tokens, width), the input tokens. Inputs and weights are
    rounded to ``config.dtype`` once, before the first block.
    """
    if isinstance(weights, LawWeights) != (config.sampling == "law"):
        raise InvalidParameter(f"weights of type {type(weights).__name__} do not fit "
                               f"sampling={config.sampling!r}: draw them with draw_run")
    X0 = check_finite_array("X0", X0, ndim=3).astype(config.dtype, copy=False)
    weights = weights.astype(config.dtype)
    expected = (weights.batch, config.tokens, config.width)
    if X0.shape != expected:
        raise InvalidParameter(f"X0 must have shape {expected}, got {X0.shape}")
    if weights.depth < config.depth:
        raise InvalidParameter(f"weights have depth {weights.depth} < config.depth")
    check_size("one block's attention logits", weights.batch * config.heads * config.tokens**2)
    forbidden = attention_mask(config.tokens, config.causal, config.window)
    X = X0
    for layer in range(config.depth):
        with np.errstate(over="ignore", invalid="ignore"):  # checked right after
            Y, P = block_forward(NUMPY, config, forbidden, X, weights.layer(layer), layer)
        check_finite_states(Y, layer + 1, config.variant)
        yield LayerRecord(layer=layer, inputs=X, attention=P, outputs=Y)
        X = Y


def check_finite_states(Y: np.ndarray, depth: int, model: str) -> None:
    """Stop with a clear error when float64 states overflow (never a silent NaN).

    Linear attention grows like |x|^(3^L) and residual stacks without
    normalisation like 2^(L/2); rescaling would change the function being
    studied, so the run stops and names the depth instead.
    """
    # one cheap reduction first: a NaN or ±inf entry makes the sum non-finite
    with np.errstate(over="ignore", invalid="ignore"):
        total = Y.sum()
    if not np.isfinite(total) and not np.all(np.isfinite(Y)):
        raise Overflow(f"{model} states overflowed {Y.dtype} at depth {depth}; "
                       f"use fewer layers or smaller inputs")


@dataclass(frozen=True)
class Trajectory:
    """Every state of a batch of stacks.

    Attributes
    ----------
    states : (depth + 1, batch, tokens, width); ``states[0]`` is the input.
    attention : (depth, batch, heads, tokens, tokens) or None when not kept.
    config : the stack configuration.
    seed : base seed; stack k used ``SeedSequence(seed)`` child k.
    """

    states: np.ndarray
    attention: np.ndarray | None
    config: StackConfig
    seed: int

    def __repr__(self) -> str:
        """Shapes, not the arrays: a notebook shows this for a trajectory."""
        attention = ("not kept" if self.attention is None
                     else f"kept {tuple(self.attention.shape)}")
        return (f"Trajectory({self.states.shape[1]} stacks of {self.config!r}, seed "
                f"{self.seed}; states {tuple(self.states.shape)} {self.states.dtype}, "
                f"attention {attention})")

    def _repr_html_(self) -> str:  # Jupyter
        """Shapes, seed and the configuration as an HTML table (never the arrays)."""
        from attndepth.html_table import html_table

        attention = ("not kept" if self.attention is None
                     else f"{tuple(self.attention.shape)}")
        rows = [("stacks", self.states.shape[1]), ("seed", self.seed),
                ("states", f"{tuple(self.states.shape)} {self.states.dtype} "
                           f"(depth + 1, batch, tokens, width)"),
                ("attention", attention),
                *((name, value) for name, value, _ in self.config._shown_fields())]
        return html_table("Trajectory", rows,
                          footer="trajectory.states[l] is the batch after l blocks")

    def kept_attention(self) -> np.ndarray:
        """The attention matrices, (depth, batch, heads, n, n), of a run with
        ``keep_attention=True``."""
        if self.attention is None:
            raise InvalidParameter("this trajectory kept no attention matrices: run the "
                                   "stack with keep_attention=True")
        return self.attention


def draw_stack(config: StackConfig, batch: int, seed: int,
               first: int = 0) -> tuple[SoftmaxWeights, np.ndarray]:
    """Weights and Gaussian input tokens X0 (batch, tokens, width), in ``config.dtype``.

    ``first``: index of the first stack (chunks of a batch draw the same numbers).
    """
    from attndepth.simulations.seeding import gaussian_tokens

    if config.dtype != "float64":  # the float64 draw and its rounded copy live at once
        check_size("the stack's weights and their float32 copy",
                   batch * config.depth * weights_per_layer(config) * 3 // 2)
    weights = draw_softmax_weights(config, batch, seed, first).astype(config.dtype)
    X0 = gaussian_tokens(seed, batch, config.tokens, config.width, first)
    return weights, X0.astype(config.dtype, copy=False)


def draw_run(config: StackConfig, batch: int, seed: int,
             first: int = 0) -> tuple[SoftmaxWeights | LawWeights, np.ndarray]:
    """What :func:`iterate_stack` runs: :func:`draw_stack`'s weights and inputs, or with
    ``sampling="law"`` the weights drawn in law
    (:func:`~attndepth.simulations.models.law.draw_law_weights`; kept for reuse as
    weights are) and the same inputs.

    Parameters
    ----------
    config : StackConfig
    batch, seed, first : int
        Stacks ``first .. first + batch − 1`` of base seed ``seed``.

    Returns
    -------
    (weights, X0) : SoftmaxWeights or LawWeights, and X0 (batch, tokens, width), in
    ``config.dtype``.
    """
    from attndepth.simulations.seeding import gaussian_tokens

    if config.sampling != "law":
        return draw_stack(config, batch, seed, first)
    batch, first = check_int("batch", batch, minimum=1), check_int("first", first, minimum=0)
    draw = ("law", config.tokens, config.width, config.ffn, check_seed("seed", seed))

    def part_of(cached_key: Hashable, cached: Any) -> LawWeights | None:
        # a deeper draw holds a shallower one's blocks first, and any range of its stacks
        *cached_draw, cached_depth, cached_first, cached_batch = cast(tuple, cached_key)
        start = first - cached_first
        if (tuple(cached_draw) != draw or cached_depth < config.depth or start < 0
                or start + batch > cached_batch):
            return None
        return cast(LawWeights, cached).stacks(start, start + batch).blocks(config.depth)

    weights = WEIGHTS.get_or_draw(
        (*draw, config.depth, first, batch),
        lambda: draw_law_weights(config.depth, config.tokens, config.width, config.ffn,
                                 batch, seed, first), part_of)
    X0 = gaussian_tokens(seed, batch, config.tokens, config.width, first)
    return weights.astype(config.dtype), X0.astype(config.dtype, copy=False)


def run_stack(
    config: StackConfig,
    batch: int,
    seed: int,
    X0: np.ndarray | None = None,
    keep_attention: bool = False,
) -> Trajectory:
    """Draw weights (and Gaussian inputs unless ``X0`` is given) and run the stack.

    With ``config.sampling == "law"`` the weights are drawn in law (:func:`draw_run`).
    """
    if not isinstance(config, StackConfig):
        raise InvalidType(f"config must be a StackConfig, got {type(config).__name__}")
    batch = check_int("batch", batch, minimum=1)
    n, d = config.tokens, config.width
    check_size("the trajectory", (config.depth + 1) * batch * n * max(d, config.heads * n))
    if keep_attention:
        check_size("the attention matrices", config.depth * batch * config.heads * n * n)
    weights, drawn = draw_run(config, batch, seed)
    if X0 is None:
        X0 = drawn
    elif not (isinstance(X0, np.ndarray | list | tuple)
              and np.asarray(X0).dtype.kind in "iuf"):
        raise InvalidType(f"X0 must be a real array of shape (batch, tokens, width), got "
                          f"{type(X0).__name__} of dtype {getattr(np.asarray(X0), 'dtype', '?')}")
    states = [np.asarray(X0, dtype=config.dtype)]
    attention = []
    for record in iterate_stack(config, weights, X0):
        states.append(record.outputs)
        if keep_attention:
            attention.append(record.attention)
    return Trajectory(
        states=np.stack(states),
        attention=np.stack(attention) if keep_attention and attention else None,
        config=config,
        seed=seed,
    )
