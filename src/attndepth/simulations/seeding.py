"""Seeds: one base seed, independent streams per stack and per purpose.

Stack ``k`` of a batch drawn from base seed ``S`` uses
``SeedSequence(S).spawn(batch)[k]``; its weights, its input tokens, its
evaluation grids, its Jacobian probes and its weights drawn in law are that
sequence's children 0, 1, 2, 3 and 4. This is written
statelessly as ``SeedSequence(S, spawn_key=(k, stream))`` (the same numbers as
the spawn calls), so stack k of a batch of 8 equals stack k of a batch of 16,
and any result is reproduced from (S, k) alone.
"""

from __future__ import annotations

import numpy as np

from attndepth.validation import check_int, check_seed

#: Most independent stacks one call may spawn (each gets its own generator).
MAX_BATCH = 2**20
WEIGHTS_STREAM = 0
TOKENS_STREAM = 1
GRID_STREAM = 2
#: Random directions probing a block's Jacobian (measures.block_jacobian).
PROBE_STREAM = 3
#: The noise of weight matrices drawn in law (models.law).
LAW_STREAM = 4


def spawn_generators(seed: int, batch: int, stream: int,
                     first: int = 0) -> list[np.random.Generator]:
    """Return the generators of stacks ``first .. first + batch − 1`` for one purpose.

    Stack k's generator depends on (seed, k, stream) alone, so a batch can be
    computed in chunks (``first`` = the chunk's first stack) with the same numbers.
    """
    seed = check_seed("seed", seed)
    batch = check_int("batch", batch, minimum=1, maximum=MAX_BATCH)
    first = check_int("first", first, minimum=0, maximum=MAX_BATCH)
    return [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k, stream)))
        for k in range(first, first + batch)
    ]


def gaussian_tokens(seed: int, batch: int, tokens: int, width: int,
                    first: int = 0) -> np.ndarray:
    """Standard Gaussian token matrices, one stream per stack.

    Returns
    -------
    X : (batch, tokens, width) float64
    """
    tokens = check_int("tokens", tokens, minimum=1)
    width = check_int("width", width, minimum=1)
    generators = spawn_generators(seed, batch, TOKENS_STREAM, first)
    return np.stack([g.standard_normal((tokens, width)) for g in generators])
