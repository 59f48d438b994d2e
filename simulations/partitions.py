"""Partitions (P, Q) of the positions of a sequence, with the output position i ∈ P.

The separation rank of f = y^{L,i}_p is measured with respect to such a
partition (Levine et al. 2020, §4): P holds the output position and the
positions f is separated from are Q.
"""

from __future__ import annotations

from dataclasses import dataclass

from attndepth.simulations.validation import check_int

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
    """Parse ``balanced``, ``interleaved`` or an explicit ``"0,1/2,3"``.

    ``balanced``: P = the first ⌈N/2⌉ positions; ``interleaved``: P = even
    positions. Raises ``ValueError`` unless P and Q are disjoint, non-empty,
    cover 0..N−1 and i ∈ P.
    """
    tokens = check_int("tokens", tokens, minimum=2, maximum=MAX_TOKENS)
    position = check_int("position", position, minimum=0, maximum=tokens - 1)
    if not isinstance(spec, str):
        raise ValueError(f"partition must be a string, got {spec!r}")
    if spec == "balanced":
        p_side = tuple(range((tokens + 1) // 2))
    elif spec == "interleaved":
        p_side = tuple(range(0, tokens, 2))
    else:
        halves = spec.split("/")
        if len(halves) != 2:
            raise ValueError(f"partition must be balanced, interleaved or 'P/Q' like "
                             f"'0,1/2,3'; got {spec!r}")
        try:
            p_side, q_side = (tuple(int(x) for x in half.split(",") if x.strip())
                              for half in halves)
        except ValueError:
            raise ValueError(f"partition positions must be integers, got {spec!r}") from None
        return _checked_partition(p_side, q_side, tokens, position)
    q_side = tuple(j for j in range(tokens) if j not in p_side)
    return _checked_partition(p_side, q_side, tokens, position)


def _checked_partition(p_side: tuple[int, ...], q_side: tuple[int, ...], tokens: int,
                       position: int) -> Partition:
    if not p_side or not q_side:
        raise ValueError(f"partition needs non-empty P and Q, got P={p_side}, Q={q_side}")
    if set(p_side) & set(q_side):
        raise ValueError(f"partition sides overlap: {sorted(set(p_side) & set(q_side))}")
    if sorted(p_side + q_side) != list(range(tokens)):
        raise ValueError(f"partition must cover positions 0..{tokens - 1} exactly once, "
                         f"got P={p_side}, Q={q_side}")
    if position not in p_side:
        raise ValueError(f"output position i={position} must lie in P={p_side}")
    return Partition(tuple(sorted(p_side)), tuple(sorted(q_side)), position)


