"""Named sizes that a claim and its figure share, so a figure draws what its claim checks.

Each entry maps a preset name (``quick`` for ``attndepth verify``, ``full``
for publication numbers) to the keyword arguments of the measurement. The
claims (:mod:`attndepth.claims`) register these dictionaries as their presets
and the figures (:mod:`attndepth.figures`) read the same ones, extending
only the axis they draw (more depths, windows or sequence lengths than the
claim checks). This is the one home of every preset a figure draws; a claim
that no figure draws keeps its presets beside its statement, and nothing
repeats either.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

Preset = MappingProxyType


def _presets(quick: dict[str, Any], full: dict[str, Any]) -> MappingProxyType:
    return MappingProxyType({"quick": MappingProxyType(quick), "full": MappingProxyType(full)})


#: Post-LN stacks deep enough for the log-odds to cross the escalation window:
#: yuzhang.preln and yuzhang.deescalation.
POSTLN = _presets(dict(depth=96, tokens=16, width=64, batch=8),
                  dict(depth=128, tokens=32, width=128, batch=32))

#: Post-LN stacks for the log-odds slope; the claim runs a sample of 4 to 32 seeds of
#: ``batch`` stacks each (a slope scatters by ≈ 5 % at d = 32: 32 seeds give a 99 %
#: interval of ±0.45 %). At d = 32 the rivals lie 1.2 % (the previous derivation), 2.4 %
#: (ln(2 − 1/d)) and 4.9 % (ln 2) from the derived rate, at d = 64 only 0.6, 1.2 and
#: 2.3 %: yuzhang.linear-rate-postln, ``postln_rate``.
POSTLN_RATE = _presets(dict(depth=96, tokens=16, width=32, batch=32),
                       dict(depth=128, tokens=32, width=64, batch=64))

#: t_sim against depth for every variant: yuzhang.escalation, ``similarity_depth``.
ESCALATION = _presets(dict(depth=48, tokens=16, width=32, heads=2, batch=16),
                      dict(depth=96, tokens=32, width=128, heads=4, batch=32))

#: One attention matrix applied repeatedly: yuzhang.linear-rate-fixed, ``fixed_rate``.
FIXED_MATRIX = _presets(dict(tokens=12, width=16, depth=60, batch=16, temperature=0.5, skip=15),
                        dict(tokens=32, width=64, depth=200, batch=64, temperature=0.5, skip=15))

#: Pure and residual attention at low temperature: dong.collapse, dong.skip-prevents,
#: ``dong_collapse``.
DONG = _presets(dict(depth=10, tokens=32, width=64, batch=32, temperature=0.25),
                dict(depth=12, tokens=32, width=64, batch=256, temperature=0.25))

#: Rank against heads at fixed (d, L, N): levine.heads, right panel of ``separation_rank``.
HEADS = _presets(dict(width=4, depth=2, tokens=4, heads=[1, 2, 4]),
                 dict(width=6, depth=2, tokens=4, heads=[1, 2, 3, 6]))

#: One Q position above this width: levine.threshold (and ``threshold_knee``) decide the
#: knee from the proved rank C(K + d, d), not from certified ranks (which reach d = 9).
CLOSED_FORM_ABOVE = 9
#: Regimes (d, |P| = |Q| = q) whose knee levine.threshold decides: one Q position up to
#: d = 9 from certified ranks and at d = 28, 55, 4096 from the proved closed form (where
#: log_3 d + 1, 2 and log_3(2d + 1) miss by more than a layer), every q up to d = 3
#: (quick, about 10 s); full adds d = 4 (grids up to ~2,300) and
#: d = 5 and 6 with |Q| = d (the torus split: about 3½ minutes each; d = 6 is bounded
#: below, κ ≥ 3).
THRESHOLD = _presets(
    dict(regimes=[[d, 1] for d in (*range(2, 10), 28, 55, 4096)] + [[2, 2], [3, 2], [3, 3]]),
    dict(regimes=[[d, 1] for d in (*range(2, 10), 10, 28, 55, 215, 717, 2219, 4096)]
         + [[2, 2], [3, 2], [3, 3], [4, 2], [4, 3], [4, 4], [5, 5], [6, 6]]),
)

#: Residual branches scaled by α at high temperature: noci.residual-scaling,
#: ``noci_residual_scaling`` (which draws the growth at more depths). One depth: at
#: L = 32 a stack's relative growth scatters half as much as at L = 8; full: batch 16 at
#: d = 128, L = 64 holds 0.27 GB of weights (64 stacks took 2.1 GB).
NOCI = _presets(dict(tokens=16, width=64, depths=(32,), temperature=10.0, batch=16),
                dict(tokens=16, width=128, depths=(8, 32, 64), temperature=10.0, batch=16))

#: Pre-LN stacks with an FFN at depths L and 2L, branches scaled by L^(−α):
#: dey.depth-scaled-residuals, ``depth_scaling`` (which draws more depths).
DEPTH_SCALING = _presets(dict(depth=16, tokens=16, width=32, ffn=True, batch=32),
                         dict(depth=32, tokens=16, width=64, ffn=True, batch=32))

#: Pre-LN stacks with their feed-forward branch, run to 2L blocks with and without
#: LayerNorm scaling: sun.variance-growth, sun.near-identity, ``curse_of_depth``.
CURSE_OF_DEPTH = _presets(dict(depth=16, tokens=16, width=32, batch=16),
                          dict(depth=32, tokens=16, width=64, batch=32))

#: Peri-LN read on an nGPT clock, and nGPT's turn: karagodin.speed-regulation,
#: ``normalisation_speed`` (which draws every scheme over more depths).
NORMALISATION_SPEED = _presets(
    dict(norm_kind="rms", beta=1.0, step=0.2, width=64, causal=False, depth=32, tokens=16,
         batch=16, reference_step=0.3),
    dict(norm_kind="rms", beta=1.0, step=0.2, width=128, causal=False, depth=64, tokens=16,
         batch=32, reference_step=0.3))

#: Pre-LN and pre-DyT stacks to 4L blocks, their APJN: alekseev.jacobian-growth,
#: ``jacobian_growth`` (which draws more depths and a₀).
JACOBIAN_GROWTH = _presets(
    dict(alpha=0.5, width=64, tokens=16, causal=False, window=8, batch=8, directions=2),
    dict(alpha=0.5, width=128, tokens=16, causal=False, window=16, batch=16, directions=2))

#: Causal stacks with their last token repeated, at three lengths:
#: barbero.representational-collapse, ``representational_collapse`` (more lengths).
REPRESENTATIONAL_COLLAPSE = _presets(
    dict(variant="pre-ln", depth=2, width=32, ffn=True, heads=1, lengths=(32, 256), batch=16),
    dict(variant="pre-ln", depth=4, width=64, ffn=True, heads=1, lengths=(32, 1024),
         batch=64))

#: Attention-only causal stacks with a decay mask: wu.position-bias, ``position_bias``
#: (which draws more decays and the last position's profile).
POSITION_BIAS = _presets(
    dict(decay=1.0, temperature=1.0, width=64, tokens=16, rate_depth=16, batch=16),
    dict(decay=1.0, temperature=1.0, width=64, tokens=16, rate_depth=16, batch=64))

#: Pre- and post-LN causal stacks at near-uniform attention, the influence of every
#: input token on the last at L and 2L: herasimchyk.residual-influence,
#: ``residual_influence`` (which draws more depths and the profile).
RESIDUAL_INFLUENCE = _presets(
    dict(variant="pre-ln", temperature=4.0, width=64, tokens=8, depth=8, batch=16,
         directions=2),
    dict(variant="pre-ln", temperature=4.0, width=128, tokens=16, depth=8, batch=64,
         directions=2))

#: Near-simplex tokens at two sequence lengths: chen.critical-scaling,
#: ``critical_scaling`` (which draws more lengths, overlaps and widths).
CRITICAL_SCALING = _presets(dict(overlap=0.5, width=64, smallest=8, largest=1024, batch=2),
                            dict(overlap=0.5, width=64, smallest=8, largest=4096, batch=4))

#: The spectrum of key-query attention: naderi.spectral-gap, ``naderi_spectral_gap``
#: (which draws more sequence lengths and a second scale).
NADERI = _presets(dict(scale=1.0, width=64, tokens=(64, 128, 256, 512), samples=2),
                  dict(scale=1.0, width=64, tokens=(64, 128, 256, 512, 1024, 2048, 4096),
                       samples=4))

#: One softmax layer's correlation map: giorlandino.correlation-map,
#: ``giorlandino_correlation_map`` (which draws the map over β/β_c at the widest width).
GIORLANDINO = _presets(dict(overlap=0.5, ratio=2.0, tokens=256, widths=(256, 512, 1024),
                            samples=8),
                       dict(overlap=0.5, ratio=2.0, tokens=512, widths=(256, 512, 1024, 2048),
                            samples=16))

#: Pure attention under local masks: wu.masks, ``wu_masks`` (which draws more windows).
WU_MASKS = _presets(dict(tokens=16, width=64, causal=False, windows=(2, 3, 4, 8), depth=48,
                         batch=16),
                    dict(tokens=32, width=64, causal=False, windows=(2, 3, 4, 8, 16), depth=48,
                         batch=64))

#: Tokens started pairwise orthogonal: geshkovski.orthogonal-start,
#: ``geshkovski_orthogonal`` (which draws more (n, β) over the same horizon).
GESHKOVSKI_ORTHOGONAL = _presets(dict(tokens=4, beta=1.0, extra_width=2, horizon=4.0),
                                 dict(tokens=8, beta=4.0, extra_width=4, horizon=8.0))

#: Hemisphere fractions: geshkovski.single-cluster, ``geshkovski_cluster`` (which draws
#: more n, d and β).
GESHKOVSKI_CLUSTER = _presets(dict(tokens=6, dimension=3, beta=1.0, trials=500),
                              dict(tokens=10, dimension=4, beta=4.0, trials=2500))
#: Two-sided level of the Clopper–Pearson interval of a Monte Carlo hemisphere fraction: a
#: true Wendel probability falls outside it once in 10^4 runs (the claim and its figure).
WENDEL_LEVEL = 1 - 1e-4
#: "One cluster": every pairwise distance below this (the claim and its figure).
CLUSTER_DIAMETER = 1e-6
#: Below this a diameter is the integration's error (relative tolerance 1e-11), not the
#: flow: the claim counts a smaller diameter as this one and the figure shades below it.
DIAMETER_RESOLUTION = 1e-9
