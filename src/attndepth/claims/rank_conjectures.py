"""Conjectures about the separation rank, each checked against every row of the atlas.

The atlas (:func:`attndepth.atlas`) holds one certified rank per size class
(d, L, H, ρ, |P|, |Q|). A conjecture here is a statement about which classes
meet bound (d) or by how much they fall short; its verdict counts the
*decided* rows of its domain (certificate ``proved`` or ``saturated``) that
support it, lists those that refute it, smallest bound (d) first, each with
the command that re-measures it, and leaves rows that are only lower bounds
undecided. The presets check the whole atlas; the family is the conjecture's
domain over the atlas' scope (d ≤ 8, L ≤ 5, |P| ≤ d + 1, |Q| ≤ d: larger
sizes are the same classes, :mod:`attndepth.rank.atlas_classes`), one member per
class, so ``attndepth verify --search`` visits every atlas row and reports the
classes the atlas does not hold as inconclusive.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from attndepth.errors import InvalidParameter
from attndepth.framework.declarations import Check, Rival
from attndepth.framework.families import Family
from attndepth.framework.model import Outcome
from attndepth.framework.registry import claim
from attndepth.framework.theories import Theory
from attndepth.rank.atlas_table import Atlas, AtlasRow, atlas
from attndepth.theory.rank_deficits import one_position_deficit, two_head_deficit
from attndepth.theory.separation_rank import TIGHT_FAMILY_STATEMENT, in_tight_family

#: Where the theory document states these claims (section, place in it): the
#: built-in claims are listed, and run, in that order.
SECTION = (1, 3)

TESTS = "tests/test_claims_rank_conjectures.py"
# a size class (d, L, H, ρ, |P|, |Q|); "atlas" in a preset means every row
Key = tuple[int, int, int, int, int, int]
#: Refuting classes named after the smallest in a verdict's note (the rest are counted).
SHOWN = 8


@lru_cache(maxsize=1)
def shipped_atlas() -> Atlas:
    """The atlas shipped with the package, read once."""
    return atlas()


@dataclass(frozen=True)
class AtlasTest:
    """A conjecture against atlas rows: the rows that support it, refute it, or cannot
    decide it (lower bounds), and the classes the atlas does not hold."""

    support: tuple[AtlasRow, ...]
    refutations: tuple[AtlasRow, ...]
    undecided: tuple[AtlasRow, ...]
    absent: tuple[Key, ...]

    @property
    def agrees(self) -> bool | None:
        """False where a decided row refutes the conjecture, True where some support it
        and none refutes it, None where no decided row speaks of it."""
        if self.refutations:
            return False
        return True if self.support else None

    def note(self, predicted: Callable[[AtlasRow], str]) -> str:
        """Support, the smallest refutations with their commands, what is undecided."""
        text = (f"{len(self.support)} decided atlas classes (d, L, H, ρ, |P|, |Q|) support it, "
                f"{len(self.refutations)} refute it, {len(self.undecided)} are lower bounds "
                f"only")
        if self.absent:
            text += f", {len(self.absent)} are not in the atlas"
        if self.support:
            text += (f"; supporting classes span d ≤ {max(r.width for r in self.support)}, "
                     f"L ≤ {max(r.depth for r in self.support)}, bound (d) up to "
                     f"{max(r.bound_bigraded for r in self.support):,}")
        if self.refutations:
            smallest = self.refutations[0]
            text += (f". Smallest refutation (least bound (d)) {smallest.key}: rank "
                     f"{smallest.rank:,} ({smallest.certificate}), {predicted(smallest)}; "
                     f"reproduce: {smallest.command}")
            others = [str(row.key) for row in self.refutations[1:SHOWN + 1]]
            if others:
                text += f". Further refuting classes: {', '.join(others)}"
            if len(self.refutations) > SHOWN + 1:
                text += f" and {len(self.refutations) - SHOWN - 1} more"
        return text


def against_atlas(keys: Sequence[Key] | str, in_domain: Callable[[AtlasRow], bool],
              agrees: Callable[[AtlasRow], bool]) -> AtlasTest:
    """Check a conjecture on atlas rows (all of them for ``keys = "atlas"``).

    Parameters
    ----------
    keys : the classes to check, or ``"atlas"``.
    in_domain : whether the conjecture speaks of a row.
    agrees : whether a decided row's rank agrees with the conjecture.

    Returns
    -------
    AtlasTest, refutations sorted by (bound (d), class).
    """
    table = shipped_atlas()
    if keys == "atlas":
        rows, absent = list(table), list[Key]()
    else:
        if isinstance(keys, str) or not all(isinstance(key, (list, tuple)) and len(key) == 6
                                            for key in keys):
            raise InvalidParameter(f'keys must be "atlas" or a list of classes '
                                   f'(d, L, H, rho, |P|, |Q|), got {keys!r}')
        found = [(cast(Key, tuple(key)), table.find(*key)) for key in keys]
        rows = [row for _, row in found if row is not None]
        absent = [key for key, row in found if row is None]
    rows = [row for row in rows if in_domain(row)]
    support: list[AtlasRow] = []
    refutations: list[AtlasRow] = []
    undecided: list[AtlasRow] = []
    for row in rows:
        if agrees(row):
            (support if row.decided else undecided).append(row)
        elif row.decided:
            refutations.append(row)
        else:
            undecided.append(row)
    refutations.sort(key=lambda row: (row.bound_bigraded, row.key))
    return AtlasTest(tuple(support), tuple(refutations), tuple(undecided), tuple(absent))


def _outcome(found: AtlasTest, predicted: str, describe: Callable[[AtlasRow], str],
             statement: str) -> Outcome:
    decided = len(found.support) + len(found.refutations)
    smallest = found.refutations[0].key if found.refutations else None
    return Outcome(
        predicted=predicted,
        measured=(f"{len(found.support)}/{decided} decided classes agree" if decided
                  else "no decided class in the domain"),
        note=f"{statement}. " + found.note(describe),
        # the judged number: how many decided classes refute it (None: none decided)
        values={"refuting": None if found.agrees is None else len(found.refutations),
                "agrees": found.agrees, "support": len(found.support),
                "refutations": len(found.refutations),
                "undecided": len(found.undecided), "absent": len(found.absent),
                "smallest_refutation": list(smallest) if smallest else None,
                "refuting_classes": [list(row.key) for row in found.refutations],
                "supporting_classes": [list(row.key) for row in found.support]})


#: The atlas' scope as a family: one member per class (d, L, |P|, |Q|).
ATLAS_SCOPE = {"width": tuple(range(1, 9)), "depth": tuple(range(1, 6)),
               "p_size": tuple(range(1, 10)), "q_size": tuple(range(1, 9))}
SATURATED_SIZES = (("|P| ≤ d + 1 and |Q| ≤ d (larger sizes are the same class)",
                    lambda m: m["p_size"] <= m["width"] + 1 and m["q_size"] <= m["width"]),)


def _member_keys(heads: Callable[[dict], int]) -> Callable[[dict], dict[str, Any]]:
    return lambda m: {"keys": [(m["width"], m["depth"], heads(m), 0, m["p_size"],
                                m["q_size"])]}


# ---------------------------------------------------------------- the tight family


def in_conjectured_family(row: AtlasRow) -> bool:
    """Whether the tight-family conjecture says rank = bound (d) for this class."""
    return in_tight_family(row.width, row.depth, row.heads, row.residual, row.p_size,
                           row.q_size)


def conjectured_rank(row: AtlasRow) -> int:
    """What the conjecture's 'rank = bound (d)' means: the bigraded bound."""
    return row.bound_bigraded


def _one_head_plain(row: AtlasRow) -> bool:
    return row.heads == 1 and row.residual == 0


def _first_form(row: AtlasRow) -> bool:
    """The refuted first form: |P| = 1 or |P| ≥ d (a rival; theory document §1)."""
    return row.p_size == 1 or row.p_size >= row.width


def _always(row: AtlasRow) -> bool:
    """The naive rival: bound (d) is attained by every one-head network."""
    return True


def _ungraded_bound(row: AtlasRow) -> int:
    """min of bounds (a)–(c), the bounds before the bigrading: a rival's rank."""
    return min(row.bound_monomials, row.bound_q_side, row.bound_p_side)


def _tight_agrees(row: AtlasRow, theory: Theory) -> bool:
    return (row.rank == theory.conjectured_rank(row)) == theory.in_conjectured_family(row)


@claim(
    "levine.bound-tightness",
    source="[derived]; conjecture of this project (theory document §1)",
    statement="With one head and no residual the separation rank equals bound (d) exactly on "
              "the tight family (in_tight_family), checked against every atlas class.",
    checks=(Check("refuting", "exact: decided atlas classes where rank = bound (d) off the "
                  "family or rank < bound (d) on it (none decided: cannot tell)", at_most=0),),
    presets={"quick": dict(keys="atlas"), "full": dict(keys="atlas")},
    theory=(conjectured_rank, in_conjectured_family),
    simulation=(atlas,),
    test=f"{TESTS}::test_tight_family_against_the_atlas",
    figure="atlas",
    wrong_theory={"in_conjectured_family": lambda row: not in_tight_family(
        row.width, row.depth, 1, 0, row.p_size, row.q_size)},
    rivals=(Rival("rank = bound (d) always", "the naive reading of the bigraded bound",
                  replace={"in_conjectured_family": _always}),
            Rival("first form: |P| = 1 or |P| ≥ d", "this project's conjecture before the "
                  "exhaustive search of d ≤ 4 refuted it (theory document §1)",
                  replace={"in_conjectured_family": _first_form}),
            Rival("rank = min of bounds (a)–(c)", "the bounds before the bigrading (monomial "
                  "count, Q side, P side; Levine et al. 2020, §4)",
                  replace={"conjectured_rank": _ungraded_bound})),
    conjecture=True,
    family=Family(parameters=ATLAS_SCOPE, constraints=SATURATED_SIZES,
                  adapt=_member_keys(lambda m: 1)),
)
def verify_bound_tightness(seed: int, theory: Theory, keys: Sequence[Key] | str) -> Outcome:
    """rank = bound (d) ⇔ in the tight family, on every decided H = 1, ρ = 0 atlas class."""
    found = against_atlas(keys, _one_head_plain, lambda row: _tight_agrees(row, theory))
    return _outcome(
        found, "rank = bound (d) exactly on the tight family (H = 1, ρ = 0)",
        lambda row: (f"bound (d) {theory.conjectured_rank(row):,}, "
                     f"{'in' if theory.in_conjectured_family(row) else 'outside'} the family"),
        TIGHT_FAMILY_STATEMENT)


# ---------------------------------------------------------------- two heads at depth 2


def _two_heads_depth_two(row: AtlasRow) -> bool:
    return (row.heads == 2 and row.depth == 2 and row.residual == 0 and row.p_size >= 2
            and row.q_size >= 2)


def _two_head_agrees(row: AtlasRow, theory: Theory) -> bool:
    return row.deficit == theory.two_head_deficit(row.width // 2)


TWO_HEAD_STATEMENT = ("conjecture (a user's, docs/tutorial.md): with H = 2, L = 2, ρ = 0 and "
                      "|P|, |Q| ≥ 2, rank = bound (d) − d_k(d_k + 1)/2, d_k = d/2")


@claim(
    "levine.two-head-deficit",
    source="a user's observation at d = 2, 4 (docs/tutorial.md); checked on the atlas",
    statement="With H = 2, L = 2 and |P|, |Q| ≥ 2 the rank falls d_k(d_k + 1)/2 short of "
              "bound (d), d_k = d/2.",
    checks=(Check("refuting", "exact: decided atlas classes where bound (d) − rank ≠ "
                  "d_k(d_k + 1)/2 (none decided: cannot tell)", at_most=0),),
    presets={"quick": dict(keys="atlas"), "full": dict(keys="atlas")},
    theory=(two_head_deficit,),
    simulation=(atlas,),
    test=f"{TESTS}::test_two_head_deficit_against_the_atlas",
    figure="atlas",
    wrong_theory={"two_head_deficit": lambda head_width: head_width},
    rivals=(Rival("no deficit", "rank = bound (d), as for one head in the tight family",
                  replace={"two_head_deficit": lambda head_width: 0}),
            Rival("d_k²", "the neighbouring count: all d_k × d_k matrices",
                  replace={"two_head_deficit": lambda head_width: head_width**2}),
            Rival("d_k(d_k − 1)/2", "the antisymmetric matrices",
                  replace={"two_head_deficit": lambda head_width: head_width
                           * (head_width - 1) // 2})),
    conjecture=True,
    family=Family(parameters={"width": (2, 4, 6, 8), "depth": (2,), "p_size": tuple(range(2, 10)),
                              "q_size": tuple(range(2, 9))},
                  constraints=SATURATED_SIZES, adapt=_member_keys(lambda m: 2)),
)
def verify_two_head_deficit(seed: int, theory: Theory, keys: Sequence[Key] | str) -> Outcome:
    """bound (d) − rank = d_k(d_k + 1)/2 on every decided H = 2, L = 2 atlas class."""
    found = against_atlas(keys, _two_heads_depth_two, lambda row: _two_head_agrees(row, theory))
    return _outcome(
        found, "bound (d) − rank = d_k(d_k + 1)/2 (H = 2, L = 2, |P|, |Q| ≥ 2)",
        lambda row: (f"deficit {row.deficit:,}, conjectured "
                     f"{theory.two_head_deficit(row.width // 2):,}"),
        TWO_HEAD_STATEMENT)


# ---------------------------------------------------------------- one P position at depth 2


def _one_p_position(row: AtlasRow) -> bool:
    return (row.heads == 1 and row.residual == 0 and row.depth == 2 and row.p_size == 1
            and row.q_size >= 2)


def _one_position_agrees(row: AtlasRow, theory: Theory) -> bool:
    return row.deficit == theory.one_position_deficit(row.width)


ONE_POSITION_STATEMENT = ("conjecture (read off the atlas at d = 3 … 7, stated before d = 8 "
                          "was measured): with H = 1, ρ = 0, L = 2, |P| = 1 and |Q| ≥ 2, "
                          "rank = bound (d) − 2·C(d + 1, 4)")


@claim(
    "levine.one-position-deficit",
    source="[conjecture] of this project, from the atlas (theory document §1)",
    statement="With one head, L = 2, |P| = 1 and |Q| ≥ 2 the rank falls 2·C(d + 1, 4) short "
              "of bound (d).",
    checks=(Check("refuting", "exact: decided atlas classes where bound (d) − rank ≠ "
                  "2·C(d + 1, 4) (none decided: cannot tell)", at_most=0),),
    presets={"quick": dict(keys="atlas"), "full": dict(keys="atlas")},
    theory=(one_position_deficit,),
    simulation=(atlas,),
    test=f"{TESTS}::test_one_position_deficit_against_the_atlas",
    figure="atlas",
    wrong_theory={"one_position_deficit": lambda width: math.comb(width + 1, 4)},
    rivals=(Rival("no deficit", "the tight family's first form (|P| = 1 is tight)",
                  replace={"one_position_deficit": lambda width: 0}),
            Rival("2·C(d, 4)", "the neighbouring binomial",
                  replace={"one_position_deficit": lambda width: 2 * math.comb(width, 4)}),
            Rival("2·C(d + 2, 4)", "the neighbouring binomial on the other side",
                  replace={"one_position_deficit": lambda width: 2 * math.comb(width + 2,
                                                                               4)})),
    conjecture=True,
    family=Family(parameters={"width": tuple(range(1, 9)), "depth": (2,), "p_size": (1,),
                              "q_size": tuple(range(2, 9))},
                  constraints=SATURATED_SIZES, adapt=_member_keys(lambda m: 1)),
)
def verify_one_position_deficit(seed: int, theory: Theory, keys: Sequence[Key] | str) -> Outcome:
    """bound (d) − rank = 2·C(d + 1, 4) on every decided L = 2, |P| = 1 atlas class."""
    found = against_atlas(keys, _one_p_position, lambda row: _one_position_agrees(row, theory))
    return _outcome(
        found, "bound (d) − rank = 2·C(d + 1, 4) (H = 1, L = 2, |P| = 1, |Q| ≥ 2)",
        lambda row: (f"deficit {row.deficit:,}, conjectured "
                     f"{theory.one_position_deficit(row.width):,}"),
        ONE_POSITION_STATEMENT)


#: The conjectures checked against the atlas, in the order the documentation lists them.
CONJECTURES = ("levine.bound-tightness", "levine.two-head-deficit",
               "levine.one-position-deficit")
