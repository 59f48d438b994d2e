"""``attndepth train``: train one small stack on associative recall and print its curves."""

from __future__ import annotations

import argparse
import math
import sys
import time

from attndepth.cli.options import add_settings, configure_from
from attndepth.cli.outputs import report_unsaved, unsaved_checkpoints
from attndepth.errors import InvalidParameter
from attndepth.framework.report import dumps, environment
from attndepth.simulations.models.stacks import StackConfig
from attndepth.simulations.sweeps.observables import TRAIN_STACK_SETTINGS
from attndepth.simulations.training.settings import TrainingSettings
from attndepth.simulations.training.tasks import RecallTask

#: The TrainingSettings ``attndepth train`` takes (it evaluates 256 sequences).
TRAIN_SETTINGS: tuple[str, ...] = ("steps", "batch", "learning_rate", "warmup",
                                   "evaluate_every")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train`` subcommand."""
    from attndepth.cli._parsing import examples, integer

    parser = sub.add_parser(
        "train", help="train one stack on associative recall (the train extra)",
        description="Train a model (embedding, the attention stack of the chosen variant, an "
                    "output head) on associative recall — k1 v1 … km vm q -> the value of q — "
                    "with Adam in float32, and print at each evaluation the training and "
                    "validation loss, the validation accuracy and the token similarity "
                    "t_sim of the last layer. Needs JAX and optax: pip install -e \".[train]\".",
        epilog=examples(
            "attndepth train --variant post-ln --depth 12 --width 32",
            "attndepth train --variant post-ln-deesc-a --tau 0.5 --depth 24 --width 32 --json",
            "attndepth train --variant pre-ln --depth 6 --width 16 --steps 200 --warmup 50",
            "attndepth train --variant post-ln --depth 48 --width 32 --steps 3000 "
            "--checkpoint run.npz"))
    add_settings(parser, StackConfig, TRAIN_STACK_SETTINGS, required=("variant", "depth",
                                                                      "width"),
                 defaults={"heads": 2})
    add_settings(parser, RecallTask, ("pairs",))
    add_settings(parser, TrainingSettings, TRAIN_SETTINGS)
    parser.add_argument("--seed", type=integer, default=0, metavar="SEED",
                        help="seed of the weights and the data (integer >= 0)")
    parser.add_argument("--checkpoint", metavar="FILE",
                        help="save the run at every evaluation to FILE; run the same command "
                             "again after a kill to resume from its last evaluation (with "
                             "other settings the file is refused)")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    task = RecallTask.standard(args.pairs)
    config = configure_from(StackConfig, args, tokens=task.length)
    settings = configure_from(TrainingSettings, args)
    try:
        from attndepth.simulations.training.jax_model import train

        start = time.perf_counter()
        with unsaved_checkpoints() as unsaved:  # a finished run is printed all the same
            record = train(config, task, settings, args.seed, checkpoint=args.checkpoint,
                           progress=sys.stderr.isatty())
    except ModuleNotFoundError as error:  # the train extra is not installed
        raise InvalidParameter(str(error)) from None
    result = {**record.as_dict(), "chance_loss": math.log(task.values),
              "seconds": time.perf_counter() - start, "environment": environment()}
    print(dumps(result) if args.json else _describe(result))
    return report_unsaved(unsaved)


def _describe(result: dict) -> str:
    c = result["config"]
    lines = [f"{c['variant']}: L={c['depth']} d={c['width']} H={c['heads']} tau={c['tau']}; "
             f"associative recall, {result['task']['pairs']} pairs (chance loss "
             f"{result['chance_loss']:.3f}); seed {result['seed']}",
             f"{'step':>6s} {'train loss':>10s} {'val loss':>9s} {'val acc':>8s} "
             f"{'t_sim last':>10s}"]
    for k, step in enumerate(result["steps"]):
        lines.append(f"{step:6d} {result['train_loss'][k]:10.4f} "
                     f"{result['validation_loss'][k]:9.4f} "
                     f"{result['validation_accuracy'][k]:8.3f} "
                     f"{result['t_sim_per_layer'][k][-1]:10.4f}")
    lines.append(f"seconds {result['seconds']:.2f}")
    return "\n".join(lines)
