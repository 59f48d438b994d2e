"""``attndepth seprank``: certified separation ranks of the analysed network (docs/theory.md §1)."""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

from attndepth.cli.options import add_settings, configure_from
from attndepth.cli.outputs import report_unsaved, unsaved_checkpoints
from attndepth.errors import InvalidParameter
from attndepth.framework.report import dumps, environment
from attndepth.rank.arithmetic.modular import DEFAULT_PRIME, SECOND_PRIME
from attndepth.rank.block_checkpoint import CHECKPOINT_SECONDS
from attndepth.rank.degree_blocks import (
    BLOCK_PRIME,
    SECOND_BLOCK_PRIME,
)
from attndepth.rank.grids import (
    SeparationRankConfig,
)
from attndepth.rank.measure import RankOptions, atlas_answer, measure_rank, rank_with_bounds
from attndepth.rank.methods import METHOD_NAMES, resolve_method
from attndepth.rank.partitions import partitions


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``seprank`` subcommand."""
    from attndepth.cli._parsing import examples, integer

    parser = sub.add_parser(
        "seprank", help="certified separation rank of f = y^{L,i}_p",
        description="Measure the separation rank of one output coordinate of the analysed "
                    "linear-attention network (Levine et al. 2020) with respect to a "
                    "partition (P, Q) of the positions, as ranks of grid evaluation "
                    "matrices over GF(p): by default one matrix per homogeneous part f_a "
                    "(rho = 0; sep(f) is their sum), else the whole matrix (exact) or an SVD "
                    "(numeric); with every upper bound and the reason each rank is "
                    "certified. A class the shipped atlas holds is answered from it at once "
                    "(with its certificate and the command that measures it), unless a "
                    "measurement option or --recompute asks for a measurement.",
        epilog=examples("attndepth seprank --width 2 --depth 3 --tokens 4 --partition all",
                        "attndepth seprank --width 3 --depth 2 --tokens 3 --partition 0/1,2 "
                        "--json",
                        "attndepth seprank --width 3 --depth 3 --tokens 6 --verify"))
    add_settings(parser, SeparationRankConfig, ("width", "depth", "heads", "tokens"))
    parser.add_argument("--partition", default="balanced",
                        help="balanced | interleaved | sizes=A/B (A positions in P, B in Q) | "
                             "all (one partition per size: the rank depends only on the sizes) | "
                             "explicit P/Q like 0,1/2,3 (output position i = 0 must be in P)")
    parser.add_argument("--residual", action="store_true", help="residual connection ρ = 1")
    parser.add_argument("--method", choices=METHOD_NAMES, default="auto",
                        help="blocks: every homogeneous part f_a ranked over GF(prime) "
                             "against its own proved bound, ranks summed (with --residual: "
                             "the parts of top degree, a proved lower bound that is the rank "
                             "when it meets bound (d)); torus: every part split into "
                             "N^(d//2) classes by torus weight at weights commuting with "
                             "rotations (one head, rho = 0), a certified lower bound at a "
                             "fraction of the cost, the rank when it meets bound (d); exact: "
                             "the whole evaluation matrix over GF(prime); numeric: float64 "
                             "SVD rank with a tolerance; auto: blocks for rho = 0, exact for "
                             "rho = 1 (default: auto)")
    parser.add_argument("--seed", type=integer, default=0, metavar="S",
                        help="seed (integer >= 0) of the weights and grid points")
    add_settings(parser, RankOptions, ("prime", "margin", "max_points", "max_seconds",
                                       "torus_order"))
    parser.add_argument("--checkpoint", type=Path, default=None, metavar="FILE",
                        help="blocks method: save the progress to FILE every "
                             f"{CHECKPOINT_SECONDS / 60:.0f} minutes of work and resume from "
                             "it when run again (the same numbers); delete FILE once you "
                             "have the result")
    parser.add_argument("--verify", action="store_true",
                        help=f"repeat with another prime ({SECOND_BLOCK_PRIME} for blocks, "
                             f"{SECOND_PRIME} for exact) and the next seed; exit 1 if the two "
                             "ranks disagree")
    parser.add_argument("--recompute", action="store_true",
                        help="measure the rank even when the shipped atlas holds its class "
                             "(any of --seed, --method, --prime, --margin, --max-points, "
                             "--max-seconds, --torus-order, --verify, --checkpoint measures "
                             "too)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.seed < 0:
        raise InvalidParameter(f"seed must be >= 0, got {args.seed}")
    if args.verify and args.seed >= 2**63 - 1:
        raise InvalidParameter(f"--verify repeats with seed + 1: seed must be < 2^63 - 1 = "
                               f"{2**63 - 1}, got {args.seed}")
    if args.partition == "all":
        if args.verify or args.checkpoint is not None:
            raise InvalidParameter(f"{'--verify' if args.verify else '--checkpoint'} takes "
                                   f"one partition, not --partition all")
        specs = [split.label() for split in partitions(args.tokens)]
    else:
        specs = [args.partition]
    results, exit_code = [], 0
    with unsaved_checkpoints() as unsaved:  # a finished rank is printed all the same
        for spec in specs:
            result, code = _one(args, spec)
            results.append(result)
            exit_code = max(exit_code, code)
    if args.json:
        document = results[0] if len(results) == 1 else {"partitions": results}
        print(dumps(document))
    else:
        print("\n\n".join(_describe(result) for result in results))
    return max(exit_code, report_unsaved(unsaved))


def _measures(args: argparse.Namespace) -> bool:
    """Whether the command line asks for a measurement rather than the atlas's rank."""
    options = configure_from(RankOptions, args)
    return (args.recompute or args.verify or args.checkpoint is not None or args.seed != 0
            or args.method != "auto" or options != RankOptions())


def _one(args: argparse.Namespace, partition: str) -> tuple[dict, int]:
    config = configure_from(SeparationRankConfig, args, partition=partition,
                            residual=int(args.residual))
    if not _measures(args):
        known = atlas_answer(config)
        if known is not None:
            return {**known, "environment": environment()}, 0
    method = resolve_method(config, args.method).name
    blocks = method == "blocks"
    if args.verify and method == "torus":
        raise InvalidParameter("--verify compares two saturated ranks; the torus method "
                               "certifies a lower bound at special weights, which another "
                               "seed may legitimately raise")
    first, second = (BLOCK_PRIME, SECOND_BLOCK_PRIME) if blocks else (DEFAULT_PRIME,
                                                                       SECOND_PRIME)
    options = configure_from(RankOptions, args, progress=sys.stderr.isatty())
    prime = options.for_method(method).prime
    start = time.perf_counter()
    resume = {}
    if args.checkpoint is not None:
        if not blocks:
            raise InvalidParameter(f"--checkpoint saves the blocks method's progress; the "
                                   f"{method} method does not save any")
        resume["checkpoint"] = args.checkpoint
    result = rank_with_bounds(config, args.seed, method, options=options, **resume)
    exit_code = 0
    if method == "numeric":
        exact = measure_rank(config, args.seed, "exact", options=options)
        result["exact_rank"] = exact.rank
        result["agrees_with_exact"] = exact.rank == result["rank"]
    if args.verify:
        other_prime = second if prime != second else first
        verify_method = "blocks" if blocks else "exact"
        repeat = measure_rank(config, args.seed + 1, verify_method,
                              options=replace(options, prime=other_prime))
        result["verify"] = {"rank": repeat.rank, "prime": repeat.prime, "seed": repeat.seed,
                            "agrees": repeat.rank == result["rank"]}
        exit_code = 0 if repeat.rank == result["rank"] else 1
    result["seconds"] = time.perf_counter() - start
    result["environment"] = environment()
    return result, exit_code


def _describe_blocks(blocks: list[dict], residual: int) -> str:
    """One line: how many homogeneous parts, how each is certified, the largest."""
    counts = {reason: sum(b["reason"] == reason for b in blocks)
              for reason in ("upper-bound", "margin", "weights", "max-points")}
    largest = max(blocks, key=lambda b: b["rank"])
    short = [b for b in blocks if b["rank"] < b["bound"]]
    parts = ("parts of top degree f_{a,K-a} (= rho 0's f_a)" if residual
             else "homogeneous parts f_a")
    text = (f"blocks       {len(blocks)} {parts}: {counts['upper-bound']} meet "
            f"their bound, {counts['margin'] + counts['weights']} saturated below it"
            + (" (at these weights)" if counts["weights"] else "") + f", {counts['max-points']} "
            f"unsaturated; largest rank {largest['rank']} (a = {largest['degree']})")
    if short:
        text += "; below bound at a = " + ", ".join(
            f"{b['degree']} ({b['rank']} < {b['bound']})" for b in short[:6])
        text += " ..." if len(short) > 6 else ""
    return text


def _describe_known(result: dict) -> str:
    """A rank read from the shipped atlas: its certificate and how to measure it again."""
    c = result["config"]
    certificate = {"proved": "= generic separation rank (meets an upper bound)",
                   "saturated": f"saturated; equality fails with probability <= "
                                f"{result['failure_probability'] or 0:.2e}",
                   "lower-bound": "certified LOWER BOUND only"}.get(result["certificate"],
                                                                     result["certificate"])
    return "\n".join([
        f"network      d={c['width']} L={c['depth']} H={c['heads']} N={c['tokens']} "
        f"rho={c['residual']}  P={c['p_positions']} Q={c['q_positions']} i={c['position']}",
        f"rank         {result['rank']}  (from the shipped atlas: {result['method']}, "
        f"GF({result['prime']}), seed {result['seed']}, grid {result['grid']}, measured in "
        f"{result['measured_seconds']:.3g} s by attndepth {result['version']})",
        f"certificate  {certificate}",
        "bounds       " + ", ".join(f"{k} {v}" for k, v in result["bounds"].items())
        + f"; rank/best {result['ratio']:.3f}",
        f"tight family {_tight(result)}",
        f"measure it   {result['command']}  (or add --recompute)",
    ])


def _tight(result: dict) -> str:
    from attndepth.rank.measure import tight_family_line

    return tight_family_line(result)


def _describe(result: dict) -> str:
    if result.get("source") == "atlas":
        return _describe_known(result)
    c = result["config"]
    lines = [
        f"network      d={c['width']} L={c['depth']} H={c['heads']} N={c['tokens']} "
        f"rho={c['residual']}  P={c['p_positions']} Q={c['q_positions']} i={c['position']}",
        f"rank         {result['rank']}  ({result['method']}"
        + (f", GF({result['prime']})" if result["prime"] else "") + ")",
        f"grids        {result['grid_p']} x {result['grid_q']} points"
        + (" (largest block)" if result["blocks"] else "")
        + f"; saturated: {result['saturated']} ({result['reason']})",
    ]
    if result["blocks"]:
        lines.append(_describe_blocks(result["blocks"], c["residual"]))
    if result["method"] == "torus":
        cfg = result["config"]
        lines[2] = (f"grids        {result['grid_p']} x {result['grid_q']} points per class "
                    f"(largest), {cfg['torus_classes']} classes (N = {cfg['torus_order']})")
    if result["method"] in ("exact", "blocks", "torus"):
        status = ("= generic separation rank (meets an upper bound)"
                  if result["reason"] == "upper-bound" else
                  "certified LOWER BOUND only: the parts of top degree (rho = 0's blocks) "
                  "stay below bound (d); --method exact measures the whole matrix"
                  if result["reason"] == "lower-bound" and result["method"] == "blocks" else
                  "certified LOWER BOUND only: the weights commute with rotations, "
                  "special weights whose rank may fall short of the generic one"
                  if result["reason"] == "lower-bound" else
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
    lines.append(f"tight family {_tight(result)}")
    if "verify" in result:
        v = result["verify"]
        lines.append(f"verify       seed {v['seed']}, GF({v['prime']}): rank {v['rank']} "
                     f"({'agrees' if v['agrees'] else 'DISAGREES'})")
    lines.append(f"seconds      {result['seconds']:.2f} (evaluation {result['eval_seconds']:.2f}, "
                 f"rank {result['rank_seconds']:.2f}); seed {result['seed']}")
    return "\n".join(lines)
