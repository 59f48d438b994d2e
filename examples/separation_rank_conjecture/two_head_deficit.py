"""A separation-rank conjecture of your own, checked as a user would (docs/tutorial.md).

Conjecture (found by a new user at a few sizes): with H = 2 heads, depth L = 2 and
both sides of the partition of size ≥ 2, the certified separation rank of the
Levine et al. network falls short of the bigraded bound (d) by exactly
d_k(d_k + 1)/2, d_k = d/2 the head width — the dimension of the symmetric
d_k × d_k matrices.

    attndepth verify --claims examples/separation_rank_conjecture/two_head_deficit.py
    attndepth verify --claims examples/separation_rank_conjecture/two_head_deficit.py --search
"""

from attndepth import Check, Family, Outcome, Rival, Theory, claim, rank_with_bounds
from attndepth.rank.grids import SeparationRankConfig


def deficit(head_width: int) -> int:
    """The conjectured shortfall: dim Sym²(ℝ^{d_k}) = d_k(d_k + 1)/2."""
    return head_width * (head_width + 1) // 2


@claim("mine.two-head-deficit", source="a user's observation at d = 2, 4 (docs/tutorial.md)",
       statement="With H = 2, L = 2 and |P|, |Q| ≥ 2, rank = bound (d) − d_k(d_k + 1)/2.",
       conjecture=True,
       presets={"quick": {"width": 4, "p_size": 2, "q_size": 2},
                "full": {"width": 6, "p_size": 3, "q_size": 3}},
       family=Family(parameters={"width": (2, 4, 6), "p_size": (2, 3), "q_size": (2, 3)},
                     beyond={"width": (8,), "p_size": (4,), "q_size": (4,)}),
       rivals=(Rival("no deficit", "rank = bound (d), as for one head in the tight family",
                     replace={"deficit": lambda head_width: 0}),
               Rival("d_k²", "the neighbouring count: all d_k × d_k matrices",
                     replace={"deficit": lambda head_width: head_width**2}),
               Rival("d_k(d_k − 1)/2", "the antisymmetric matrices",
                     replace={"deficit": lambda head_width: head_width * (head_width - 1)
                              // 2})),
       theory=Theory(deficit), wrong_theory={"deficit": lambda head_width: head_width},
       checks=(Check("agrees", "exact: the certified rank equals the conjectured value (a "
                     "rank not certified: cannot tell)"),))
def verify_deficit(seed: int, theory: Theory, width: int, p_size: int, q_size: int) -> Outcome:
    """Certified rank (GF(p), saturated blocks) against bound (d) − d_k(d_k + 1)/2."""
    config = SeparationRankConfig(width=width, depth=2, heads=2, tokens=p_size + q_size,
                                  partition=f"sizes={p_size}/{q_size}")
    found = rank_with_bounds(config, seed, method="auto")
    bound = found["bounds"]["bigraded"]
    predicted = bound - theory.deficit(width // 2)
    certified = found["reason"] in ("upper-bound", "margin")
    return Outcome(f"rank {predicted} (bound (d) {bound})", f"rank {found['rank']}",
                   note=f"certificate {found['reason']}, failure probability "
                        f"{found['failure_probability']:.1e}",
                   values={"rank": found["rank"], "bound": bound, "predicted": predicted,
                           "agrees": found["rank"] == predicted if certified else None})
