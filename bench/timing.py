"""Wall-clock helpers and the Markdown table writer of the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(function: Callable[[], object], repeats: int = 3) -> float:
    """Smallest wall time of ``repeats`` calls (the least disturbed run)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def interleaved(before: Callable[[], object], after: Callable[[], object],
                rounds: int = 3) -> tuple[float, float]:
    """Best times of two functions run alternately, so a noisy neighbour hits both alike."""
    first, second = [], []
    for _ in range(rounds):
        first.append(best_of(before, 1))
        second.append(best_of(after, 1))
    return min(first), min(second)


def table(title: str, rows: list[dict], note: str = "") -> str:
    """A Markdown section: title, optional note, one row per dict (floats to 4 digits)."""
    if not rows:
        return f"## {title}\n\n(no result)\n"
    def cell(value) -> str:  # a | inside a cell would split it: escaped
        return (f"{value:.4g}" if isinstance(value, float) else str(value)).replace("|", "\\|")

    keys = list(rows[0])
    lines = [f"## {title}", ""]
    if note:
        lines += [note, ""]
    lines += ["| " + " | ".join(cell(k) for k in keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(cell(v) for v in row.values()) + " |")
    return "\n".join(lines) + "\n"
