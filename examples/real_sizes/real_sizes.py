"""Token similarity through BERT, GPT-2 and LLaMA at the sizes they are built at.

The claims' architecture members run at small widths so that the suite and a laptop
can run them. This script asks the same question at the published configurations
(BERT-base and -large, GPT-2 small, medium and large, a 1.1B LLaMA), which in float64
want a GPU: each model is built at its authors' initialisation on the CPU (the same
weights as on any machine), then run on ``$ATTNDEPTH_TORCH_DEVICE`` (default here:
``cuda``). Per architecture it writes one seed's escalation trace (the median over the
models of t_sim and of its log-odds at every block) and, for the post-LN BERT, the
per-seed outcome of ``yuzhang.escalation`` (the derived rate and the measured slope).
A first row runs BERT-base on the CPU and on the device to show that they agree.

Run (a GPU machine with torch and transformers)::

    ATTNDEPTH_TORCH_DEVICE=cuda python examples/real_sizes/real_sizes.py OUT.json

One seed, four models an architecture: a measurement, not a verdict (the verdicts need
``attndepth verify --member``, which this size makes slow).
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from attndepth.framework.registry import get_claim
from attndepth.pytorch.escalation import DEVICE_VARIABLE, architecture_trace

#: The published configurations: (architecture, width, depth, heads).
CONFIGURATIONS = (("bert", 768, 12, 12), ("bert", 1024, 24, 16), ("gpt2", 768, 12, 12),
                  ("gpt2", 1024, 24, 16), ("gpt2", 1280, 36, 20), ("llama", 2048, 22, 32))
TOKENS, MODELS, SEED = 128, 4, 0


def _trace_row(architecture: str, width: int, depth: int, heads: int) -> dict:
    start = time.perf_counter()
    found = architecture_trace(architecture, depth=depth, tokens=TOKENS, width=width,
                               heads=heads, batch=MODELS, seed=SEED, contraction=False)
    return {"architecture": architecture, "width": width, "depth": depth, "heads": heads,
            "tokens": TOKENS, "models": MODELS, "seed": SEED,
            "similarity": np.median(found.similarity, axis=1).tolist(),
            "log_odds": np.median(found.log_odds, axis=1).tolist(),
            "seconds": time.perf_counter() - start}


def _escalation_outcome(width: int, depth: int, heads: int) -> dict:
    claim = get_claim("yuzhang.escalation")
    outcome = claim.verify(seed=SEED, theory=claim.theory, depth=depth, tokens=TOKENS,
                           width=width, heads=heads, batch=MODELS, architecture="bert")
    values = {key: value for key, value in outcome.values.items()
              if isinstance(value, int | float | list | type(None))}
    return {"predicted": outcome.predicted, "measured": outcome.measured,
            "verdict": str(outcome.verdict), "values": values}


def main(path: str) -> None:
    os.environ.setdefault(DEVICE_VARIABLE, "cuda")
    device = os.environ[DEVICE_VARIABLE]
    rows = []
    # the same BERT-base models on the CPU and on the device
    os.environ[DEVICE_VARIABLE] = "cpu"
    on_cpu = _trace_row("bert", 768, 12, 12)
    os.environ[DEVICE_VARIABLE] = device
    on_device = _trace_row("bert", 768, 12, 12)
    agreement = float(np.max(np.abs(np.array(on_cpu["similarity"])
                                    - np.array(on_device["similarity"]))))
    print(f"BERT-base cpu {on_cpu['seconds']:.1f} s, {device} {on_device['seconds']:.1f} s, "
          f"max |Δ t_sim| {agreement:.2e}", flush=True)
    for architecture, width, depth, heads in CONFIGURATIONS:
        row = _trace_row(architecture, width, depth, heads)
        if architecture == "bert":
            row["escalation"] = _escalation_outcome(width, depth, heads)
        rows.append(row)
        print(f"{architecture} d={width} L={depth} H={heads}: t_sim "
              f"{row['similarity'][0]:.3f} -> {row['similarity'][-1]:.4f}, log-odds "
              f"{row['log_odds'][0]:+.2f} -> {row['log_odds'][-1]:+.2f} "
              f"({row['seconds']:.1f} s)", flush=True)
    with open(path, "w", encoding="utf-8") as file:
        json.dump({"device": device, "cpu_device_max_difference": agreement,
                   "rows": rows}, file, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "real_sizes.json")
