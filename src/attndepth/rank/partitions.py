"""Partitions (P, Q) of the positions of a sequence, with the output position i ∈ P.

The separation rank of f = y^{L,i}_p is measured with respect to such a
partition (Levine et al. 2020, §4): P holds the output position and the
positions f is separated from are Q.

Symmetry [derived]: f = e_pᵀ G(M_P + M_Q) x^i depends on the positions other
than i only through the sums M_P and M_Q, so a permutation of the positions
that fixes i maps f to f∘σ, with the same separation rank for the permuted
partition. Any two partitions with the same sizes (|P|, |Q|) are related by
such a permutation: the rank depends on the partition only through its sizes
(checked as the claim ``levine.partition-symmetry``). :func:`partitions`
therefore enumerates one partition per size, or every partition.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from attndepth.errors import InvalidParameter
from attndepth.validation import check_int

#: Most positions a partition may have (grid points hold |P|·d and |Q|·d entries each).
MAX_TOKENS = 2**16
PARTITION_STYLES = ("balanced", "interleaved")


@dataclass(frozen=True)
class Partition:
    """A partition (P, Q) of positions 0..N−1 with the output position i ∈ P."""

    p_positions: tuple[int, ...]
    q_positions: tuple[int, ...]
    position: int

    def label(self) -> str:
        return (",".join(map(str, self.p_positions)) + "/"
                + ",".join(map(str, self.q_positions)))


def make_partition(spec: str, tokens: int, position: int = 0) -> Partition:
    """Parse ``balanced``, ``interleaved``, ``sizes=A/B`` or an explicit ``"0,1/2,3"``.

    ``balanced``: P = the first ⌈N/2⌉ positions; ``interleaved``: P = even
    positions; ``sizes=A/B``: |P| = A, |Q| = B (A + B = N), P = i and the
    lowest other positions. Raises ``ValueError`` unless P and Q are disjoint,
    non-empty, cover 0..N−1 and i ∈ P.
    """
    tokens = check_int("tokens", tokens, minimum=2, maximum=MAX_TOKENS)
    position = check_int("position", position, minimum=0, maximum=tokens - 1)
    if not isinstance(spec, str):
        raise InvalidParameter(f"partition must be a string, got {spec!r}")
    if spec == "balanced":
        p_side = tuple(range((tokens + 1) // 2))
    elif spec == "interleaved":
        p_side = tuple(range(0, tokens, 2))
    elif spec.startswith("sizes="):
        p_size = _sizes(spec, tokens)
        p_side = (position, *[j for j in range(tokens) if j != position][:p_size - 1])
    else:
        halves = spec.split("/")
        if len(halves) != 2:
            raise InvalidParameter(f"partition must be balanced, interleaved or 'P/Q' like "
                                   f"'0,1/2,3'; got {spec!r}")
        try:
            p_side, q_side = (tuple(int(x) for x in half.split(",") if x.strip())
                              for half in halves)
        except ValueError:
            raise InvalidParameter(f"partition positions must be integers, got {spec!r}") from None
        return _checked_partition(p_side, q_side, tokens, position)
    q_side = tuple(j for j in range(tokens) if j not in p_side)
    return _checked_partition(p_side, q_side, tokens, position)


def _checked_partition(p_side: tuple[int, ...], q_side: tuple[int, ...], tokens: int,
                       position: int) -> Partition:
    if not p_side or not q_side:
        raise InvalidParameter(f"partition needs non-empty P and Q, got P={p_side}, Q={q_side}")
    if set(p_side) & set(q_side):
        raise InvalidParameter(f"partition sides overlap: {sorted(set(p_side) & set(q_side))}")
    if sorted(p_side + q_side) != list(range(tokens)):
        raise InvalidParameter(f"partition must cover positions 0..{tokens - 1} exactly once, "
                               f"got P={p_side}, Q={q_side}")
    if position not in p_side:
        raise InvalidParameter(f"output position i={position} must lie in P={p_side}")
    return Partition(tuple(sorted(p_side)), tuple(sorted(q_side)), position)


def _sizes(spec: str, tokens: int) -> int:
    """|P| of a ``sizes=A/B`` spec, checked against ``tokens``."""
    try:
        p_size, q_size = (int(x) for x in spec.removeprefix("sizes=").split("/"))
    except ValueError:
        raise InvalidParameter(f"partition sizes must look like sizes=2/3, got {spec!r}") from None
    if p_size < 1 or q_size < 1 or p_size + q_size != tokens:
        raise InvalidParameter(f"partition sizes {p_size}/{q_size} must be >= 1 and add up to "
                               f"tokens={tokens}")
    return p_size


def partitions(tokens: int, position: int = 0, every: bool = False) -> Iterator[Partition]:
    """Partitions of ``tokens`` positions with ``position`` in P, smallest |P| first.

    Parameters
    ----------
    tokens : int
        N ≥ 2.
    position : int
        The output position i.
    every : bool
        All 2^(N−1) − 1 partitions; default: one per size (|P|, |Q|), which
        suffices for the separation rank by the symmetry in the module docstring.

    Yields
    ------
    Partition
    """
    tokens = check_int("tokens", tokens, minimum=2, maximum=MAX_TOKENS)
    position = check_int("position", position, minimum=0, maximum=tokens - 1)
    others = [j for j in range(tokens) if j != position]
    for p_size in range(1, tokens):
        chosen = itertools.combinations(others, p_size - 1) if every else [others[:p_size - 1]]
        for rest in chosen:
            p_side = (position, *rest)
            q_side = tuple(j for j in range(tokens) if j not in p_side)
            yield _checked_partition(p_side, q_side, tokens, position)
