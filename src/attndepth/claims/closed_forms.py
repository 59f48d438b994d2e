"""Proved closed forms of the separation rank (theory document §1, "Closed forms").

``levine.one-position-rank``: sep = C(K + d, d) for |P| = |Q| = 1, every d and L
(:func:`attndepth.theory.single_position_rank.single_position_rank`). Its verdict
is ``proved`` when every checkable step of the proof confirms at the preset's
sizes (SymPy, exact) and every atlas class with one position each side has the
closed form as its certified rank; a step that does not confirm, or an atlas
rank that differs, makes it ``fails`` with the step or the class named.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

from attndepth.claims.rank_conjectures import shipped_atlas
from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.rank.atlas_table import atlas
from attndepth.theory.separation_rank import structural_degree
from attndepth.theory.single_position_rank import (
    confirm_single_position_proof,
    single_position_rank,
)

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (1, 4)

TESTS = "tests/test_claims_closed_forms.py"


def one_position_rank(width: int, depth: int) -> int:
    """The theorem's rank: C(K + d, d), K = (3^L − 1)/2."""
    return single_position_rank(width, depth)


@lru_cache(maxsize=64)
def _unconfirmed_steps(confirm: Callable[..., dict[str, bool]], width: int, depth: int,
                       seed: int) -> tuple[str, ...]:
    """The proof steps ``confirm`` (the theory's
    :func:`~attndepth.theory.single_position_rank.confirm_single_position_proof`) does not
    confirm at (d, L) with this seed's random forms (cached: a rival's run replaces the
    closed form, not the proof)."""
    steps = confirm(width, depth, seed=seed)
    return tuple(f"(d={width}, L={depth}) {step}" for step, ok in steps.items() if not ok)


@claim(
    "levine.one-position-rank",
    source="[derived]: this project's proof (theory document §1, Closed forms)",
    statement="With one head and one position on each side the separation rank is "
              "C(K + d, d), K = (3^L − 1)/2, for every width d and depth L.",
    presets={"quick": dict(sizes=[[2, 2], [3, 2]]),
             "full": dict(sizes=[[1, 3], [2, 2], [3, 2], [4, 2], [2, 3]])},
    theory=(one_position_rank, confirm_single_position_proof),
    simulation=(atlas,),
    test=f"{TESTS}::test_the_closed_form_is_proved_and_matches_the_atlas",
    wrong_theory={"one_position_rank": lambda width, depth: math.comb(
        structural_degree(depth) + width - 1, width)},
    rivals=(Rival("C(K + d − 1, d)", "the neighbouring count: monomials of degree ≤ K in d "
                  "variables but one degree short",
                  replace={"one_position_rank": lambda width, depth: math.comb(
                      structural_degree(depth) + width - 1, width)}),
            Rival("monomials of degree ≤ 3^L in y", "bound (a), the monomial count of the "
                  "Q side (Levine et al. 2020, §4)",
                  replace={"one_position_rank": lambda width, depth: math.comb(
                      3**depth + width, width)})),
    family=Family(parameters={"width": (1, 2, 3, 4), "depth": (1, 2)},
                  beyond={"width": (5,)},
                  adapt=lambda m: {"sizes": [[m["width"], m["depth"]]]}),
    checks=(Check("proof_confirmed", "every checkable proof step confirms (SymPy)", proof=True),
            Check("atlas_agrees", "every atlas class with |P| = |Q| = 1 has the certified "
                  "rank C(K + d, d)", proof=True)),
)
def verify_one_position_rank(seed: int, theory: Theory, sizes: Sequence[Sequence[int]]) -> Outcome:
    """The proof's steps at each size, then the theorem against every atlas class."""
    unconfirmed = [step for width, depth in sizes
                   for step in _unconfirmed_steps(theory.confirm_single_position_proof,
                                                  int(width), int(depth), seed)]
    rows = [row for row in shipped_atlas().where(heads=1, residual=0, p_size=1, q_size=1)]
    differing = [row for row in rows if row.rank != theory.one_position_rank(row.width, row.depth)]
    note = (f"proof steps checked at (d, L) = {', '.join(str(tuple(s)) for s in sizes)}; "
            f"the atlas' {len(rows)} classes with |P| = |Q| = 1 (d ≤ "
            f"{max((r.width for r in rows), default=0)}, L ≤ "
            f"{max((r.depth for r in rows), default=0)}) compared")
    if unconfirmed:
        note += f". Not confirmed: {'; '.join(unconfirmed)}"
    for row in differing[:3]:
        note += (f". Atlas class {row.key}: rank {row.rank:,}, the closed form "
                 f"{theory.one_position_rank(row.width, row.depth):,}; reproduce: {row.command}")
    return Outcome(
        note=(f"{len(rows) - len(differing)}/{len(rows)} atlas classes equal C(K + d, d); "
              + note),
        values={"unconfirmed": unconfirmed, "atlas_classes": len(rows),
                "differing": [list(row.key) for row in differing],
                "proof_confirmed": not unconfirmed, "atlas_agrees": not differing})
