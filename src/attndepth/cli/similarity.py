"""``attndepth similarity``: per-layer token similarity of random stacks (docs/theory.md §3)."""

from __future__ import annotations

import argparse
import time

import numpy as np

from attndepth.cli.options import add_settings, configure_from
from attndepth.errors import InvalidParameter
from attndepth.framework.report import dumps, environment
from attndepth.simulations.measures.fitting import ESCALATION_WINDOW, escalation_rate
from attndepth.simulations.measures.similarity import (
    attention_spectra,
    dong_residual,
    log_odds,
    mean_pairwise_cosine,
    norm_1_inf,
    token_diversity,
    token_similarity,
)
from attndepth.simulations.models.stacks import StackConfig, run_stack

#: Largest n for --spectra: one eigendecomposition of a 2048² matrix takes about 10 s here.
MAX_SPECTRA_TOKENS = 2048
#: Where the stacks run: NumPy, or JAX (:mod:`attndepth.simulations.models.jax_stack`, the
#: train extra).
BACKENDS: tuple[str, ...] = ("numpy", "jax")
#: The StackConfig settings ``attndepth similarity`` takes, in the order of ``--help``
#: (every setting but the user sublayer, which is Python code).
SIMILARITY_SETTINGS: tuple[str, ...] = (
    "variant", "depth", "tokens", "width", "heads", "tau", "temperature", "causal", "window",
    "residual_scale", "skip_scale", "norm", "norm_kind", "deescalation", "qk_norm",
    "norm_scaling", "mix_ratio", "ngpt_step", "dyt_alpha", "decay", "ffn", "dtype",
    "sampling")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``similarity`` subcommand."""
    from attndepth.cli._parsing import examples, integer

    parser = sub.add_parser(
        "similarity", help="t_sim, log-odds, cosine per layer and the escalation rate",
        description="Run a batch of seeded random softmax stacks and print, per layer, the "
                    "token similarity t_sim (median, min, max over stacks), the log-odds "
                    "ln(t_sim/t_div) and the mean pairwise cosine, then the escalation rate "
                    f"fitted where the median log-odds lie in {list(ESCALATION_WINDOW)}.",
        epilog=examples(
            "attndepth similarity --variant post-ln --depth 96 --tokens 16 --width 64",
            "attndepth similarity --variant post-ln-deesc-b --tau 0.5 --depth 48 --tokens 8 "
            "--width 32 --json",
            "attndepth similarity --variant post-ln --depth 96 --tokens 16 --width 64 "
            "--backend jax",
            "attndepth similarity --variant post-ln --skip-scale 2 --depth 192 --tokens 16 "
            "--width 64"))
    add_settings(parser, StackConfig, SIMILARITY_SETTINGS, required=("variant", "depth",
                                                                     "tokens", "width"))
    parser.add_argument("--seeds", type=integer, default=8, metavar="K",
                        help="independent stacks (integer >= 1)")
    parser.add_argument("--seed", type=integer, default=0, metavar="S",
                        help="base seed (integer >= 0); stack k uses child k of it")
    parser.add_argument("--backend", choices=BACKENDS, default="numpy",
                        help="numpy, or jax: the same stacks compiled by JAX, equal "
                             "to NumPy within float64 round-off (needs the train extra)")
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu",
                        help="with --backend jax: where JAX runs the stacks")
    parser.add_argument("--spectra", action="store_true",
                        help="also λ₂ (second eigenvalue modulus), σ₂ and leakage of each "
                             "attention matrix")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.set_defaults(handler=run)


def _summary(values: np.ndarray) -> dict[str, float]:
    return {"median": float(np.median(values)), "min": float(values.min()),
            "max": float(values.max())}


def run(args: argparse.Namespace) -> int:
    if args.seeds < 1:
        raise InvalidParameter(f"seeds must be >= 1, got {args.seeds}")
    if args.seed < 0:
        raise InvalidParameter(f"seed must be >= 0, got {args.seed}")
    config = configure_from(StackConfig, args)
    start = time.perf_counter()
    if args.spectra and args.tokens > MAX_SPECTRA_TOKENS:
        raise InvalidParameter(f"--spectra takes the eigenvalues of every n × n attention matrix "
                               f"(O(n³) each): tokens must be <= {MAX_SPECTRA_TOKENS}, got "
                               f"{args.tokens}")
    if args.backend == "jax":
        if args.spectra:
            raise InvalidParameter("--spectra needs the attention matrices, which only the numpy "
                                   "backend keeps")
        from attndepth.simulations.models import jax_stack

        try:
            trajectory = jax_stack.run_stack(config, args.seeds, args.seed, args.device)
        except ModuleNotFoundError as error:  # the train extra is not installed
            raise InvalidParameter(str(error)) from None
    elif args.device != "cpu":
        raise InvalidParameter("--device gpu needs --backend jax")
    else:
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
        spectra = attention_spectra(trajectory.kept_attention())
        for layer in range(args.depth):
            for name, values in spectra.items():
                layers[layer + 1][name] = _summary(values[layer])
    try:
        fit = escalation_rate(metrics["log_odds"]).as_dict()
    except ValueError:  # fewer than 3 layers in the window: reported as "no fit"
        fit = None
    result = {"config": {**config.as_dict(), "seeds": args.seeds, "seed": args.seed,
                         "backend": args.backend, "device": args.device},
              "layers": layers, "fit": fit, "fit_window_log_odds": list(ESCALATION_WINDOW),
              "seconds": time.perf_counter() - start}
    result["environment"] = environment()
    print(dumps(result) if args.json else _describe(result))
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
