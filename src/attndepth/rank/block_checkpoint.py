"""A degree-block measurement's progress, saved and resumed.

The blocks method (:mod:`attndepth.rank.degree_blocks`) builds its
blocks in one pass over the grid in row chunks, then ranks them one at a time.
Everything it has computed at a chunk boundary or after a block's rank is

* the ranks of the blocks already ranked (a few numbers each),
* how many grid rows are evaluated, and
* those rows of the blocks not ranked yet (int32 residues).

Why resuming gives the same numbers. Block a is F_a[r, c] = f_a(XP[r], XQ[c])
for r, c < n_a, a function of the weights and grid points alone, both drawn
from the seed; rows are evaluated independently of each other (each row
chunk's evaluation reads only its own rows of XP). So rows 0 … R − 1 saved
by one process and rows R … n − 1 evaluated by another form the block a
single process forms, and its rank is the same. The checkpoint's identity
names everything the blocks depend on — configuration, seed, prime, block
sizes, evaluator, toolkit version — and a checkpoint of another measurement
is refused, never merged. The file itself is written atomically with a
checksum (:mod:`attndepth.simulations.checkpoints`); a damaged one is warned
about and the measurement starts over.

What a kill loses: at most :data:`CHECKPOINT_SECONDS` of work (a save
follows every chunk or rank that ends that long after the last save). What a
full disk loses: nothing saved. A save that fails mid-measurement stops it
with :class:`~attndepth.errors.OutputFailed` (CLI exit 3) and leaves the last
good checkpoint in place, from which the same call continues; when the final
save fails the measurement is complete, so its result is returned with a
:class:`~attndepth.errors.CheckpointNotSaved` warning.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from attndepth.errors import CheckFailed, CheckpointNotSaved, InvalidParameter, OutputFailed
from attndepth.simulations.checkpoints import read_checkpoint, write_checkpoint
from attndepth.simulations.version import TOOLKIT_VERSION

#: Seconds of work between two saves of a block measurement's progress.
CHECKPOINT_SECONDS = 600.0


@dataclass
class BlockProgress:
    """What a block measurement has computed (module docstring).

    Attributes
    ----------
    ranked : {a: the block's rank record (``BlockRank`` fields)}.
    rows : grid rows evaluated (of every block, up to its own n_a).
    blocks : {a: (min(rows, n_a), n_a) int32} the evaluated rows of the blocks
        not ranked yet.
    eval_seconds : evaluation time spent so far, in every process.
    """

    ranked: dict[int, dict[str, Any]] = field(default_factory=dict)
    rows: int = 0
    blocks: dict[int, np.ndarray] = field(default_factory=dict)
    eval_seconds: float = 0.0


def measurement_identity(config: Mapping[str, Any], seed: int, prime: int, margin: int,
                         sizes: list[int], evaluator: str) -> str:
    """The text a checkpoint must match to resume a measurement: everything its blocks
    and their certificates depend on."""
    return json.dumps({"config": dict(config), "seed": seed, "prime": prime,
                       "margin": margin, "sizes": sizes, "evaluator": evaluator,
                       "version": TOOLKIT_VERSION}, sort_keys=True)


def save_progress(path: Path, identity: str, progress: BlockProgress) -> None:
    """Write ``progress`` atomically to ``path`` (the blocks' rows are not copied)."""
    state = json.dumps({"ranked": {str(a): record for a, record in progress.ranked.items()},
                        "rows": progress.rows, "eval_seconds": progress.eval_seconds})
    write_checkpoint(path, identity, state,
                     {f"block.{a}": block for a, block in progress.blocks.items()})


def load_progress(path: Path, identity: str, sizes: list[int]) -> BlockProgress | None:
    """The progress saved at ``path`` for this measurement, or None (nothing usable).

    Raises
    ------
    InvalidParameter
        The checkpoint belongs to another measurement.
    CheckFailed
        It belongs to this one but its blocks have other shapes (a bug).
    """
    saved = read_checkpoint(path, "the measurement")
    if saved is None:
        return None
    if saved.identity != identity:
        raise InvalidParameter(f"checkpoint {path} belongs to another measurement "
                               f"(configuration, seed, prime, grids or toolkit version "
                               f"differ); give another path or delete it")
    state = json.loads(saved.state)
    progress = BlockProgress(
        ranked={int(a): record for a, record in state["ranked"].items()},
        rows=state["rows"], eval_seconds=state["eval_seconds"],
        blocks={int(name.removeprefix("block.")): block
                for name, block in saved.arrays.items()})
    expected = {a: (min(progress.rows, n), n) for a, n in enumerate(sizes)
                if n and a not in progress.ranked}
    shapes = {a: block.shape for a, block in progress.blocks.items()}
    if shapes != expected or any(b.dtype != np.int32 for b in progress.blocks.values()):
        raise CheckFailed(f"checkpoint {path} of this measurement holds blocks of shapes "
                               f"{shapes}, not {expected}: a bug in the saving code")
    return progress


class ProgressSaver:
    """Saves a measurement's progress when :data:`CHECKPOINT_SECONDS` have passed since
    the last save (or ``force``); does nothing without a path.

    A save that fails (:class:`~attndepth.errors.OutputFailed`) is raised with what
    the last good checkpoint holds; with ``final`` (the measurement is complete) it
    is a :class:`~attndepth.errors.CheckpointNotSaved` warning instead.
    """

    def __init__(self, path: Path | None, identity: str, interval: float | None = None) -> None:
        self.path, self.identity = path, identity
        self.interval = CHECKPOINT_SECONDS if interval is None else interval
        self.last = time.monotonic()
        self.saves = 0

    def __call__(self, progress: BlockProgress, force: bool = False,
                 final: bool = False) -> None:
        if self.path is None or not (force or final
                                     or time.monotonic() - self.last >= self.interval):
            return
        try:
            save_progress(self.path, self.identity, progress)
        except OutputFailed as error:
            if final:
                warnings.warn(f"{error}: the measurement is complete and its result is "
                              f"returned, but a rerun will not find it saved",
                              CheckpointNotSaved, stacklevel=2)
                return
            raise type(error)(f"{error}: the measurement stopped at its last good "
                              f"checkpoint, which the same command continues from once "
                              f"the file can be written") from error
        self.last = time.monotonic()
        self.saves += 1
