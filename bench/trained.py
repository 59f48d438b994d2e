"""A trained model observed layer by layer against its own forward pass (time, peak memory)."""

from __future__ import annotations

import multiprocessing
import resource
import time
from typing import Any


def _side(name: str, windows: int, tokens: int, observed: bool, queue: Any) -> None:
    """One side in a process of its own: seconds (best of 2) and the process's peak RSS."""
    import torch

    from attndepth.pytorch import profiles
    from attndepth.pytorch.pretrained import pretrained

    model = pretrained(name)
    drawn = profiles.sample_windows(model, windows, tokens, seed=0)
    backbone = model.backbone

    def forward() -> None:
        with torch.no_grad():
            for start in range(0, windows, profiles.CHUNK):
                backbone(**{key: torch.from_numpy(value[start:start + profiles.CHUNK])
                            for key, value in drawn.items()})

    def observe() -> None:
        profiles.layer_profile(model, windows=windows, tokens=tokens, seed=0)

    run = observe if observed else forward
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    queue.put((best, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10))


def _measure(name: str, windows: int, tokens: int, observed: bool) -> tuple[float, float]:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_side, args=(name, windows, tokens, observed, queue))
    process.start()
    found = queue.get()
    process.join()
    return found


def observation_cost(name: str, windows: int, tokens: int) -> dict:
    """``attndepth.layer_profile`` (every observable, attention included, float32 states
    read as float64) against the backbone's plain forward pass over the same windows in
    the same chunks, each in a fresh process (peak RSS includes the model)."""
    plain, plain_memory = _measure(name, windows, tokens, observed=False)
    seen, seen_memory = _measure(name, windows, tokens, observed=True)
    return {"model": name, "windows × tokens": f"{windows} × {tokens}",
            "forward s": plain, "observed s": seen, "observed / forward": seen / plain,
            "forward peak MB": plain_memory, "observed peak MB": seen_memory}
