"""``attndepth similarity``: per-layer token similarity of random stacks (THEORY §3)."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from attndepth.report import environment
from attndepth.simulations.fitting import linear_fit
from attndepth.simulations.similarity import (
    attention_spectra,
    dong_residual,
    log_odds,
    mean_pairwise_cosine,
    norm_1_inf,
    token_diversity,
    token_similarity,
)
from attndepth.simulations.stacks import DTYPES, VARIANTS, StackConfig, run_stack

#: Median log-odds window for the fitted escalation rate (aligned, before round-off).
FIT_WINDOW = (3.0, 50.0)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("similarity", help="t_sim, log-odds, cosine per layer and the rate")
    parser.add_argument("--variant", choices=VARIANTS, required=True)
    parser.add_argument("--depth", type=int, required=True, metavar="L")
    parser.add_argument("--tokens", type=int, required=True, metavar="n")
    parser.add_argument("--width", type=int, required=True, metavar="d")
    parser.add_argument("--heads", type=int, default=1, metavar="H")
    parser.add_argument("--tau", type=float, default=1.0, metavar="T")
    parser.add_argument("--temperature", type=float, default=1.0, metavar="B")
    parser.add_argument("--seeds", type=int, default=8, metavar="K")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--ffn", action="store_true")
    parser.add_argument("--dtype", choices=DTYPES, default="float64",
                        help="float32 runs 1.3-2x faster; fine for t_sim and log-odds, "
                             "not for rounding-level checks (see StackConfig)")
    parser.add_argument("--spectra", action="store_true", help="also |λ₂|, σ₂ and leakage")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run)


def _summary(values: np.ndarray) -> dict[str, float]:
    return {"median": float(np.median(values)), "min": float(values.min()),
            "max": float(values.max())}


def run(args: argparse.Namespace) -> int:
    if args.seeds < 1:
        raise ValueError(f"seeds must be >= 1, got {args.seeds}")
    if args.seed < 0:
        raise ValueError(f"seed must be >= 0, got {args.seed}")
    config = StackConfig(variant=args.variant, depth=args.depth, tokens=args.tokens,
                         width=args.width, heads=args.heads, tau=args.tau,
                         temperature=args.temperature, causal=args.causal, ffn=args.ffn,
                         dtype=args.dtype)
    start = time.perf_counter()
    trajectory = run_stack(config, args.seeds, args.seed, keep_attention=args.spectra)
    states = trajectory.states
    metrics = {
        "t_sim": token_similarity(states),
        "t_div": token_diversity(states),
        "log_odds": log_odds(states),
        "dong_residual_1_inf": norm_1_inf(dong_residual(states)),
    }
    if args.tokens > 1:
        metrics["cosine"] = mean_pairwise_cosine(states)
    layers = [{"layer": layer, **{name: _summary(values[layer])
                                  for name, values in metrics.items()}}
              for layer in range(args.depth + 1)]
    if args.spectra and args.depth:
        spectra = attention_spectra(trajectory.attention)
        for layer in range(args.depth):
            for name, values in spectra.items():
                layers[layer + 1][name] = _summary(values[layer])
    median = np.median(metrics["log_odds"], axis=1)
    window = np.flatnonzero((median >= FIT_WINDOW[0]) & (median <= FIT_WINDOW[1]))
    fit = (linear_fit(window.astype(float), median[window]).as_dict()
           if window.size >= 3 else None)
    result = {"config": {**config.as_dict(), "seeds": args.seeds, "seed": args.seed},
              "layers": layers, "fit": fit, "fit_window_log_odds": list(FIT_WINDOW),
              "seconds": time.perf_counter() - start}
    result["environment"] = environment()
    print(json.dumps(result, indent=2) if args.json else _describe(result))
    return 0


def _describe(result: dict) -> str:
    c = result["config"]
    lines = [f"{c['variant']}: L={c['depth']} n={c['tokens']} d={c['width']} H={c['heads']} "
             f"tau={c['tau']} T={c['temperature']}; {c['seeds']} stacks from seed {c['seed']}",
             f"{'layer':>5s} {'t_sim median [min, max]':>32s} {'log-odds':>9s} {'cosine':>8s}"]
    for row in result["layers"]:
        t = row["t_sim"]
        cosine = f"{row['cosine']['median']:8.4f}" if "cosine" in row else "       -"
        extra = (f"  |λ2| {row['lambda2']['median']:.3f} σ2 {row['sigma2']['median']:.3f}"
                 if "lambda2" in row else "")
        lines.append(f"{row['layer']:5d} {t['median']:12.6f} [{t['min']:.6f}, {t['max']:.6f}] "
                     f"{row['log_odds']['median']:9.3f} {cosine}{extra}")
    fit = result["fit"]
    if fit:
        lines.append(f"log-odds slope {fit['slope']:.4f}/layer (R² {fit['r2']:.4f}) over layers "
                     f"{fit['window'][0]:g}–{fit['window'][1]:g}; ln 2 = 0.6931")
    else:
        lines.append(f"no fit: median log-odds spend < 3 layers in {result['fit_window_log_odds']}")
    lines.append(f"seconds {result['seconds']:.2f}")
    return "\n".join(lines)
