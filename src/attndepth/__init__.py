"""attndepth: check the theory of how deep self-attention can usefully go.

One import name with its layers below a front door:

* :mod:`attndepth.theory` — SymPy statements, bounds and derivations;
* :mod:`attndepth.simulations` — NumPy / python-flint measurements on seeded stacks;
* :mod:`attndepth.rank` — separation ranks, measured and certified, and the atlas;
* :mod:`attndepth.pytorch` — the same measurements on PyTorch models (extra ``torch``);
* :mod:`attndepth.figures` — one module per figure and the house style;
* the front door — the claims registry (:mod:`attndepth.framework.registry`), the report
  (:mod:`attndepth.framework.report`) and the command line (:mod:`attndepth.cli.main`).

The names in :data:`__all__` are the public API; they stay importable from
``attndepth`` whatever module they move to. They load on first use, so
``import attndepth`` is cheap.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("attndepth")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0+unknown"

#: Public name -> module that defines it.
_PUBLIC: dict[str, str] = {
    "Claim": "attndepth.framework.registry",
    "ClaimResult": "attndepth.framework.registry",
    "Outcome": "attndepth.framework.registry",
    "claim": "attndepth.framework.registry",
    "register": "attndepth.framework.registry",
    "all_claims": "attndepth.framework.registry",
    "run_claim": "attndepth.framework.registry",
    "run_claims": "attndepth.framework.registry",
    "explain": "attndepth.framework.registry",
    "load_claims": "attndepth.framework.registry",
    "Family": "attndepth.framework.families",
    "figure": "attndepth.figures.registry",
    "subsets": "attndepth.framework.relations",
    "derived_claim": "attndepth.framework.declarative",
    "monotone_margin": "attndepth.framework.relations",
    "scaling_exponent": "attndepth.framework.relations",
    "first_crossing": "attndepth.framework.relations",
    "Estimate": "attndepth.framework.evidence",
    "Rival": "attndepth.framework.evidence",
    "search_claim": "attndepth.framework.search",
    "verdict_from": "attndepth.framework.registry",
    "Verdict": "attndepth.framework.verdicts",
    "Theory": "attndepth.framework.theories",
    "StackConfig": "attndepth.simulations.models.stacks",
    "run_stack": "attndepth.simulations.models.stacks",
    "SeparationRankConfig": "attndepth.rank.grids",
    "measure_rank": "attndepth.rank.measure",
    "atlas": "attndepth.rank.atlas_table",
    "rank_with_bounds": "attndepth.rank.measure",
    "certified_rank": "attndepth.rank.grids",
    "escalation_rate": "attndepth.simulations.measures.fitting",
    "separation_rank_bounds": "attndepth.theory.separation_rank",
    "threshold_depth": "attndepth.theory.separation_rank",
    "postln_rate": "attndepth.theory.similarity",
    "plan_for_budget": "attndepth.theory.depth_width",
    "observe": "attndepth.pytorch.observe",
}

#: A literal list, so that static tools read it; a test keeps it equal to _PUBLIC.
__all__ = [
    "Claim", "ClaimResult", "Estimate", "Family", "Outcome", "Rival", "SeparationRankConfig",
    "StackConfig", "Theory", "Verdict", "all_claims", "atlas", "certified_rank", "claim",
    "derived_claim", "escalation_rate", "explain", "figure", "first_crossing", "load_claims",
    "measure_rank", "monotone_margin", "observe", "plan_for_budget", "postln_rate",
    "rank_with_bounds", "register", "run_claim", "run_claims", "run_stack", "scaling_exponent",
    "search_claim", "separation_rank_bounds", "subsets", "threshold_depth", "verdict_from",
]

if TYPE_CHECKING:  # static tools (mypy, pyright, jedi) see every public name
    from attndepth.figures.registry import figure
    from attndepth.framework.declarative import derived_claim
    from attndepth.framework.evidence import (
        Estimate,
        Rival,
    )
    from attndepth.framework.families import Family
    from attndepth.framework.registry import (
        Claim,
        ClaimResult,
        Outcome,
        all_claims,
        claim,
        explain,
        load_claims,
        register,
        run_claim,
        run_claims,
        verdict_from,
    )
    from attndepth.framework.relations import (
        first_crossing,
        monotone_margin,
        scaling_exponent,
        subsets,
    )
    from attndepth.framework.search import search_claim
    from attndepth.framework.theories import Theory
    from attndepth.framework.verdicts import Verdict
    from attndepth.pytorch.observe import observe
    from attndepth.rank.atlas_table import atlas
    from attndepth.rank.grids import (
        SeparationRankConfig,
        certified_rank,
    )
    from attndepth.rank.measure import (
        measure_rank,
        rank_with_bounds,
    )
    from attndepth.simulations.measures.fitting import escalation_rate
    from attndepth.simulations.models.stacks import (
        StackConfig,
        run_stack,
    )
    from attndepth.theory.depth_width import plan_for_budget
    from attndepth.theory.separation_rank import (
        separation_rank_bounds,
        threshold_depth,
    )
    from attndepth.theory.similarity import postln_rate


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'attndepth' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
