"""Conjectured deficits of the separation rank below bound (d) (theory document §1).

Each is a statement about certified ranks, checked against every row of the atlas
by a claim of :mod:`attndepth.claims.rank_conjectures`; none is proved.
"""

from __future__ import annotations

import math

from attndepth.validation import check_int


def _count(name: str, value: object) -> int:
    return check_int(name, value, minimum=0)


def two_head_deficit(head_width: int) -> int:
    """bound (d) − sep with H = 2, L = 2, ρ = 0, |P|, |Q| ≥ 2: d_k(d_k + 1)/2, d_k = d/2.

    [conjecture] (a user's, from d = 2, 4; docs/tutorial.md) The dimension of
    the symmetric d_k × d_k matrices. ``levine.two-head-deficit``.

    Parameters
    ----------
    head_width : d_k = d/H ≥ 0.

    Returns
    -------
    int
    """
    head_width = _count("head_width", head_width)
    return head_width * (head_width + 1) // 2


def one_position_deficit(width: int) -> int:
    """bound (d) − sep with H = 1, ρ = 0, L = 2, |P| = 1, |Q| ≥ 2: 2·C(d + 1, 4).

    [conjecture] Read off the atlas at d = 3 … 7 and then measured at d = 8, 9,
    10 as predicted (theory document §1). The deficit lies in the degree block
    a = 2, whose certified rank is C(d + 3, 4) + C(d + 1, 3) where measured.
    ``levine.one-position-deficit``.

    Parameters
    ----------
    width : d ≥ 0.

    Returns
    -------
    int
    """
    width = _count("width", width)
    return 2 * math.comb(width + 1, 4)
