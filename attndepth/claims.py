"""The claims registry.

A claim is the unit of this toolkit: an id, the paper and place it comes
from, one sentence, a theory side (``theory/``), a simulation side
(``simulations/``) and a comparison with an explicit tolerance. Its
``measure`` function runs both sides for one parameter set and returns an
:class:`Outcome`; presets name parameter sets (``quick`` for
``attndepth verify``, ``full`` for publication numbers), and tests call
``measure`` with hypothesis-drawn small parameters.

Claims are defined in the topic modules listed in :data:`CLAIM_MODULES` and
register themselves with :func:`register`.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = Literal["holds", "fails", "inconclusive"]
VERDICTS: tuple[str, ...] = ("holds", "fails", "inconclusive")
PRESETS: tuple[str, ...] = ("quick", "full")

CLAIM_MODULES: tuple[str, ...] = (
    "attndepth.expressivity_claims",
    "attndepth.seprank_claims",
    "attndepth.allocation_claims",
    "attndepth.similarity_claims",
)


@dataclass(frozen=True)
class Outcome:
    """What one run of a claim found.

    Attributes
    ----------
    predicted, measured : short human-readable statements of the numbers.
    verdict : holds / fails / inconclusive.
    note : what the comparison was and anything worth knowing.
    values : the numbers behind predicted/measured, for JSON.
    """

    predicted: str
    measured: str
    verdict: Verdict
    note: str = ""
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


@dataclass(frozen=True)
class Claim:
    """A registered claim.

    Attributes
    ----------
    id : e.g. ``levine.degree``.
    source : paper, section or equation.
    statement : one sentence.
    tolerance : the comparison, in words, with its numbers.
    measure : ``measure(seed=..., **params) -> Outcome``.
    presets : parameters for each preset name.
    """

    id: str
    source: str
    statement: str
    tolerance: str
    measure: Callable[..., Outcome]
    presets: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class ClaimResult:
    """A claim's outcome with the run's provenance."""

    id: str
    source: str
    statement: str
    tolerance: str
    preset: str
    seed: int
    params: dict[str, Any]
    outcome: Outcome
    seconds: float

    @property
    def verdict(self) -> str:
        return self.outcome.verdict


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (ids are unique)."""
    if claim.id in _REGISTRY:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    missing = set(PRESETS) - set(claim.presets)
    if missing:
        raise ValueError(f"claim {claim.id!r} lacks presets {sorted(missing)}")
    _REGISTRY[claim.id] = claim
    return claim


def all_claims() -> dict[str, Claim]:
    """Every registered claim, by id, in registration order."""
    for module in CLAIM_MODULES:
        importlib.import_module(module)
    return dict(_REGISTRY)


def get_claim(claim_id: str) -> Claim:
    """The claim with this id, or ``ValueError`` listing the known ids."""
    claims = all_claims()
    if claim_id not in claims:
        raise ValueError(f"unknown claim {claim_id!r}; known: {', '.join(claims)}")
    return claims[claim_id]


def run_claim(claim_id: str, preset: str = "quick", seed: int = 0,
              **overrides: Any) -> ClaimResult:
    """Run one claim at a preset, with optional parameter overrides."""
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}; got {preset!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    claim = get_claim(claim_id)
    params = {**claim.presets[preset], **overrides}
    start = time.perf_counter()
    outcome = claim.measure(seed=seed, **params)
    seconds = time.perf_counter() - start
    return ClaimResult(claim.id, claim.source, claim.statement, claim.tolerance,
                       preset, seed, params, outcome, seconds)


def run_claims(claim_ids: list[str] | None = None, preset: str = "quick",
               seed: int = 0, progress: Callable[[str], None] | None = None) -> list[ClaimResult]:
    """Run the named claims (all when None) in registry order."""
    ids = list(all_claims()) if not claim_ids else list(claim_ids)
    for claim_id in ids:
        get_claim(claim_id)  # reject unknown ids before anything runs
    results = []
    for claim_id in ids:
        if progress is not None:
            progress(claim_id)
        results.append(run_claim(claim_id, preset, seed))
    return results


def verdict_from(condition: bool, inconclusive: bool = False) -> Verdict:
    """``holds`` / ``fails``, or ``inconclusive`` when the test could not decide."""
    if inconclusive:
        return "inconclusive"
    return "holds" if condition else "fails"
