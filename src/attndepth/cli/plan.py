"""``attndepth plan``: the depth-to-width rule of Levine et al. 2020 (docs/theory.md §2)."""

from __future__ import annotations

import argparse
import math

from attndepth.errors import InvalidParameter
from attndepth.framework.report import dumps, environment
from attndepth.theory.depth_width import (
    FIT_INTERCEPT,
    FIT_SLOPE,
    AllocationFit,
    Plan,
    judge_shape,
    plan_for_budget,
    plan_for_width,
)


def _depth(depth: float) -> str:
    """A depth for the text report: one decimal, or 4 significant digits when it is too
    large to read that way (a fit far from the paper's)."""
    return f"{depth:.1f}" if depth < 1e7 else f"{depth:.4g}"


def _float(text: str) -> float:
    if not text.isascii() or "_" in text:
        raise argparse.ArgumentTypeError(f"expected a number (ASCII), got {text!r}")
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``plan`` subcommand."""
    from attndepth.cli._parsing import examples

    plan = sub.add_parser(
        "plan", help="optimal depth/width from Levine et al.'s rule",
        description="The depth-to-width rule ln d_opt = a + b L of Levine et al. 2020 (§5): "
                    "the optimal shape at a parameter budget (12 L d^2), the optimal depth "
                    "for a width, or a verdict on a given shape. Give exactly one of "
                    "--params, --width, --depth with --width, or --zoo.",
        epilog=examples("attndepth plan --params 175e9",
                        "attndepth plan --depth 96 --width 12288",
                        "attndepth plan --zoo --json"))
    plan.add_argument("--params", type=_float, metavar="P",
                      help="parameter budget (number > 0): optimal depth and width")
    plan.add_argument("--width", type=_float, metavar="D",
                      help="width (number > 0): optimal depth for it; with --depth: a verdict")
    plan.add_argument("--depth", type=_float, metavar="L",
                      help="depth (number > 0), together with --width")
    plan.add_argument("--zoo", action="store_true",
                      help="verdicts for well-known published models")
    plan.add_argument("--fit-intercept", type=_float, default=FIT_INTERCEPT, metavar="A",
                      help="a in ln d_opt = a + b L (any finite number)")
    plan.add_argument("--fit-slope", type=_float, default=FIT_SLOPE, metavar="B",
                      help="b in ln d_opt = a + b L (number > 0)")
    plan.add_argument("--json", action="store_true", help="one JSON document on stdout")
    plan.set_defaults(handler=run)


def _mode(args: argparse.Namespace) -> str:
    given = {name for name in ("params", "width", "depth") if getattr(args, name) is not None}
    if args.zoo and not given:
        return "zoo"
    modes = {frozenset({"params"}): "params", frozenset({"width"}): "width",
             frozenset({"depth", "width"}): "shape"}
    mode = modes.get(frozenset(given))
    if mode is None or args.zoo:
        raise InvalidParameter("plan takes exactly one of: --params P | --width D | "
                               "--depth L --width D | --zoo")
    return mode


def _describe(plan: Plan) -> str:
    lines = [
        f"parameters (12 L d^2)   {plan.params:.4g}",
        f"optimal depth L_opt     {_depth(plan.depth_opt)}",
        f"optimal width d_opt     {plan.width_opt:,.0f}",
        f"threshold log_3 d       {plan.threshold_depth:.2f}",
    ]
    if plan.verdict is not None:
        lines[1:3] = [
            f"shape L x d             {plan.depth:g} x {plan.width:,.0f}",
            f"L_opt at this width     {_depth(plan.depth_opt)}",
        ]
        lines += [
            f"ratio L / L_opt(d)      {plan.ratio:.2f}",
            f"verdict                 {plan.verdict}",
        ]
        if plan.alternative_depth is not None:
            lines.append(f"same budget, optimal    {_depth(plan.alternative_depth)} x "
                         f"{plan.alternative_width:,.0f}")
        else:
            lines.append("same budget, optimal    (budget below one optimal layer)")
    return "\n".join(lines)


def _zoo_table(rows: list) -> str:
    header = (f"{'model':18s} {'L':>4s} {'d':>6s} {'params':>8s} {'L_opt(d)':>8s} "
              f"{'ratio':>5s}  {'budget-optimal L x d':>20s}  verdict")
    lines = [header, "-" * len(header)]
    for model, plan in rows:
        alternative = (f"{plan.alternative_depth:8.1f} x {plan.alternative_width:9,.0f}"
                       if plan.alternative_depth is not None else f"{'(below one layer)':>20s}")
        lines.append(
            f"{model.name:18s} {model.layers:4d} {model.width:6d} {model.params:8.3g} "
            f"{plan.depth_opt:8.1f} {plan.ratio:5.2f}  {alternative}  {plan.verdict}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Answer the question the flags ask."""
    fit = AllocationFit(args.fit_intercept, args.fit_slope)
    mode = _mode(args)
    if mode == "zoo":
        from attndepth.theory.zoo import zoo_verdicts

        rows = zoo_verdicts(fit)
        if args.json:
            print(dumps([{"model": m.name, "layers": m.layers, "width": m.width,
                          "published_params": m.params, "source": m.source,
                          **p.as_dict()} for m, p in rows]))
        else:
            print(_zoo_table(rows))
        return 0
    if mode == "params":
        plan = plan_for_budget(args.params, fit)
    elif mode == "width":
        plan = plan_for_width(args.width, fit)
    else:
        plan = judge_shape(args.depth, args.width, fit)
    if args.json:
        print(dumps({**plan.as_dict(), "fit": {"intercept": fit.intercept, "slope": fit.slope},
                     "environment": environment()}))
    else:
        print(_describe(plan))
    return 0
