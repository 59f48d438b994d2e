"""Reuse of drawn stack weights within a byte budget.

Claims and sweeps draw the same (depth, width, ffn, batch, seed) for several
block variants; drawing once and handing out read-only arrays keeps the
numbers identical and saves the draw. A draw larger than the budget is not
kept; the least recently used entries leave first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import fields
from typing import Any

import numpy as np

#: Bytes of drawn weights kept for reuse.
WEIGHT_CACHE_BYTES = 256 * 2**20


def _arrays(weights: Any) -> list[np.ndarray]:
    """The arrays of a dataclass of weights (``None`` fields skipped)."""
    values = (getattr(weights, field.name) for field in fields(weights))
    return [value for value in values if isinstance(value, np.ndarray)]


class WeightCache:
    """A thread-safe least-recently-used cache of read-only weight dataclasses.

    Parameters
    ----------
    budget : int or None
        Bytes kept at most; ``None`` reads :data:`WEIGHT_CACHE_BYTES` at each
        insertion (so tests can lower it).
    """

    def __init__(self, budget: int | None = None) -> None:
        self._budget = budget
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def budget(self) -> int:
        return WEIGHT_CACHE_BYTES if self._budget is None else self._budget

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def get_or_draw(self, key: Hashable, draw: Callable[[], Any],
                    part_of: Callable[[Hashable, Any], Any] | None = None) -> Any:
        """The cached weights for ``key``, or ``draw()`` (kept read-only if within budget).

        ``part_of(cached_key, cached_weights)``: the weights for ``key`` taken from an
        entry that holds them (a view), or None; tried on each entry, most recent first,
        when ``key`` itself is not cached. A part is returned, not kept.
        """
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
            if part_of is not None:
                for cached_key in reversed(self._entries):
                    part = part_of(cached_key, self._entries[cached_key])
                    if part is not None:
                        self._entries.move_to_end(cached_key)
                        return part
        weights = draw()
        arrays = _arrays(weights)
        if sum(a.nbytes for a in arrays) <= self.budget:
            for array in arrays:
                array.flags.writeable = False
            with self._lock:
                self._entries[key] = weights
                while sum(a.nbytes for w in self._entries.values() for a in _arrays(w)) \
                        > self.budget:
                    self._entries.popitem(last=False)
        return weights
