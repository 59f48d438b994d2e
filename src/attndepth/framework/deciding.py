"""What would decide an undecided verdict, estimated from its own intervals.

An ``inconclusive`` verdict has an interval that straddles an edge of its band; an
``indistinguishable`` one has a rival whose interval is not wholly outside the band.
A 99 % interval's half-width h shrinks like 1/√n with the number n of seeds, so an
interval of mean m at distance δ from the nearest edge decides (lies wholly on one
side) once h·√(n/n′) < δ, that is at about

    n′ = n · (h/δ)²

seeds (the Student-t quantile, which also falls with n, is ignored: an upper estimate).
A rival whose mean error lies *inside* the band cannot be rejected by any number of
seeds: the measurement agrees with it as well as with the claim, and only parameters
where the two predictions differ by more than the band can separate them. The cost is
the run's seconds per seed times n′.

A claim decided by one run (no seed sample) states what would decide it in
``Outcome.values["to_decide"]`` (text), which is reported as it is.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from attndepth.framework.declarations import Estimate, Rival
from attndepth.framework.evidence import Evidence, Interval
from attndepth.framework.verdicts import UNDECIDED, Verdict

#: Beyond this many times the seeds run, a sample is not a way to decide.
MAX_SEED_FACTOR = 1000


@dataclass(frozen=True)
class ToDecide:
    """What would decide an undecided verdict.

    Attributes
    ----------
    text : str
        What would decide it, in words, with the numbers.
    seeds : int or None
        The sample size at which every undecided part decides (None: no sample size
        does, or the claim is decided by one run).
    seconds : float or None
        The estimated cost of that sample (the run's seconds per seed × ``seeds``).
    """

    text: str
    seeds: int | None = None
    seconds: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "seeds": self.seeds, "seconds": self.seconds}


def seeds_to_decide(interval: Interval, band: tuple[float, float]) -> int | None:
    """About how many seeds make ``interval`` lie wholly on one side of the band's
    nearest edge: n·(h/δ)², with h the half-width and δ the mean's distance from that
    edge (None when the mean lies on the edge, or beyond :data:`MAX_SEED_FACTOR` × n).

    Parameters
    ----------
    interval : Interval
    band : (float, float)

    Returns
    -------
    int or None
    """
    edges = [edge for edge in band if math.isfinite(edge)]
    if not edges:
        return None
    distance = min(abs(interval.mean - edge) for edge in edges)
    half = (interval.high - interval.low) / 2
    if distance <= 0 or not math.isfinite(half):
        return None
    # the first n whose half-width h·√(n/n′) lies strictly within the distance
    needed = max(interval.n, math.floor(interval.n * (half / distance) ** 2 * (1 + 1e-12)) + 1)
    return needed if needed <= MAX_SEED_FACTOR * interval.n else None


def _inside(value: float, band: tuple[float, float]) -> bool:
    return band[0] < value < band[1]


def to_decide(verdict: Verdict, evidence: Evidence | None, estimates: Sequence[Estimate],
              rivals: Sequence[Rival], seconds: float,
              values: Mapping[str, Any]) -> ToDecide | None:
    """What would decide a run's verdict (None when it is decided).

    Parameters
    ----------
    verdict : Verdict
        The run's own verdict (at its preset or parameters).
    evidence : Evidence or None
        Its seed sample (None: a claim decided by one run).
    estimates, rivals : the claim's.
    seconds : float
        What the run took.
    values : mapping
        The outcome's values; ``values["to_decide"]`` (text) is a one-run claim's own
        statement of what would decide it.

    Returns
    -------
    ToDecide or None
    """
    if verdict not in UNDECIDED:
        return None
    stated = values.get("to_decide")
    if isinstance(stated, str) and stated:
        return ToDecide(stated)
    if evidence is None:
        return ToDecide("decided by one run, which states nothing more: see its note")
    per_seed = seconds / max(1, len(evidence.seeds))
    parts, needs = _estimate_needs(evidence)
    rival_parts, rival_needs = _rival_needs(evidence, estimates, rivals)
    parts, needs = parts + rival_parts, needs + rival_needs
    if not parts:
        return ToDecide(f"the sample ended at {len(evidence.seeds)} seeds with fewer than "
                        f"half of them decided: see the note")
    last = estimates[0].seeds[1] if estimates else len(evidence.seeds)
    if any(n is None for n in needs):
        return ToDecide("; ".join(parts))
    seeds = max(n for n in needs if n is not None)
    cost = seeds * per_seed
    return ToDecide("; ".join(parts) + f" — about {seeds} seeds, ~{cost:.0f} s at "
                    f"{per_seed:.2g} s a seed (the claim's sample stops at {last})",
                    seeds, cost)


def _estimate_needs(evidence: Evidence) -> tuple[list[str], list[int | None]]:
    """For each estimate whose interval straddles its band (or is out of reach): what
    would decide it, in words, and the seeds it needs (None: no sample size)."""
    parts: list[str] = []
    needs: list[int | None] = []
    for k, (label, interval, band) in enumerate(evidence.estimates):
        if k in evidence.out_of_reach:
            parts.append(f"{label}: no sample size (out of reach at this member's "
                         f"parameters: see the note)")
            needs.append(None)
            continue
        if interval is None or interval.position(band) != "straddles":
            continue
        needed = seeds_to_decide(interval, band)
        needs.append(needed)
        way = "hold" if _inside(interval.mean, band) else "fail"
        parts.append(f"{label} ({interval.mean:+.3g} at n = {interval.n}, its interval "
                     f"±{(interval.high - interval.low) / 2:.2g} across the band's edge): "
                     + (f"about {needed} seeds, where it would {way} if its mean stays"
                        if needed else "no sample size (its mean lies on the edge)"))
    return parts, needs


def _rival_needs(evidence: Evidence, estimates: Sequence[Estimate], rivals: Sequence[Rival]
                 ) -> tuple[list[str], list[int | None]]:
    """For each rival not rejected: what would reject it, in words, and the seeds it needs
    (None: no sample size)."""
    bands = {label: band for label, _, band in evidence.estimates}
    labels = {e.measured: e.label for e in estimates}
    unreachable = {evidence.estimates[k][0] for k in evidence.out_of_reach}
    parts: list[str] = []
    needs: list[int | None] = []
    by_name = {rival.name: rival for rival in rivals}
    for result in evidence.rivals:
        if result.rejected:
            continue
        rival = by_name.get(result.name)
        label = (labels.get(rival.against, estimates[0].label) if rival is not None
                 and rival.against else (estimates[0].label if estimates else ""))
        rival_band = rival.band if rival is not None and rival.band else bands.get(label)
        interval = result.interval
        if label in unreachable:
            parts.append(f"rival {result.name}: not decidable here (its estimate is out "
                         f"of reach)")
            needs.append(None)
        elif interval is None or rival_band is None:
            parts.append(f"rival {result.name}: not measured here")
            needs.append(None)
        elif _inside(interval.mean, rival_band):
            parts.append(f"rival {result.name}: no sample size (its error {interval.mean:+.3g} "
                         f"lies inside the band [{rival_band[0]:+.3g}, {rival_band[1]:+.3g}]: the "
                         f"measurement agrees with it too; only parameters where the two "
                         f"predictions differ by more than the band separate them)")
            needs.append(None)
        else:
            needed = seeds_to_decide(interval, rival_band)
            needs.append(needed)
            parts.append(f"rival {result.name} ({interval.mean:+.3g} at n = {interval.n}): "
                         + (f"about {needed} seeds to reject it" if needed
                            else "no sample size"))
    return parts, needs
