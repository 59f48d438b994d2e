"""Attention masks and the rate of rank collapse (Wu et al. 2024).

Wu, Ajorlou, Wang, Jegelka & Jadbabaie 2024, "On the role of attention masks
and LayerNorm in transformers" (arXiv 2405.18781) [paper]: pure masked
self-attention still collapses the tokens to a rank-one subspace
exponentially fast, and sparse or local masks slow the collapse: their bound
reads μ(X_t) ≤ C (1 − ε^r)^{t/r}, with ε a lower bound on the attention
weights along the mask's edges and r a graph distance of the mask.

The distance used here [derived: the Dobrushin argument behind such bounds].
Let G be the mask's directed graph, i → j when token i may attend to token j
(self-loops included). If every token reaches a centre c within r steps, a
product of r row-stochastic matrices with entries ≥ ε on the edges of G puts
weight ≥ ε^r on column c in every row, so its ergodicity coefficient is at
most 1 − ε^r and any token spread contracts by that factor every r layers.
The smallest such r over centres is the *radius* of the mask
(:func:`mask_radius`, breadth-first search); for the masks of
:mod:`attndepth.simulations.models.stacks` it has a closed form
(:func:`mask_radius_closed_form`):

* band ``|i − j| < w`` (w ≥ 2), T tokens: r = ⌈⌈(T − 1)/2⌉ / (w − 1)⌉ (centre in the middle);
* causal sliding window i − w < j ≤ i: r = ⌈(T − 1)/(w − 1)⌉ (the only centre is token 0);
* w = 1 leaves each token alone: no centre, no collapse (radius None).

The prediction compared: the guaranteed per-layer rate ln(1 − ε^r)/r
(:func:`guaranteed_rate`) weakens as r grows, so the collapse rate should not
increase with the radius (narrower windows collapse no faster).
"""

from __future__ import annotations

import functools
import math
from collections import deque

from attndepth.errors import InvalidParameter
from attndepth.validation import check_bool, check_int, check_optional_int


def _check(tokens: object, window: object, causal: object) -> tuple[int, int | None]:
    check_bool("causal", causal)
    return (check_int("tokens", tokens, minimum=1),
            check_optional_int("window", window, minimum=1))


def _allowed(i: int, j: int, window: int | None, causal: bool) -> bool:
    return (not causal or j <= i) and (window is None or abs(i - j) < window)


def _distances(token: int, tokens: int, window: int | None, causal: bool,
               towards: bool) -> dict[int, int]:
    """Breadth-first distances along i → j edges (i may attend to j): to ``token`` from
    every token that reaches it (``towards``), or from ``token`` to every token it reaches."""
    distance = {token: 0}
    queue = deque([token])
    while queue:
        here = queue.popleft()
        for other in range(tokens):
            edge = (_allowed(other, here, window, causal) if towards
                    else _allowed(here, other, window, causal))
            if other not in distance and edge:
                distance[other] = distance[here] + 1
                queue.append(other)
    return distance


def mask_radius(tokens: int, window: int | None, causal: bool) -> int | None:
    """Smallest r such that some token is reached from every token within r attention steps.

    Parameters
    ----------
    tokens : int
        T ≥ 1.
    window : int or None
        The mask's window (None: no window).
    causal : bool
        Causal mask.

    Returns
    -------
    int or None
        The radius; 0 for one token; None when no token is reachable from all.
    """
    tokens, window = _check(tokens, window, causal)
    return _radius(tokens, window, bool(causal))


@functools.lru_cache(maxsize=256)
def _radius(tokens: int, window: int | None, causal: bool) -> int | None:
    """:func:`mask_radius` of checked arguments (remembered: a claim asks for the same
    masks at every seed)."""
    best = None
    for centre in range(tokens):
        distance = _distances(centre, tokens, window, causal, towards=True)
        if len(distance) == tokens:
            farthest = max(distance.values())
            best = farthest if best is None else min(best, farthest)
    return best


def mask_diameter(tokens: int, window: int | None, causal: bool) -> int | None:
    """The longest distance from a token to a token it reaches: the mask's diameter.

    The rival reading of Wu et al.'s r (arXiv 2405.18781) as a distance between any two
    tokens rather than to a centre. Band masks: ⌈(T − 1)/(w − 1)⌉, about twice the radius;
    causal sliding windows: the same as the radius (every chain ends at token 0).

    Parameters
    ----------
    tokens, window, causal : as :func:`mask_radius`.

    Returns
    -------
    int or None
        The diameter; 0 for one token; None when no token is reachable from all (as
        :func:`mask_radius`, so that the two are defined on the same masks).
    """
    tokens, window = _check(tokens, window, causal)
    return _diameter(tokens, window, bool(causal))


@functools.lru_cache(maxsize=256)
def _diameter(tokens: int, window: int | None, causal: bool) -> int | None:
    """:func:`mask_diameter` of checked arguments (remembered)."""
    if _radius(tokens, window, causal) is None:
        return None
    return max(max(_distances(start, tokens, window, causal, towards=False).values())
               for start in range(tokens))


def mask_radius_closed_form(tokens: int, window: int | None, causal: bool) -> int | None:
    """The radius by the closed forms of the module docstring [derived]."""
    tokens, window = _check(tokens, window, causal)
    if tokens == 1:
        return 0
    reach = tokens if window is None else window  # longest step + 1
    if reach == 1:
        return None
    if causal:
        return math.ceil((tokens - 1) / (reach - 1))
    return math.ceil(math.ceil((tokens - 1) / 2) / (reach - 1))


def guaranteed_rate(epsilon: float, radius: int) -> float:
    """ln(1 − ε^r)/r: the per-layer contraction the bound guarantees (≤ 0) [paper's form]."""
    if not (isinstance(epsilon, int | float) and 0 < epsilon <= 1):
        raise InvalidParameter(f"epsilon must be in (0, 1], got {epsilon!r}")
    radius = check_int("radius", radius, minimum=1)
    power = epsilon**radius
    return -math.inf if power >= 1 else math.log1p(-power) / radius
