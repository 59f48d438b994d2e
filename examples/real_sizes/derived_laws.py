"""The laws derived from each configuration, decided at the published sizes.

``yuzhang.architecture-rate`` (BERT-base and -large) and ``yuzhang.preln-law`` (GPT-2
small, medium and large; a LLaMA of TinyLlama-1.1B's shape) run at the real widths,
depths and heads, as the framework decides any member: a sample of seeds (4, doubling to
32 until decided) of ``MODELS`` models each, every model built at its authors'
initialisation and compared with the recursion from its own input. On the CPU the
sequences are shorter than the models' (``TOKENS``; the derivation's prediction reads n
through the input similarity and the causal mask, so it is the same question at fewer
tokens) and the models few a seed.

Run (torch and transformers; ``ATTNDEPTH_TORCH_DEVICE=cuda`` on a GPU)::

    python examples/real_sizes/derived_laws.py OUT.json

It writes, per configuration, the verdict, the interval of measured / derived rise − 1
(and of the late/early slope ratio for the pre-norm law), the predicted and measured
mean rise, each rival's fate, the number of seeds and the seconds it took.
"""

from __future__ import annotations

import json
import sys
import time

from attndepth.framework.running import run_claim

#: (claim, architecture, width, depth, heads): the published configurations.
CONFIGURATIONS = (
    ("yuzhang.architecture-rate", "bert", 768, 12, 12),
    ("yuzhang.architecture-rate", "bert", 1024, 24, 16),
    ("yuzhang.preln-law", "gpt2", 768, 12, 12),
    ("yuzhang.preln-law", "gpt2", 1024, 24, 16),
    ("yuzhang.preln-law", "gpt2", 1280, 36, 20),
    ("yuzhang.preln-law", "llama", 2048, 22, 32),
)
TOKENS, MODELS, INIT_STD = 32, 2, 0.02


def decide(claim: str, architecture: str, width: int, depth: int, heads: int) -> dict:
    """One configuration's verdict, with its numbers and time."""
    start = time.perf_counter()
    result = run_claim(claim, architecture=architecture, width=width, depth=depth,
                       heads=heads, tokens=TOKENS, batch=MODELS, init_std=INIT_STD)
    values = result.outcome.values
    intervals = {label: None if interval is None else
                 {"mean": interval.mean, "low": interval.low, "high": interval.high,
                  "n": interval.n}
                 for label, interval, _ in result.evidence.estimates}
    return {"claim": claim, "architecture": architecture, "width": width, "depth": depth,
            "heads": heads, "tokens": TOKENS, "models_a_seed": MODELS,
            "verdict": str(result.verdict), "intervals": intervals,
            "predicted_rise": sum(values["predicted_rises"]) / len(values["predicted_rises"]),
            "measured_rise": sum(values["rises"]) / len(values["rises"]),
            "rivals": {rival.name: rival.rejected for rival in result.rivals},
            "seeds": len(result.evidence.seeds), "seconds": time.perf_counter() - start}


def main(path: str) -> None:
    rows = []
    for configuration in CONFIGURATIONS:
        rows.append(decide(*configuration))
        print(json.dumps(rows[-1]), flush=True)
        with open(path, "w", encoding="utf-8") as out:  # each row kept as it comes
            json.dump({"tokens": TOKENS, "models_a_seed": MODELS, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/real_sizes/derived_laws.py OUT.json")
    main(sys.argv[1])
