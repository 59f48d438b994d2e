"""Checkpoint files of long computations: written whole or not at all, damage detected.

A checkpoint is one ``.npz`` file holding an *identity* (text naming the
computation it belongs to), a *state* (text, the computation's own small
record) and named arrays, with the SHA-256 of all three. It is written to a
partial file beside the target, synced, and renamed over it, so a process
killed while writing leaves the previous checkpoint intact. A reader takes any
damage (a truncated zip, a changed byte, a missing entry) for no checkpoint at
all: it warns and the computation starts over, recomputing the same numbers.
A file that is not a checkpoint at all (a sweep store, a CSV, a typo'd path
to anything else) is never read as a damaged one and never replaced: it is
refused before the computation starts (:func:`checkpoint_file`, the rules of
:mod:`attndepth.simulations.output_files`). A readable checkpoint of another
computation is the caller's to refuse (its identity differs). A writer holds
``.NAME.lock`` for its whole run, so two processes never write one checkpoint.

Used by training runs (:func:`attndepth.simulations.training.jax_model.train`) and
the degree-block measurement
(:func:`attndepth.rank.degree_blocks.measure_block_ranks`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from attndepth.errors import InvalidParameter
from attndepth.input_files import parse_json, reader
from attndepth.simulations.output_files import (
    OutputFile,
    OutputKind,
    output_file,
    remove_orphaned_partials,
)

ZIP_MAGIC = b"PK\x03\x04"


#: The entries a checkpoint's zip begins with (``curves``: training checkpoints before
#: this module), in the order :func:`write_checkpoint` saves them.
ENTRY_NAMES = (b"identity.npy", b"state.npy", b"curves.npy", b"checksum.npy")


def _is_checkpoint(head: bytes) -> bool:
    """A zip (a local header's signature) naming one of a checkpoint's first entries in its
    first bytes: a truncated or damaged checkpoint is still recognised (a changed byte
    must hit every name and signature there to hide it), a store or a text is not."""
    return ZIP_MAGIC in head and any(name in head for name in ENTRY_NAMES)


#: An earlier checkpoint (of this or another computation, damaged or not).
CHECKPOINT = OutputKind("an attndepth checkpoint", _is_checkpoint)


def checkpoint_file(path: str | os.PathLike[str]) -> OutputFile:
    """Check ``path`` as a checkpoint before the computation starts.

    Parameters
    ----------
    path : the checkpoint file; it may be missing, empty or an earlier checkpoint.

    Returns
    -------
    OutputFile

    Raises
    ------
    InvalidParameter
        Anything else is there (a store, another file, a directory, a device): it is
        left untouched.
    """
    return output_file(path, CHECKPOINT, hint="give another path, or delete the file if "
                                              "it is yours to lose")


@dataclass(frozen=True)
class Checkpoint:
    """What a checkpoint file holds (checksum verified)."""

    identity: str
    state: str
    arrays: dict[str, np.ndarray]


def checksum(identity: str, state: str, arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of everything a checkpoint holds: any changed byte is detected.

    The arrays are hashed in name order, each with its dtype and shape, without
    copying them (a contiguous array's buffer is read in place).
    """
    digest = hashlib.sha256(identity.encode())
    digest.update(state.encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}{array.dtype.str}{array.shape}".encode())
        # an array is a buffer (NumPy's stubs declare it only from Python 3.12)
        digest.update(cast(bytes, array.reshape(-1).view(np.uint8)))
    return digest.hexdigest()


def write_checkpoint(path: Path, identity: str, state: str,
                     arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``identity``, ``state`` and ``arrays`` atomically to ``path`` (module docstring).

    Parameters
    ----------
    path : the checkpoint file (its directory is created).
    identity, state : text.
    arrays : name → array; the names ``identity``, ``state`` and ``checksum`` are taken.

    Raises
    ------
    InvalidParameter
        ``path`` holds something other than a checkpoint (left untouched).
    OutputFailed, DiskFull
        The file could not be written; the checkpoint there is the last good one.
    """
    reserved = {"identity", "state", "checksum"} & set(arrays)
    if reserved:
        raise InvalidParameter(f"array names {sorted(reserved)} are reserved in a checkpoint")
    total = checksum(identity, state, arrays)
    with checkpoint_file(path).open("wb") as handle:
        entries: dict[str, Any] = {"identity": np.array(identity), "state": np.array(state),
                                   "checksum": np.array(total), **arrays}
        np.savez(handle, **entries)


@reader("a checkpoint", "npz")
def read_checkpoint(path: Path, what: str = "the computation") -> Checkpoint | None:
    """The checkpoint at ``path``, or None when there is nothing usable.

    None for no file, and for a damaged one with a warning naming ``what``
    starts over. Partial files of writers that were killed mid-write are removed
    (the caller holds :func:`writer_lock`, so no live writer of this file is left).

    Parameters
    ----------
    path : the checkpoint file.
    what : the computation, for the warning (``"training"``, ``"the measurement"``).

    Raises
    ------
    InvalidParameter
        ``path`` holds something other than a checkpoint (left untouched).
    """
    checkpoint_file(path)
    remove_orphaned_partials(path, min_age=0)
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        # opened here, so that a damaged zip (np.load raising mid-open) leaks no handle
        with open(path, "rb") as handle, np.load(handle, allow_pickle=False) as saved:
            # training checkpoints written before this module call their state "curves"
            state_name = "state" if "state" in saved.files else "curves"
            identity, state, total = (str(saved[name])
                                      for name in ("identity", state_name, "checksum"))
            arrays = {name: saved[name] for name in saved.files
                      if name not in ("identity", state_name, "checksum")}
        if total != checksum(identity, state, arrays):
            raise ValueError("checksum mismatch")
        parse_json(state, "its state")  # JSON of the sizes every attndepth file keeps
    except Exception as error:  # noqa: BLE001 - any damage: the numpy/zip parsers raise
        # many types (a damaged .npy header even raises tokenize.TokenError)
        warnings.warn(f"checkpoint {path} is unreadable ({type(error).__name__}: "
                      f"{str(error)[:80]}); {what} starts over", stacklevel=3)
        return None
    return Checkpoint(identity, state, arrays)


@contextlib.contextmanager
def writer_lock(path: Path, what: str) -> Iterator[None]:
    """Hold ``.NAME.lock`` beside the checkpoint for the whole run: a second run on the
    same checkpoint is refused (naming ``what`` holds it) instead of deleting or
    overwriting the first's files.

    The lock file is removed when the run ends (while still locked); a process that
    opened it just before then finds it unlinked and opens the new one instead.
    """
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    while True:
        handle = open(lock, "a+")  # noqa: SIM115 - closed below on every path
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise InvalidParameter(f"checkpoint {path} is in use by a running {what} "
                                   f"(process {holder}); wait for it or give another "
                                   f"path") from None
        try:
            same = os.fstat(handle.fileno()).st_ino == os.stat(lock).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        handle.close()  # locked a file its owner had just removed: take the new one
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        yield
    finally:
        lock.unlink(missing_ok=True)
        handle.close()  # closing releases the lock
