"""``attndepth figures``: compute and draw the registered figures (PDF, PNG, CSV)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from attndepth.cli._parsing import EXIT_OK, examples, non_negative_int
from attndepth.cli.verify import check_figures
from attndepth.errors import InvalidParameter


def register(sub: Any) -> None:
    """Add ``figures`` to the subcommands."""
    from attndepth.framework.model import PRESETS

    figures = sub.add_parser(
        "figures", help="draw the figures (PDF, PNG and the CSV of their data)",
        description="Compute and draw each registered figure with the presets of the "
                    "claims it shows; write NAME.pdf, NAME.png and NAME.csv.",
        epilog=examples("attndepth figures --list",
                        "attndepth figures --only allocation --preset full",
                        "attndepth figures --claims my_claims.py --out figs",
                        "attndepth figures --store sweep.sqlite --out figs"))
    figures.add_argument("--out", default="figures-out", metavar="DIR",
                         help="output directory (created if missing); NAME.pdf, .png and .csv "
                              "there are replaced only if attndepth wrote them there and "
                              "nobody changed them since (its manifest), never through a "
                              "link")
    figures.add_argument("--only", action="append", metavar="NAME",
                         help="draw only this figure (repeatable; names: --list); "
                              "default: all")
    figures.add_argument("--preset", choices=PRESETS, default="quick",
                         help="sizes: the presets of the claims each figure shows")
    figures.add_argument("--seed", type=non_negative_int, default=0,
                         help="base seed (integer >= 0)")
    figures.add_argument("--store", metavar="FILE",
                         help="draw from a sweep store instead: t_sim vs depth (similarity "
                              "sweeps) or loss vs depth and t_sim per layer (training sweeps)")
    figures.add_argument("--claims", action="append", metavar="PATH_OR_MODULE",
                         help="load your claims and figures (@attndepth.figure) from a .py "
                              "file or module (repeatable); without --only, draw only theirs")
    figures.add_argument("--list", action="store_true",
                         help="list the figures with one line each and exit")
    figures.set_defaults(handler=cmd_figures)


def cmd_figures(args: argparse.Namespace) -> int:
    from attndepth.figures.registry import (
        all_figures,
        figure_files,
        write_figure,
        write_store_figure,
    )
    from attndepth.framework.registry import load_claims

    before = set(all_figures())
    loaded = [claim_id for source in args.claims or [] for claim_id in load_claims(source)]
    check_figures(loaded)
    theirs = [name for name in all_figures() if name not in before]
    if args.claims and not theirs and not args.only:
        raise InvalidParameter(f"{', '.join(args.claims)} registered no figure (decorate a "
                               f"compute function with @attndepth.figure)")
    if args.list:
        known = all_figures()
        width = max(len(name) for name in known)
        for name, module in known.items():
            print(f"{name:<{width}}  {module.DESCRIPTION}")
        return EXIT_OK
    if args.store:
        paths = write_store_figure(Path(args.store), Path(args.out))
        print(" ".join(str(p) for p in paths))
        return EXIT_OK
    names = args.only or theirs or list(all_figures())  # --claims alone: their figures
    known = all_figures()
    for name in names:
        if name not in known:
            raise InvalidParameter(f"unknown figure {name!r}; known: {', '.join(known)}")
    for name in names:  # every file is checked before the first figure is computed
        figure_files(name, Path(args.out))
    for name in names:
        paths = write_figure(name, Path(args.out), args.preset, args.seed)
        print(" ".join(str(p) for p in paths))
    return EXIT_OK
