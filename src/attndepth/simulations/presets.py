"""Named sizes that a claim and its figure share, so a figure draws what its claim checks.

Each entry maps a preset name (``quick`` for ``attndepth verify``, ``full``
for publication numbers) to the keyword arguments of the measurement. The
claims (``attndepth.*_claims``) register these dictionaries as their presets
and the figures (``attndepth.figures``) read the same ones; nothing else
should repeat these numbers.
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
ESCALATION = _presets(dict(depth=48, tokens=16, width=32, heads=2, batch=8),
                      dict(depth=96, tokens=32, width=128, heads=4, batch=32))

#: One attention matrix applied repeatedly: yuzhang.linear-rate-fixed, ``fixed_rate``.
FIXED_MATRIX = _presets(dict(tokens=12, width=16, depth=60, batch=16, temperature=0.5, skip=5),
                        dict(tokens=32, width=64, depth=200, batch=64, temperature=0.5, skip=8))

#: Pure and residual attention at low temperature: dong.collapse, dong.skip-prevents,
#: ``dong_collapse``.
DONG = _presets(dict(depth=10, tokens=32, width=64, batch=32, temperature=0.25),
                dict(depth=12, tokens=32, width=64, batch=256, temperature=0.25))

#: Rank against heads at fixed (d, L, N): levine.heads, right panel of ``separation_rank``.
HEADS = _presets(dict(width=4, depth=2, tokens=4, heads=[1, 2, 4]),
                 dict(width=6, depth=2, tokens=4, heads=[1, 2, 3, 6]))

#: Regimes (d, |P| = |Q| = q) whose knee levine.threshold decides: one Q position up to
#: d = 9, every q up to d = 3 (quick, about 10 s); full adds d = 4 (grids up to ~2,300).
THRESHOLD = _presets(
    dict(regimes=[[d, 1] for d in range(2, 10)] + [[2, 2], [3, 2], [3, 3]]),
    dict(regimes=[[d, 1] for d in range(2, 10)] + [[2, 2], [3, 2], [3, 3], [4, 2], [4, 3],
                                                  [4, 4]]),
)
