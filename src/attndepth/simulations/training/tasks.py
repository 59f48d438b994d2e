"""Synthetic tasks for training small stacks: no download, seeded, split by stream.

Associative recall (the task of the training experiments). A sequence lists
``pairs`` key–value pairs, then one of the keys again; the target is its
value:

    k_1 v_1 k_2 v_2 … k_m v_m  q        →  v_j where q = k_j.

Keys are distinct, drawn from ``keys`` symbols, values from ``values``
symbols (disjoint vocabularies, so a token says what it is). Why this task:
it is solved by attention and not by the token statistics (every value is
equally likely), the standard solution needs two attention layers (an
induction head: copy each key onto its value's position, then match the
query), so depth matters, and more pairs interfere — how much the width must
carry grows with ``pairs`` and the vocabulary. Chance is 1/values.

Train and validation sets come from separate seed streams of one base seed,
so they never share a draw by construction of the stream, and every set is
reproduced from (seed, split, size) alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.simulations.settings import setting
from attndepth.validation import check_choice, check_int, check_seed, check_size

SPLITS: tuple[str, ...] = ("train", "validation")
#: Seed streams of the two splits (distinct from the stacks' and grids' streams).
SPLIT_STREAMS = {"train": 20, "validation": 21}


@dataclass(frozen=True)
class RecallTask:
    """Associative recall with ``pairs`` pairs, ``keys`` key and ``values`` value symbols.

    Token ids: keys 0 … keys − 1, values keys … keys + values − 1.
    """

    pairs: int = setting(4, description="key-value pairs per sequence (integer >= 1; with "
                                        "4 keys per pair and 16 values)", symbol="M")
    keys: int = 16
    values: int = 16

    @classmethod
    def standard(cls, pairs: int) -> RecallTask:
        """The task the CLI, the sweeps and the training claims use: ``pairs`` pairs drawn
        from 4·pairs keys, 16 values."""
        return cls(pairs=pairs, keys=4 * pairs, values=16)

    def __post_init__(self) -> None:
        check_int("pairs", self.pairs, minimum=1)
        check_int("keys", self.keys, minimum=1)
        check_int("values", self.values, minimum=2)
        if self.pairs > self.keys:
            raise InvalidParameter(f"pairs ({self.pairs}) cannot exceed the distinct keys "
                                   f"({self.keys})")

    @property
    def vocabulary(self) -> int:
        return self.keys + self.values

    @property
    def length(self) -> int:
        """Tokens per sequence: 2·pairs + 1."""
        return 2 * self.pairs + 1

    @property
    def chance(self) -> float:
        """Accuracy of a uniform guess among the values."""
        return 1.0 / self.values

    def sample(self, size: int, seed: int, split: str = "train") -> tuple[np.ndarray, np.ndarray]:
        """``size`` sequences of one split.

        Returns
        -------
        tokens : (size, 2·pairs + 1) int64
        targets : (size,) int64, token ids of the recalled values
        """
        size = check_int("size", size, minimum=1)
        check_choice("split", split, SPLITS)
        # what the draw holds at once: the key scores and their argsort (size × keys each),
        # the values and the tokens
        check_size(f"the draw of {size} sequences", size * (2 * self.keys + self.pairs
                                                           + self.length))
        rng = np.random.default_rng(np.random.SeedSequence(check_seed("seed", seed),
                                                           spawn_key=(SPLIT_STREAMS[split],)))
        keys = np.argsort(rng.random((size, self.keys)), axis=1)[:, :self.pairs]
        values = self.keys + rng.integers(0, self.values, (size, self.pairs))
        which = rng.integers(0, self.pairs, size)
        tokens = np.empty((size, self.length), dtype=np.int64)
        tokens[:, 0:-1:2] = keys
        tokens[:, 1:-1:2] = values
        tokens[:, -1] = keys[np.arange(size), which]
        return tokens, values[np.arange(size), which]
