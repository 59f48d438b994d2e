"""``attndepth seprank``: certified separation ranks of the analysed network (docs/theory.md §1)."""

from __future__ import annotations

import argparse
import sys
import time

from attndepth.report import dumps, environment
from attndepth.separation import measure_rank, rank_with_bounds
from attndepth.simulations.modular import DEFAULT_PRIME, SECOND_PRIME
from attndepth.simulations.partitions import partitions
from attndepth.simulations.seprank import DEFAULT_MARGIN, DEFAULT_MAX_POINTS, SeprankConfig


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``seprank`` subcommand."""
    from attndepth.cli import examples, integer

    parser = sub.add_parser(
        "seprank", help="certified separation rank of f = y^{L,i}_p",
        description="Measure the separation rank of one output coordinate of the analysed "
                    "linear-attention network (Levine et al. 2020) with respect to a "
                    "partition (P, Q) of the positions, as the rank of a grid evaluation "
                    "matrix over GF(p) (exact) or by SVD (numeric), with every upper bound "
                    "and the reason the rank is certified.",
        epilog=examples("attndepth seprank --width 2 --depth 3 --tokens 4 --partition all",
                        "attndepth seprank --width 3 --depth 2 --tokens 3 --partition 0/1,2 "
                        "--json",
                        "attndepth seprank --width 3 --depth 3 --tokens 6 --verify"))
    parser.add_argument("--width", type=integer, required=True, metavar="D",
                        help="width d (integer >= 1)")
    parser.add_argument("--depth", type=integer, required=True, metavar="L",
                        help="layers (integer >= 1)")
    parser.add_argument("--heads", type=integer, default=1, metavar="H",
                        help="heads (integer >= 1 dividing d)")
    parser.add_argument("--tokens", type=integer, default=2, metavar="N",
                        help="positions (integer >= 2)")
    parser.add_argument("--partition", default="balanced",
                        help="balanced | interleaved | sizes=A/B (A positions in P, B in Q) | "
                             "all (one partition per size: the rank depends only on the sizes) | "
                             "explicit P/Q like 0,1/2,3 (output position i = 0 must be in P)")
    parser.add_argument("--residual", action="store_true", help="residual connection ρ = 1")
    parser.add_argument("--method", choices=("exact", "numeric"), default="exact",
                        help="exact: rank over GF(prime), certified; numeric: float64 SVD "
                             "rank with a tolerance")
    parser.add_argument("--seed", type=integer, default=0, metavar="S",
                        help="seed (integer >= 0) of the weights and grid points")
    parser.add_argument("--prime", type=integer, default=DEFAULT_PRIME, metavar="P",
                        help="prime of the field (exact method)")
    parser.add_argument("--margin", type=integer, default=DEFAULT_MARGIN,
                        help="saturation: rank <= grid size - margin (integer >= 1)")
    parser.add_argument("--max-points", type=integer, default=DEFAULT_MAX_POINTS,
                        help="largest grid per side; beyond it the rank is a lower bound")
    parser.add_argument("--verify", action="store_true",
                        help=f"repeat with prime {SECOND_PRIME} and the next seed; exit 1 "
                             "if the two ranks disagree")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.seed < 0:
        raise ValueError(f"seed must be >= 0, got {args.seed}")
    if args.verify and args.seed >= 2**63 - 1:
        raise ValueError(f"--verify repeats with seed + 1: seed must be < 2^63 - 1 = "
                         f"{2**63 - 1}, got {args.seed}")
    if args.partition == "all":
        if args.verify:
            raise ValueError("--verify takes one partition, not --partition all")
        specs = [split.label() for split in partitions(args.tokens)]
    else:
        specs = [args.partition]
    results, exit_code = [], 0
    for spec in specs:
        result, code = _one(args, spec)
        results.append(result)
        exit_code = max(exit_code, code)
    if args.json:
        document = results[0] if len(results) == 1 else {"partitions": results}
        print(dumps(document))
    else:
        print("\n\n".join(_describe(result) for result in results))
    return exit_code


def _one(args: argparse.Namespace, partition: str) -> tuple[dict, int]:
    config = SeprankConfig(width=args.width, depth=args.depth, heads=args.heads,
                           tokens=args.tokens, partition=partition,
                           residual=int(args.residual))
    options = dict(margin=args.margin, max_points=args.max_points,
                   progress=sys.stderr.isatty())
    start = time.perf_counter()
    result = rank_with_bounds(config, args.seed, args.method, prime=args.prime, **options)
    exit_code = 0
    if args.method == "numeric":
        exact = measure_rank(config, args.seed, "exact", args.prime, **options)
        result["exact_rank"] = exact.rank
        result["agrees_with_exact"] = exact.rank == result["rank"]
    if args.verify:
        other_prime = SECOND_PRIME if args.prime != SECOND_PRIME else DEFAULT_PRIME
        second = measure_rank(config, args.seed + 1, "exact", other_prime, **options)
        result["verify"] = {"rank": second.rank, "prime": second.prime, "seed": second.seed,
                            "agrees": second.rank == result["rank"]}
        exit_code = 0 if second.rank == result["rank"] else 1
    result["seconds"] = time.perf_counter() - start
    result["environment"] = environment()
    return result, exit_code


def _describe(result: dict) -> str:
    c = result["config"]
    lines = [
        f"network      d={c['width']} L={c['depth']} H={c['heads']} N={c['tokens']} "
        f"rho={c['residual']}  P={c['p_positions']} Q={c['q_positions']} i={c['position']}",
        f"rank         {result['rank']}  ({result['method']}"
        + (f", GF({result['prime']})" if result["prime"] else "") + ")",
        f"grids        {result['grid_p']} x {result['grid_q']} points; saturated: "
        f"{result['saturated']} ({result['reason']})",
    ]
    if result["method"] == "exact":
        status = ("= generic separation rank (meets an upper bound)"
                  if result["reason"] == "upper-bound" else
                  f"certified lower bound; equality fails with probability <= "
                  f"{result['failure_probability']:.2e}" if result["saturated"] else
                  "certified LOWER BOUND only: grids not saturated")
        lines.append(f"certificate  {status}")
    else:
        verdict = "agrees" if result["agrees_with_exact"] else "DISAGREES"
        lines.append(f"numeric      tolerance {result['tolerance']:.2e}, gap "
                     f"sigma_r/sigma_r+1 = {result['gap']:.3g}; exact rank "
                     f"{result['exact_rank']} ({verdict})")
    lines.append("bounds       " + ", ".join(f"{k} {v}" for k, v in result["bounds"].items())
                 + f"; rank/best {result['ratio']:.3f}")
    lines.append(f"tight family {'yes' if result['tight_family'] else 'no'} "
                 "(conjecture: rank = bound (d) there; attndepth verify --explain "
                 "levine.bound-tightness)")
    if "verify" in result:
        v = result["verify"]
        lines.append(f"verify       seed {v['seed']}, GF({v['prime']}): rank {v['rank']} "
                     f"({'agrees' if v['agrees'] else 'DISAGREES'})")
    lines.append(f"seconds      {result['seconds']:.2f} (evaluation {result['eval_seconds']:.2f}, "
                 f"rank {result['rank_seconds']:.2f}); seed {result['seed']}")
    return "\n".join(lines)
