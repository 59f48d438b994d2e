"""The public API of attndepth, named once: each name and the module that defines it.

Static tools (mypy, pyright, an editor) read the names and their types here;
``attndepth/__init__.py`` builds ``__all__`` from this file and loads each name on first
use (``lazy_loader.attach_stub``, scientific-python SPEC 1), so ``import attndepth`` stays
cheap. A public name is added here and nowhere else.
"""

__version__: str

from .figures.registry import figure as figure
from .framework.declarations import Check as Check
from .framework.declarations import Estimate as Estimate
from .framework.declarations import Rival as Rival
from .framework.declarative import derived_claim as derived_claim
from .framework.explaining import explain as explain
from .framework.families import Family as Family
from .framework.model import Claim as Claim
from .framework.model import Outcome as Outcome
from .framework.model import verdict_from as verdict_from
from .framework.pool_runs import run_claims as run_claims
from .framework.registry import all_claims as all_claims
from .framework.registry import claim as claim
from .framework.registry import load_claims as load_claims
from .framework.registry import register as register
from .framework.relations import first_crossing as first_crossing
from .framework.relations import monotone_margin as monotone_margin
from .framework.relations import scaling_exponent as scaling_exponent
from .framework.relations import subsets as subsets
from .framework.results import ClaimResult as ClaimResult
from .framework.running import run_claim as run_claim
from .framework.search import search_claim as search_claim
from .framework.theories import Theory as Theory
from .framework.verdicts import Verdict as Verdict
from .pytorch.observe import observe as observe
from .pytorch.pretrained import pretrained as pretrained
from .pytorch.profiles import layer_profile as layer_profile
from .rank.atlas_table import atlas as atlas
from .rank.grids import SeparationRankConfig as SeparationRankConfig
from .rank.grids import certified_rank as certified_rank
from .rank.measure import measure_rank as measure_rank
from .rank.measure import rank_with_bounds as rank_with_bounds
from .simulations.measures.fitting import escalation_rate as escalation_rate
from .simulations.models.stacks import StackConfig as StackConfig
from .simulations.models.stacks import run_stack as run_stack
from .theory.depth_width import plan_for_budget as plan_for_budget
from .theory.separation_rank import separation_rank_bounds as separation_rank_bounds
from .theory.separation_rank import threshold_depth as threshold_depth
from .theory.similarity import postln_rate as postln_rate
